// Package findcheck measures findability as the kit's search-check.py does
// (../shared/kit/scripts/search-check.py): it asks a search for the titles
// of known pages, exactly as written, and scores the top 10 against exact
// ground truth — whether the page, or a copy of it, is found, and whether
// the pages a crawl kept out of the index are still found by their own
// title and by a line of their own text.
//
// The definitions are the script's, line for line: the pages asked
// ([Check]), known_item, known_item_self, exact, redundant, hidden,
// hidden_self and hidden_diff ([Result]). Only the draw differs: the script
// samples with Python's random.Random(seed), Check with a PCG of the same
// seed, so the two ask different titles of the same population.
//
// A search is a [Searcher]: the web JSON API of a running server ([HTTP]),
// a web handler in the same process ([Handler]), or a ranking.Searcher
// ([Ranking]). Check asks one query at a time; a Searcher need not be safe
// for concurrent use.
package findcheck

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/doppel-search/doppel/dedup/eval"
)

// A Doc is a page of the site's ground truth, a line of the kit's
// site.jsonl.
type Doc struct {
	ID    string `json:"id"` // the URL path
	Title string `json:"title"`
	Text  string `json:"text"` // main text, lines separated by "\n"
}

// An Entry is what a crawl says of a URL, a line of `doppel export`; only
// the fields Check reads.
type Entry struct {
	URL     string `json:"url"`
	Status  string `json:"status"`
	Master  string `json:"master,omitempty"`
	Indexed bool   `json:"indexed"`
}

// A Searcher answers a query with the URLs (or URL paths) of its top hits,
// best first. acceptLanguage is sent as the Accept-Language header, if not
// empty.
type Searcher interface {
	Search(ctx context.Context, query, acceptLanguage string) ([]string, error)
}

// Options are the script's arguments and environment.
type Options struct {
	// N is how many titles are asked, and how many hidden pages. Default
	// 300.
	N int
	// Seed draws them. Default 1.
	Seed uint64
	// Prefix asks only for pages whose id starts with it (PREFIX).
	// Default "": every page.
	Prefix string
	// AcceptLanguage is sent with every query (ACCEPT_LANGUAGE). Default
	// "": no header.
	AcceptLanguage string
	// Export is the crawl's export (EXPORT.jsonl). Default nil: no hidden
	// measures.
	Export []Entry
}

// Result holds the script's figures and, beyond them, the queries missed.
type Result struct {
	Queries, Errors int
	// KnownItem is the share of queries whose page, or a copy of it
	// (resemblance ≥ 0.9), is in the top 10; KnownItemSelf of those whose
	// page itself, or a copy with the very same title, is; Exact of those
	// whose page itself (that URL) is.
	KnownItem, KnownItemSelf, Exact float64
	// Redundant counts top-10 lists holding two pages that are copies of
	// each other.
	Redundant int
	// P50 and P99 are the latencies' percentiles.
	P50, P99 time.Duration
	// With an export: Hidden is how many pages asked about (those whose
	// title names them, under Prefix) the crawl fetched and kept out of
	// the index, HiddenAsked how many of them were asked (at most N),
	// HiddenSelf the share of those found as KnownItemSelf counts;
	// HiddenDiff is, for the HiddenDiffOf of them that have a line of
	// text their master lacks, the share whose line (its first 12 words)
	// finds a page holding it in the top 10.
	HasExport                       bool
	Hidden, HiddenAsked             int
	HiddenSelf, HiddenDiff          float64
	HiddenDiffOf                    int
	MissedSelf, MissedExact         []Miss // titles asked that KnownItemSelf, Exact did not find
	MissedHidden, MissedHiddenLines []Miss // hidden pages not found by title, by line
	RedundantLists                  []Miss // the queries whose lists were redundant
}

// A Miss is a query that did not find its page: the page, what was asked
// and the top hits (URL paths).
type Miss struct {
	ID, Query string
	Hits      []string
}

// String is the script's line: "queries=300 errors=0 known_item=0.990 …".
func (r Result) String() string {
	s := fmt.Sprintf("queries=%d errors=%d known_item=%.3f known_item_self=%.3f exact=%.3f redundant=%d p50_ms=%.1f p99_ms=%.1f",
		r.Queries, r.Errors, r.KnownItem, r.KnownItemSelf, r.Exact, r.Redundant, ms(r.P50), ms(r.P99))
	if r.HasExport {
		s += fmt.Sprintf(" hidden=%d hidden_self=%.3f hidden_diff=%.3f (of %d)", r.Hidden, r.HiddenSelf, r.HiddenDiff, r.HiddenDiffOf)
	}
	return s
}

func ms(d time.Duration) float64 {
	if d < 0 {
		return -1
	}
	return float64(d) / float64(time.Millisecond)
}

// Check asks s for the titles of up to N pages of docs whose title names
// them — no other page has it, except copies of the page (resemblance ≥
// 0.9 in truth) — and, with an export, for up to N of them that the crawl
// kept out of the index, and scores the answers. An answer that fails
// counts in Errors (and as not found), as in the script; Check fails only
// if ctx is done.
//
// Cost: 2N queries at most, plus one per hidden page with a line of its
// own; O(pages + pairs) besides.
func Check(ctx context.Context, s Searcher, docs []Doc, truth *eval.Truth, opts Options) (Result, error) {
	n := opts.N
	if n == 0 {
		n = 300
	}
	seed := opts.Seed
	if seed == 0 {
		seed = 1
	}
	c := newChecker(ctx, s, docs, truth, opts.AcceptLanguage)
	named := c.named(docs, opts.Prefix)
	rnd := rand.New(rand.NewPCG(seed, 0))
	if err := c.askTitles(sample(rnd, named, n)); err != nil {
		return c.r, err
	}
	if opts.Export != nil {
		hidden, master := hiddenPages(named, opts.Export)
		asked := sample(rnd, hidden, n)
		c.r.HasExport = true
		if err := c.askHidden(asked); err != nil {
			return c.r, err
		}
		c.r.Hidden = len(hidden)
		c.askHiddenLines(asked, master)
	}
	c.r.P50, c.r.P99 = c.percentiles()
	return c.r, ctx.Err()
}

// A checker asks one Check's queries and keeps its result: the truth it
// scores against (near, title and text by page id) and each answer's
// latency.
type checker struct {
	ctx            context.Context
	s              Searcher
	acceptLanguage string
	near           map[string]map[string]bool // copies (resemblance ≥ 0.9) of each page
	byTitle        map[string][]string        // the pages of each title
	title, text    map[string]string
	r              Result
	lat            []time.Duration
}

// newChecker indexes the truth: each page's copies, title and text.
func newChecker(ctx context.Context, s Searcher, docs []Doc, truth *eval.Truth, acceptLanguage string) *checker {
	c := &checker{ctx: ctx, s: s, acceptLanguage: acceptLanguage,
		near: map[string]map[string]bool{}, byTitle: map[string][]string{},
		title: map[string]string{}, text: map[string]string{}}
	for _, p := range truth.Pairs() {
		if p.Jaccard >= 0.9 {
			add(c.near, p.A, p.B)
			add(c.near, p.B, p.A)
		}
	}
	for _, d := range docs {
		if d.Title != "" {
			c.byTitle[d.Title] = append(c.byTitle[d.Title], d.ID)
		}
		c.title[d.ID], c.text[d.ID] = d.Title, d.Text
	}
	return c
}

// named returns the pages under prefix whose title names them: no other
// page has it, except copies of the page.
func (c *checker) named(docs []Doc, prefix string) []Doc {
	var named []Doc
	for _, d := range docs {
		if d.Title == "" || !strings.HasPrefix(d.ID, prefix) {
			continue
		}
		if !slices.ContainsFunc(c.byTitle[d.Title], func(o string) bool { return o != d.ID && !c.near[d.ID][o] }) {
			named = append(named, d)
		}
	}
	return named
}

// ask returns the URL paths of q's top 10 hits, and false if the search
// failed (counted in Errors).
func (c *checker) ask(q string) ([]string, bool) {
	t := time.Now()
	hits, err := c.s.Search(c.ctx, q, c.acceptLanguage)
	if err != nil {
		c.r.Errors++
		return nil, false
	}
	c.lat = append(c.lat, time.Since(t))
	if len(hits) > 10 {
		hits = hits[:10]
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = Path(h)
	}
	return out, true
}

// itself reports whether hits hold d or a copy of it with its very title.
func (c *checker) itself(d Doc, hits []string) bool {
	return slices.ContainsFunc(hits, func(h string) bool { return h == d.ID || c.near[d.ID][h] && c.title[h] == d.Title })
}

// askTitles asks the title of each of qs and scores KnownItem,
// KnownItemSelf, Exact and Redundant.
func (c *checker) askTitles(qs []Doc) error {
	found, foundSelf, exact := 0, 0, 0
	for _, d := range qs {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		hits, ok := c.ask(d.Title)
		if !ok {
			continue
		}
		for i, a := range hits {
			if slices.ContainsFunc(hits[i+1:], func(b string) bool { return c.near[a][b] }) {
				c.r.Redundant++
				c.r.RedundantLists = append(c.r.RedundantLists, Miss{d.ID, d.Title, hits})
				break
			}
		}
		if slices.ContainsFunc(hits, func(h string) bool { return h == d.ID || c.near[d.ID][h] }) {
			found++
		}
		if c.itself(d, hits) {
			foundSelf++
		} else {
			c.r.MissedSelf = append(c.r.MissedSelf, Miss{d.ID, d.Title, hits})
		}
		if slices.Contains(hits, d.ID) {
			exact++
		} else {
			c.r.MissedExact = append(c.r.MissedExact, Miss{d.ID, d.Title, hits})
		}
	}
	c.r.Queries = len(qs)
	q := float64(max(len(qs), 1))
	c.r.KnownItem, c.r.KnownItemSelf, c.r.Exact = float64(found)/q, float64(foundSelf)/q, float64(exact)/q
	return nil
}

// hiddenPages returns the named pages the export says were fetched and
// kept out of the index, and the master's path of every exported path
// (the path itself if it has none).
func hiddenPages(named []Doc, export []Entry) (hidden []Doc, master map[string]string) {
	byID := map[string]Doc{}
	for _, d := range named {
		byID[d.ID] = d
	}
	master = map[string]string{}
	for _, e := range export {
		m := e.Master
		if m == "" {
			m = e.URL
		}
		master[Path(e.URL)] = Path(m)
		if d, ok := byID[Path(e.URL)]; ok && e.Status == "fetched" && !e.Indexed {
			hidden = append(hidden, d)
		}
	}
	return hidden, master
}

// askHidden asks the title of each hidden page asked and scores
// HiddenAsked and HiddenSelf.
func (c *checker) askHidden(asked []Doc) error {
	hs := 0
	for _, d := range asked {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		hits, _ := c.ask(d.Title)
		if c.itself(d, hits) {
			hs++
		} else {
			c.r.MissedHidden = append(c.r.MissedHidden, Miss{d.ID, d.Title, hits})
		}
	}
	c.r.HiddenAsked = len(asked)
	c.r.HiddenSelf = 1
	if len(asked) > 0 {
		c.r.HiddenSelf = float64(hs) / float64(len(asked))
	}
	return nil
}

// askHiddenLines asks, for each hidden page asked, the text it has and
// its master lacks — its longest such line, as words — and scores
// HiddenDiffOf and HiddenDiff.
func (c *checker) askHiddenLines(asked []Doc, master map[string]string) {
	hd, of := 0, 0
	for _, d := range asked {
		own := ownLine(d.Text, c.text[master[d.ID]])
		if own == "" {
			continue
		}
		of++
		words := strings.Fields(own)
		line := strings.Join(words[:min(12, len(words))], " ")
		hits, _ := c.ask(line)
		if slices.ContainsFunc(hits, func(h string) bool { return strings.Contains(strings.Join(strings.Fields(c.text[h]), " "), line) }) {
			hd++
		} else {
			c.r.MissedHiddenLines = append(c.r.MissedHiddenLines, Miss{d.ID, line, hits})
		}
	}
	c.r.HiddenDiffOf, c.r.HiddenDiff = of, 1
	if of > 0 {
		c.r.HiddenDiff = float64(hd) / float64(of)
	}
}

// ownLine returns text's longest line of at least six words that
// masterText lacks, or "" if it has none.
func ownLine(text, masterText string) string {
	mt := map[string]bool{}
	for _, l := range strings.Split(masterText, "\n") {
		mt[strings.TrimSpace(l)] = true
	}
	own, longest := "", -1
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !mt[l] && len(strings.Fields(l)) >= 6 && utf8.RuneCountInString(l) > longest {
			own, longest = l, utf8.RuneCountInString(l)
		}
	}
	return own
}

// percentiles returns the answers' latency at the 50th and 99th
// percentile, -1 ms if none was answered.
func (c *checker) percentiles() (p50, p99 time.Duration) {
	slices.Sort(c.lat)
	pct := func(q float64) time.Duration {
		if len(c.lat) == 0 {
			return -time.Millisecond
		}
		return c.lat[min(len(c.lat)-1, int(float64(len(c.lat))*q))]
	}
	return pct(0.5), pct(0.99)
}

func add(m map[string]map[string]bool, a, b string) {
	if m[a] == nil {
		m[a] = map[string]bool{}
	}
	m[a][b] = true
}

// sample returns k of docs (all if fewer) drawn without replacement, in
// the order drawn.
func sample(rnd *rand.Rand, docs []Doc, k int) []Doc {
	pool := slices.Clone(docs)
	k = min(k, len(pool))
	for i := range k {
		j := i + rnd.IntN(len(pool)-i)
		pool[i], pool[j] = pool[j], pool[i]
	}
	return pool[:k]
}

// Path is the path of a URL as the script reads it: what follows the host,
// "/" included; a string without "://" is returned as it is.
func Path(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	_, p, _ := strings.Cut(rest, "/")
	return "/" + p
}

// ReadSite reads a site.jsonl: one Doc a line.
func ReadSite(r io.Reader) ([]Doc, error) { return readJSONL[Doc](r) }

// ReadExport reads `doppel export`'s lines.
func ReadExport(r io.Reader) ([]Entry, error) { return readJSONL[Entry](r) }

func readJSONL[T any](r io.Reader) ([]T, error) {
	var out []T
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("findcheck: line %d: %w", len(out)+1, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

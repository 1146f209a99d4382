// Package servedata builds a crawl's data directory — the one `doppel
// serve --data DIR` opens: crawl.json, pages.db, frontier.db and index/ —
// from a JSONL corpus and the clusters `doppel dedup` found in it, without
// fetching anything. It writes through the crawler's own stores, as the
// crawl's committer does: a page record per document (crawler/pages, with
// its cluster and, per cluster, its master), the URL marked done in the
// frontier (crawler/frontier), and the document added to the search index
// at its placement (package indexer, the crawl's policy: under Skip a
// near-duplicate is left out with its difference record), records
// committed before the index batch that holds them is flushed, and the
// index watermark recorded after it. It is how the serving benchmarks get
// an index of a million pages, which crawling over HTTP would take hours
// to build (see docs/measurements.md, "Serving an index of 1M pages").
//
// What a corpus line lacks is made up, deterministically from its id:
// the URL (one of Options.Hosts hosts, one of Options.Sections sections:
// http://host3.intra.example/s17/ID.html), the title when the line has
// none (its text's first line), the last-modified date (spread over the
// three years before the build; one page in ten undated) and, for the
// pages of the last host, the access group "staff" (a rule of the crawl's
// options, as `doppel crawl --config` would give it). The blocks are the
// text's lines; the language is detected from the text, as the crawler
// does for a page that declares none.
package servedata

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/frontier"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/jsonl"
	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/page"
)

// Options say what to build.
type Options struct {
	// Docs is the corpus: JSONL {"id", "text"[, "url", "title"]}, gzip
	// allowed (package jsonl). Required.
	Docs string
	// Clusters is `doppel dedup --out`'s file for Docs: {"id",
	// "cluster", "master"} per document, in the corpus's order, each
	// master before its members (the default master policy, "first").
	// Empty: every document is its own cluster.
	Clusters string
	// Dir is the data directory to create; it must not exist yet.
	// Required.
	Dir string
	// Policy is the crawl's policy for near-duplicates. Default Skip.
	Policy indexer.Policy
	// Hosts and Sections are how many hosts and site sections the made-up
	// URLs spread over. Defaults 10 and 50.
	Hosts, Sections int
	// Limit stops after this many documents; 0: all.
	Limit int
	// Group is the pages committed, and flushed to the index, together.
	// Default 1000 (the crawler's flush interval).
	Group int
	// Progress, if set, gets a line every 50,000 documents.
	Progress io.Writer
	// Now is the time the crawl is dated at. Default time.Now().
	Now time.Time
	// Settle is how long the index's background merging must have been
	// idle before Build returns (at most 10 minutes). Default 10s.
	Settle time.Duration
}

// Stats say what was built.
type Stats struct {
	Docs     int // documents read and recorded
	Clusters int // clusters
	Copies   int // documents in another's cluster
	Indexed  int // documents in the index (masters, and copies the policy keeps)
	Segments int // index segments once merging had settled
}

// Host returns the made-up host of the i-th of n hosts.
func Host(i int) string { return fmt.Sprintf("host%d.intra.example", i) }

// RestrictedGroup is the access group of the last host's pages.
const RestrictedGroup = "staff"

// URLFor returns the made-up URL of the document id.
func (o Options) URLFor(id string) string {
	h := xxhash.Sum64String(id)
	return fmt.Sprintf("http://%s/s%02d/%s.html", Host(int(h%uint64(o.Hosts))), int(h/uint64(o.Hosts)%uint64(o.Sections)), id)
}

func (o *Options) ensureDefaults() {
	if o.Hosts <= 0 {
		o.Hosts = 10
	}
	if o.Sections <= 0 {
		o.Sections = 50
	}
	if o.Group <= 0 {
		o.Group = 1000
	}
	if o.Settle <= 0 {
		o.Settle = 10 * time.Second
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Second)
}

// placement is a document's line of the clusters file.
type placement struct {
	Cluster string `json:"cluster"`
	Master  string `json:"master"`
}

// readClusters reads a clusters file: id → its cluster and master.
func readClusters(path string) (map[string]placement, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]placement{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l struct {
			ID string `json:"id"`
			placement
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, n, err)
		}
		out[l.ID] = l.placement
	}
	return out, sc.Err()
}

// Build builds the data directory o.Dir.
func Build(ctx context.Context, o Options) (Stats, error) {
	o.ensureDefaults()
	if o.Docs == "" || o.Dir == "" {
		return Stats{}, errors.New("servedata: Docs and Dir are required")
	}
	if _, err := os.Stat(o.Dir); err == nil {
		return Stats{}, fmt.Errorf("servedata: %s exists", o.Dir)
	}
	clusters := map[string]placement{}
	if o.Clusters != "" {
		var err error
		if clusters, err = readClusters(o.Clusters); err != nil {
			return Stats{}, fmt.Errorf("servedata: %w", err)
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return Stats{}, err
	}
	if err := writeOptions(o); err != nil {
		return Stats{}, err
	}
	b, err := open(o)
	if err != nil {
		return Stats{}, err
	}
	st, err := b.run(ctx, clusters)
	return st, errors.Join(err, b.close())
}

// writeOptions writes crawl.json as a crawl with these settings saves
// it, and checks that the crawler reads it back.
func writeOptions(o Options) error {
	opts := crawler.Options{Seeds: []string{"http://" + Host(0) + "/"}, Policy: o.Policy,
		Groups: []crawler.GroupRule{{Prefix: "http://" + Host(o.Hosts-1) + "/", Groups: []string{RestrictedGroup}}}}
	opts.EnsureDefaults()
	data, err := json.MarshalIndent(opts, "", "  ")
	if err != nil {
		return err
	}
	if _, err := crawler.ParseConfig(data); err != nil {
		return fmt.Errorf("servedata: crawl.json: %w", err)
	}
	return os.WriteFile(filepath.Join(o.Dir, "crawl.json"), append(data, '\n'), 0o644)
}

// builder holds the stores being written.
type builder struct {
	o     Options
	front *frontier.Frontier
	pages *pages.Store
	index *indexer.Index
	st    Stats
	url   map[string]string // document id → URL, of masters seen
	cid   map[string]string // dedup's cluster → the crawl's (cluster.IDFor of its first page)
}

func open(o Options) (*builder, error) {
	b := &builder{o: o, url: map[string]string{}, cid: map[string]string{}}
	var err error
	if b.front, err = frontier.Open(filepath.Join(o.Dir, "frontier.db"), frontier.Options{NoSync: true}); err != nil {
		return nil, err
	}
	if b.pages, err = pages.Open(filepath.Join(o.Dir, "pages.db"), pages.Options{NoSync: true}); err != nil {
		b.front.Close()
		return nil, err
	}
	if b.index, err = indexer.Open(filepath.Join(o.Dir, "index"), indexer.Options{Policy: o.Policy, NoAutoFlush: true}); err != nil {
		b.front.Close()
		b.pages.Close()
		return nil, err
	}
	return b, nil
}

func (b *builder) close() error {
	return errors.Join(b.index.Close(), b.pages.Close(), b.front.Close())
}

// run reads the corpus and writes every document.
func (b *builder) run(ctx context.Context, clusters map[string]placement) (Stats, error) {
	f, err := os.Open(b.o.Docs)
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	r, err := jsonl.NewReader(f)
	if err != nil {
		return Stats{}, err
	}
	g := b.newGroup()
	for b.o.Limit == 0 || b.st.Docs < b.o.Limit {
		if err := ctx.Err(); err != nil {
			return b.st, err
		}
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return b.st, err
		}
		if err := b.add(ctx, rec, clusters, g.batch, g.fb); err != nil {
			return b.st, err
		}
		if g.batch.Len() >= b.o.Group {
			if err := g.flush(); err != nil {
				return b.st, err
			}
		}
		if b.o.Progress != nil && b.st.Docs%50000 == 0 {
			fmt.Fprintf(b.o.Progress, "servedata: %d documents\n", b.st.Docs)
		}
	}
	if err := g.finish(); err != nil {
		return b.st, err
	}
	return b.settled(ctx)
}

// A group is the documents being added since the last flush: their
// records and frontier entries, and the index write of the group before,
// still in progress.
type group struct {
	b     *builder
	batch *pages.Batch
	fb    *frontier.Batch
	wait  func() error // waits for the index write in progress and stores its watermark
}

func (b *builder) newGroup() *group {
	return &group{b: b, batch: &pages.Batch{}, fb: &frontier.Batch{}, wait: func() error { return nil }}
}

// flush commits the group's records, then its frontier entries, then,
// once the group before is in the index, starts writing its own.
func (g *group) flush() error {
	b := g.b
	stored, err := b.pages.Commit(g.batch) // records first, as the crawler commits them
	if err != nil {
		return err
	}
	if _, err := b.front.Commit(g.fb); err != nil {
		return err
	}
	if err := g.wait(); err != nil { // the group before is in the index
		return err
	}
	done := b.index.FlushAsync()
	rev := stored[len(stored)-1].Rev
	g.wait = func() error {
		if err := done(); err != nil {
			return err
		}
		return b.pages.SetIndexedThrough(rev)
	}
	g.batch, g.fb = &pages.Batch{}, &frontier.Batch{}
	return nil
}

// finish flushes what is left and waits until it is in the index.
func (g *group) finish() error {
	if g.batch.Len() > 0 {
		if err := g.flush(); err != nil {
			return err
		}
	}
	return g.wait()
}

// settled counts clusters and indexed documents and lets the index's
// segments settle.
func (b *builder) settled(ctx context.Context) (Stats, error) {
	b.st.Clusters = len(b.cid)
	var err error
	if b.st.Indexed, err = b.index.Indexed(); err != nil {
		return b.st, err
	}
	b.st.Segments = settle(ctx, b.index, b.o.Settle, b.o.Progress)
	return b.st, nil
}

// add records and indexes one document.
func (b *builder) add(ctx context.Context, rec jsonl.Record, clusters map[string]placement, batch *pages.Batch, fb *frontier.Batch) error {
	u := rec.URL
	if u == "" {
		u = b.o.URLFor(rec.ID)
	}
	lines := blocks(rec.Text)
	title := rec.Title
	if title == "" && len(lines) > 0 {
		title = lines[0]
	}
	h := xxhash.Sum64String(rec.ID)
	p := page.Page{URL: u, Host: hostOf(u), Title: title, Tagged: title, Blocks: lines, Text: strings.Join(lines, "\n\n"),
		Lang: lang.Of(u, rec.Text)}
	if h%10 != 0 {
		p.LastModified = b.o.Now.Add(-time.Duration(h>>8%(3*365*24*3600)) * time.Second)
	}
	if strings.HasPrefix(u, "http://"+Host(b.o.Hosts-1)+"/") {
		p.Groups = []string{RestrictedGroup}
	}
	// Where the detector put it: the crawl names a cluster after its
	// first page, its master under the policy "first".
	pl := indexer.Placement{ID: u, Master: u}
	c, ok := clusters[rec.ID]
	if !ok || c.Master == rec.ID {
		if ok {
			b.url[rec.ID] = u
		}
		pl.Cluster = string(cluster.IDFor(u))
		if ok {
			if _, seen := b.cid[c.Cluster]; seen {
				return fmt.Errorf("servedata: %s masters cluster %s, which has members before it", rec.ID, c.Cluster)
			}
			b.cid[c.Cluster] = pl.Cluster
		} else {
			b.cid["doc:"+rec.ID] = pl.Cluster
		}
	} else {
		mu, seen := b.url[c.Master]
		if !seen || b.cid[c.Cluster] == "" {
			return fmt.Errorf("servedata: %s comes before its master %s", rec.ID, c.Master)
		}
		pl.Cluster, pl.Master, pl.Duplicate = b.cid[c.Cluster], mu, true
		b.st.Copies++
	}
	r := pages.Record{Page: p, Status: pages.Fetched, FetchedAt: b.o.Now, Cluster: pl.Cluster,
		Hash: xxhash.Sum64String(p.Title + "\x00" + p.Text)}
	batch.Put(r)
	if pl.Master == u {
		batch.SetMaster(pl.Cluster, u)
	}
	fb.Add(u, 10, nil)
	fb.Done(u, "fetched")
	// The index document, as hook.IndexDoc makes it of a page with no
	// anchor texts and no site template.
	d := indexer.Doc{ID: u, URL: u, Host: p.Host, Title: p.Title, Body: p.Text, LastModified: p.LastModified,
		Groups: p.Groups, Lang: p.Lang}
	b.st.Docs++
	return b.index.Add(ctx, d, pl)
}

// blocks returns the text's non-blank lines, trimmed.
func blocks(text string) []string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func hostOf(u string) string {
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		rest, _ = strings.CutPrefix(u, "https://")
	}
	h, _, _ := strings.Cut(rest, "/")
	return h
}

// settle waits until the index's background merging and persisting
// have settled — idle and the segments unchanged for idle, or 10 minutes
// in all — as they would have during a crawl that took its time, and
// returns the number of segments left.
func settle(ctx context.Context, ix *indexer.Index, idle time.Duration, progress io.Writer) int {
	state := func() (int, bool) {
		s, ok := ix.Bleve().StatsMap()["index"].(map[string]any)
		if !ok {
			return -1, false
		}
		n, _ := s["TotFileSegmentsAtRoot"].(uint64)
		busy, _ := s["index_bgthreads_active"].(bool)
		return int(n), busy
	}
	n, busy := state()
	quiet := time.Now()
	for start := time.Now(); busy || time.Since(quiet) < idle; {
		if time.Since(start) > 10*time.Minute {
			break
		}
		select {
		case <-ctx.Done():
			return n
		case <-time.After(min(idle/4, time.Second)):
		}
		k, b := state()
		if k != n || b {
			quiet = time.Now()
			if progress != nil && k != n {
				fmt.Fprintf(progress, "servedata: %d segments, merging\n", k)
			}
		}
		n, busy = k, b
	}
	return n
}

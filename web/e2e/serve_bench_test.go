package e2e

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/indexer"
)

// A served is a `doppel serve` process and how long it took to be ready.
type served struct {
	cmd    *exec.Cmd
	once   sync.Once
	base   string        // http://127.0.0.1:PORT
	listen time.Duration // from the process's start to its "Search UI" line
	health time.Duration // … to the first 200 of /healthz
	search time.Duration // … to the first 200 of /api/search
}

// startServe starts `bin serve --data dir` on a free port and measures
// how long it takes, from the process's start, to answer /healthz and
// then a search for query (polled every 2 ms).
func startServe(b *testing.B, bin, dir, query string) *served {
	b.Helper()
	cmd := exec.Command(bin, "serve", "--data", dir, "--addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	s := &served{cmd: cmd}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Search UI: "); ok {
			s.listen = time.Since(start)
			s.base = strings.TrimSuffix(strings.Fields(rest)[0], "/")
			break
		}
	}
	if s.base == "" {
		s.stop()
		b.Fatalf("%s serve --data %s printed no address", bin, dir)
	}
	go io.Copy(io.Discard, out)
	client := &http.Client{Timeout: 30 * time.Second}
	poll := func(u string) time.Duration {
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
			if resp, err := client.Get(u); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return time.Since(start)
				}
			}
		}
		s.stop()
		b.Fatalf("%s: not ready after 2 minutes", u)
		return 0
	}
	s.health = poll(s.base + "/healthz")
	s.search = poll(s.base + "/api/search?q=" + url.QueryEscape(query))
	return s
}

// stop stops the process as Ctrl-C does.
func (s *served) stop() {
	s.once.Do(func() {
		s.cmd.Process.Signal(syscall.SIGINT)
		s.cmd.Wait()
	})
}

// rss returns the process's resident memory in bytes (/proc/PID/status):
// VmRSS, VmHWM (its peak), RssAnon (the heap and stacks) and RssFile (the
// index files mapped).
func (s *served) rss() map[string]int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return nil
	}
	out := map[string]int64{}
	for l := range strings.SplitSeq(string(data), "\n") {
		var name string
		var kb int64
		if _, err := fmt.Sscanf(l, "%s %d kB", &name, &kb); err == nil {
			out[strings.TrimSuffix(name, ":")] = kb << 10
		}
	}
	return out
}

// errTimeout is a search the server stopped at its deadline (503).
var errTimeout = errors.New("503: the search took too long")

// A benchQuery is a query and what kind it is: "words" (one to three
// words in a row of a document's text) or "title" (a document's title,
// as known-item searches paste it, with the document's cluster: found if
// a hit of the first page is in it).
type benchQuery struct{ q, kind, cluster string }

// sampleQueries draws n documents at random from the index (their URLs
// from the url field's terms) and makes of each a query of each kind;
// the first 2·warm of them are for warming up.
func sampleQueries(b *testing.B, ix *indexer.Index, n int, seed uint64) []benchQuery {
	b.Helper()
	dict, err := ix.Bleve().FieldDict(indexer.FieldURL)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	var urls []string // a reservoir sample, 4n for the documents not in the index as a whole
	seen := 0
	for {
		e, err := dict.Next()
		if err != nil {
			b.Fatal(err)
		}
		if e == nil {
			break
		}
		seen++
		if len(urls) < 4*n {
			urls = append(urls, e.Term)
		} else if k := rng.IntN(seen); k < len(urls) {
			urls[k] = e.Term
		}
	}
	dict.Close()
	var out []benchQuery
	for _, u := range urls {
		d, err := ix.Document(u)
		if err != nil {
			b.Fatal(err)
		}
		if d == nil || d.Title == "" || len(d.Groups) > 0 {
			continue // a difference record, or not for the anonymous user
		}
		words := slices.DeleteFunc(strings.FieldsFunc(d.Body, func(r rune) bool { return !unicode.IsLetter(r) }),
			func(w string) bool { return len(w) < 3 })
		if len(words) < 3 {
			continue
		}
		k := 1 + rng.IntN(3)
		i := rng.IntN(len(words) - k + 1)
		out = append(out, benchQuery{strings.Join(words[i:i+k], " "), "words", ""}, benchQuery{d.Title, "title", d.Cluster})
		if len(out) == 2*n {
			break
		}
	}
	if len(out) < 2*n {
		b.Fatalf("only %d queries from %d documents", len(out), len(urls))
	}
	return out
}

// BenchmarkServe measures `doppel serve` over a crawl's data directory
// (DOPPEL_SERVE_DATA; skipped without it) as a user meets it, for the 1M
// pages of docs/measurements.md ("Serving an index of 1M pages"):
//
//   - ready: the binary (DOPPEL_SERVE_BIN, or built from this module) is
//     started three times (six: the framework runs it with b.N 1 first);
//     from each process start, the time to its listening line, to the
//     first 200 of /healthz and to the first 200 of a search
//     (DOPPEL_SERVE_QUERY, default "connection timeout"). Reported: the very first
//     start's and the median of the last three, in ms; then the last
//     process serves the rest.
//   - facets, collapsed: 400 queries through the JSON API, one after the
//     other, after 50 to warm up — half of them 1–3 words in a row of a
//     document drawn at random, half its title (known-item) — with facets
//     (what the UI asks) and with facets=0; p50 and p99 over all, and
//     p99 per kind, and known_item: the share of title queries whose
//     document's cluster has a hit on the first page.
//   - plain, plain_and: the same queries as a plain bleve search in this
//     process, on the same index files (a match query of any word — as
//     BenchmarkSiteFacets in package ranking — or of every word, over
//     the _all field, Searchable, 10 hits, url, title and body loaded).
//   - rss: the server's resident memory after the queries, its peak, and
//     of it the heap (anon) and the index files mapped (file).
//
// Run it once per query:
//
//	DOPPEL_SERVE_DATA=/tmp/serve1m go test ./web/e2e -run XXX -bench BenchmarkServe -benchtime 400x -timeout 0
func BenchmarkServe(b *testing.B) {
	dir := os.Getenv("DOPPEL_SERVE_DATA")
	if dir == "" {
		b.Skip("DOPPEL_SERVE_DATA (a crawl's data directory) is not set")
	}
	bin := os.Getenv("DOPPEL_SERVE_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "doppel")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/doppel-search/doppel/cmd/doppel").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	readyQuery := cmp.Or(os.Getenv("DOPPEL_SERVE_QUERY"), "connection timeout")
	var srv *served
	var started []*served
	defer func() {
		for _, s := range started {
			s.stop()
		}
	}()
	b.Run("ready", func(b *testing.B) { // run twice by the framework: with b.N 1, then as asked
		if srv != nil {
			srv.stop()
		}
		var runs []*served
		for i := range 3 {
			s := startServe(b, bin, dir, readyQuery)
			started = append(started, s)
			b.Logf("start %d: listening %v, /healthz %v, first search %v", i+1, s.listen, s.health, s.search)
			runs = append(runs, s)
			if i < 2 {
				s.stop()
			}
		}
		srv = runs[2]
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		med := func(f func(*served) time.Duration) float64 {
			ds := []time.Duration{f(runs[0]), f(runs[1]), f(runs[2])}
			slices.Sort(ds)
			return ms(ds[1])
		}
		b.ReportMetric(ms(started[0].health), "first_healthz_ms") // the benchmark's first start
		b.ReportMetric(ms(started[0].search), "first_search_ms")
		b.ReportMetric(med(func(s *served) time.Duration { return s.health }), "healthz_ms")
		b.ReportMetric(med(func(s *served) time.Duration { return s.search }), "search_ms")
		b.ReportMetric(0, "ns/op")
	})
	if srv == nil {
		return
	}
	v, err := crawler.OpenView(dir) // read-only, beside the server
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	ix := v.Index()
	all := sampleQueries(b, ix, 225, 1)
	warm, queries := all[:50], all[50:]
	client := &http.Client{Timeout: 30 * time.Second}
	// api asks the server; a search it stops at its deadline (503)
	// counts, at the time it took, and is reported (errTimeout). It
	// returns the clusters of the first page's hits.
	api := func(q, extra string) ([]string, error) {
		resp, err := client.Get(srv.base + "/api/search?q=" + url.QueryEscape(q) + extra)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			var res struct{ Hits []struct{ Cluster string } }
			err := json.Unmarshal(body, &res)
			var clusters []string
			for _, h := range res.Hits {
				clusters = append(clusters, h.Cluster)
			}
			return clusters, err
		case http.StatusServiceUnavailable:
			return nil, errTimeout
		}
		return nil, fmt.Errorf("q=%q: %s: %s", q, resp.Status, body)
	}
	plain := func(q string, op query.MatchQueryOperator) ([]string, error) {
		mq := bleve.NewMatchQuery(q)
		mq.Analyzer = indexer.AnalyzerName // else bleve takes the _all field's from whichever document type it meets first
		mq.SetOperator(op)
		req := bleve.NewSearchRequestOptions(ix.Searchable(mq), 10, 0, false)
		req.Fields = []string{indexer.FieldURL, indexer.FieldTitle, indexer.FieldBody, indexer.FieldCluster}
		res, err := ix.Search(context.Background(), req)
		if err != nil {
			return nil, err
		}
		var clusters []string
		for _, h := range res.Hits {
			c, _ := h.Fields[indexer.FieldCluster].(string)
			clusters = append(clusters, c)
		}
		return clusters, nil
	}
	for _, q := range warm {
		_, err1 := api(q.q, "")
		_, err2 := api(q.q, "&facets=0")
		_, err3 := plain(q.q, query.MatchQueryOperatorOr)
		if err := errors.Join(err1, err2, err3); err != nil && !errors.Is(err, errTimeout) {
			b.Fatal(err)
		}
	}
	run := func(b *testing.B, search func(q string) ([]string, error)) {
		lat := map[string][]time.Duration{}
		i, timeouts, titles, found := 0, 0, 0, 0
		for b.Loop() {
			q := queries[i%len(queries)]
			start := time.Now()
			clusters, err := search(q.q)
			if errors.Is(err, errTimeout) {
				timeouts++
				b.Logf("timeout: %q", q.q)
			} else if err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			lat[q.kind] = append(lat[q.kind], d)
			lat[""] = append(lat[""], d)
			if q.kind == "title" {
				titles++
				if slices.Contains(clusters, q.cluster) {
					found++
				}
			}
			i++
		}
		pct := func(ls []time.Duration, p int) float64 {
			slices.Sort(ls)
			return float64(ls[min(len(ls)-1, len(ls)*p/100)].Microseconds()) / 1000
		}
		b.ReportMetric(pct(lat[""], 50), "p50_ms")
		b.ReportMetric(pct(lat[""], 99), "p99_ms")
		b.ReportMetric(pct(lat["words"], 99), "words_p99_ms")
		b.ReportMetric(pct(lat["title"], 99), "titles_p99_ms")
		b.ReportMetric(pct(lat[""], 100), "max_ms")
		b.ReportMetric(float64(timeouts), "timeouts")
		if titles > 0 {
			b.ReportMetric(float64(found)/float64(titles), "known_item")
		}
	}
	b.Run("facets", func(b *testing.B) { run(b, func(q string) ([]string, error) { return api(q, "") }) })
	b.Run("collapsed", func(b *testing.B) { run(b, func(q string) ([]string, error) { return api(q, "&facets=0") }) })
	b.Run("plain", func(b *testing.B) {
		run(b, func(q string) ([]string, error) { return plain(q, query.MatchQueryOperatorOr) })
	})
	b.Run("plain_and", func(b *testing.B) {
		run(b, func(q string) ([]string, error) { return plain(q, query.MatchQueryOperatorAnd) })
	})
	b.Run("rss", func(b *testing.B) { // the server's, after the queries
		m := srv.rss()
		b.ReportMetric(float64(m["VmRSS"]>>20), "rss_MB")
		b.ReportMetric(float64(m["VmHWM"]>>20), "peak_rss_MB")
		b.ReportMetric(float64(m["RssAnon"]>>20), "anon_MB")
		b.ReportMetric(float64(m["RssFile"]>>20), "file_MB")
		b.ReportMetric(0, "ns/op")
	})
}

package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
)

// hiddenWordsIndex returns an on-disk (scorch) index, as Doppel writes
// it, of public pages holding a few words of the guest's patterns
// (sabbath, grief, misconduct) and, if hidden, n pages only group "hr"
// may see, each holding words of its own that the patterns match
// (sabbNNNNN, grievNNNNN, misconduct with a letter or two changed) under
// a URL of its own (/hr/case-NNNNN).
func hiddenWordsIndex(t testing.TB, hidden bool, n int) *indexer.Index {
	t.Helper()
	ix, err := indexer.Open(t.TempDir(), indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	add := docAdder(t, ix)
	for i, w := range []string{"sabbath", "grief", "grieving", "misconduct", "conduct", "vpn"} {
		add(fmt.Sprintf("http://intra/news/%d", i), "News: "+w, fmt.Sprintf("Our %s notes, number %d, for the service desk.", w, i), nil)
	}
	if hidden {
		letters := "abcdefghijklmnopqrstuvwxyz"
		for i := range n {
			x, y := string(letters[i%26]), string(letters[i/26%26])
			add(fmt.Sprintf("http://intra/hr/case-%05d", i), fmt.Sprintf("Case %d", i),
				fmt.Sprintf("sabb%05d griev%05d misconduc%s misconduct%s misconduct%s%s, vpn notes", i, i, x, x, x, y), []string{"hr"})
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

// guestQueries are the patterns of issue 36's timing classes, alone and
// beside a pattern matching every visible term.
var guestQueries = []string{`/sabb.*/`, `grie*`, `misconduct~2`, `url:/.*hr.*/`, `/sabb.*/ /.*/`, `url:/.*hr.*/ /.*/`,
	`sabb*`, `url:http*`, `/.*/`, `griev~1`, `title:/cas.*/`}

// TestRedTeamHiddenTerms (issue 36, timing classes): 1,500 hidden pages
// hold 1,500 words each of "sabb…" and "griev…", some 700 misspellings
// of "misconduct" and 1,500 /hr/ URLs — past the 1,024 terms a query may
// expand to, had they counted. A guest's patterns over them get, from
// the index with those pages and from the index without, the same
// status, hits, counts and error texts, hence the same refusal
// decision. (What they cost: BenchmarkGuestTimingHidden; the work of the
// expansion itself, term for term: multiterm's TestHiddenTermsCostNothing.)
func TestRedTeamHiddenTerms(t *testing.T) {
	_, with := startServer(t, hiddenWordsIndex(t, true, 1500), Options{})
	_, without := startServer(t, hiddenWordsIndex(t, false, 0), Options{})
	get := func(base, path string) string { t.Helper(); return observed(t, base, path) }
	hits := 0
	for _, q := range guestQueries {
		for _, extra := range []string{"&size=100", "&size=100&facets=1"} {
			p := "/api/search?" + url.Values{"q": {q}, "syntax": {"bleve"}}.Encode() + extra
			a, b := get(with.URL, p), get(without.URL, p)
			if a != b {
				t.Errorf("LEAK %s:\n  with the hidden pages:    %.300s\n  without the hidden pages: %.300s", p, a, b)
			}
			if a[:3] == "200" {
				hits++
			}
		}
	}
	if hits == 0 {
		t.Error("no query was answered: the test compares only refusals")
	}
}

// BenchmarkGuestTimingHidden reports a guest's time per query, in ms,
// for each pattern of issue 36's timing classes, asked over HTTP of the
// index with 5,000 hidden pages whose words the patterns match and of
// the same index without them, in turn, and a word no pattern, as a
// reference measured in the same run; "first" is the first answer of
// each, which builds the guest's dictionary of visible terms:
//
//	go test ./web -run XXX -bench BenchmarkGuestTimingHidden -benchtime 20x
func BenchmarkGuestTimingHidden(b *testing.B) {
	_, with := startServer(b, hiddenWordsIndex(b, true, 5000), Options{})
	_, without := startServer(b, hiddenWordsIndex(b, false, 0), Options{})
	ask := func(base, q string) float64 {
		start := time.Now()
		resp, err := http.Get(base + "/api/search?" + url.Values{"q": {q}, "syntax": {"bleve"}}.Encode())
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return float64(time.Since(start).Microseconds()) / 1000
	}
	b.Run("first", func(b *testing.B) {
		b.ReportMetric(ask(with.URL, `/sabb.*/`), "with-hidden-ms/query")
		b.ReportMetric(ask(without.URL, `/sabb.*/`), "without-hidden-ms/query")
		b.ReportMetric(0, "ns/op")
	})
	// sabbath, a word of a visible page only: what the larger index costs
	// a query that expands nothing.
	for _, q := range append(slices.Clone(guestQueries[:4]), "sabbath") {
		b.Run(q, func(b *testing.B) {
			var ms [2]float64
			for range b.N {
				ms[0] += ask(with.URL, q)
				ms[1] += ask(without.URL, q)
			}
			b.ReportMetric(ms[0]/float64(b.N), "with-hidden-ms/query")
			b.ReportMetric(ms[1]/float64(b.N), "without-hidden-ms/query")
			b.ReportMetric(0, "ns/op")
		})
	}
}

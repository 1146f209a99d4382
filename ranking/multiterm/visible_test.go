package multiterm

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/vellum"
)

// hiddenIndex returns a scorch index of public pages (group "public")
// and, if hidden, of pages of group "hr" holding n distinct words for
// each of the guest's patterns below (sabbN, grievN, misconduct with
// one or two letters changed, and /hr/ URLs).
func hiddenIndex(t testing.TB, hidden bool, n int) bleve.Index {
	t.Helper()
	ix, err := bleve.New(filepath.Join(t.TempDir(), "ix"), bleve.NewIndexMapping())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	b := ix.NewBatch()
	for i, w := range []string{"sabbath", "sabbaths", "grief", "grieve", "misconduct", "misconducts", "conduct", "vpn"} {
		b.Index(fmt.Sprintf("p%d", i), map[string]string{"body": w + " common", "url": fmt.Sprintf("http://intra/news/%s", w), "groups": "public"})
	}
	if hidden {
		letters := "abcdefghijklmnopqrstuvwxyz"
		for i := range n {
			x, y := letters[i%26:i%26+1], letters[i/26%26:i/26%26+1]
			words := fmt.Sprintf("sabb%05d griev%05d misconduc%s misconduct%s misconduct%s%s misconduc%s%s", i, i, x, x, x, y, y, x)
			b.Index(fmt.Sprintf("h%05d", i), map[string]string{"body": words + " vpn", "url": fmt.Sprintf("http://intra/hr/case-%05d", i), "groups": "hr"})
		}
	}
	if err := ix.Batch(b); err != nil {
		t.Fatal(err)
	}
	return ix
}

func guest() query.Query {
	q := query.NewTermQuery("public")
	q.SetField("groups")
	return q
}

// guestAnswer returns what a guest observes of qs: the ids of its hits
// among the visible documents, or its error's text.
func guestAnswer(t testing.TB, ix bleve.Index, d *Dictionaries, maxTerms int, qs string) string {
	t.Helper()
	q, _ := Bound(parse(t, qs), Options{MaxTerms: maxTerms, Visible: guest(), VisibleKey: "guest", Dictionaries: d})
	got, err := ids(ix, query.NewConjunctionQuery([]query.Query{q, guest()}))
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprint(got)
}

// visibleTerms returns, by field, the terms of every dictionary d holds.
func visibleTerms(t testing.TB, d *Dictionaries) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, e := range d.entries {
		<-e.done
		it, err := e.fst.Iterator(nil, nil)
		for err == nil {
			term, _ := it.Current()
			out[k.field] = append(out[k.field], string(term))
			err = it.Next()
		}
		if err != vellum.ErrIteratorDone {
			t.Fatal(err)
		}
	}
	return out
}

// TestHiddenTermsCostNothing (issue 36, timing classes): a guest's
// wildcards, regular expressions, prefixes and fuzzy terms, asked of an
// index with 2,000 hidden pages holding 12,000 distinct words and 2,000
// URLs that match them and of the same index without those pages, get
// the same hits, the same error texts and the same refusals — the
// budget of 40 terms is far below what the hidden terms alone would
// count — and expand over the same dictionaries of visible terms, term
// for term: once a field's dictionary is built, what the guest's query
// walks does not depend on the hidden pages. (Without Dictionaries the
// walk read each hidden term and tested it against the guest's pages:
// see BenchmarkHiddenTerms for what that cost.)
func TestHiddenTermsCostNothing(t *testing.T) {
	const n, maxTerms = 2000, 40
	with, without := hiddenIndex(t, true, n), hiddenIndex(t, false, n)
	dw, dwo := NewDictionaries(0), NewDictionaries(0)
	for _, qs := range []string{
		`body:/sabb.*/`, `body:sabb*`, `body:/.*/`, `body:grie*`, `body:griev*`, `body:misconduct~2`, `body:misconduct~1`,
		`body:misconduc~1`, `url:/.*hr.*/`, `url:/.*news.*/`, `url:http*`, `body:/s.*/ body:/g.*/`, `body:/[a-z]{2,20}/`,
		`body:/sabb[0-9]*/`, `body:/misconduct/`, `body:sabb00001`,
	} {
		a := guestAnswer(t, with, dw, maxTerms, qs)
		b := guestAnswer(t, without, dwo, maxTerms, qs)
		if a != b {
			t.Errorf("LEAK %s:\n  with the hidden pages:    %.300s\n  without the hidden pages: %.300s", qs, a, b)
		}
		// The same query without the visible dictionaries: the same answer.
		if c := guestAnswer(t, with, nil, maxTerms, qs); c != a {
			t.Errorf("%s: %.300s with Dictionaries, %.300s without", qs, a, c)
		}
	}
	vw, vwo := visibleTerms(t, dw), visibleTerms(t, dwo)
	if len(vw) != 2 || len(vw["body"]) == 0 {
		t.Fatalf("dictionaries of fields %v: the queries did not expand over them", slices.Collect(func(yield func(string) bool) {
			for f := range vw {
				yield(f)
			}
		}))
	}
	for f, terms := range vwo {
		if !slices.Equal(vw[f], terms) {
			t.Errorf("the guest's dictionary of %s: %d terms with the hidden pages, %d without (%.200v, %.200v)",
				f, len(vw[f]), len(terms), vw[f], terms)
		}
	}
}

// BenchmarkHiddenTerms reports what a guest's multi-term query costs, in
// ms per query, on an index whose hidden pages hold many words matching
// it and on the index without them, with the visible dictionaries
// (dictionaries: built by a first query before the timer starts, whose
// time is reported as first-ms) and without (each term read and tested):
//
//	go test ./ranking/multiterm -run XXX -bench BenchmarkHiddenTerms
func BenchmarkHiddenTerms(b *testing.B) {
	const n = 5000
	with, without := hiddenIndex(b, true, n), hiddenIndex(b, false, n)
	for _, qs := range []string{`body:/sabb.*/`, `body:grie*`, `body:misconduct~2`, `url:/.*hr.*/`} {
		for _, dicts := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/dictionaries=%v", qs, dicts), func(b *testing.B) {
				var ms, build [2]float64
				for i, ix := range []bleve.Index{with, without} {
					var d *Dictionaries
					if dicts {
						d = NewDictionaries(0)
						start := time.Now()
						guestAnswer(b, ix, d, 1024, qs)
						build[i] = float64(time.Since(start).Microseconds()) / 1000
					}
					b.ResetTimer()
					for range b.N {
						guestAnswer(b, ix, d, 1024, qs)
					}
					ms[i] = float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
				}
				b.ReportMetric(ms[0], "with-hidden-ms/query")
				b.ReportMetric(ms[1], "without-hidden-ms/query")
				if dicts {
					b.ReportMetric(build[0], "with-hidden-first-ms")
					b.ReportMetric(build[1], "without-hidden-first-ms")
				}
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// TestDictionariesBound: Dictionaries keeps at most its bytes, the
// oldest dropped first, and a query still expands over a dictionary
// dropped (too large to keep) with the same answer.
func TestDictionariesBound(t *testing.T) {
	ix := hiddenIndex(t, true, 300)
	for _, maxBytes := range []int{1, 1 << 20} {
		d := NewDictionaries(maxBytes)
		for _, qs := range []string{`body:/sabb.*/`, `url:/.*news.*/`, `body:grie*`} {
			if got, want := guestAnswer(t, ix, d, 40, qs), guestAnswer(t, ix, nil, 40, qs); got != want {
				t.Errorf("at most %d bytes, %s: %s, want %s", maxBytes, qs, got, want)
			}
		}
		d.mu.Lock()
		if d.bytes > maxBytes || d.bytes < 0 || len(d.entries) != len(d.order) {
			t.Errorf("at most %d bytes: holds %d in %d entries (%d in order)", maxBytes, d.bytes, len(d.entries), len(d.order))
		}
		if maxBytes > 1 && len(d.entries) != 2 { // body and url
			t.Errorf("at most %d bytes: %d dictionaries kept, want 2", maxBytes, len(d.entries))
		}
		d.mu.Unlock()
	}
}

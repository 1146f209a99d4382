package userquery

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/search/query"
)

// BenchmarkPhrase times the phrase of a pasted title of common words,
// "uses of class java lang string java se 17 jdk 17", as the optional
// clause of a query that requires its words (as a Plain query scores
// it), over 1,000 bodies of 200 words that each hold every one of them
// many times (as the Java reference's pages do) and the phrase in one
// in a hundred: phraseQuery against bleve's multi-phrase query, one
// after the other in each iteration. Reported: the milliseconds of
// each per search and their ratio.
func BenchmarkPhrase(b *testing.B) {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = standard.Name
	text.IncludeTermVectors = true
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt("body", text)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	ix, err := bleve.New(b.TempDir()+"/index", im)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	title := "uses of class java lang string java se 17 jdk 17"
	words := append(strings.Fields(title), "method", "returns", "object", "value", "public", "static", "final", "void")
	rng := rand.New(rand.NewPCG(35, 7))
	batch := ix.NewBatch()
	for i := range 1000 {
		body := make([]string, 200)
		for j := range body {
			body[j] = words[rng.IntN(len(words))]
		}
		if i%100 == 0 {
			body = append(body, title)
		}
		if err := batch.Index(string(rune('a'+i%26))+strings.Repeat("x", i/26), map[string]any{"body": strings.Join(body, " ")}); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.Batch(batch); err != nil {
		b.Fatal(err)
	}
	var slots [][]string
	for _, w := range strings.Fields(title) {
		if w == "of" {
			slots = append(slots, nil) // a stop word: a gap
			continue
		}
		slots = append(slots, []string{w})
	}
	ours := &phraseQuery{terms: slots, field: "body", boost: 2}
	search := func(ph query.Query) (time.Duration, uint64) {
		var req []query.Query
		for _, s := range slots {
			if s != nil {
				req = append(req, term(s[0], "body", 0))
			}
		}
		q := query.NewBooleanQuery([]query.Query{query.NewConjunctionQuery(req)}, []query.Query{ph}, nil)
		start := time.Now()
		res, err := ix.Search(bleve.NewSearchRequestOptions(q, 10, 0, false))
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start), res.Total
	}
	var mine, theirs time.Duration
	for b.Loop() {
		d, n := search(ours)
		d2, n2 := search(ours.Phrase())
		if n != n2 {
			b.Fatalf("%d matches, bleve's phrase %d", n, n2)
		}
		mine, theirs = mine+d, theirs+d2
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(mine), "ms/search")
	b.ReportMetric(ms(theirs), "bleve_ms/search")
	b.ReportMetric(float64(theirs)/float64(mine), "speedup")
}

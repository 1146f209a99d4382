package ranking

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testrig/golden"
)

// TestGolden runs each testdata/golden/*.txt: documents (one a line:
// id | cluster | master | groups | lang | title | body; groups and lang
// may be empty), a line "----", queries (one a line: the query, then
// optionally " @group,group" for the user's groups and " !lang,lang" for
// the languages they read), a line "----", then the result pages as the
// ranking gives them (package golden; -update rewrites them). Documents
// are added in order under policy Skip.
func TestGolden(t *testing.T) {
	golden.Run(t, "testdata/golden/*.txt", func(t *testing.T, in string) string {
		docs, queries, ok := strings.Cut(in, "\n----\n")
		if !ok {
			t.Fatal("want documents, ----, queries, ----, results")
		}
		return goldenRun(t, goldenIndex(t, docs), queries)
	})
}

func goldenIndex(t *testing.T, docs string) *Searcher {
	t.Helper()
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	lines := strings.Split(strings.TrimSpace(docs), "\n")
	size := map[string]int{}
	for _, l := range lines {
		size[strings.TrimSpace(strings.Split(l, "|")[1])]++
	}
	ctx := context.Background()
	for _, l := range lines {
		f := strings.Split(l, "|")
		if len(f) != 7 {
			t.Fatalf("document line %q: want 7 fields", l)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		d := indexer.Doc{ID: f[0], URL: "http://intra/" + f[0], Host: "intra", Title: f[5], Body: f[6], Lang: f[4]}
		if f[3] != "" {
			d.Groups = strings.Split(f[3], ",")
		}
		p := indexer.Placement{ID: f[0], Cluster: f[1], Master: f[2], Duplicate: size[f[1]] > 1}
		if err := ix.Add(ctx, d, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return New(ix, Options{})
}

func goldenRun(t *testing.T, s *Searcher, queries string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(queries), "\n") {
		r := Request{}
		var words []string
		for _, w := range strings.Fields(line) {
			switch {
			case strings.HasPrefix(w, "@"):
				r.Groups = strings.Split(w[1:], ",")
			case strings.HasPrefix(w, "!"):
				r.Languages = strings.Split(w[1:], ",")
			default:
				words = append(words, w)
			}
		}
		r.Query = strings.Join(words, " ")
		res, err := s.Search(context.Background(), r)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		fmt.Fprintf(&b, "> %s (%d)\n", line, res.Total)
		for _, h := range res.Hits {
			role := "member"
			if h.Master {
				role = "master"
			}
			fmt.Fprintf(&b, "  %s %s similar=%d\n", strings.TrimPrefix(h.URL, "http://intra/"), role, h.Similar)
		}
	}
	return b.String()
}

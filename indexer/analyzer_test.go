package indexer

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// TestAnalyzerTokens: the index's analyzer gives the detector's tokens
// (stemmed, stop words out) with consecutive positions.
func TestAnalyzerTokens(t *testing.T) {
	an := Mapping().AnalyzerNamed(AnalyzerName)
	if an == nil {
		t.Fatal("no analyzer named", AnalyzerName)
	}
	for _, c := range []struct{ in, want string }{
		{"The meetings of 東京都の会議", "meet 東京 京都 都の の会 会議"},
		{"서울 회의실", "서울 회의 의실"},
		{"x86_64 Straße", "x86 64 straße"},
	} {
		var got []string
		for i, tok := range an.Analyze([]byte(c.in)) {
			got = append(got, string(tok.Term))
			if i > 0 && tok.Position <= 0 {
				t.Errorf("%q: token %q at position %d", c.in, tok.Term, tok.Position)
			}
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("Analyze(%q) = %q, want %q", c.in, s, c.want)
		}
	}
}

// TestCJKSearch: a query for a CJK word matches the pages holding that
// word, not those holding one of its characters; a phrase matches its
// bigrams in order.
func TestCJKSearch(t *testing.T) {
	ix := memIndex(t, Mapping(), Options{Policy: All})
	ctx := context.Background()
	docs := map[string]string{
		"ja":    "会議は十時に東京都の本社で始まります。",
		"zh":    "我们明天开会，会后吃饭。", // 会 without 会議
		"split": "東京と京都の会と議",    // 東京 and 京都 apart: no 東京都
		"ko":    "서울 회의실에서 회의를 합니다",
	}
	for id, body := range docs {
		if err := ix.Add(ctx, Doc{ID: id, URL: id, Title: id, Body: body}, Placement{ID: id, Cluster: id, Master: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    query.Query
		want []string
	}{
		{"word", bleve.NewMatchQuery("会議"), []string{"ja"}},
		{"phrase", bleve.NewMatchPhraseQuery("東京都"), []string{"ja"}},
		{"korean", bleve.NewMatchQuery("회의실"), []string{"ko"}},
	} {
		mq := c.q
		if m, ok := mq.(*query.MatchQuery); ok {
			m.SetField(FieldBody)
			m.SetOperator(query.MatchQueryOperatorAnd)
		}
		if m, ok := mq.(*query.MatchPhraseQuery); ok {
			m.SetField(FieldBody)
		}
		if got := hitIDs(t, ix, query.NewConjunctionQuery([]query.Query{mq, VisibleTo(nil)})); !slices.Equal(got, c.want) {
			t.Errorf("%s: hits %v, want %v", c.name, got, c.want)
		}
	}
}

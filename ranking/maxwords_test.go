package ranking

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testrig/long"
)

// TestMaxWordsOracle: a query of more words than Options.MaxWords
// matches the clusters with a member the user may see holding its
// MaxWords rarest words (by the counts of the documents the user may
// see: termStats), and only those:
// reducing a query changes which words are required, never who sees what.
func TestMaxWordsOracle(t *testing.T) {
	for _, policy := range []indexer.Policy{indexer.Skip, indexer.Hidden, indexer.All} {
		t.Run(policy.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(policy)))
			c := newCorpus(t, r, policy, 80)
			s := New(c.ix, Options{MaxWords: 2, RelaxBelow: 3})
			an := c.ix.Mapping().AnalyzerNamed(indexer.AnalyzerName)
			checked, queries := 0, long.N(150, 400) // DOPPEL_LONG=1: 400 a policy
			for range queries {
				user := randomGroups(r)
				share := s.termStats(context.Background(), user).share
				words := slices.Clone(vocab)
				r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
				words = words[:3+r.IntN(3)]
				// The two rarest, the earlier first among equals.
				byShare := slices.Clone(words)
				slices.SortStableFunc(byShare, func(a, b string) int {
					sh := func(w string) float64 { return share(string(an.Analyze([]byte(w))[0].Term)) }
					return cmp.Compare(sh(a), sh(b))
				})
				kept := byShare[:2]
				if share(string(an.Analyze([]byte(kept[1]))[0].Term)) == 0 {
					continue // a word in no document: the oracle below does not rank those
				}
				want := map[string]bool{}
				for id, cl := range c.cluster {
					if indexer.Visible(c.groups[id], user) && containsAll(c.held[id], kept) {
						want[cl] = true
					}
				}
				if len(want) < s.opts.RelaxBelow {
					continue // a relaxed search (TestAccessControlOracle)
				}
				checked++
				q := strings.Join(words, " ")
				res, err := s.Search(context.Background(), Request{Query: q, Size: 10, Groups: user})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Exact || res.Total != len(want) || len(res.Hits) != min(10, len(want)) {
					t.Fatalf("q=%q (kept %q) user=%v: total %d (exact %v), %d hits; oracle %d", q, kept, user, res.Total, res.Exact, len(res.Hits), len(want))
				}
				for _, h := range res.Hits {
					switch {
					case !indexer.Visible(c.groups[h.ID], user):
						t.Fatalf("LEAK: q=%q user=%v got %s with groups %v", q, user, h.ID, c.groups[h.ID])
					case !want[h.Cluster]:
						t.Fatalf("q=%q user=%v: cluster %s not expected", q, user, h.Cluster)
					case !containsAll(c.held[h.ID], kept):
						t.Fatalf("q=%q: %s lacks %q (%q)", q, h.ID, kept, c.held[h.ID])
					}
				}
			}
			if checked < queries/20 {
				t.Fatalf("only %d queries checked", checked)
			}
		})
	}
}

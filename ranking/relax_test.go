package ranking

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
)

// TestRelaxesAfterAgrees checks that the relax decision taken from a
// page's strict search (relaxesAfter, as collapseAll and collapseTop take
// it) is the one the separate count (relaxes) gives, for random queries
// of two and three words, users and filters (host and dates, which the
// strict search reads and the count does not), with RelaxBelow and
// MaxCandidates small enough that the strict hits are sometimes not
// every match.
func TestRelaxesAfterAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	c := newCorpus(t, r, indexer.Hidden, 80)
	ctx := context.Background()
	relaxed, strict := 0, 0
	for _, o := range []Options{{}, {RelaxBelow: 3}, {RelaxBelow: 3, MaxCandidates: 4}, {MaxCandidates: 6}} {
		s := New(c.ix, o)
		for i := range 60 {
			q := vocab[r.IntN(len(vocab))] + " " + vocab[r.IntN(len(vocab))]
			if i%2 == 0 {
				q += " " + vocab[r.IntN(len(vocab))]
			}
			req := Request{Query: q, Groups: randomGroups(r)}
			switch i % 3 {
			case 1:
				req.Host = "intra"
			case 2:
				req.Since = time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
			}
			t.Run(fmt.Sprintf("%+v/%q/%v/%q/%v", o, q, req.Groups, req.Host, !req.Since.IsZero()), func(t *testing.T) {
				cq, err := s.compile(ctx, q, Plain, req.Groups)
				if err != nil {
					t.Fatal(err)
				}
				defer cq.stats.close()
				want, _, err := s.relaxes(ctx, cq, req.Groups)
				if err != nil {
					t.Fatal(err)
				}
				hits, total, capped, err := s.allCandidates(ctx, s.filtered(cq.text, req), s.opts.MaxCandidates, false)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.relaxesAfter(ctx, cq, req, distinctClusters(hits, false), uint64(len(hits)) >= total && !capped)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("relaxesAfter = %v, relaxes = %v (%d hits of %d)", got, want, len(hits), total)
				}
				if want {
					relaxed++
				} else {
					strict++
				}
			})
		}
	}
	if relaxed == 0 || strict == 0 {
		t.Errorf("%d queries relaxed, %d not: the table should hold both", relaxed, strict)
	}
}

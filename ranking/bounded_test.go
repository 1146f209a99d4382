package ranking

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/indexer"
)

// tierIndex holds 40 pages with "lantern" in their body and 3 with it in
// their title (one of them for hr only), each its own cluster.
func tierIndex(t *testing.T) *indexer.Index {
	ix := memIndex(t, indexer.Options{})
	ctx := context.Background()
	add := func(id, title, body string, groups ...string) {
		if err := ix.Add(ctx, indexer.Doc{ID: id, URL: "http://intra/" + id, Host: "intra", Title: title, Body: body, Groups: groups},
			indexer.Placement{ID: id, Cluster: "c" + id, Master: id}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		add(fmt.Sprintf("body%02d", i), fmt.Sprintf("Page %d", i), "the lantern room and the meadow path "+strings.Repeat("walnut ", i%5))
	}
	add("title1", "Lantern", "about the meadow")
	add("title2", "The lantern room", "a room")
	add("title3", "Lantern salaries", "pay", "hr")
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

func ids(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.ID)
	}
	return out
}

// TestTier: a query whose words are each in more documents than MaxScan
// is answered from the pages naming them, when they fill the page —
// access control holding — and otherwise from the first MaxScan matches;
// either way not exact, its total an upper bound.
func TestTier(t *testing.T) {
	ix := tierIndex(t)
	ctx := context.Background()
	for _, facets := range []bool{false, true} {
		s := New(ix, Options{MaxScan: 10})
		res, err := s.Search(ctx, Request{Query: "lantern", Size: 2, Facets: facets})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(res.Hits); !slices.Equal(got, []string{"title1", "title2"}) || res.Exact || (!facets && res.Total < 42) {
			t.Errorf("facets %v, public: %v, total %d exact %v; want the two public pages named lantern, not exact, about 42", facets, got, res.Total, res.Exact)
		}
		res, err = s.Search(ctx, Request{Query: "lantern", Size: 3, Groups: []string{"hr"}, Facets: facets})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(res.Hits); len(got) != 3 || !slices.Contains(got, "title3") {
			t.Errorf("facets %v, hr: %v; want the three pages named lantern", facets, got)
		}
		// The tier holds two clusters for the public: a page of five
		// comes from the first ten matches.
		res, err = s.Search(ctx, Request{Query: "lantern", Size: 5, Facets: facets})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 5 || res.Exact {
			t.Errorf("facets %v, size 5: %v exact %v; want five hits of the first ten matches, not exact", facets, ids(res.Hits), res.Exact)
		}
		for _, h := range res.Hits {
			if h.ID == "title3" {
				t.Errorf("LEAK: the hr page shown to the public")
			}
		}
		// Unbounded, as before.
		res, err = New(ix, Options{MaxScan: -1}).Search(ctx, Request{Query: "lantern", Size: 2, Facets: facets})
		if err != nil || !res.Exact || res.Total != 42 {
			t.Errorf("facets %v, unbounded: total %d exact %v (%v), want 42 exact", facets, res.Total, res.Exact, err)
		}
	}
}

// TestMaxScanOracle: bounded searches on random corpora never show what a
// user may not see, nor a cluster twice over pages, nor a page that does
// not match; with MaxScan above the corpus they are those of unbounded
// searches.
func TestMaxScanOracle(t *testing.T) {
	for _, policy := range []indexer.Policy{indexer.Skip, indexer.Hidden, indexer.All} {
		t.Run(policy.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(21, uint64(policy)))
			c := newCorpus(t, r, policy, 80)
			bounded, big, unbounded := New(c.ix, Options{MaxScan: 7}), New(c.ix, Options{MaxScan: 100000}), New(c.ix, Options{MaxScan: -1})
			ctx := context.Background()
			for range 30 {
				user := randomGroups(r)
				q := vocab[r.IntN(len(vocab))]
				if r.IntN(3) == 0 {
					q += " " + vocab[r.IntN(len(vocab))]
				}
				facets := r.IntN(2) == 0
				seen := map[string]bool{}
				for page := 1; page <= 3; page++ {
					req := Request{Query: q, Page: page, Size: 3, Groups: user, Facets: facets}
					res, err := bounded.Search(ctx, req)
					if err != nil {
						t.Fatal(err)
					}
					for _, h := range res.Hits {
						switch {
						case !indexer.Visible(c.groups[h.ID], user):
							t.Fatalf("LEAK: q=%q user=%v got %s with groups %v", q, user, h.ID, c.groups[h.ID])
						case seen[h.Cluster]:
							t.Fatalf("q=%q: cluster %s repeated on page %d", q, h.Cluster, page)
						case !containsAll(c.held[h.ID], strings.Fields(q)) && !containsMost(c.held[h.ID], strings.Fields(q)):
							t.Fatalf("q=%q: %s (%q) does not match", q, h.ID, c.held[h.ID])
						}
						seen[h.Cluster] = true
					}
					want, err := unbounded.Search(ctx, req)
					if err != nil {
						t.Fatal(err)
					}
					got, err := big.Search(ctx, req)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(ids(got.Hits), ids(want.Hits)) || got.Total != want.Total || got.Exact != want.Exact {
						t.Fatalf("q=%q page %d: MaxScan above the corpus %v (%d, %v), unbounded %v (%d, %v)", q, page,
							ids(got.Hits), got.Total, got.Exact, ids(want.Hits), want.Total, want.Exact)
					}
				}
			}
		})
	}
}

// TestRelaxedKeepsStrict: when fewer documents than a page hold every
// word, the page is filled with those holding some — after the ones
// holding all, even when a relaxed search stops at MaxScan before it
// reaches them, and whatever the scores (a short title holding one word
// outscores a long page holding both). A correct word added to a query
// never takes its page off the page.
func TestRelaxedKeepsStrict(t *testing.T) {
	ix, add := singles(t)
	ctx := context.Background()
	for i := range 40 {
		add(fmt.Sprintf("walnut%02d", i), "Walnut", "walnut")
	}
	add("target", "Orchard notes", "the walnut trees of the orchard "+strings.Repeat("and a long text about other trees ", 20)+"quartz")
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for _, maxScan := range []int{10, -1} {
		for _, facets := range []bool{false, true} {
			s := New(ix, Options{MaxScan: maxScan})
			for _, q := range []string{"quartz", "walnut quartz", "orchard walnut quartz"} {
				res, err := s.Search(ctx, Request{Query: q, Size: 10, Facets: facets})
				if err != nil {
					t.Fatal(err)
				}
				if got := ids(res.Hits); len(got) == 0 || got[0] != "target" {
					t.Errorf("MaxScan %d, facets %v, %q: %v; want the page holding every word first", maxScan, facets, q, got)
				}
			}
			// Relaxed: the page is filled with pages holding walnut.
			res, err := s.Search(ctx, Request{Query: "walnut quartz", Size: 10, Facets: facets})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 10 {
				t.Errorf("MaxScan %d, facets %v: %d hits, want a full page of relaxed matches after the strict one", maxScan, facets, len(res.Hits))
			}
		}
	}
}

// TestNames: a page's title pasted whole, or the identifier it documents,
// finds that page first among many holding the same words more often
// (a book's chapters all end "- The Rust Programming Language"; a stub
// page holds little text).
func TestNames(t *testing.T) {
	ix, add := singles(t)
	ctx := context.Background()
	unsafe := strings.Repeat("unsafe code in rust: raw pointers and unsafe functions. ", 10)
	for i := range 30 {
		add(fmt.Sprintf("ch%02d", i), fmt.Sprintf("Unsafe Rust %d - The Rust Programming Language", i), unsafe)
	}
	add("stub", "unsafe - The Rust Programming Language", "The first edition of the book is no longer distributed.")
	for _, v := range []string{"epi16", "epi32", "epi64"} {
		add("mm512_slli_"+v, "_mm512_slli_"+v+" in core::arch::x86_64 - Rust", "Shift packed 16-bit integers left by imm8 while shifting in zeros. _mm512_slli_"+v+" _mm512_mask_slli_"+v)
		add("mm512_mask_slli_"+v, "_mm512_mask_slli_"+v+" in core::arch::x86_64 - Rust", "Shift packed 16-bit integers left by imm8 while shifting in zeros. _mm512_mask_slli_"+v+" _mm512_mask_slli_"+v+" "+strings.Repeat(v+" ", 5))
	}
	// A module's page, and its items' pages holding its whole title as
	// a phrase in theirs and its path over and over in their text.
	add("iter", "core::iter - Rust", "Composable external iteration.")
	for _, item := range []string{"Iterator", "Map", "Filter", "Chain", "Zip", "Rev", "Peekable", "Skip", "Take", "Fuse", "once", "empty", "repeat", "from_fn", "successors"} {
		add("iter-"+item, item+" in core::iter - Rust", strings.Repeat("core::iter::"+item+" ", 8))
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	for _, tc := range []struct{ q, want string }{
		{"core::iter - Rust", "iter"},
		{"core::iter", "iter"},
		{"unsafe - The Rust Programming Language", "stub"},
		{"_mm512_slli_epi16 in core::arch::x86_64 - Rust", "mm512_slli_epi16"},
		{"_mm512_slli_epi16", "mm512_slli_epi16"},
		{"_mm512_mask_slli_epi32", "mm512_mask_slli_epi32"},
	} {
		for _, facets := range []bool{false, true} {
			res, err := s.Search(ctx, Request{Query: tc.q, Size: 10, Facets: facets})
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(res.Hits); len(got) == 0 || got[0] != tc.want {
				t.Errorf("facets %v, %q: %v; want %s first", facets, tc.q, got, tc.want)
			}
		}
	}
}

// singles returns an empty index and a function adding a public page of
// its own cluster to it.
func singles(t *testing.T) (*indexer.Index, func(id, title, body string)) {
	ix := memIndex(t, indexer.Options{})
	return ix, func(id, title, body string) {
		if err := ix.Add(context.Background(), indexer.Doc{ID: id, URL: "http://intra/" + id, Host: "intra", Title: title, Body: body},
			indexer.Placement{ID: id, Cluster: "c" + id, Master: id}); err != nil {
			t.Fatal(err)
		}
	}
}

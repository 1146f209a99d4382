package ranking

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testrig/long"
	"github.com/doppel-search/doppel/ranking/userquery"
)

var vocab = []string{"apple", "river", "castle", "violin", "glacier", "harbor", "lantern", "meadow",
	"orchid", "pepper", "saddle", "tunnel", "walnut", "zebra", "copper", "falcon"}

var allGroups = []string{"hr", "finance", "it"}

// corpus is a randomized index with its ground truth.
type corpus struct {
	ix      *indexer.Index
	text    map[string]string   // doc id → body
	held    map[string]string   // doc id → the body the index holds for it: all, a difference record's, or none
	groups  map[string][]string // doc id → access groups
	cluster map[string]string   // doc id → cluster
}

func randomGroups(r *rand.Rand) []string {
	var g []string
	for _, name := range allGroups {
		if r.IntN(3) == 0 {
			g = append(g, name)
		}
	}
	return g // empty: public
}

func newCorpus(t *testing.T, r *rand.Rand, policy indexer.Policy, clusters int) *corpus {
	t.Helper()
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{Policy: policy, BatchSize: 50})
	if err != nil {
		t.Fatal(err)
	}
	c := &corpus{ix: ix, text: map[string]string{}, held: map[string]string{}, groups: map[string][]string{}, cluster: map[string]string{}}
	ctx := context.Background()
	for k := range clusters {
		cid := fmt.Sprintf("c%03d", k)
		base := make([]string, 4)
		for i := range base {
			base[i] = vocab[r.IntN(len(vocab))]
		}
		set := cluster.NewSet(cluster.ShortestURL)
		var id cluster.ID
		for m := range 1 + r.IntN(4) {
			doc := fmt.Sprintf("d%03d-%d", k, m)
			// Longer ids for later members, except sometimes: a later
			// member with a shorter URL takes over as master.
			path := strings.Repeat("x", 1+r.IntN(6))
			words := slices.Clone(base)
			if r.IntN(2) == 0 {
				words = append(words, vocab[r.IntN(len(vocab))]) // copies differ a little
			}
			body := strings.Join(words, " ")
			d := indexer.Doc{ID: doc, URL: "http://intra/" + path + "/" + doc, Host: "intra", Title: "t" + doc,
				Body: body, Groups: randomGroups(r), LastModified: time.Date(2026, 1, 1+m, 0, 0, 0, 0, time.UTC)}
			member := cluster.Member{ID: doc, URL: d.URL}
			res := dedup.Result{ID: doc}
			if m == 0 {
				id = set.Found(member)
			} else {
				res.Duplicate = true
				res.NewMaster = set.Join(id, member)
			}
			res.Cluster = cluster.ID(cid)
			res.Master = set.Get(id).Master.ID
			if err := ix.Add(ctx, d, hook.Placement(res)); err != nil {
				t.Fatal(err)
			}
			c.text[doc], c.groups[doc], c.cluster[doc] = body, d.Groups, cid
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	for id := range c.text {
		sd, err := bi.Document(id)
		if err != nil {
			t.Fatal(err)
		}
		if sd == nil {
			continue
		}
		sd.VisitFields(func(f index.Field) {
			if f.Name() == indexer.FieldBody {
				c.held[id] = string(f.Value())
			}
		})
	}
	return c
}

// TestAccessControlOracle compares every result page, count, member list
// and snippet with a brute-force computation over randomized documents,
// groups and queries, under every policy: zero leaks, zero misses.
func TestAccessControlOracle(t *testing.T) {
	for _, policy := range []indexer.Policy{indexer.Skip, indexer.Hidden, indexer.All} {
		t.Run(policy.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(policy)))
			c := newCorpus(t, r, policy, 80)
			s := New(c.ix, Options{})
			ctx := context.Background()
			for range long.N(15, 40) { // DOPPEL_LONG=1: 40 queries a policy
				user := randomGroups(r)
				word := vocab[r.IntN(len(vocab))]
				q := word
				if r.IntN(3) == 0 {
					q = word + " " + vocab[r.IntN(len(vocab))] // both words, else either
				}
				terms := strings.Fields(q)

				// Oracle: clusters with a visible member whose text in the
				// index (all of it, or its difference record's) holds every
				// word; if fewer than Options.RelaxBelow clusters hold them all,
				// most words (userquery.MinShould).
				size := 1 + r.IntN(7)
				var want map[string]bool
				matches := containsAll
				for _, match := range []func(string, []string) bool{containsAll, containsMost} {
					matches, want = match, map[string]bool{}
					for clusterID := range distinct(c.cluster) {
						members, err := c.ix.Members(clusterID)
						if err != nil {
							t.Fatal(err)
						}
						for _, m := range members {
							if indexer.Visible(c.groups[m.ID], user) && match(c.held[m.ID], terms) {
								want[clusterID] = true
							}
						}
					}
					if len(want) >= s.opts.RelaxBelow {
						break
					}
				}

				seen := map[string]bool{}
				for page := 1; ; page++ {
					inline := r.IntN(4)
					res, err := s.Search(ctx, Request{Query: q, Page: page, Size: size, Groups: user, Members: inline})
					if err != nil {
						t.Fatal(err)
					}
					if !res.Exact || res.Total != len(want) {
						t.Fatalf("q=%q user=%v: total %d (exact %v), oracle %d", q, user, res.Total, res.Exact, len(want))
					}
					for _, h := range res.Hits {
						switch {
						case !indexer.Visible(c.groups[h.ID], user):
							t.Fatalf("LEAK: q=%q user=%v got %s with groups %v", q, user, h.ID, c.groups[h.ID])
						case h.MasterID != "" && !indexer.Visible(c.groups[h.MasterID], user):
							t.Fatalf("LEAK: q=%q user=%v: the master %s (groups %v) named", q, user, h.MasterID, c.groups[h.MasterID])
						case seen[h.Cluster]:
							t.Fatalf("q=%q: cluster %s repeated on page %d", q, h.Cluster, page)
						case !want[h.Cluster]:
							t.Fatalf("q=%q user=%v: cluster %s not expected", q, user, h.Cluster)
						case !matches(c.held[h.ID], terms):
							t.Fatalf("q=%q: representative %s does not match (%q)", q, h.ID, c.held[h.ID])
						case !strings.Contains(c.text[h.ID], strings.TrimSpace(h.SnippetText())):
							t.Fatalf("LEAK: snippet %q is not from %s (%q)", h.SnippetText(), h.ID, c.text[h.ID])
						}
						seen[h.Cluster] = true
						visible := 0
						for id, cl := range c.cluster {
							if cl == h.Cluster && indexer.Visible(c.groups[id], user) {
								visible++
							}
						}
						if h.Similar != visible-1 {
							t.Fatalf("q=%q user=%v: cluster %s similar %d, oracle %d", q, user, h.Cluster, h.Similar, visible-1)
						}
						if len(h.Members) != min(inline, visible-1) {
							t.Fatalf("q=%q: %d members inline, want %d of %d", q, len(h.Members), inline, visible-1)
						}
						for _, m := range h.Members {
							if !indexer.Visible(c.groups[m.ID], user) || c.cluster[m.ID] != h.Cluster || m.ID == h.ID {
								t.Fatalf("LEAK or wrong member inline: %s (groups %v, cluster %s) with hit %s for user %v", m.ID, c.groups[m.ID], c.cluster[m.ID], h.ID, user)
							}
							if m.Snippet != "" && !strings.Contains(c.text[m.ID], strings.TrimSpace(m.Snippet)) {
								t.Fatalf("LEAK: member snippet %q is not from %s", m.Snippet, m.ID)
							}
						}
						ms, err := s.Members(ctx, h.Cluster, user, ByRelevance, q)
						if err != nil || len(ms) != visible {
							t.Fatalf("members of %s: %d, %v; oracle %d", h.Cluster, len(ms), err, visible)
						}
						for _, m := range ms {
							if !indexer.Visible(c.groups[m.ID], user) {
								t.Fatalf("LEAK: member %s (groups %v) listed for user %v", m.ID, c.groups[m.ID], user)
							}
						}
					}
					if len(res.Hits) < size {
						break
					}
				}
				if len(seen) != len(want) {
					t.Fatalf("q=%q user=%v: pages held %d clusters, oracle %d", q, user, len(seen), len(want))
				}
				// With the omitted results: every member of those clusters the
				// user may see, once, after its cluster's hit.
				listed := map[string]bool{}
				last := ""
				for page := 1; ; page++ {
					res, err := s.Search(ctx, Request{Query: q, Page: page, Size: size, Groups: user, Omitted: true})
					if err != nil {
						t.Fatal(err)
					}
					for _, h := range res.Hits {
						switch {
						case !indexer.Visible(c.groups[h.ID], user):
							t.Fatalf("LEAK: omitted result %s (groups %v) for user %v", h.ID, c.groups[h.ID], user)
						case h.MasterID != "" && !indexer.Visible(c.groups[h.MasterID], user):
							t.Fatalf("LEAK: q=%q user=%v: the master %s (groups %v) named", q, user, h.MasterID, c.groups[h.MasterID])
						case listed[h.ID]:
							t.Fatalf("q=%q: %s listed twice", q, h.ID)
						case h.Omitted && h.Cluster != last:
							t.Fatalf("q=%q: omitted %s of cluster %s not after its cluster's hit (%s)", q, h.ID, h.Cluster, last)
						case !h.Omitted && !want[h.Cluster], c.cluster[h.ID] != h.Cluster:
							t.Fatalf("q=%q: %s in cluster %s, not expected", q, h.ID, h.Cluster)
						}
						listed[h.ID], last = true, h.Cluster
					}
					if len(res.Hits) < size {
						break
					}
				}
				for id, cl := range c.cluster {
					if want[cl] && indexer.Visible(c.groups[id], user) && !listed[id] {
						t.Fatalf("q=%q user=%v: visible member %s of cluster %s not listed with the omitted results", q, user, id, cl)
					}
				}
			}
			// Clusters and documents the user may not see are not found.
			for id, g := range c.groups {
				if len(g) == 0 {
					continue
				}
				if _, err := s.Document(id, nil); !errors.Is(err, ErrNotFound) {
					t.Fatalf("LEAK: document %s (groups %v) returned to a user without groups: %v", id, g, err)
				}
			}
		})
	}
}

func distinct(m map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, v := range m {
		out[v] = true
	}
	return out
}

func containsAll(text string, words []string) bool {
	for _, w := range words {
		if !slices.Contains(strings.Fields(text), w) {
			return false
		}
	}
	return true
}

// containsMost reports whether text holds userquery.MinShould of the
// distinct words.
func containsMost(text string, words []string) bool {
	distinct := slices.Compact(slices.Sorted(slices.Values(words)))
	n := 0
	for _, w := range distinct {
		if slices.Contains(strings.Fields(text), w) {
			n++
		}
	}
	return n >= userquery.MinShould(len(distinct))
}

func TestQueryErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := New(newCorpus(t, r, indexer.Skip, 5).ix, Options{MaxQueryBytes: 20})
	for _, tc := range []struct {
		q    string
		syn  Syntax
		want error
	}{
		{"title:", Bleve, ErrQuery},
		{"a:b:c", Bleve, ErrQuery},
		{"body:/re[/", Bleve, ErrQuery},
		{`"unterminated`, Bleve, ErrQuery},
		{strings.Repeat("a", 21), Bleve, ErrQueryTooLong},
		{"\xff\xfe", Bleve, ErrQuery},
		// The plain syntax reads all of them.
		{"title:", Plain, nil},
		{"a:b:c", Plain, nil},
		{"body:/re[/", Plain, nil},
		{`"unterminated`, Plain, nil},
		{strings.Repeat("a", 21), Plain, nil},
		{"\xff\xfe", Plain, nil},
	} {
		if _, err := s.Search(context.Background(), Request{Query: tc.q, Syntax: tc.syn}); !errors.Is(err, tc.want) {
			t.Errorf("Search(%q, %v) = %v, want %v", tc.q, tc.syn, err, tc.want)
		}
	}
}

// TestCostBounds: wildcards, regular expressions, prefixes and fuzzy terms
// matching more than MaxTerms terms give ErrTooBroad, naming the culprit,
// in either syntax; a search past Timeout gives ErrTimeout, as does a
// member list.
func TestCostBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	c := newCorpus(t, r, indexer.All, 40)
	s := New(c.ix, Options{MaxTerms: 4})
	ctx := context.Background()
	for _, tc := range []struct {
		q    string
		syn  Syntax
		want error
		says string
	}{
		{"/.*/", Bleve, ErrTooBroad, "regular expression /.*/"},
		{"*e*", Bleve, ErrTooBroad, `wildcard "*e*"`},
		{"apple OR body:*r*", Bleve, ErrTooBroad, `wildcard "*r*"`},
		{"pepper~2", Bleve, nil, ""},
		{strings.Repeat("x", 70) + "~1", Bleve, ErrTooBroad, "longer than 64 characters"},
		{"walnut* zebra*", Bleve, nil, ""},
		{"url:http://intra/", Plain, ErrTooBroad, `prefix "http://intra/"`},
		{"url:http://intra/x/d001", Plain, nil, ""},
		{"*e*", Plain, nil, ""}, // the word "e"
	} {
		_, err := s.Search(ctx, Request{Query: tc.q, Syntax: tc.syn, Groups: allGroups})
		if !errors.Is(err, tc.want) || err != nil && !strings.Contains(err.Error(), tc.says) {
			t.Errorf("Search(%q, %v) = %v, want %v saying %s", tc.q, tc.syn, err, tc.want, tc.says)
		}
	}
	slow := New(c.ix, Options{Timeout: time.Nanosecond})
	if _, err := slow.Search(ctx, Request{Query: "apple"}); !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("search past the deadline: %v, want ErrTimeout", err)
	}
	if _, err := slow.Members(ctx, "c001", allGroups, ByRelevance, "apple"); !errors.Is(err, ErrTimeout) {
		t.Errorf("members past the deadline: %v, want ErrTimeout", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Search(canceled, Request{Query: "apple"}); !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("canceled search: %v, want context.Canceled", err)
	}
	if _, err := New(c.ix, Options{Timeout: -1}).Search(ctx, Request{Query: "apple"}); err != nil {
		t.Errorf("no timeout: %v", err)
	}
}

func TestSpans(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Span
	}{
		{"plain", []Span{{Text: "plain"}}},
		{"a " + markOpen + "b" + markClose + " c", []Span{{Text: "a "}, {Text: "b", Match: true}, {Text: " c"}}},
		{markOpen + "x" + markClose, []Span{{Text: "x", Match: true}}},
		{"<script>" + markOpen + "y", []Span{{Text: "<script>"}, {Text: "y", Match: true}}},
	} {
		if got := spans(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("spans(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestTotalIsAnUpperBoundBeyondMaxCandidates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := newCorpus(t, r, indexer.All, 60)
	exact, err := New(c.ix, Options{}).Search(context.Background(), Request{Groups: allGroups})
	if err != nil || !exact.Exact || exact.Total != 60 {
		t.Fatalf("match-all for a user in every group: total %d exact %v (%v), want 60 exact", exact.Total, exact.Exact, err)
	}
	est, err := New(c.ix, Options{MaxCandidates: 10}).Search(context.Background(), Request{Groups: allGroups, Size: 20})
	if err != nil {
		t.Fatal(err)
	}
	if est.Exact || est.Total < 60 || len(est.Hits) != 20 {
		t.Errorf("with MaxCandidates 10: total %d exact %v, %d hits; want an upper bound ≥ 60, not exact, 20 hits", est.Total, est.Exact, len(est.Hits))
	}
}

func TestMasterRepresentsOnEqualScores(t *testing.T) {
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{Policy: indexer.All})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// "a-copy" sorts before "z-master" by id and scores the same.
	for _, id := range []string{"z-master", "a-copy"} {
		d := indexer.Doc{ID: id, URL: "http://intra/" + id, Body: "identical text about the canteen menu"}
		if err := ix.Add(ctx, d, indexer.Placement{ID: id, Cluster: "c", Master: "z-master", Duplicate: id != "z-master"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := New(ix, Options{}).Search(ctx, Request{Query: "canteen"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != "z-master" || !res.Hits[0].Master || res.Hits[0].Similar != 1 {
		t.Fatalf("result %+v, %v; want the master alone, with 1 similar page", res, err)
	}
}

func TestFiltersAndMemberOrders(t *testing.T) {
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{Policy: indexer.Hidden})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	day := func(d int) time.Time { return time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC) }
	for _, d := range []struct {
		id, host, cluster, master, body string
		day                             int
	}{
		{"a", "wiki", "c1", "a", "canteen menu for the week", 1},
		{"a-long", "wiki", "c1", "a", "canteen menu for the week with the full list of dishes and prices", 20},
		{"a-mid", "wiki", "c1", "a", "canteen menu for the week with dishes", 10},
		{"b", "portal", "c2", "b", "canteen opening hours", 15},
		{"c", "portal", "c3", "c", "canteen renovation news", 25},
	} {
		doc := indexer.Doc{ID: d.id, URL: "http://" + d.host + "/" + d.id, Host: d.host, Body: d.body, LastModified: day(d.day)}
		if err := ix.Add(ctx, doc, indexer.Placement{ID: d.id, Cluster: d.cluster, Master: d.master, Duplicate: d.id != d.master}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	for _, tc := range []struct {
		name string
		req  Request
		want []string // clusters
	}{
		{"all", Request{Query: "canteen"}, []string{"c1", "c2", "c3"}},
		{"host", Request{Query: "canteen", Host: "portal"}, []string{"c2", "c3"}},
		{"since", Request{Query: "canteen", Since: day(14)}, []string{"c1", "c2", "c3"}}, // c1 through a-long
		{"until", Request{Query: "canteen", Until: day(12)}, []string{"c1"}},
		{"window", Request{Query: "canteen", Since: day(14), Until: day(20)}, []string{"c2"}},
	} {
		res, err := s.Search(ctx, tc.req)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Cluster)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) || res.Total != len(tc.want) {
			t.Errorf("%s: clusters %v (total %d), want %v", tc.name, got, res.Total, tc.want)
		}
	}
	for _, tc := range []struct {
		order Order
		want  string
	}{
		{ByDate, "a-long a-mid a"},
		{ByLength, "a-long a-mid a"},
		{ByRelevance, ""}, // the master first; the rest by score for the query (none here)
	} {
		ms, err := s.Members(ctx, "c1", nil, tc.order, "")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		if tc.order == ByRelevance && ids[0] != "a" {
			t.Errorf("relevance: %v, want the master first", ids)
		} else if tc.order != ByRelevance && strings.Join(ids, " ") != tc.want {
			t.Errorf("order %v: %v, want %s", tc.order, ids, tc.want)
		}
	}
	if _, err := ParseOrder("random"); err == nil {
		t.Error("ParseOrder accepted an unknown order")
	}
}

func TestTrimCut(t *testing.T) {
	for _, tc := range []struct {
		in, want []Span
	}{
		{[]Span{{Text: " … g to the "}, {Text: "VPN", Match: true}, {Text: " client and the co … "}},
			[]Span{{Text: "… to the "}, {Text: "VPN", Match: true}, {Text: " client and the …"}}},
		{[]Span{{Text: "Whole start "}, {Text: "VPN", Match: true}}, []Span{{Text: "Whole start "}, {Text: "VPN", Match: true}}},
		{[]Span{{Text: "… "}, {Text: "VPN", Match: true}, {Text: " …"}}, []Span{{Text: "… "}, {Text: "VPN", Match: true}, {Text: " …"}}},
	} {
		if got := trimCut(slices.Clone(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("trimCut(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestPlainQueries: pasted titles find their page first, through the title
// boost; a query of words fewer documents than a page hold together falls
// back to most of them; a long query is cut; long pages get snippets fast.
func TestPlainQueries(t *testing.T) {
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The listing mentions every page's words, many times, in its body.
	listing := strings.Repeat("Args in std::env, the iterator over the arguments; std::env::vars; CREATE TABLE. ", 400)
	for i, d := range []indexer.Doc{
		{ID: "args", Title: "Args in std::env - Rust", Body: "An iterator over the arguments of a process."},
		{ID: "env", Title: "std::env - Rust", Body: "Inspection and manipulation of the process's environment: Args, Vars."},
		{ID: "table", Title: "PostgreSQL: Documentation: 15: CREATE TABLE", Body: "CREATE TABLE — define a new table."},
		{ID: "listing", Title: "All items - Rust", Body: listing},
	} {
		d.URL = "http://intra/" + d.ID
		if err := ix.Add(ctx, d, indexer.Placement{ID: d.ID, Cluster: fmt.Sprint("c", i), Master: d.ID}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{MaxQueryBytes: 64})
	for _, tc := range []struct {
		q         string
		syn       Syntax
		first     string
		total     int
		truncated bool
	}{
		{"Args in std::env - Rust", Plain, "args", 3, false},
		{"std::env::Args", Plain, "args", 3, false},
		{"PostgreSQL: Documentation: 15: CREATE TABLE", Plain, "table", 1, false}, // the listing holds 2 of the 5 words: not enough
		{"std::env::Args zebra", Plain, "args", 3, false},                         // no page has "zebra": any word
		{"zebra", Plain, "", 0, false},
		{"-rust", Plain, "table", 1, false},
		{`"create table" ` + strings.Repeat("x", 64), Plain, "table", 2, true},
		{"title:args OR title:table", Bleve, "args", 2, false},
	} {
		res, err := s.Search(ctx, Request{Query: tc.q, Syntax: tc.syn})
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		first := ""
		if len(res.Hits) > 0 {
			first = res.Hits[0].ID
		}
		if first != tc.first || res.Total != tc.total || res.Truncated != tc.truncated {
			t.Errorf("%q (%v): first %q, total %d, truncated %v; want %q, %d, %v", tc.q, tc.syn, first, res.Total, res.Truncated, tc.first, tc.total, tc.truncated)
		}
	}
	// The listing's snippet marks the words.
	res, err := s.Search(ctx, Request{Query: "iterator arguments", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.ID == "listing" && !slices.ContainsFunc(h.Snippet, func(sp Span) bool { return sp.Match }) {
			t.Errorf("the listing's snippet marks nothing: %+v", h.Snippet)
		}
	}
}

func TestParseSyntax(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Syntax
		ok   bool
	}{{"", Plain, true}, {"plain", Plain, true}, {"bleve", Bleve, true}, {"Bleve", Plain, false}, {"lucene", Plain, false}} {
		got, err := ParseSyntax(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseSyntax(%q) = %v, %v", tc.in, got, err)
		}
		if err == nil && tc.in != "" && got.String() != tc.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
}

// TestFirstLocations checks the snippet's match cap against sorting every
// location, on random maps, sorted per term or not.
func TestFirstLocations(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 200 {
		tlm := search.TermLocationMap{}
		var all []*search.Location
		for term := range 1 + r.IntN(4) {
			var ls search.Locations
			start := uint64(0)
			for range r.IntN(60) {
				start += 1 + uint64(r.IntN(20)) // distinct starts across terms: term offsets below
				ls = append(ls, &search.Location{Start: start*4 + uint64(term), End: start*4 + uint64(term) + 1})
			}
			if r.IntN(4) == 0 {
				r.Shuffle(len(ls), func(i, j int) { ls[i], ls[j] = ls[j], ls[i] })
			}
			tlm[fmt.Sprint("t", term)] = ls
			all = append(all, ls...)
		}
		n := 1 + r.IntN(80)
		slices.SortFunc(all, func(a, b *search.Location) int { return int(a.Start) - int(b.Start) })
		want := all[:min(n, len(all))]
		var got []*search.Location
		for _, ls := range firstLocations(tlm, n) {
			got = append(got, ls...)
		}
		slices.SortFunc(got, func(a, b *search.Location) int { return int(a.Start) - int(b.Start) })
		if !slices.Equal(got, want) {
			t.Fatalf("firstLocations(n=%d) kept %d locations, not the first %d of %d", n, len(got), len(want), len(all))
		}
	}
}

func TestInLanguage(t *testing.T) {
	ms := []indexer.Member{
		{ID: "en", URL: "http://x/en/a", Master: true, Indexed: true, Lang: "en"},
		{ID: "da-long", URL: "http://x/manual/da/a", Lang: "da"},
		{ID: "da", URL: "http://x/da/a", Lang: "da"},
		{ID: "de", URL: "http://x/de/a", Lang: "de", Groups: []string{"hr"}},
		{ID: "none", URL: "http://x/a"},
	}
	for _, tc := range []struct {
		langs  []string
		groups []string
		want   string // "": the master stays
	}{
		{nil, nil, ""},
		{[]string{"en"}, nil, ""},
		{[]string{"da"}, nil, "da"}, // the shorter URL of two
		{[]string{"fr", "da", "en"}, nil, "da"},
		{[]string{"en", "da"}, nil, ""},
		{[]string{"de"}, nil, ""}, // may not see it
		{[]string{"de", "da"}, nil, "da"},
		{[]string{"de", "da"}, []string{"hr"}, "de"},
		{[]string{"fr"}, nil, ""},
	} {
		got := inLanguage(ms, "en", Request{Languages: tc.langs, Groups: tc.groups})
		if id := ""; got != nil && got.ID != tc.want || got == nil && tc.want != id {
			t.Errorf("languages %v groups %v: %+v, want %q", tc.langs, tc.groups, got, tc.want)
		}
	}
}

// TestInLanguageSection: a page not translated yet is English in the
// Danish section too, and a reader of Danish is shown it there, in the
// section's navigation — but a translation in a language the reader reads
// first, and no copy whose URL merely has a language's name in it
// ("/mirror/it/", the IT department's mirror).
func TestInLanguageSection(t *testing.T) {
	untranslated := []indexer.Member{
		{ID: "en", URL: "http://x/manual/en/a.html", Master: true, Indexed: true, Lang: "en"},
		{ID: "da", URL: "http://x/manual/da/a.html", Lang: "en"},
		{ID: "de", URL: "http://x/manual/de/a.html", Lang: "de"},
		{ID: "it", URL: "http://x/mirror/it/manual/en/a.html", Lang: "en"},
		{ID: "fr", URL: "http://x/manual/fr/b.html", Lang: "en"}, // another page's place
	}
	for _, tc := range []struct {
		langs []string
		want  string // "": the master stays
	}{
		{nil, ""},
		{[]string{"en"}, ""},
		{[]string{"en", "da"}, ""},
		{[]string{"da"}, "da"},
		{[]string{"da", "en"}, "da"},
		{[]string{"fr", "da"}, "da"},
		{[]string{"da", "de"}, "de"},
		{[]string{"de", "da"}, "de"},
		{[]string{"da", "fr"}, "da"},
		{[]string{"it"}, ""},
		{[]string{"fr"}, ""},
	} {
		got := inLanguage(untranslated, "en", Request{Languages: tc.langs})
		if id := ""; got != nil && got.ID != tc.want || got == nil && tc.want != id {
			t.Errorf("languages %v: %+v, want %q", tc.langs, got, tc.want)
		}
	}
}

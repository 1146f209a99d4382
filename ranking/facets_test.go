package ranking

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/testrig/long"
)

// TestFacetsOracle: for random users and queries, each facet value used
// as a filter gives as many results as it counted, every one of them
// shown with that value and among the unfiltered results; the values of
// a facet every document has give every cluster of the result.
func TestFacetsOracle(t *testing.T) {
	for _, policy := range []indexer.Policy{indexer.Skip, indexer.All} {
		t.Run(policy.String(), func(t *testing.T) { facetsOracle(t, policy) })
	}
}

func facetsOracle(t *testing.T, policy indexer.Policy) {
	r := rand.New(rand.NewPCG(3, uint64(policy)))
	ix := memIndex(t, indexer.Options{Policy: policy})
	ctx := context.Background()
	hosts := []string{"docs.intra", "wiki.intra:8080", "files.intra"}
	sections := []string{"hr", "it", "travel", ""}
	types := []string{"", "", "pdf", "docx"}
	langs := []string{"en", "de", ""}
	groupsOf := map[string][]string{}
	for k := range 60 {
		cluster := fmt.Sprint("c", k)
		n := 1 + r.IntN(3)
		master := ""
		for m := range n {
			host, sec := hosts[r.IntN(len(hosts))], sections[r.IntN(len(sections))]
			path := "/" + sec + "/"
			if sec == "" {
				path = "/"
			}
			id := fmt.Sprintf("http://%s%sd%d-%d", host, path, k, m)
			if m == 0 {
				master = id
			}
			var at time.Time
			if r.IntN(4) > 0 {
				at = time.Now().Add(-time.Duration(r.IntN(800*24)) * time.Hour)
			}
			d := indexer.Doc{ID: id, URL: id, Host: host, Title: fmt.Sprintf("page %d %d", k, m), LastModified: at,
				Body: vocab[r.IntN(len(vocab))] + " " + vocab[r.IntN(len(vocab))] + " common", Type: types[r.IntN(len(types))],
				Lang: langs[r.IntN(len(langs))], Groups: randomGroups(r)}
			groupsOf[id] = d.Groups
			if err := ix.Add(ctx, d, indexer.Placement{ID: id, Cluster: cluster, Master: master, Duplicate: m > 0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s := New(ix, Options{})
	for range long.N(12, 30) { // DOPPEL_LONG=1: 30 queries a policy
		user := randomGroups(r)
		q := "common"
		if r.IntN(2) == 0 {
			q = vocab[r.IntN(len(vocab))]
		}
		var readers []string
		if r.IntN(2) == 0 {
			readers = []string{langs[r.IntN(2)]} // a language copy may stand for its cluster
		}
		res, err := s.Search(ctx, Request{Query: q, Groups: user, Facets: true, Size: 100, Languages: readers})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total != len(res.Hits) || !res.Exact {
			t.Fatalf("q=%q: total %d (exact %v) for %d hits on one page", q, res.Total, res.Exact, len(res.Hits))
		}
		all := map[string]bool{}
		for _, h := range res.Hits {
			if h.Host != hostOf(h.URL) {
				t.Errorf("hit %s shown with host %s", h.URL, h.Host)
			}
			all[h.Cluster] = true
		}
		for _, f := range Facets {
			union := map[string]bool{}
			for _, v := range res.Facets[f] {
				req := Request{Query: q, Groups: user, Size: 100, Languages: readers}
				switch f {
				case FacetHost:
					req.Host = v.Value
				case FacetSection:
					req.Section = v.Value
				case FacetType:
					req.Type = v.Value
				case FacetLang:
					req.Lang = v.Value
				case FacetModified:
					req.Modified = v.Value
				}
				fres, err := s.Search(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if fres.Total != v.Count || len(fres.Hits) != v.Count || !fres.Exact {
					t.Errorf("q=%q user=%v %s=%s: %d results (%d hits, exact %v), facet counted %d", q, user, f, v.Value, fres.Total, len(fres.Hits), fres.Exact, v.Count)
				}
				for _, h := range fres.Hits {
					if !indexer.Visible(groupsOf[h.ID], user) {
						t.Fatalf("LEAK: %s (groups %v) for %v", h.ID, groupsOf[h.ID], user)
					}
					if !all[h.Cluster] {
						t.Errorf("q=%q %s=%s: cluster %s is not among the unfiltered results", q, f, v.Value, h.Cluster)
					}
					union[h.Cluster] = true
					typ := h.Type
					if typ == "" {
						typ = "html"
					}
					if got := map[string]string{FacetHost: h.Host, FacetSection: sectionOf(h.URL), FacetType: typ, FacetLang: h.Lang,
						FacetModified: dateRange(h.LastModified, time.Now())}[f]; got != v.Value {
						t.Errorf("q=%q %s=%s: hit %s has %s", q, f, v.Value, h.ID, got)
					}
				}
			}
			// Every document has a host, section, type and date range:
			// their values together give every cluster of the result.
			if f != FacetLang && len(union) != len(all) {
				t.Errorf("q=%q user=%v: the values of %s give %d of the %d clusters", q, user, f, len(union), len(all))
			}
		}
	}
	// From and To keep the undated pages unless Dated.
	from := time.Now().Add(-200 * 24 * time.Hour)
	for _, dated := range []bool{false, true} {
		res, err := s.Search(ctx, Request{Query: "common", From: from, Dated: dated, Groups: allGroups, Size: 100})
		if err != nil {
			t.Fatal(err)
		}
		undated := 0
		for _, h := range res.Hits {
			switch {
			case h.LastModified.IsZero():
				undated++
			case h.LastModified.Before(from):
				t.Errorf("from %v: %s of %v", from, h.ID, h.LastModified)
			}
		}
		if dated != (undated == 0) {
			t.Errorf("from with dated=%v: %d undated results", dated, undated)
		}
	}
	// A host without its port matches it on any port.
	res, err := s.Search(ctx, Request{Query: "common", Host: "wiki.intra", Groups: allGroups})
	if err != nil || res.Total == 0 {
		t.Fatalf("host=wiki.intra: %v, %d results", err, res.Total)
	}
	for _, h := range res.Hits {
		if h.Host != "wiki.intra:8080" {
			t.Errorf("host=wiki.intra gave %s", h.Host)
		}
	}
}

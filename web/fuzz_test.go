package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking"
)

// accessCorpus is a randomized intranet under the Skip policy with its
// ground truth: clusters of one to four near-copies, each page with random
// access groups and a marker word ("zq0042x") found in its URL, title and
// body and nowhere else, so that a page's marker in a response is that
// page shown.
type accessCorpus struct {
	srv      *Server
	ids      []string            // every page
	clusters []string            // every cluster
	groups   map[string][]string // page → access groups (none: public)
	cluster  map[string]string   // page → cluster
	marker   map[string]string   // page → marker
}

var fuzzGroups = []string{"hr", "finance", "it"}

// fuzzTimeout is the search server's deadline in FuzzHTTP; an answer may
// take it plus fuzzSlack (rendering, a loaded machine): 10 s in all,
// room for a request starved at a load of 30 on 2 cores and still far
// under the 30 s a search took before the deadline ended it.
const (
	fuzzTimeout = time.Second
	fuzzSlack   = 9 * time.Second
)

var (
	accessOnce sync.Once
	access     *accessCorpus
)

func newAccessCorpus(t testing.TB) *accessCorpus {
	accessOnce.Do(func() { access = buildAccessCorpus(t) })
	if access == nil {
		t.Fatal("no corpus")
	}
	return access
}

func buildAccessCorpus(t testing.TB) *accessCorpus {
	r := rand.New(rand.NewPCG(10, 10))
	vocab := []string{"vpn", "printer", "canteen", "salary", "budget", "laptop", "badge", "leave", "manual", "network"}
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{Policy: indexer.Skip})
	if err != nil {
		t.Fatal(err)
	}
	c := &accessCorpus{groups: map[string][]string{}, cluster: map[string]string{}, marker: map[string]string{}}
	texts := map[string]string{}
	ctx := context.Background()
	n := 0
	for k := range 40 {
		cid := fmt.Sprintf("c%03d", k)
		c.clusters = append(c.clusters, cid)
		base := []string{vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))], vocab[r.IntN(len(vocab))]}
		set := cluster.NewSet(cluster.ShortestURL)
		var id cluster.ID
		for m := range 1 + r.IntN(4) {
			n++
			mark := fmt.Sprintf("zq%04dx", n)
			url := "http://intra/" + strings.Repeat("p", 1+r.IntN(5)) + "/" + mark
			var groups []string
			for _, g := range fuzzGroups {
				if r.IntN(3) == 0 {
					groups = append(groups, g)
				}
			}
			body := strings.Join(append(slices.Clone(base), mark, vocab[r.IntN(len(vocab))]), " ")
			d := indexer.Doc{ID: url, URL: url, Host: "intra", Title: "Page " + mark, Body: body, Groups: groups,
				LastModified: time.Date(2026, 1, 1+m, 0, 0, 0, 0, time.UTC)}
			member := cluster.Member{ID: url, URL: url}
			res := dedup.Result{ID: url}
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
			texts[url] = body
			c.ids = append(c.ids, url)
			c.groups[url], c.cluster[url], c.marker[url] = groups, cid, mark
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	c.srv, err = New(ranking.New(ix, ranking.Options{Timeout: fuzzTimeout}), Options{GroupsHeader: "X-Groups", TrustedProxies: loopback, AdminGroups: []string{"admin"},
		Timeout: fuzzTimeout, Text: func(id string) (string, bool) { s, ok := texts[id]; return s, ok },
		Limits: limiterOptions(1000, 1000)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pick turns "#n" into the n-th of list (mod its length), and leaves
// anything else as it is: the fuzzer finds real ids through it.
func pick(s string, list []string) string {
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "#")); err == nil && strings.HasPrefix(s, "#") && n >= 0 {
		return list[n%len(list)]
	}
	return s
}

var fuzzPaths = []string{"/", "/api/search", "/cluster/{cluster}", "/api/cluster/{cluster}", "/diff/{id}", "/api/diff/{id}",
	"/api/doc/{id}", "/status", "/api/stats", "/metrics", "/healthz"}

// FuzzHTTP sends arbitrary parameters to every endpoint as an arbitrary
// user — groups header from a trusted proxy or from anybody — and checks
// against the corpus's ground truth (the brute-force oracle) that no
// answer shows a page outside the user's groups, that counts and member
// lists are exactly the visible ones, that collection-wide numbers go to
// administrators only, that no answer is a server error, and that none
// takes longer than the deadline plus slack.
func FuzzHTTP(f *testing.F) {
	type seed struct {
		path                                                     uint8
		q, syntax, page, size, host, since, until, sort, cluster string
		id, groups                                               string
		trusted                                                  bool
		extra                                                    string
	}
	for _, s := range []seed{
		{1, "vpn", "", "", "", "", "", "", "", "", "", "", true, ""},
		{0, "salary budget", "", "1", "5", "intra", "", "", "", "", "", "hr", true, ""},
		{1, "/.*/", "bleve", "", "", "", "", "", "", "", "", "hr,finance", true, ""},
		{1, "*a*", "bleve", "2", "3", "", "2026-01-01", "2026-02-01", "", "", "", "it", true, ""},
		{1, "vpn~2", "bleve", "", "", "", "", "", "", "", "", "hr", false, ""},
		{2, "vpn", "", "", "", "", "", "", "date", "#3", "", "finance", true, ""},
		{3, "", "", "", "", "", "", "", "length", "#7", "", "", true, ""},
		{4, "", "", "", "", "", "", "", "", "#5", "#11", "hr, it", true, ""},
		{5, "", "", "", "", "", "", "", "", "#9", "#20", "finance", true, ""},
		{6, "", "", "", "", "", "", "", "", "", "#4", "hr", true, ""},
		{7, "", "", "", "", "", "", "", "", "", "", "admin", true, ""},
		{8, "", "", "", "", "", "", "", "", "", "", "admin", false, ""},
		{9, "", "", "", "", "", "", "", "", "", "", "hr", true, ""},
		{1, "zq0001x", "", "", "", "", "", "", "", "", "", "", true, "q=zq0002x&q=vpn"},
		{1, "url:http://intra/", "", "", "", "", "", "", "", "", "", "it", true, "size=100"},
		{0, strings.Repeat("vpn ", 300), "", "", "", "", "", "", "", "", "", ",", true, "%zz&&="},
		{4, "", "", "", "", "", "", "", "", "#1", "#1", " , ", true, "cluster=c002"},
	} {
		f.Add(s.path, s.q, s.syntax, s.page, s.size, s.host, s.since, s.until, s.sort, s.cluster, s.id, s.groups, s.trusted, s.extra)
	}
	// "What differs" and the cluster pages of pages in clusters of several
	// members, for users in no group and in one.
	for i := range 12 {
		for _, g := range []string{"", "hr"} {
			f.Add(uint8(4+i%3), "vpn", "", "", "", "", "", "", "", "@", "#"+strconv.Itoa(3*i+1), g, true, "")
		}
	}
	c := newAccessCorpus(f)
	f.Fuzz(func(t *testing.T, path uint8, q, syntax, page, size, host, since, until, sort, clusterID, id, groups string, trusted bool, extra string) {
		clusterID, id = pick(clusterID, c.clusters), pick(id, c.ids)
		if clusterID == "@" { // the page's own cluster
			clusterID = c.cluster[id]
		}
		p := fuzzPaths[int(path)%len(fuzzPaths)]
		p = strings.ReplaceAll(p, "{cluster}", url.PathEscape(clusterID))
		p = strings.ReplaceAll(p, "{id}", url.PathEscape(id))
		v := url.Values{}
		for k, s := range map[string]string{"q": q, "syntax": syntax, "page": page, "size": size, "host": host, "since": since,
			"until": until, "sort": sort, "cluster": clusterID} {
			if s != "" {
				v.Set(k, s)
			}
		}
		raw := v.Encode()
		if extra != "" {
			raw += "&" + extra
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		u, err := url.Parse(p)
		if err != nil {
			return
		}
		u.RawQuery = raw
		req.URL, req.RequestURI = u, u.RequestURI()
		req.RemoteAddr = "127.0.0.1:40000"
		if !trusted {
			req.RemoteAddr = "192.0.2.50:40000"
		}
		req.Header.Set("X-Groups", groups)

		// The oracle's user: the header's groups, from a trusted peer.
		var user []string
		if trusted {
			for _, g := range strings.Split(groups, ",") {
				if g = strings.TrimSpace(g); g != "" && g != indexer.PublicGroup {
					user = append(user, g)
				}
			}
		}
		w := httptest.NewRecorder()
		start := time.Now()
		c.srv.ServeHTTP(w, req)
		elapsed := time.Since(start)
		body := w.Body.String()
		if elapsed > fuzzTimeout+fuzzSlack {
			t.Errorf("%s: %v", req.URL, elapsed)
		}
		if w.Code >= 500 && w.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s: %d %.300s", req.URL, w.Code, body)
		}
		// What the request itself carries may come back: not a leak.
		sent, _ := url.QueryUnescape(req.URL.String())
		sent += req.URL.String() + req.URL.Path
		for _, d := range c.ids {
			if !indexer.Visible(c.groups[d], user) && strings.Contains(body, c.marker[d]) && !strings.Contains(sent, c.marker[d]) {
				t.Fatalf("LEAK: %s as %v (trusted %v) shows %s (groups %v):\n%.2000s", req.URL, user, trusted, d, c.groups[d], body)
			}
		}
		admin := slices.Contains(user, "admin")
		switch p {
		case "/status", "/api/stats", "/metrics":
			if (w.Code == 200) != admin {
				t.Fatalf("%s as %v: %d", p, user, w.Code)
			}
		}
		if w.Code != 200 {
			return
		}
		switch {
		case p == "/api/search":
			var res struct {
				Total int
				Hits  []struct {
					ID, Cluster string
					Similar     int
				}
			}
			if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				if !indexer.Visible(c.groups[h.ID], user) {
					t.Fatalf("LEAK: hit %s (groups %v) for %v", h.ID, c.groups[h.ID], user)
				}
				if want := c.visibleIn(h.Cluster, user) - 1; h.Similar != want {
					t.Fatalf("%s for %v: cluster %s similar %d, oracle %d", req.URL, user, h.Cluster, h.Similar, want)
				}
			}
			if seen := c.visibleClusters(user); res.Total > seen {
				t.Fatalf("%s for %v: total %d, but only %d clusters have a visible page", req.URL, user, res.Total, seen)
			}
		case strings.HasPrefix(p, "/api/cluster/"):
			var res struct {
				Members []struct{ ID string }
			}
			if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Members) != c.visibleIn(clusterID, user) {
				t.Fatalf("%s for %v: %d members, oracle %d", req.URL, user, len(res.Members), c.visibleIn(clusterID, user))
			}
		}
	})
}

// visibleIn counts the pages of cluster id the user may see.
func (c *accessCorpus) visibleIn(id string, user []string) int {
	n := 0
	for _, d := range c.ids {
		if c.cluster[d] == id && indexer.Visible(c.groups[d], user) {
			n++
		}
	}
	return n
}

// visibleClusters counts the clusters with a page the user may see.
func (c *accessCorpus) visibleClusters(user []string) int {
	seen := map[string]bool{}
	for _, d := range c.ids {
		if indexer.Visible(c.groups[d], user) {
			seen[c.cluster[d]] = true
		}
	}
	return len(seen)
}

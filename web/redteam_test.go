package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/ranking"
)

// redTeamIndex indexes a small intranet on loopback: public VPN manual
// pages, news and team pages, and, if hidden, an HR section only group
// "hr" may see, holding words no public page holds (sabbatical,
// grievance, misconduct), words public pages hold too (vpn, canteen) and
// URLs of its own.
func redTeamIndex(t *testing.T, hidden bool) *indexer.Index {
	t.Helper()
	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	add := docAdder(t, ix)
	for i, topic := range []string{"install", "configure", "troubleshoot", "uninstall", "renew"} {
		add(fmt.Sprintf("http://intra/manual/vpn-%d", i), "VPN: "+topic, "How to "+topic+" the VPN client on your laptop. Ask the service desk.", nil)
	}
	for i := range 8 {
		add(fmt.Sprintf("http://intra/news/%d", i), fmt.Sprintf("Canteen news %d", i), fmt.Sprintf("The canteen serves lunch from noon; menu number %d.", i), nil)
	}
	add("http://intra/teams/it", "IT team", "The IT team runs the service desk, the printers and the VPN.", nil)
	if hidden {
		hr := []string{"hr"}
		for i, w := range []string{"sabbatical", "grievance", "misconduct", "salary", "parental", "redundancy"} {
			add(fmt.Sprintf("http://intra/hr/%s", w), "HR policy: "+w, fmt.Sprintf("The %s policy, procedure %d. Staff on %s leave keep VPN access; the canteen is free.", w, i, w), hr)
		}
		for i := range 30 {
			add(fmt.Sprintf("http://intra/hr/case-%02d", i), fmt.Sprintf("Case file %d", i), "Confidential vpn vpn vpn case notes, sabbaticals and grievances, service desk tickets.", hr)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return ix
}

// scoreField drops the scores from an answer: they are tf-idf over the
// whole index (see docs/search.md, "What a user can observe").
var scoreField = regexp.MustCompile(`"score":[-0-9.e+]+,?`)

// TestRedTeamLeaks asks a guest's questions of two servers, one over an
// index with the HR section and one without, and requires the same
// answers: hits, totals, facets, suggestions, completions, error texts
// and statuses. Anything else tells the guest about pages they may not
// see.
func TestRedTeamLeaks(t *testing.T) {
	_, with := startServer(t, redTeamIndex(t, true), Options{})
	_, without := startServer(t, redTeamIndex(t, false), Options{})
	get := func(base, path string) string { t.Helper(); return observed(t, base, path) }
	var probes []string
	search := func(syntax string, qs ...string) {
		for _, q := range qs {
			v := url.Values{"q": {q}}
			if syntax != "" {
				v.Set("syntax", syntax)
			}
			if syntax == "" {
				probes = append(probes, "/api/search?"+v.Encode(), "/api/search?"+v.Encode()+"&size=3&page=2")
			}
			// Every hit on one page: a bleve query's ranks (which hits
			// make the first page) follow the whole index's idf.
			probes = append(probes, "/api/search?"+v.Encode()+"&size=100", "/api/search?"+v.Encode()+"&size=100&facets=1")
		}
	}
	// Item 1: the budget of multi-term queries, by words and by URLs.
	search("bleve", `/sabbatical.*/ /.*/`, `/sabbaticxl.*/ /.*/`, `/.*/`, `url:/.*hr.*/ /.*/`, `url:/.*hr.*/`, `url:/.*hx.*/`,
		`sabb*`, `sabbatical~1`, `sabbatica~2`, `grievance`, `body:/gr.*/`, `url:http*`, `+vpn +sabbatical`, `vpn sabbatical`,
		`title:/polic.*/`, `/[a-z]{2,20}/`, `url:/http.\/\/intra\/h.*/`)
	// Item 2: word existence and frequency through the plain path.
	search("", "vpn sabbatical", "vpn sabbaticxl", "vpn grievance misconduct", "canteen sabbatical", "service desk sabbatical",
		"vpn", "canteen", "vpn canteen", "url:http://intra/hr/", "url:http://intra/hx/", "sabb*",
		// more than MaxWords words: which twelve are kept
		"vpn canteen lunch noon menu laptop client desk service printers team sabbatical grievance misconduct salary")
	// Did you mean, completions.
	for _, q := range []string{"sabbaticals", "sabatical", "grievanse", "misconduc", "canteen", "vpn"} {
		probes = append(probes, "/api/search?q="+url.QueryEscape(q), "/api/suggest?q="+url.QueryEscape(q), "/api/suggest?q="+url.QueryEscape(q[:2]))
	}
	probes = append(probes, "/api/suggest?q=gr", "/api/suggest?q=sa", "/api/suggest?q=ca")
	for _, p := range probes {
		a, b := get(with.URL, p), get(without.URL, p)
		if a != b {
			t.Errorf("LEAK %s:\n  with the hidden pages:    %.300s\n  without the hidden pages: %.300s", p, a, b)
		}
	}
}

// TestRedTeamScores: a word only hidden pages hold and a word no page
// holds must be alike to a guest, scores and rank order included: each
// pair of queries below, asked of one server over the index with the HR
// section, must get byte-identical answers. (Bleve scores with the
// whole index's document frequencies; the absolute score of a hit told
// the two apart through the query norm, which the API's relative score
// cancels.)
func TestRedTeamScores(t *testing.T) {
	_, with := startServer(t, redTeamIndex(t, true), Options{})
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(with.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return fmt.Sprintf("%d %s", resp.StatusCode, b)
	}
	scored := 0
	for _, pair := range [][2]string{
		{"vpn sabbatical", "vpn sabbaticxl"}, {"service desk grievance", "service desk grievancx"},
		{"canteen lunch misconduct", "canteen lunch misconducx"}, {"laptop client redundancy", "laptop client redundancx"},
		{"vpn team parental", "vpn team parentxl"},
	} {
		for _, extra := range []string{"", "&syntax=bleve", "&size=3&page=2", "&syntax=bleve&size=3&page=2", "&sort=date", "&facets=0"} {
			a := get("/api/search?q=" + url.QueryEscape(pair[0]) + extra)
			b := get("/api/search?q=" + url.QueryEscape(pair[1]) + extra)
			if a != b {
				i := 0
				for i < min(len(a), len(b)) && a[i] == b[i] {
					i++
				}
				from := max(0, i-150)
				t.Errorf("LEAK %q against %q%s, from byte %d:\n  %.300s\n  %.300s", pair[0], pair[1], extra, from, a[from:], b[from:])
			}
			if strings.Contains(a, `"score":0.`) {
				scored++ // hits of different scores: the comparison reads them
			}
		}
	}
	if scored == 0 {
		t.Error("no answer has hits of different scores: the test compares nothing")
	}
}

// TestRedTeamOrder: a guest's queries over words visible pages hold,
// asked of the index with the HR section (whose 36 pages hold vpn,
// canteen, service desk, staff) and of the one without, give the same
// hits in the same order with the same scores: ranking scores with the
// statistics of the pages the user may see (userScored). With the whole
// index's, 2 of these 32 queries ranked otherwise and 15 more gave other
// relative scores. (Hits of equal scores come in index order, which
// hidden pages can change: not compared here, see "What a user can
// observe".)
func TestRedTeamOrder(t *testing.T) {
	with := ranking.New(redTeamIndex(t, true), ranking.Options{})
	without := ranking.New(redTeamIndex(t, false), ranking.Options{})
	ctx := context.Background()
	for _, syn := range []ranking.Syntax{ranking.Plain, ranking.Bleve} {
		for _, q := range []string{"vpn", "canteen", "vpn canteen", "service desk", "vpn laptop", "canteen lunch",
			"vpn service desk", "the vpn client", "canteen free", "staff vpn access", "desk tickets", "it team vpn",
			"menu noon", "printers vpn", "renew vpn", "install client"} {
			a, err1 := with.Search(ctx, ranking.Request{Query: q, Syntax: syn, Size: 100})
			b, err2 := without.Search(ctx, ranking.Request{Query: q, Syntax: syn, Size: 100})
			if err1 != nil || err2 != nil {
				t.Fatalf("%q: %v, %v", q, err1, err2)
			}
			hits := func(r *ranking.Result) []string {
				var out []string
				for _, h := range r.Hits {
					out = append(out, fmt.Sprintf("%s %.9g", h.ID, h.Score))
				}
				return out
			}
			if ha, hb := hits(a), hits(b); !slices.Equal(ha, hb) {
				t.Errorf("%v %q:\n  with the hidden pages:    %v\n  without the hidden pages: %v", syn, q, ha, hb)
			}
		}
	}
}

// hitSet returns a search answer with its hits in id order. Their rank
// order is left out of the comparison (TestRedTeamOrder compares it):
// which hits, how many, and every count are compared.
func hitSet(body string) string {
	var v map[string]any
	if json.Unmarshal([]byte(body), &v) != nil {
		return body
	}
	if hits, ok := v["hits"].([]any); ok {
		slices.SortFunc(hits, func(a, b any) int {
			return strings.Compare(fmt.Sprint(a.(map[string]any)["id"]), fmt.Sprint(b.(map[string]any)["id"]))
		})
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRedTeamCostlyQueries: every costly form of multi-term query is
// answered or refused (400, "query too broad") by its shape or its
// budget, never left to run: asserted by the answer, not by a latency.
func TestRedTeamCostlyQueries(t *testing.T) {
	_, ts := startServer(t, redTeamIndex(t, true), Options{})
	for _, tc := range []struct {
		q    string
		want int // status
	}{
		{`/.{0,1000}y.{0,1000}/`, 400},
		{`/.{0,101}/`, 400},
		{`/((((a{0,9}){0,9}){0,9}){0,9})/`, 400},
		{`/(.*a){50}/`, 200}, // RE2: linear in each term, whatever bleve's automaton would have made of it
		{`/.{0,30}y.{0,30}/`, 200},
		{`/[a-z]{0,20}x[a-z]{0,20}/`, 200},
		{`/.*/`, 200}, // few terms on this index
		{`*e*`, 200},
		{`a~2`, 200},
		{`sabbaticalsabbaticalsabbaticalsabbaticalsabbaticalsabbaticalsabbatical~2`, 400}, // fuzzy term over 64 runes
		{`/a{1000}/`, 400},
		{`/a{1001}/`, 400}, // Go's parser refuses it
		{`/` + strings.Repeat(`(a|b)`, 60) + `/`, 200},
		{`/` + strings.Repeat(`(abc|def|ghi)`, 30) + `/`, 400}, // over 300 instructions
	} {
		v := url.Values{"q": {tc.q}, "syntax": {"bleve"}}
		resp, err := http.Get(ts.URL + "/api/search?" + v.Encode())
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error string `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%.60q: %d %q, want %d", tc.q, resp.StatusCode, body.Error, tc.want)
		}
		if resp.StatusCode == 400 && !strings.Contains(body.Error, "query too broad") && !strings.Contains(body.Error, "invalid query") {
			t.Errorf("%.60q: %q", tc.q, body.Error)
		}
	}
}

// docAdder returns a function that adds a page to ix as its own cluster's
// master, dated 1 March 2026, readable by groups (nil: everybody).
func docAdder(t testing.TB, ix *indexer.Index) func(id, title, body string, groups []string) {
	return func(id, title, body string, groups []string) {
		t.Helper()
		d := indexer.Doc{ID: id, URL: id, Host: "intra", Title: title, Body: body, Groups: groups,
			LastModified: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
		if err := ix.Add(context.Background(), d, indexer.Placement{ID: id, Cluster: id, Master: id}); err != nil {
			t.Fatal(err)
		}
	}
}

// observed returns what a guest observes of GET base+path: the status and
// the set of hits, scores left out.
func observed(t *testing.T, base, path string) string {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return fmt.Sprintf("%d %s", resp.StatusCode, hitSet(scoreField.ReplaceAllString(string(b), "")))
}

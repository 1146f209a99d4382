package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/indexer"
)

// clusterIndex is redTeamIndex with two clusters that mix what a guest
// may and may not see: a VPN guide whose master is an HR page and whose
// copy is public, and a canteen menu whose master is public and whose
// copy is an HR page. Without the hidden pages, the public page of each
// is the master of its cluster alone.
func clusterIndex(t *testing.T, hidden bool) *indexer.Index {
	t.Helper()
	ix := redTeamIndex(t, hidden)
	add := func(id, title, body, cluster, master string, groups []string) {
		t.Helper()
		d := indexer.Doc{ID: id, URL: id, Host: "intra", Title: title, Body: body, Groups: groups,
			LastModified: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}
		if err := ix.Add(context.Background(), d, indexer.Placement{ID: id, Cluster: cluster, Master: master, Duplicate: master != id}); err != nil {
			t.Fatal(err)
		}
	}
	guide := "The VPN guide: install the client, sign in with your badge, and call the service desk if the tunnel drops."
	menu := "The canteen menu of the week: soup, bread and a dish of the day, served from noon."
	copyID, menuID := "http://intra/manual/vpn-guide", "http://intra/news/menu"
	if hidden {
		add("http://intra/hr/vpn-guide", "VPN guide for HR staff", guide+" HR staff use the sabbatical tunnel.", "c-guide", "http://intra/hr/vpn-guide", []string{"hr"})
		add(copyID, "VPN guide", guide, "c-guide", "http://intra/hr/vpn-guide", nil)
		add(menuID, "Canteen menu", menu, "c-menu", menuID, nil)
		add("http://intra/hr/menu", "Canteen menu (HR copy)", menu+" Grievance lunch on Fridays.", "c-menu", menuID, []string{"hr"})
	} else {
		add(copyID, "VPN guide", guide, "c-guide", copyID, nil)
		add(menuID, "Canteen menu", menu, "c-menu", menuID, nil)
	}
	if err := ix.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestRedTeamClusters asks a guest's questions about clusters that mix
// visible and hidden pages of two servers, one over the index with the
// hidden pages and one without, and requires the same answers: a page's
// record, a cluster's members, what differs, the search answers that
// count a cluster's members, the cursor to the next page, facets,
// completions, and the administrators' duplicates report. Then it
// follows each server's cursor and compares the next pages.
func TestRedTeamClusters(t *testing.T) {
	_, with := startServer(t, clusterIndex(t, true), Options{})
	_, without := startServer(t, clusterIndex(t, false), Options{})
	esc := url.PathEscape
	guide, menu, hrGuide, hrMenu := esc("http://intra/manual/vpn-guide"), esc("http://intra/news/menu"), esc("http://intra/hr/vpn-guide"), esc("http://intra/hr/menu")
	probes := []string{
		"/api/doc/" + guide, "/api/doc/" + menu, "/api/doc/" + hrGuide, "/api/doc/" + hrMenu,
		"/api/cluster/c-guide", "/api/cluster/c-menu", "/cluster/c-guide", "/cluster/c-menu",
		"/api/diff/" + guide + "?cluster=c-guide", "/api/diff/" + hrMenu + "?cluster=c-menu", "/api/diff/" + menu + "?cluster=c-menu",
		"/diff/" + guide + "?cluster=c-guide", "/diff/" + hrMenu + "?cluster=c-menu",
		"/api/search?q=vpn+guide&size=100", "/api/search?q=canteen+menu&size=100", "/api/search?q=menu&size=100&filter=0",
		"/api/search?q=vpn+guide&size=100&facets=1", "/api/search?q=canteen&size=100&facets=1&sort=date",
		"/api/search?q=tunnel&size=100", "/api/search?q=tunnel+sabbatical&size=100", "/api/search?q=soup+grievance&size=100",
		"/api/search?q=tunel", "/api/search?q=grievanse+lunch",
		"/api/suggest?q=tu", "/api/suggest?q=men", "/api/suggest?q=gri",
		"/status/duplicates", "/status/duplicates?format=json", "/api/stats",
	}
	for _, p := range probes {
		if a, b := observed(t, with.URL, p), observed(t, without.URL, p); a != b {
			t.Errorf("LEAK %s:\n  with the hidden pages:    %.400s\n  without the hidden pages: %.400s", p, a, b)
		}
	}
	// Cursors: the next page after each server's own cursor.
	for _, q := range []string{"vpn", "canteen", "the", "menu"} {
		a, b := followCursor(t, with.URL, q), followCursor(t, without.URL, q)
		if a != b {
			t.Errorf("LEAK after the cursor of %q:\n  with the hidden pages:    %.400s\n  without the hidden pages: %.400s", q, a, b)
		}
	}
}

// followCursor asks base for the first page of q (two hits) and returns
// what a guest observes of the page after its cursor ("" if none).
func followCursor(t *testing.T, base, q string) string {
	t.Helper()
	resp, err := http.Get(base + "/api/search?size=2&q=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var first struct {
		Cursor string `json:"cursor"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&first); err != nil || first.Cursor == "" {
		return "no cursor"
	}
	next := observed(t, base, "/api/search?size=2&q="+url.QueryEscape(q)+"&after="+url.QueryEscape(first.Cursor))
	return strings.ReplaceAll(next, first.Cursor, "CURSOR")
}

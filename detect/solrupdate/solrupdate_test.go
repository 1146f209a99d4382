package solrupdate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/detect"
	"github.com/doppel-search/doppel/detect/client"
)

// standIn speaks the subset of Solr's JSON update API the proxy uses —
// POST /solr/{core}/update with an array of documents (atomic "set"
// updates among them) or an object of add, delete and commit commands
// (each key once: it decodes the object into a map) — and real-time get,
// GET /solr/{core}/get?id=…. It is not Solr.
type standIn struct {
	mu      sync.Mutex
	docs    map[string]map[string]any
	updates int
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == "POST" && r.URL.Path == "/solr/pages/update":
		s.updates++
		var body any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		switch b := body.(type) {
		case []any:
			for _, d := range b {
				s.add(d.(map[string]any))
			}
		case map[string]any:
			for k, v := range b {
				switch k {
				case "add":
					s.add(v.(map[string]any)["doc"].(map[string]any))
				case "delete":
					for _, id := range v.([]any) {
						delete(s.docs, id.(string))
					}
				}
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"responseHeader": map[string]any{"status": 0}})
	case r.Method == "GET" && r.URL.Path == "/solr/pages/get":
		json.NewEncoder(w).Encode(map[string]any{"doc": s.docs[r.URL.Query().Get("id")]})
	default:
		http.Error(w, "the stand-in does not speak "+r.Method+" "+r.URL.Path, http.StatusNotImplemented)
	}
}

// add adds d, or applies its atomic updates ({"set": v}) to the stored
// document (creating it, as Solr does).
func (s *standIn) add(d map[string]any) {
	id := d["id"].(string)
	atomic := false
	for _, v := range d {
		if m, ok := v.(map[string]any); ok && m["set"] != nil {
			atomic = true
		}
	}
	if !atomic {
		s.docs[id] = d
		return
	}
	old := s.docs[id]
	if old == nil {
		old = map[string]any{"id": id}
		s.docs[id] = old
	}
	for k, v := range d {
		if m, ok := v.(map[string]any); ok {
			old[k] = m["set"]
		}
	}
}

func setup(t *testing.T) (string, *standIn, *client.Client) {
	t.Helper()
	svc, err := detect.Open(t.TempDir(), detect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ds := httptest.NewServer(svc.Handler(nil))
	t.Cleanup(ds.Close)
	solr := &standIn{docs: map[string]map[string]any{}}
	ss := httptest.NewServer(solr)
	t.Cleanup(ss.Close)
	dc, _ := client.New(ds.URL, nil)
	p, err := New(ss.URL, dc, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return ps.URL + "/solr/pages/update", solr, dc
}

func post(t *testing.T, url string, body any) (int, string) {
	t.Helper()
	raw, ok := body.(string)
	if !ok {
		b, _ := json.Marshal(body)
		raw = string(b)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

const notice = "The office is closed on Friday for the annual staff meeting. Please book leave through the portal before " +
	"Thursday and tell your manager. The meeting starts at nine in the main hall and lunch is served at noon. Bring the " +
	"quarterly report, your questions for the board and a pen. Visitors sign in at the front desk and wear a badge."

func fields(s *standIn, id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[id]
	if !ok {
		return "missing"
	}
	return fmt.Sprintf("cluster=%v master=%v canonical=%v", d["dup_cluster"], d["dup_master"], d["dup_canonical"])
}

// TestProxy: documents added through the proxy, as an array or by "add"
// commands, carry their cluster, master and canonical flag; a newer copy
// and a deleted master reach the documents added before through atomic
// updates.
func TestProxy(t *testing.T) {
	update, solr, dc := setup(t)
	if code, out := post(t, update, []map[string]any{
		{"id": "a", "content": notice, "date": "2024-03-01", "n": 1},
		{"id": "b", "content": strings.Replace(notice, "nine", "ten", 1), "date": "2024-01-01"},
		{"id": "c", "content": "Bicycles are parked in the yard behind the building."},
	}); code != 200 {
		t.Fatalf("update: %d %s", code, out)
	}
	a, _ := dc.Get(context.Background(), "a")
	want := map[string]string{"a": "cluster=" + a.Cluster + " master=a canonical=true", "b": "cluster=" + a.Cluster + " master=a canonical=false"}
	check := func(step string) {
		t.Helper()
		for id, w := range want {
			if got := fields(solr, id); got != w {
				t.Errorf("%s: %s has %s; want %s", step, id, got, w)
			}
		}
	}
	check("the first update")

	if code, out := post(t, update, map[string]any{"add": map[string]any{"doc": map[string]any{"id": "d", "content": notice, "date": "2025-01-01"}}, "commit": map[string]any{}}); code != 200 {
		t.Fatalf("update: %d %s", code, out)
	}
	for _, id := range []string{"a", "b"} {
		want[id] = "cluster=" + a.Cluster + " master=d canonical=false"
	}
	want["d"] = "cluster=" + a.Cluster + " master=d canonical=true"
	check("a newer copy")

	if code, out := post(t, update, `{"delete": {"id": "d"}}`); code != 200 {
		t.Fatalf("update: %d %s", code, out)
	}
	delete(want, "d")
	want["a"] = "cluster=" + a.Cluster + " master=a canonical=true"
	want["b"] = "cluster=" + a.Cluster + " master=a canonical=false"
	check("the master deleted")
	if fields(solr, "d") != "missing" {
		t.Errorf("d is still in the stand-in")
	}
	if n := solr.docs["a"]["n"]; fmt.Sprint(n) != "1" {
		t.Errorf("a's own field n: %v", n)
	}
}

// TestCollapse: after a run of updates every document in the stand-in
// holds the place the service gives it and each cluster has exactly one
// canonical document.
func TestCollapse(t *testing.T) {
	update, solr, dc := setup(t)
	words := strings.Fields(notice)
	for round := range 10 {
		var docs []map[string]any
		var deletes []string
		for i := range 15 {
			n := round*15 + i
			id := fmt.Sprint("p", n%40)
			if n%13 == 5 {
				deletes = append(deletes, id)
				continue
			}
			w := append([]string(nil), words...)
			w[n%len(w)] = fmt.Sprint("x", n)
			d := map[string]any{"id": id, "content": strings.Join(w, " ")}
			if n%2 == 0 {
				d["date"] = fmt.Sprintf("20%02d-01-01", n%25)
			}
			if n%4 == 0 {
				d["content"] = fmt.Sprint("a page of its own, number ", n)
			}
			docs = append(docs, d)
		}
		if code, out := post(t, update, docs); code != 200 {
			t.Fatalf("round %d: %d %s", round, code, out)
		}
		if len(deletes) > 0 {
			if code, out := post(t, update, map[string]any{"delete": deletes}); code != 200 {
				t.Fatalf("round %d: %d %s", round, code, out)
			}
		}
	}
	canonical := map[any]int{}
	var ids []string
	solr.mu.Lock()
	for id, d := range solr.docs {
		ids = append(ids, id)
		if d["dup_canonical"] == true {
			canonical[d["dup_cluster"]]++
		}
	}
	solr.mu.Unlock()
	clusters := map[string]bool{}
	for _, id := range ids {
		a, err := dc.Get(context.Background(), id)
		if err != nil {
			t.Fatalf("%s is in the stand-in, not the service: %v", id, err)
		}
		clusters[a.Cluster] = true
		if got, want := fields(solr, id), fmt.Sprintf("cluster=%s master=%s canonical=%v", a.Cluster, a.Master, a.Canonical); got != want {
			t.Errorf("%s: the stand-in has %s; the service says %s", id, got, want)
		}
	}
	for c := range clusters {
		if canonical[c] != 1 {
			t.Errorf("cluster %s has %d canonical documents", c, canonical[c])
		}
	}
	if len(clusters) >= len(ids) || solr.updates <= 10+5 {
		t.Errorf("%d documents in %d clusters after %d updates: the run tested little", len(ids), len(clusters), solr.updates)
	}
}

// TestBadUpdate: an update the service cannot use is refused with 400
// and a reason; nothing reaches Solr.
func TestBadUpdate(t *testing.T) {
	update, solr, _ := setup(t)
	for _, tc := range []struct{ name, body, reason string }{
		{"no id", `[{"content": "x"}]`, `has no \"id\"`},
		{"delete by query", `{"delete": {"query": "*:*"}}`, "by query is not supported"},
		{"not JSON", `[{"id": "1"`, "not a JSON object"},
		{"a number", `42`, "want a JSON array"},
		{"bad date", `[{"id": "1", "content": "x", "date": "soon"}]`, "soon"},
		{"add without doc", `{"add": {"overwrite": true}}`, `wants a \"doc\"`},
	} {
		code, out := post(t, update, tc.body)
		if code != 400 || !strings.Contains(out, tc.reason) {
			t.Errorf("%s: %d %s; want 400 saying %q", tc.name, code, out, tc.reason)
		}
	}
	if solr.updates != 0 {
		t.Errorf("Solr received %d updates", solr.updates)
	}
}

package esbulk

import (
	"bufio"
	"bytes"
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

// standIn speaks the subset of Elasticsearch's API the proxy uses: _bulk
// with index, create, update (partial "doc") and delete actions, and
// GET /{index}/_doc/{id}. It is not Elasticsearch.
type standIn struct {
	mu    sync.Mutex
	docs  map[string]map[string]map[string]any // index → id → source
	bulks int
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == "POST" && parts[len(parts)-1] == "_bulk":
		s.bulks++
		index := ""
		if len(parts) == 2 {
			index = parts[0]
		}
		s.bulk(w, r.Body, index)
	case r.Method == "GET" && len(parts) == 3 && parts[1] == "_doc":
		src, ok := s.docs[parts[0]][parts[2]]
		json.NewEncoder(w).Encode(map[string]any{"_id": parts[2], "found": ok, "_source": src})
	case r.Method == "GET" && r.URL.Path == "/":
		json.NewEncoder(w).Encode(map[string]any{"tagline": "a stand-in for Elasticsearch"})
	default:
		http.Error(w, "the stand-in does not speak "+r.Method+" "+r.URL.Path, http.StatusNotImplemented)
	}
}

func (s *standIn) bulk(w http.ResponseWriter, body io.Reader, index string) {
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, MaxBody)
	var items []map[string]any
	errs := false
	for sc.Scan() {
		var head map[string]map[string]any
		if json.Unmarshal(sc.Bytes(), &head) != nil {
			http.Error(w, "bad action line", 400)
			return
		}
		for kind, meta := range head {
			ix, _ := meta["_index"].(string)
			if ix == "" {
				ix = index
			}
			id, _ := meta["_id"].(string)
			if s.docs[ix] == nil {
				s.docs[ix] = map[string]map[string]any{}
			}
			item := map[string]any{"_index": ix, "_id": id, "status": 200}
			switch kind {
			case "index", "create", "update":
				sc.Scan()
				var src map[string]any
				if json.Unmarshal(sc.Bytes(), &src) != nil {
					http.Error(w, "bad source line", 400)
					return
				}
				if kind != "update" {
					s.docs[ix][id] = src
					break
				}
				old, ok := s.docs[ix][id]
				if !ok {
					item["status"], errs = 404, true
					item["error"] = map[string]any{"type": "document_missing_exception", "reason": "[" + id + "]: document missing"}
					break
				}
				for k, v := range src["doc"].(map[string]any) {
					old[k] = v
				}
			case "delete":
				delete(s.docs[ix], id)
			}
			items = append(items, map[string]any{kind: item})
		}
	}
	json.NewEncoder(w).Encode(map[string]any{"took": 1, "errors": errs, "items": items})
}

// setup returns the proxy's URL in front of a stand-in, with a service
// of its own, and the stand-in and the service's client.
func setup(t *testing.T) (string, *standIn, *client.Client) {
	t.Helper()
	svc, err := detect.Open(t.TempDir(), detect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ds := httptest.NewServer(svc.Handler(nil))
	t.Cleanup(ds.Close)
	es := &standIn{docs: map[string]map[string]map[string]any{}}
	ess := httptest.NewServer(es)
	t.Cleanup(ess.Close)
	dc, _ := client.New(ds.URL, nil)
	p, err := New(ess.URL, dc, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps := httptest.NewServer(p)
	t.Cleanup(ps.Close)
	return ps.URL, es, dc
}

func send(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/x-ndjson", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// ndjson writes the lines of a _bulk body.
func ndjson(lines ...any) string {
	var b bytes.Buffer
	for _, l := range lines {
		raw, _ := json.Marshal(l)
		b.Write(raw)
		b.WriteByte('\n')
	}
	return b.String()
}

func index(id string, src map[string]any) []any {
	return []any{map[string]any{"index": map[string]any{"_id": id}}, src}
}

const notice = "The office is closed on Friday for the annual staff meeting. Please book leave through the portal before " +
	"Thursday and tell your manager. The meeting starts at nine in the main hall and lunch is served at noon. Bring the " +
	"quarterly report, your questions for the board and a pen. Visitors sign in at the front desk and wear a badge."

// fields returns the stand-in's dup_ fields of pages/id as one string.
func fields(es *standIn, id string) string {
	es.mu.Lock()
	defer es.mu.Unlock()
	src, ok := es.docs["pages"][id]
	if !ok {
		return "missing"
	}
	return fmt.Sprintf("cluster=%v master=%v canonical=%v", src["dup_cluster"], src["dup_master"], src["dup_canonical"])
}

// TestProxy: documents indexed through the proxy carry their cluster,
// master and canonical flag; a newer copy taking a cluster over and a
// master deleted reach the documents indexed before through partial
// updates; other actions and requests pass through.
func TestProxy(t *testing.T) {
	proxy, es, dc := setup(t)
	var lines []any
	lines = append(lines, index("a", map[string]any{"content": notice, "date": "2024-03-01", "n": 1})...)
	lines = append(lines, index("b", map[string]any{"content": strings.Replace(notice, "nine", "ten", 1), "date": "2024-01-01"})...)
	lines = append(lines, index("c", map[string]any{"content": "Bicycles are parked in the yard behind the building."})...)
	if code, out := send(t, proxy+"/pages/_bulk", ndjson(lines...)); code != 200 || !strings.Contains(out, `"items"`) {
		t.Fatalf("bulk: %d %s", code, out)
	}
	ca, _ := dc.Get(context.Background(), "a")
	want := map[string]string{
		"a": "cluster=" + ca.Cluster + " master=a canonical=true",
		"b": "cluster=" + ca.Cluster + " master=a canonical=false",
	}
	check := func(step string) {
		t.Helper()
		for id, w := range want {
			if got := fields(es, id); got != w {
				t.Errorf("%s: %s has %s; want %s", step, id, got, w)
			}
		}
	}
	check("first bulk")
	if src := es.docs["pages"]["a"]; fmt.Sprint(src["n"]) != "1" || src["content"] != notice {
		t.Errorf("a's own fields changed: %v", src)
	}

	// A newer copy: a is demoted and b re-pointed by partial updates.
	lines = index("d", map[string]any{"content": notice, "date": "2025-01-01"})
	if code, out := send(t, proxy+"/pages/_bulk", ndjson(lines...)); code != 200 {
		t.Fatalf("bulk: %d %s", code, out)
	}
	want["a"] = "cluster=" + ca.Cluster + " master=d canonical=false"
	want["b"] = "cluster=" + ca.Cluster + " master=d canonical=false"
	want["d"] = "cluster=" + ca.Cluster + " master=d canonical=true"
	check("a newer copy")

	// d deleted: a, the newest left, is master again.
	if code, out := send(t, proxy+"/_bulk", ndjson(map[string]any{"delete": map[string]any{"_index": "pages", "_id": "d"}})); code != 200 {
		t.Fatalf("bulk: %d %s", code, out)
	}
	delete(want, "d")
	want["a"] = "cluster=" + ca.Cluster + " master=a canonical=true"
	want["b"] = "cluster=" + ca.Cluster + " master=a canonical=false"
	check("the master deleted")
	if got := fields(es, "d"); got != "missing" {
		t.Errorf("d after its deletion: %s", got)
	}

	// An update of other fields passes through.
	upd := ndjson(map[string]any{"update": map[string]any{"_id": "c"}}, map[string]any{"doc": map[string]any{"tag": "parking"}})
	if code, out := send(t, proxy+"/pages/_bulk", upd); code != 200 {
		t.Fatalf("bulk: %d %s", code, out)
	}
	if src := es.docs["pages"]["c"]; src["tag"] != "parking" || src["dup_canonical"] != true {
		t.Errorf("c after a partial update: %v", src)
	}
	resp, err := http.Get(proxy + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "stand-in") {
		t.Errorf("GET / through the proxy: %s", body)
	}
}

// TestCollapse: after a run of bulks — copies with dates, new versions,
// deletions — every document in the stand-in holds the place the
// service gives it, and each cluster has exactly one canonical
// document: what collapse on dup_cluster and a filter on dup_canonical
// rely on.
func TestCollapse(t *testing.T) {
	proxy, es, dc := setup(t)
	words := strings.Fields(notice)
	for round := range 12 {
		var lines []any
		for i := range 15 {
			n := round*15 + i
			id := fmt.Sprint("p", n%40)
			if n%13 == 5 {
				lines = append(lines, map[string]any{"delete": map[string]any{"_id": id}})
				continue
			}
			w := append([]string(nil), words...)
			w[n%len(w)] = fmt.Sprint("x", n)
			if n%3 == 0 {
				w = append(w, words[:n%len(w)]...) // a longer page of the same notice
			}
			src := map[string]any{"content": strings.Join(w, " "), "title": fmt.Sprint("notice ", n%4)}
			if n%2 == 0 {
				src["date"] = fmt.Sprintf("20%02d-01-01", n%25)
			}
			if n%4 == 0 {
				src["content"] = fmt.Sprint("a page of its own, number ", n, " ", src["content"].(string)[:40*(n%5)])
			}
			lines = append(lines, index(id, src)...)
		}
		if code, out := send(t, proxy+"/pages/_bulk", ndjson(lines...)); code != 200 {
			t.Fatalf("round %d: %d %s", round, code, out)
		}
	}
	canonical := map[any]int{}
	es.mu.Lock()
	if es.bulks <= 12 {
		t.Errorf("the engine received %d bulks for 12 rounds: no partial update was needed; the test tests little", es.bulks)
	}
	ids := make([]string, 0, len(es.docs["pages"]))
	for id, src := range es.docs["pages"] {
		ids = append(ids, id)
		if src["dup_canonical"] == true {
			canonical[src["dup_cluster"]]++
		}
	}
	es.mu.Unlock()
	clusters := map[string]bool{}
	for _, id := range ids {
		a, err := dc.Get(context.Background(), id)
		if err != nil {
			t.Fatalf("%s is in the index, not in the service: %v", id, err)
		}
		clusters[a.Cluster] = true
		want := fmt.Sprintf("cluster=%s master=%s canonical=%v", a.Cluster, a.Master, a.Canonical)
		if got := fields(es, id); got != want {
			t.Errorf("%s: the index has %s; the service says %s", id, got, want)
		}
	}
	for c := range clusters {
		if canonical[c] != 1 {
			t.Errorf("cluster %s has %d canonical documents in the index", c, canonical[c])
		}
	}
	if st, _ := dc.Stats(context.Background()); st.Documents != len(ids) || len(clusters) >= len(ids) {
		t.Errorf("the index holds %d documents in %d clusters; the service %+v", len(ids), len(clusters), st)
	}
}

// TestBadBulk: a bulk the service cannot use is refused with 400 and a
// reason, and nothing reaches the engine.
func TestBadBulk(t *testing.T) {
	proxy, es, _ := setup(t)
	for _, tc := range []struct{ name, body, reason string }{
		{"no _id", ndjson(map[string]any{"index": map[string]any{}}, map[string]any{"content": "x"}), "needs an _id"},
		{"not JSON", "{\"index\": \n", "want an action object"},
		{"no source", ndjson(map[string]any{"index": map[string]any{"_id": "1"}}), "without its document"},
		{"bad date", ndjson(index("1", map[string]any{"content": "x", "date": "last week"})...), "last week"},
		{"empty", "", "no actions"},
	} {
		code, out := send(t, proxy+"/pages/_bulk", tc.body)
		if code != 400 || !strings.Contains(out, tc.reason) {
			t.Errorf("%s: %d %s; want 400 saying %q", tc.name, code, out, tc.reason)
		}
	}
	if es.bulks != 0 {
		t.Errorf("the engine received %d bulks", es.bulks)
	}
}

package detect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doppel-search/doppel/detect/api"
)

// TestRedTeamService asks the service what an attacker would: field
// names, dates and ids of up to a MiB, JSON nested 100,000 deep, NUL
// bytes and invalid UTF-8, ids that look like paths. Each is answered
// (200) or refused (400, 404, 405) with a reason, and no error answer
// grows with the request: each is under 1 KiB. Nothing refused is
// applied.
func TestRedTeamService(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	srv := httptest.NewServer(s.Handler(slog.New(slog.DiscardHandler)))
	defer srv.Close()
	mib := strings.Repeat("x", 1<<20)
	long := strings.Repeat("y", 100_000)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		reason                   string
	}{
		{"unknown field of 1 MiB", "POST", "/v1/documents", `{"documents":[{"id":"a","` + mib + `":"t"}]}`, 400, "unknown field"},
		{"unknown top field of 1 MiB", "POST", "/v1/documents", `{"` + mib + `":1}`, 400, "unknown field"},
		{"date of 1 MiB", "POST", "/v1/documents", `{"documents":[{"id":"a","text":"t","date":"` + mib + `"}]}`, 400, "neither RFC 3339"},
		{"id of 1 MiB", "POST", "/v1/documents", `{"documents":[{"id":"` + mib + `","text":"t"}]}`, 400, "at most 1024"},
		{"a value of the wrong type, 1 MiB", "POST", "/v1/documents", `{"documents":[{"id":"a","text":["` + mib + `"]}]}`, 400, "bad JSON"},
		{"nested 100,000 deep", "POST", "/v1/documents", `{"documents":[` + strings.Repeat("[", 100_000), 400, "bad JSON"},
		{"nested objects 100,000 deep", "POST", "/v1/documents", `{"documents":[{"id":"a","text":"t","lang":` + strings.Repeat(`{"a":`, 100_000), 400, "bad JSON"},
		{"GET an id of 100 kB", "GET", "/v1/documents/" + long, "", 400, "at most 1024"},
		{"DELETE an id of 100 kB", "DELETE", "/v1/documents/" + long, "", 400, "at most 1024"},
		{"GET an unknown id of 1 kB", "GET", "/v1/documents/" + long[:1000], "", 404, "no such document"},
		{"NUL bytes and invalid UTF-8", "POST", "/v1/documents", `{"documents":[{"id":"n\u0000ul` + "\xff" + `","text":"t\u0000` + "\xfe" + `"}]}`, 200, ""},
		{"an id like a path", "POST", "/v1/documents", `{"documents":[{"id":"../../v1/stats","text":"a text"}]}`, 200, ""},
		{"GET it", "GET", "/v1/documents/" + url.PathEscape("../../v1/stats"), "", 200, ""},
		{"a method not served", "PATCH", "/v1/documents", "", 405, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(raw), tc.reason) {
				t.Errorf("%d %.300s; want %d with %q", resp.StatusCode, raw, tc.status, tc.reason)
			}
			if resp.StatusCode != http.StatusOK && len(raw) >= 1024 {
				t.Errorf("an error answer of %d bytes (%.100s…); want under 1 KiB", len(raw), raw)
			}
		})
	}
	if st := s.Stats(); st.Documents != 2 {
		t.Errorf("the service holds %d documents; want the 2 accepted", st.Documents)
	}
}

// TestRedTeamConcurrentWriters: 8 clients at once add, update and remove
// overlapping ids for a while; every answer is 200 or a reasoned 4xx or
// 503, and the service reopened answers for every id as it did before it
// was closed (what it logged is what it applied).
func TestRedTeamConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	srv := httptest.NewServer(s.Handler(slog.New(slog.DiscardHandler)))
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Go(func() {
			for i := range 25 {
				var docs []api.Document
				for j := range 10 {
					id := fmt.Sprintf("doc-%d", (w*7+i*3+j)%40) // ids shared by the writers
					docs = append(docs, api.Document{ID: id, Text: edit(text(uint64(j%5), 80), w+i)})
				}
				body, _ := json.Marshal(api.Batch{Documents: docs})
				resp, err := http.Post(srv.URL+"/v1/documents", "application/json", bytes.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
					errs <- fmt.Errorf("writer %d batch %d: %s", w, i, resp.Status)
				}
				if i%5 == 4 {
					req, _ := http.NewRequest("DELETE", srv.URL+"/v1/documents/"+fmt.Sprintf("doc-%d", (w+i)%40), nil)
					if resp, err := http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	srv.Close()
	before := map[string]api.Answer{}
	for i := range 40 {
		id := fmt.Sprintf("doc-%d", i)
		if a, err := s.Get(id); err == nil {
			before[id] = a
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	defer s.Close()
	if n := s.Stats().Documents; n != len(before) {
		t.Errorf("reopened: %d documents; want %d", n, len(before))
	}
	for id, w := range before {
		a, err := s.Get(id)
		if err != nil || a.Cluster != w.Cluster || a.Master != w.Master || a.Members != w.Members {
			t.Errorf("reopened, %s: %+v, %v; want %+v", id, a, err, w)
		}
	}
}

// TestRedTeamSlowClients: clients that send a POST's headers and then
// trickle its body hold at most MaxBodies of the service's slots; the
// next POST is answered 503 with Retry-After within about a second
// (never waits for them), a GET is answered meanwhile, and once the slow
// clients go, POSTs are answered again.
func TestRedTeamSlowClients(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	srv := httptest.NewServer(s.Handler(slog.New(slog.DiscardHandler)))
	defer srv.Close()
	post(t, srv.URL, `{"documents":[{"id":"kept","text":"a text that is kept"}]}`, http.StatusOK, "")
	var slow []net.Conn
	for range MaxBodies() {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /v1/documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"documents\":[")
		slow = append(slow, c)
	}
	time.Sleep(200 * time.Millisecond) // the slow requests reach the handler
	start := time.Now()
	resp, err := http.Post(srv.URL+"/v1/documents", "application/json", strings.NewReader(`{"documents":[{"id":"b","text":"t"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a POST while %d slow clients hold the slots: %s, Retry-After %q; want 503 with Retry-After", len(slow), resp.Status, resp.Header.Get("Retry-After"))
	}
	t.Logf("refused after %v", took)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/documents/kept", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("a GET while the slow clients hold the slots: %v, %v; want 200", resp, err)
	} else {
		resp.Body.Close()
	}
	for _, c := range slow {
		c.Close()
	}
	deadline := time.Now().Add(time.Minute) // a bound against a hang: a busy machine may take seconds
	for {
		resp, err := http.Post(srv.URL+"/v1/documents", "application/json", strings.NewReader(`{"documents":[{"id":"b","text":"t"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the slow clients left a POST gets %s; want 200", resp.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

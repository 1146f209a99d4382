package detect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/detect/api"
)

// TestBadInput: each bad request gets 400 (404, 409) with a reason that
// names what is wrong, and nothing of it is applied.
func TestBadInput(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	srv := httptest.NewServer(s.Handler(slog.New(slog.DiscardHandler)))
	defer srv.Close()
	post(t, srv.URL, `{"documents":[{"id":"kept","text":"a text that is kept"}]}`, http.StatusOK, "")

	many := make([]api.Document, api.MaxBatch+1)
	for i := range many {
		many[i] = api.Document{ID: fmt.Sprint(i), Text: "x"}
	}
	manyJSON, _ := json.Marshal(api.Batch{Documents: many})
	huge := `{"documents":[{"id":"big","text":"` + strings.Repeat("w", api.MaxBodyBytes) + `"}]}`
	for _, tc := range []struct {
		name, body string
		status     int
		reason     string
	}{
		{"not JSON", `{"documents": [`, 400, "bad JSON"},
		{"empty body", ``, 400, "empty body"},
		{"a list, not an object", `[{"id":"a","text":"t"}]`, 400, "bad JSON"},
		{"unknown field", `{"documents":[{"id":"a","body":"t"}]}`, 400, `unknown field "body"`},
		{"two objects", `{"documents":[{"id":"a","text":"t"}]} {}`, 400, "data after the JSON object"},
		{"missing id", `{"documents":[{"id":"a","text":"t"},{"text":"t"}]}`, 400, "documents[1]: missing id"},
		{"long id", `{"documents":[{"id":"` + strings.Repeat("x", api.MaxIDBytes+1) + `","text":"t"}]}`, 400, "at most 1024"},
		{"bad date", `{"documents":[{"id":"a","text":"t","date":"yesterday"}]}`, 400, `date "yesterday"`},
		{"no documents", `{"documents":[]}`, 400, "no documents"},
		{"too many documents", string(manyJSON), 400, "1001 documents; at most 1000"},
		{"body too large", huge, 413, "body over 33554432 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			post(t, srv.URL, tc.body, tc.status, tc.reason)
		})
	}
	if st := s.Stats(); st.Documents != 1 {
		t.Errorf("after the bad requests the service holds %d documents; want the 1 kept", st.Documents)
	}
	for _, tc := range []struct {
		method, path string
		status       int
		reason       string
	}{
		{"GET", "/v1/documents/missing", 404, "no such document"},
		{"DELETE", "/v1/documents/missing", 404, "no such document"},
		{"GET", "/v1/documents/kept", 200, ""},
		{"PUT", "/v1/documents", 405, ""},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.reason) {
			t.Errorf("%s %s: %d %s; want %d with %q", tc.method, tc.path, resp.StatusCode, body, tc.status, tc.reason)
		}
	}
}

// post sends body and checks the status and that the answer holds
// reason.
func post(t *testing.T, base, body string, status int, reason string) {
	t.Helper()
	resp, err := http.Post(base+"/v1/documents", "application/json", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("status %d (%s); want %d", resp.StatusCode, raw, status)
	}
	if status != http.StatusOK {
		var e api.Error
		if err := json.Unmarshal(raw, &e); err != nil || !strings.Contains(e.Error, reason) {
			t.Errorf("answer %s; want an error saying %q", raw, reason)
		}
	}
}

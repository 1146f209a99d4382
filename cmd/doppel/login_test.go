package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/internal/testrig/authtest"
)

// TestSecretsNeverShown crawls four sites behind logins — Basic with the
// password in the seed URL, NTLM with the password from the environment
// (login file), a login form whose password comes from the environment
// and whose sessions end mid-crawl, a bearer token from the environment
// — serves the result, and looks for every secret in every file under
// --data, the export, stdout and stderr, /metrics, /status, /api/stats
// and every search, cluster and document answer: it finds none, and
// every protected page is searchable by a user of the login's group.
func TestSecretsNeverShown(t *testing.T) {
	secrets := []string{"seedPass-7Qx", "ntlmPass-4Wz", "formPass-9Kv", "bearerTok-2Jm"}
	basic := authtest.New(t, authtest.Options{Kind: authtest.Basic, User: "alice", Password: secrets[0], Pages: 3})
	ntlm := authtest.New(t, authtest.Options{Kind: authtest.NTLM, User: `DOPPEL\bob`, Password: secrets[1], Pages: 3})
	form := authtest.New(t, authtest.Options{Kind: authtest.Form, User: "carol", Password: secrets[2], Pages: 6, Session: 3})
	bearer := authtest.New(t, authtest.Options{Kind: authtest.Bearer, Token: secrets[3], Pages: 3})
	t.Setenv("TEST_NTLM_PASSWORD", secrets[1])
	t.Setenv("TEST_FORM_PASSWORD", secrets[2])
	t.Setenv("TEST_API_TOKEN", secrets[3])
	logins := writeFile(t, "logins.json", fmt.Sprintf(`{"logins": [
	  {"prefix": "%s/", "groups": ["staff"]},
	  {"prefix": "%s/", "user": "DOPPEL\\bob", "password": "${TEST_NTLM_PASSWORD}", "groups": ["staff"]},
	  {"prefix": "%s/", "form": {"url": "%s/login", "fields": {"username": "carol", "password": "${TEST_FORM_PASSWORD}"}}, "groups": ["staff"]},
	  {"prefix": "%s/", "headers": {"Authorization": "Bearer ${TEST_API_TOKEN}"}, "groups": ["staff"]}]}`,
		basic.URL, ntlm.URL, form.URL, form.URL, bearer.URL))
	seedWithPassword := strings.Replace(basic.URL, "http://", "http://alice:"+secrets[0]+"@", 1) + "/"
	dir := filepath.Join(t.TempDir(), "data")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"crawl", "--once", "--data", dir, "--delay", "0", "--login", logins,
			"--seed", seedWithPassword, "--seed", ntlm.URL + "/", "--seed", form.URL + "/", "--seed", bearer.URL + "/",
			"--serve", "127.0.0.1:0", "--groups-header", "X-Doppel-Groups", "--trusted-proxies", "127.0.0.1", "--admin-groups", "admin"}, &stdout, &stderr)
	}()
	base := searchUI(t, &stdout, &stderr, "crawl --serve did not start serving")
	for deadline := time.Now().Add(time.Minute); !strings.Contains(stdout.String(), "pages fetched:"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not finish: %s", stderr.String())
		}
	}
	var answers bytes.Buffer
	get := func(path, groups string) (int, []byte) {
		req, _ := http.NewRequest("GET", base+strings.TrimPrefix(path, "/"), nil)
		req.Header.Set("X-Doppel-Groups", groups)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Fprintf(&answers, "%s %d\n%s\n", path, resp.StatusCode, b)
		return resp.StatusCode, b
	}
	type result struct {
		Total int
		Hits  []struct{ ID, URL, Cluster string }
	}
	var staff, anyone result
	_, b := get("/api/search?q=&size=100", "staff,admin")
	json.Unmarshal(b, &staff)
	_, b = get("/api/search?q=&size=100", "")
	json.Unmarshal(b, &anyone)
	if staff.Total == 0 || anyone.Total != 0 {
		t.Errorf("results: %d for staff, %d for anyone; want some and none (every page is behind a login)", staff.Total, anyone.Total)
	}
	for _, h := range staff.Hits {
		get("/api/cluster/"+url.PathEscape(h.Cluster), "staff,admin")
		get("/cluster/"+url.PathEscape(h.Cluster), "staff,admin")
	}
	var pages []string
	for _, s := range []*authtest.Site{basic, ntlm, form, bearer} {
		for _, p := range s.Paths() {
			pages = append(pages, s.URL+p)
		}
	}
	for _, h := range staff.Hits {
		if code, _ := get("/api/doc/"+url.PathEscape(h.ID), "staff"); code != 200 {
			t.Errorf("%s: %d for staff, want the document", h.ID, code)
		}
		if code, _ := get("/api/doc/"+url.PathEscape(h.ID), ""); code == 200 {
			t.Errorf("%s: shown to anyone", h.ID)
		}
	}
	for _, p := range []string{"/metrics", "/status", "/api/stats", "/?q=Protected+document", "/api/search?q=Protected+document&size=100"} {
		get(p, "staff,admin")
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	code, export, exportErr := doppel(t, "export", "--data", dir)
	if code != 0 {
		t.Fatalf("export: %d %s", code, exportErr)
	}
	if n := strings.Count(export, `"status":"fetched"`); n != len(pages) {
		t.Errorf("export: %d pages fetched, want the %d protected ones:\n%s", n, len(pages), export)
	}
	for _, secret := range secrets {
		for name, text := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String(), "export": export, "answers": answers.String()} {
			if strings.Contains(text, secret) {
				t.Errorf("%s shows the secret %s", name, secret)
			}
		}
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(secret)) {
					t.Errorf("%s holds the secret %s", path, secret)
				}
			}
			return nil
		})
	}
	if strings.Contains(export, "alice") {
		t.Error("the export shows the seed's user")
	}
	if !strings.Contains(stderr.String(), "warning: the seed http://alice:xxxxx@") || !strings.Contains(stderr.String(), "--netrc") {
		t.Errorf("no warning that the seed holds a password:\n%s", stderr.String())
	}
}

// TestSeedPasswordWarning: a seed holding a password gets one warning
// on stderr, which shows it redacted and points to --netrc and --login;
// a seed with a user and no password, or none, gets none.
func TestSeedPasswordWarning(t *testing.T) {
	for _, tc := range []struct {
		seeds []string
		want  []string // lines the warning must hold; nil: no warning
	}{
		{[]string{"http://alice:s3cret-Pw@intra.example/"}, []string{"doppel crawl: warning: the seed http://alice:xxxxx@intra.example/ holds a password",
			"/proc/PID/cmdline", "--netrc file (machine intra.example login alice password", "--login"}},
		{[]string{"https://intra.example/", "http://bob:p%40ss@wiki.example:8080/x"}, []string{"http://bob:xxxxx@wiki.example:8080/x"}},
		{[]string{"http://carol@intra.example/", "file:///srv/share/", "https://intra.example/"}, nil},
	} {
		var w bytes.Buffer
		warnSeedPasswords(&w, "crawl", tc.seeds)
		got := w.String()
		if tc.want == nil && got != "" {
			t.Errorf("%v: warned %q", tc.seeds, got)
		}
		for _, want := range tc.want {
			if !strings.Contains(got, want) {
				t.Errorf("%v: warning %q lacks %q", tc.seeds, got, want)
			}
		}
		for _, secret := range []string{"s3cret", "p%40ss", "p@ss"} {
			if strings.Contains(got, secret) {
				t.Errorf("%v: the warning shows the password: %q", tc.seeds, got)
			}
		}
	}
}

package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServeShards crawls the demo site into four shards: doppel serve
// answers the same over the sharded data directory as over the four
// shards served by doppel shard (with the records of the data directory,
// and without). (Two crawls of the site may index slightly different
// texts — a site template is stripped once enough pages share it — so
// one index of another crawl is no reference: package indexer/shard's
// tests compare one index and shards of the same documents.)
func TestServeShards(t *testing.T) {
	site := demoServer(t)
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site+`/"], "delay": "1ms", "max_pages": 2000}`)
	sharded := t.TempDir()
	if code, _, stderr := doppel(t, "crawl", "--once", "--data", sharded, "--config", cfg, "--shards", "4"); code != 0 {
		t.Fatalf("crawl --shards 4: %s", stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// start runs a command and returns the first URL it prints matching re.
	start := func(re string, args ...string) string {
		t.Helper()
		var stdout, stderr syncBuffer
		done := make(chan int, 1)
		go func() { done <- run(ctx, args, &stdout, &stderr) }()
		t.Cleanup(func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("%v: exit %d: %s", args, code, stderr.String())
			}
		})
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if m := regexp.MustCompile(re).FindStringSubmatch(stdout.String()); m != nil {
				return m[1]
			}
			if time.Now().After(deadline) {
				t.Fatalf("%v did not start: %s %s", args, stdout.String(), stderr.String())
			}
		}
	}
	ui := `Search UI: (http://[0-9.:]+/)`
	var urls []string
	for _, i := range []string{"0", "1", "2", "3"} {
		urls = append(urls, start(`Shard `+i+` of 4: (http://[0-9.:]+/)`, "shard", "--data", sharded, "--shard", i, "--addr", "127.0.0.1:0"))
	}
	servers := map[string]string{
		"sharded":          start(ui, "serve", "--data", sharded, "--addr", "127.0.0.1:0"),
		"remote with data": start(ui, "serve", "--data", sharded, "--shards", strings.Join(urls, ","), "--addr", "127.0.0.1:0"),
		"remote":           start(ui, "serve", "--shards", strings.Join(urls, ","), "--addr", "127.0.0.1:0"),
	}
	get := func(u string) string {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %s %s", u, resp.Status, b)
		}
		return string(b)
	}
	// ask is get, asked again while the answer says its suggestion could
	// not be made in time (a busy machine's answer, by design): the
	// comparison is of the answers' content, not of the machine's load.
	ask := func(u string) string {
		got := get(u)
		for i := 0; i < 20 && strings.Contains(got, `"suggestion_unavailable":true`); i++ {
			time.Sleep(500 * time.Millisecond)
			got = get(u)
		}
		return got
	}
	for _, q := range []string{"q=vpn", "q=vacation+policy&facets=1", "q=expense&members=2", "q=pasword", "q=vac*&syntax=bleve", "q=policy&page=2&size=3"} {
		want := ask(servers["sharded"] + "api/search?" + q)
		if !strings.Contains(want, `"hits":[{`) && !strings.Contains(want, "suggestion") {
			t.Errorf("%s: nothing found: %s", q, want)
		}
		for name, base := range servers {
			if got := ask(base + "api/search?" + q); got != want {
				t.Errorf("%s, %s:\n%s\nlocal shards:\n%s", name, q, got, want)
			}
		}
	}
}

// TestShardToken: off loopback doppel shard refuses to start without a
// token; with one, a request without it is refused and doppel serve's
// client, which carries it, is answered.
func TestShardToken(t *testing.T) {
	t.Setenv(shardTokenEnv, "")
	data := t.TempDir()
	code, _, stderr := doppel(t, "shard", "--index", data, "--addr", "0.0.0.0:0")
	if code == 0 || !strings.Contains(stderr, shardTokenEnv) {
		t.Fatalf("a shard off loopback without a token: exit %d: %s", code, stderr)
	}
	if shardClient() != nil {
		t.Fatal("a client with a token while none is set")
	}

	t.Setenv(shardTokenEnv, "s3cret")
	srv := httptest.NewServer(requireToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "shard")
	}), "s3cret"))
	defer srv.Close()
	for _, tt := range []struct {
		name   string
		client *http.Client
		header string
		want   int
	}{
		{"no token", http.DefaultClient, "", http.StatusUnauthorized},
		{"wrong token", http.DefaultClient, "Bearer s3cre", http.StatusUnauthorized},
		{"serve's client", shardClient(), "", http.StatusOK},
	} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if tt.header != "" {
			req.Header.Set("Authorization", tt.header)
		}
		resp, err := tt.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: %s, want %d", tt.name, resp.Status, tt.want)
		}
	}
}

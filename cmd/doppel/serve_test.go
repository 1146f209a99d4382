package main

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/web"
)

func TestParseTrustedProxies(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"10.0.0.5", []string{"10.0.0.5/32"}, false},
		{" 192.168.1.7/24 , ::1", []string{"192.168.1.0/24", "::1/128"}, false},
		{"::ffff:10.0.0.5", []string{"10.0.0.5/32"}, false},
		{"proxy.intra", nil, true},
		{"10.0.0.0/33", nil, true},
	} {
		got, err := parseTrustedProxies(tc.in)
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if (err != nil) != tc.err || !slices.Equal(s, tc.want) {
			t.Errorf("parseTrustedProxies(%q) = %v, %v; want %v (error %v)", tc.in, s, err, tc.want, tc.err)
		}
	}
}

func TestIdentityWarningsAndErrors(t *testing.T) {
	for addr, loop := range map[string]bool{"127.0.0.1:8080": true, "[::1]:80": true, "localhost:8080": true, "127.3.2.1:1": true,
		":8080": false, "0.0.0.0:8080": false, "10.1.2.3:8080": false, "intranet:80": false, "junk": false} {
		if isLoopback(addr) != loop {
			t.Errorf("isLoopback(%q) = %v", addr, !loop)
		}
	}
	parse := func(args ...string) (identity, error) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		read := identityFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return read()
	}
	id, err := parse("--groups-header", "X-Groups")
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{":8080", "127.0.0.1:8080"} {
		if err := id.check(addr); err == nil || !strings.Contains(err.Error(), "--trusted-proxies") {
			t.Errorf("groups header on %s with no trusted proxies: %v, want a refusal naming --trusted-proxies", addr, err)
		}
	}
	id, _ = parse("--groups-header", "X-Groups", "--trusted-proxies", "10.0.0.5")
	if err := id.check(":8080"); err != nil || !slices.Equal(id.web.TrustedProxies, []netip.Prefix{netip.MustParsePrefix("10.0.0.5/32")}) {
		t.Errorf("with trusted proxies: %v, %v", err, id.web.TrustedProxies)
	}
	if id, _ = parse(); id.check(":8080") != nil {
		t.Error("no groups header, no demo users: refused")
	}
	for _, tc := range []struct {
		args []string
		addr string
		ok   bool
	}{
		{[]string{"--demo-users", "guest=;alice=hr"}, "127.0.0.1:8080", true},
		{[]string{"--demo-users", "guest=;alice=hr"}, "0.0.0.0:8080", false},
		{[]string{"--demo-users", "guest=;alice=hr", "--demo-users-anywhere"}, "0.0.0.0:8080", true},
	} {
		id, err := parse(tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		if err := id.check(tc.addr); (err == nil) != tc.ok {
			t.Errorf("%v on %s: %v, want ok %v", tc.args, tc.addr, err, tc.ok)
		}
	}
	if _, err := parse("--admin-addr", "0.0.0.0:8081"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("--admin-addr on all interfaces: %v", err)
	}
	if _, err := parse("--trusted-proxies", "nope"); err == nil {
		t.Error("--trusted-proxies nope: no error")
	}
	id, err = parse("--link-map", `file:///srv/share/=\\fs1\share\`, "--link-map", "smb://fs2/docs/=https://files.intra/docs/")
	want := []web.ShareLink{{Prefix: "file:///srv/share/", Target: `\\fs1\share\`}, {Prefix: "smb://fs2/docs/", Target: "https://files.intra/docs/"}}
	if err != nil || !slices.Equal(id.web.Links, want) {
		t.Errorf("--link-map twice: %+v, %v; want %+v", id.web.Links, err, want)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	identityFlags(fs)
	if err := fs.Parse([]string{"--link-map", "file:///srv/share/"}); err == nil || !strings.Contains(err.Error(), "PREFIX=TARGET") {
		t.Errorf("--link-map without a target: %v", err)
	}
}

// TestServeAdminAddr: without --admin-groups the status numbers are
// closed on the search address and open on --admin-addr.
func TestServeAdminAddr(t *testing.T) {
	site := demoServer(t)
	dir := t.TempDir()
	cfg := writeFile(t, "c.json", `{"seeds": ["`+site+`/"], "delay": "1ms", "max_pages": 20}`)
	if code, _, stderr := doppel(t, "crawl", "--once", "--data", dir, "--config", cfg); code != 3 { // 3: stopped at its 20 requests
		t.Fatalf("crawl: exit %d: %s", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--data", dir, "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	var base, admin string
	for deadline := time.Now().Add(30 * time.Second); admin == ""; time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`Search UI: (http://[0-9.:]+/)(?s:.*)Status for administrators: (http://[0-9.:]+/)status`).FindStringSubmatch(stdout.String()); m != nil {
			base, admin = m[1], m[2]
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s %s", stdout.String(), stderr.String())
		}
	}
	status := func(u string) int {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, p := range []string{"status", "api/stats", "metrics"} {
		if a, b := status(base+p), status(admin+p); a != 403 || b != 200 {
			t.Errorf("%s: %d on the search address, %d on the admin address; want 403, 200", p, a, b)
		}
	}
	if code := status(base + "api/search?q=vpn"); code != 200 {
		t.Errorf("search: %d", code)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exit %d: %s", code, stderr.String())
	}
}

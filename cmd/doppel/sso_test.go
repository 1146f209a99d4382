package main

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// apacheModules are the modules the recipe's a2enmod line enables, and
// what Debian's apache2 needs to run at all.
var apacheModules = []string{"mpm_event", "authn_core", "authn_file", "auth_basic", "authz_core", "authz_user",
	"headers", "rewrite", "proxy", "proxy_http"}

// TestSSORecipe runs docs/howto/sso.md as written: the crawl's groups
// rule, the serve command line, and Apache httpd with the page's site and
// group map in front of it; then the page's three checks. Apache is
// Debian's apache2, started as a test process on loopback; the test skips
// without it unless DOPPEL_REQUIRE_APACHE is set (CI sets it).
func TestSSORecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls the demo intranet and starts Apache")
	}
	apache, err := exec.LookPath("apache2")
	if err != nil {
		if apache, err = exec.LookPath("/usr/sbin/apache2"); err != nil {
			if os.Getenv("DOPPEL_REQUIRE_APACHE") != "" {
				t.Fatal("DOPPEL_REQUIRE_APACHE is set and apache2 is not installed")
			}
			t.Skip("apache2 is not installed (Debian: apt-get install apache2)")
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "howto", "sso.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := fencedBlocks(string(doc))
	groupsRule, serveLine, groupMap, site := blocks["json"], "", blocks[""], blocks["apache"]
	for _, l := range strings.Split(blocks["sh"], "\n") {
		if strings.HasPrefix(l, "doppel serve ") {
			serveLine = l
		}
	}
	if groupsRule == "" || serveLine == "" || groupMap == "" || site == "" {
		t.Fatalf("docs/howto/sso.md lacks a block: groups %q, serve %q, map %q, site %q", groupsRule, serveLine, groupMap, site)
	}

	// Step 1: the crawl with the page's groups rule, for the demo intranet.
	demo := demoServer(t)
	var cfg map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(groupsRule, "https://intranet.example", demo)), &cfg); err != nil {
		t.Fatalf("the groups rule: %v", err)
	}
	cfg["delay"] = "1ms"
	cfgJSON, _ := json.Marshal(cfg)
	data := t.TempDir()
	if code, _, stderr := doppel(t, "crawl", "--once", "--config", writeFile(t, "groups.json", string(cfgJSON)), "--seed", demo+"/", "--data", data); code != 0 {
		t.Fatalf("crawl: exit %d: %s", code, stderr)
	}

	// Step 2: doppel serve as the page says, on a free port.
	args := strings.Fields(strings.TrimPrefix(serveLine, "doppel "))
	for i, a := range args {
		switch a {
		case "./intranet":
			args[i] = data
		case "127.0.0.1:8080":
			args[i] = "127.0.0.1:0"
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, &stdout, &stderr) }()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exit %d: %s", code, stderr.String())
		}
	}()
	var search string
	for deadline := time.Now().Add(30 * time.Second); search == ""; time.Sleep(10 * time.Millisecond) {
		if m := regexp.MustCompile(`Search UI: (http://[0-9.:]+/)`).FindStringSubmatch(stdout.String()); m != nil {
			search = m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s %s", stdout.String(), stderr.String())
		}
	}

	// Step 3: Apache with the page's site and group map.
	dir := t.TempDir()
	port := freePort(t)
	if err := os.WriteFile(filepath.Join(dir, "doppel-groups.txt"), []byte(groupMap+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var users strings.Builder
	for _, u := range []string{"alice", "bob", "carol"} { // carol is in no group
		sum := sha1.Sum([]byte(u + "-password"))
		fmt.Fprintf(&users, "%s:{SHA}%s\n", u, base64.StdEncoding.EncodeToString(sum[:]))
	}
	if err := os.WriteFile(filepath.Join(dir, "doppel-users"), []byte(users.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var conf strings.Builder
	fmt.Fprintf(&conf, "ServerRoot %q\nPidFile %q\nErrorLog %q\nListen 127.0.0.1:%d\nServerName 127.0.0.1\n",
		dir, filepath.Join(dir, "httpd.pid"), filepath.Join(dir, "error.log"), port)
	for _, m := range apacheModules {
		fmt.Fprintf(&conf, "LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so\n", m, m)
	}
	conf.WriteString(strings.NewReplacer("/etc/apache2/", dir+"/", "*:80", fmt.Sprintf("127.0.0.1:%d", port),
		"http://127.0.0.1:8080/", search).Replace(site))
	if err := os.WriteFile(filepath.Join(dir, "httpd.conf"), []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Apache's workers are children of its own: it runs in a process group
	// of its own, killed whole, and writes to a file, not to a pipe its
	// children would hold open.
	out, err := os.Create(filepath.Join(dir, "stderr.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(apache, "-d", dir, "-f", filepath.Join(dir, "httpd.conf"), "-DFOREGROUND")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited }()
	apacheOut := func() string {
		b, _ := os.ReadFile(filepath.Join(dir, "stderr.log"))
		l, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return string(b) + string(l)
	}
	proxy := fmt.Sprintf("http://127.0.0.1:%d/", port)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(proxy + "healthz"); err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-exited:
			t.Fatalf("apache exited: %s", apacheOut())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("apache did not start: %s", apacheOut())
		}
	}

	// Step 4: the page's three checks.
	ask := func(user, forged string) (int, int, []string) {
		req, _ := http.NewRequest("GET", proxy+"api/search?q=grievance", nil)
		if user != "" {
			req.SetBasicAuth(user, user+"-password")
		}
		if forged != "" {
			req.Header.Set("X-Doppel-Groups", forged)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var ans struct {
			Total int
			Hits  []struct{ URL string }
		}
		if resp.StatusCode == 200 {
			if err := json.Unmarshal(body, &ans); err != nil {
				t.Fatalf("%s: %v: %s", user, err, body)
			}
		}
		var urls []string
		for _, h := range ans.Hits {
			urls = append(urls, h.URL)
		}
		return resp.StatusCode, ans.Total, urls
	}
	if code, total, urls := ask("alice", ""); code != 200 || total == 0 || !strings.Contains(urls[0], "/hr/") {
		t.Errorf("alice (hr): %d, %d results %v; want the /hr/ page", code, total, urls)
	}
	if code, total, urls := ask("bob", "hr"); code != 200 || total != 0 {
		t.Errorf("bob with a forged groups header: %d, %d results %v; want none", code, total, urls)
	}
	if code, total, urls := ask("carol", "hr"); code != 200 || total != 0 {
		t.Errorf("carol, in no group, with a forged groups header: %d, %d results %v; want none", code, total, urls)
	}
	if code, _, _ := ask("", "hr"); code != 401 {
		t.Errorf("nobody logged in: %d, want 401", code)
	}
}

// fencedBlocks returns the fenced code blocks of a Markdown text by info
// string (the language after the backticks; "" for a bare fence), the
// blocks of one info string joined by newlines.
func fencedBlocks(md string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```").FindAllStringSubmatch(md, -1) {
		if out[m[1]] != "" {
			out[m[1]] += "\n"
		}
		out[m[1]] += strings.TrimRight(m[2], "\n")
	}
	return out
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

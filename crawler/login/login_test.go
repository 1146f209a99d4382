package login

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/doppel-search/doppel/internal/testrig/authtest"
)

const secret = "S3cr3t-hunter2"

func fetch(t *testing.T, c *http.Client, u string) (*http.Response, string, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

// noRedirects is a client as the crawl's: redirects come back as answers.
func noRedirects(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestTransport: each kind of login gets the protected pages with the
// right credentials, and fails with ErrRefused (never a page) with wrong
// ones.
func TestTransport(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts authtest.Options
		site func(prefix string, good bool) Site
	}{
		{"basic", authtest.Options{Kind: authtest.Basic, User: "alice", Password: secret}, func(p string, good bool) Site {
			return Site{Prefix: p, User: "alice", Password: pick(good)}
		}},
		{"ntlm", authtest.Options{Kind: authtest.NTLM, User: `DOPPEL\alice`, Password: secret}, func(p string, good bool) Site {
			return Site{Prefix: p, User: `DOPPEL\alice`, Password: pick(good)}
		}},
		{"bearer", authtest.Options{Kind: authtest.Bearer, Token: secret}, func(p string, good bool) Site {
			return Site{Prefix: p, Headers: map[string]Secret{"Authorization": "Bearer " + pick(good)}}
		}},
		{"form", authtest.Options{Kind: authtest.Form, User: "alice", Password: secret}, func(p string, good bool) Site {
			return Site{Prefix: p, Form: &Form{URL: p + "login", Fields: map[string]Secret{"username": "alice", "password": pick(good)}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := authtest.New(t, tc.opts)
			for _, good := range []bool{true, false} {
				set := &Set{}
				if err := set.Add(tc.site(s.URL+"/", good)); err != nil {
					t.Fatal(err)
				}
				c := noRedirects(set.Transport(http.DefaultTransport))
				resp, body, err := fetch(t, c, s.URL+"/docs/3")
				if good && (err != nil || resp.StatusCode != 200 || !strings.Contains(body, "Protected document 3")) {
					t.Errorf("good credentials: %v %v %.80q", err, resp, body)
				}
				if !good && !errors.Is(err, ErrRefused) {
					t.Errorf("wrong credentials: %v, %v; want ErrRefused", err, resp)
				}
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("the error shows the secret: %v", err)
				}
			}
		})
	}
}

func pick(good bool) Secret {
	if good {
		return secret
	}
	return "wrong"
}

// TestFormSessionEnds: a session that ends (after 3 pages, by a
// redirect or by the form in the page's place) is renewed and the page
// fetched again; the login page and logout links are refused; parallel
// requests whose session ended renew it once between them.
func TestFormSessionEnds(t *testing.T) {
	for _, expiry := range []authtest.Expiry{authtest.Redirect, authtest.Inline} {
		t.Run(fmt.Sprint(expiry), func(t *testing.T) {
			s := authtest.New(t, authtest.Options{Kind: authtest.Form, User: "alice", Password: secret, Session: 3, Pages: 12})
			set := &Set{}
			if err := set.Add(Site{Prefix: s.URL + "/", Form: &Form{URL: s.URL + "/login", Fields: map[string]Secret{"username": "alice", "password": secret}}}); err != nil {
				t.Fatal(err)
			}
			c := noRedirects(set.Transport(http.DefaultTransport))
			for i := 1; i <= 12; i++ {
				resp, body, err := fetch(t, c, fmt.Sprintf("%s/docs/%d", s.URL, i))
				if err != nil || resp.StatusCode != 200 || !strings.Contains(body, fmt.Sprintf("Protected document %d", i)) {
					t.Fatalf("page %d: %v %v %.100q", i, err, resp, body)
				}
			}
			// A session's first page is the one the sign-in redirects to.
			if n := s.Logins(); n != 6 {
				t.Errorf("%d sign-ins for 12 pages of 3-page sessions, want 6", n)
			}
			for _, p := range []string{"/login", "/login?next=/docs/1", "/logout"} {
				if _, _, err := fetch(t, c, s.URL+p); !errors.Is(err, ErrLoginPage) {
					t.Errorf("%s: %v, want ErrLoginPage", p, err)
				}
			}
			// Parallel: 4 workers, 40 pages; each session serves 10.
			s = authtest.New(t, authtest.Options{Kind: authtest.Form, User: "alice", Password: secret, Session: 10, Pages: 12})
			set = &Set{}
			if err := set.Add(Site{Prefix: s.URL + "/", Form: &Form{URL: s.URL + "/login", Fields: map[string]Secret{"username": "alice", "password": secret}}}); err != nil {
				t.Fatal(err)
			}
			c = noRedirects(set.Transport(http.DefaultTransport))
			before := s.Logins()
			var wg sync.WaitGroup
			errs := make(chan error, 40)
			for w := 0; w < 4; w++ {
				wg.Go(func() {
					for i := w; i < 40; i += 4 {
						resp, body, err := fetch(t, c, fmt.Sprintf("%s/docs/%d", s.URL, i%12+1))
						if err == nil && (resp.StatusCode != 200 || !strings.Contains(body, "Protected document")) {
							err = fmt.Errorf("%d %.60q", resp.StatusCode, body)
						}
						if err != nil {
							errs <- err
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("parallel: %v", err)
			}
			if n := s.Logins() - before; n > 12 {
				t.Errorf("%d sign-ins for 40 pages of 10-page sessions, want no more than a session's worth each", n)
			}
		})
	}
}

// TestSecretsStayHidden: a Site printed in every way, marshalled, or in
// an error, never shows its secrets.
func TestSecretsStayHidden(t *testing.T) {
	site := Site{Prefix: "https://wiki.example/", User: "alice", Password: secret,
		Headers: map[string]Secret{"Authorization": "Bearer " + secret},
		Form:    &Form{URL: "https://wiki.example/login", Fields: map[string]Secret{"password": secret}}}
	js, _ := json.Marshal(site)
	for _, s := range []string{fmt.Sprint(site), fmt.Sprintf("%+v", site), fmt.Sprintf("%#v", site), fmt.Sprintf("%v", *site.Form), string(js)} {
		if strings.Contains(s, secret) {
			t.Errorf("shown: %s", s)
		}
	}
	if site.Password.Reveal() != secret {
		t.Error("Reveal does not return the secret")
	}
	set := &Set{}
	u, err := set.TakeCredentials("http://alice:" + secret + "@wiki.example/start")
	if err != nil || u != "http://wiki.example/start" {
		t.Fatalf("TakeCredentials = %q, %v", u, err)
	}
	if g, ok := set.Groups("http://wiki.example/a"); !ok || len(g) != 1 || g[0] != "login:wiki.example" {
		t.Errorf("a login without groups: %v %v, want login:wiki.example", g, ok)
	}
	if _, ok := set.Groups("http://other.example/a"); ok {
		t.Error("the seed's credentials cover another host")
	}
	if err := set.Add(Site{Prefix: "http://bob:" + secret + "@x.example/"}); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("a prefix with credentials: %v", err)
	}
}

func TestParseNetrc(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]string // host → user:password
		err        string
	}{
		{"one line", "machine wiki.example login alice password pw1", map[string]string{"wiki.example": "alice:pw1"}, ""},
		{"lines and default", "machine a.example\n  login al\n  password p\n\ndefault login anon password x\n", map[string]string{"a.example": "al:p", "": "anon:x"}, ""},
		{"comments and account", "# mine\nmachine A.example login u password p account acc # end\n", map[string]string{"a.example": "u:p"}, ""},
		{"quoted", `machine q.example login "j doe" password "p w\"d"`, map[string]string{"q.example": `j doe:p w"d`}, ""},
		{"macdef", "macdef init\ncd /pub\nls\n\nmachine m.example login u password p", map[string]string{"m.example": "u:p"}, ""},
		{"first wins", "machine a login u1 password p1\nmachine a login u2 password p2", map[string]string{"a": "u1:p1"}, ""},
		{"no login", "machine a password p", map[string]string{}, ""},
		{"truncated", "machine", nil, "without a value"},
		{"truncated password", "machine a login u password", nil, "without a value"},
		{"unknown", "machine a login u passwd hunter2", nil, `unexpected token "p…"`},
		{"before machine", "login u", nil, "before any machine"},
		{"open quote", `machine a login "u`, nil, "not closed"},
	} {
		got, err := parseNetrc(tc.text)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.err)
			}
			continue
		}
		flat := map[string]string{}
		for h, m := range got {
			flat[h] = m.user + ":" + m.password.Reveal()
		}
		if err != nil || fmt.Sprint(flat) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.name, flat, err, tc.want)
		}
	}
}

func FuzzParseNetrc(f *testing.F) {
	f.Add("machine a login u password p")
	f.Add("macdef x\ny\n\n")
	f.Add(`"\`)
	f.Fuzz(func(t *testing.T, s string) {
		parseNetrc(s) // never panics
	})
}

// TestReadNetrc: only a file its owner alone may read is read.
func TestReadNetrc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(path, []byte("machine wiki.example login alice password "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := &Set{}
	if err := set.ReadNetrc(path); err == nil || !strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), secret) {
		t.Errorf("a netrc others may read: %v", err)
	}
	os.Chmod(path, 0o600)
	if err := set.ReadNetrc(path); err != nil {
		t.Fatal(err)
	}
	if site, ok := set.site(mustURL("https://wiki.example:8443/x")); !ok || site.User != "alice" || site.Password.Reveal() != secret {
		t.Errorf("netrc machine not used: %+v %v", site, ok)
	}
	if err := set.ReadNetrc(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing netrc is no error")
	}
}

func TestParseFile(t *testing.T) {
	env := map[string]string{"WIKI_PW": secret, "TOKEN": "tok"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	good := `{"logins": [
	  {"prefix": "https://wiki.example/", "user": "alice", "password": "${WIKI_PW}", "groups": ["staff"]},
	  {"prefix": "https://portal.example/", "form": {"url": "https://portal.example/login", "fields": {"username": "alice", "password": "${WIKI_PW}"}, "expired": "Session expired"}},
	  {"prefix": "https://api.example/", "headers": {"Authorization": "Bearer ${TOKEN}"}, "groups": ["it"]},
	  {"prefix": "https://netrc.example/", "groups": ["ops"]}]}`
	sites, err := parseFile([]byte(good), lookup)
	if err != nil || len(sites) != 4 {
		t.Fatalf("good file: %v, %d sites", err, len(sites))
	}
	if sites[0].Password.Reveal() != secret || sites[1].Form.Fields["password"].Reveal() != secret || sites[2].Headers["Authorization"].Reveal() != "Bearer tok" {
		t.Error("references not expanded")
	}
	for _, tc := range []struct{ name, text, err string }{
		{"literal password", `{"logins": [{"prefix": "https://a/", "user": "u", "password": "` + secret + `"}]}`, "name an environment variable"},
		{"literal header", `{"logins": [{"prefix": "https://a/", "headers": {"Authorization": "Bearer abc"}}]}`, "name an environment variable"},
		{"literal form password", `{"logins": [{"prefix": "https://a/", "form": {"url": "https://a/login", "fields": {"passwd": "x"}}}]}`, "name an environment variable"},
		{"unset variable", `{"logins": [{"prefix": "https://a/", "user": "u", "password": "${NOPE}"}]}`, "environment variable NOPE is not set"},
		{"unknown field", `{"logins": [{"prefix": "https://a/", "pasword": "x"}]}`, `unknown field "pasword"`},
		{"relative prefix", `{"logins": [{"prefix": "/wiki/"}]}`, "not an absolute http or https URL"},
		{"credentials in prefix", `{"logins": [{"prefix": "https://u:` + secret + `@a/"}]}`, "holds credentials"},
		{"form without fields", `{"logins": [{"prefix": "https://a/", "form": {"url": "https://a/login"}}]}`, "without fields"},
		{"empty", ``, "empty file"},
		{"trailing", `{"logins": []} {}`, "unexpected data"},
	} {
		_, err := parseFile([]byte(tc.text), lookup)
		if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: %v, want %q (and no secret)", tc.name, err, tc.err)
		}
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// hookTransport runs before, if set, ahead of the round trip of each
// request for path.
type hookTransport struct {
	base   http.RoundTripper
	path   string
	before func()
}

func (h *hookTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == h.path && h.before != nil {
		h.before()
	}
	return h.base.RoundTrip(r)
}

// TestFormSessionRenewedByOthers: a request whose session ends because
// other requests spent it, renewed it and spent the new one — three
// times in a row, while the request was on its way — still gets its
// page: only the sign-ins it does itself count against maxRenewals.
// (The interleaving is built, not left to the scheduler: the others run
// inside the request's round trip.)
func TestFormSessionRenewedByOthers(t *testing.T) {
	site := authtest.New(t, authtest.Options{Kind: authtest.Form, User: "alice", Password: secret, Session: 3, Pages: 12})
	set := &Set{}
	if err := set.Add(Site{Prefix: site.URL + "/", Form: &Form{URL: site.URL + "/login", Fields: map[string]Secret{"username": "alice", "password": secret}}}); err != nil {
		t.Fatal(err)
	}
	hook := &hookTransport{base: http.DefaultTransport, path: "/docs/1"}
	c := noRedirects(set.Transport(hook))
	get := func(path string) error {
		resp, body, err := fetch(t, c, site.URL+path)
		if err == nil && (resp.StatusCode != 200 || !strings.Contains(body, "Protected document")) {
			err = fmt.Errorf("%s: %d %.60q", path, resp.StatusCode, body)
		}
		return err
	}
	spent := 0
	hook.before = func() {
		if spent == 3 {
			return
		}
		spent++
		// Others renew the session and spend the new one: a session
		// serves the page its sign-in leads to and two more.
		before := site.Logins()
		for site.Logins() == before {
			if err := get("/docs/2"); err != nil {
				t.Errorf("another request: %v", err)
				return
			}
		}
		if err := get("/docs/2"); err != nil {
			t.Errorf("another request: %v", err)
		}
	}
	if err := get("/docs/1"); err != nil {
		t.Fatalf("the request whose session others renewed: %v", err)
	}
	if spent != 3 {
		t.Fatalf("the others ran %d times, want 3", spent)
	}
}

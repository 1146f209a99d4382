package crawler

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/login"
	"github.com/doppel-search/doppel/crawler/pages"
	"github.com/doppel-search/doppel/internal/testrig/authtest"
)

const loginSecret = "Tr0ub4dor&3-crawl"

// TestCrawlBehindLogin: a site behind each kind of login — Basic, NTLM, a
// bearer header, a login form whose 4-page sessions end by a redirect or
// by the form in the page's place — is crawled whole: every protected
// page fetched, indexed and given the login's access groups; the login
// page and the logout link never fetched as pages; and while sessions keep
// ending through revisits, nothing is recorded as gone.
func TestCrawlBehindLogin(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts authtest.Options
		site func(prefix string) login.Site
	}{
		{"basic", authtest.Options{Kind: authtest.Basic, User: "alice", Password: loginSecret}, func(p string) login.Site {
			return login.Site{Prefix: p, User: "alice", Password: loginSecret, Groups: []string{"staff"}}
		}},
		{"ntlm", authtest.Options{Kind: authtest.NTLM, User: `DOPPEL\alice`, Password: loginSecret}, func(p string) login.Site {
			return login.Site{Prefix: p, User: `DOPPEL\alice`, Password: loginSecret, Groups: []string{"staff"}}
		}},
		{"bearer", authtest.Options{Kind: authtest.Bearer, Token: loginSecret}, func(p string) login.Site {
			return login.Site{Prefix: p, Headers: map[string]login.Secret{"Authorization": "Bearer " + loginSecret}, Groups: []string{"staff"}}
		}},
		{"form, redirect", authtest.Options{Kind: authtest.Form, User: "alice", Password: loginSecret, Session: 4, Expiry: authtest.Redirect}, formSite},
		{"form, inline", authtest.Options{Kind: authtest.Form, User: "alice", Password: loginSecret, Session: 4, Expiry: authtest.Inline}, formSite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := authtest.New(t, tc.opts)
			set := &login.Set{}
			if err := set.Add(tc.site(s.URL + "/")); err != nil {
				t.Fatal(err)
			}
			opts := recrawlOptions(s.URL + "/")
			opts.Logins = set
			c, err := Open(t.TempDir(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			watchUntil(t, c, func() bool { return c.Stats().Revisits >= 30 })
			recs := records(t, c)
			for _, p := range s.Paths() {
				r := recs[s.URL+p]
				if r.Status != pages.Fetched || !slices.Equal(r.Groups, []string{"staff"}) {
					t.Errorf("%s: %s %q groups %v; want fetched, staff", p, r.Status, r.Reason, r.Groups)
				}
			}
			for u, r := range recs {
				if r.Status == pages.Gone || strings.Contains(r.Text, "Sign in to the staff intranet") {
					t.Errorf("%s: %s %q: a login page recorded as content or a page as gone", u, r.Status, r.Reason)
				}
			}
			if tc.opts.Kind == authtest.Form {
				for _, p := range []string{"/login", "/logout"} {
					if r := recs[s.URL+p]; r.Status != pages.Skipped || r.Reason != "login page or logout link" {
						t.Errorf("%s: %s %q, want skipped as a login page", p, r.Status, r.Reason)
					}
				}
				if s.Logins() < 2 {
					t.Errorf("%d sign-ins: the sessions never ended", s.Logins())
				}
			}
			if got := searchable(t, c); len(got) != len(s.Paths()) {
				t.Errorf("%d searchable pages, want the %d protected ones: %v", len(got), len(s.Paths()), got)
			}
			if st := c.Stats(); st.Gone != 0 {
				t.Errorf("%d pages gone", st.Gone)
			}
		})
	}
}

func formSite(p string) login.Site {
	return login.Site{Prefix: p, Groups: []string{"staff"},
		Form: &login.Form{URL: p + "login", Fields: map[string]login.Secret{"username": "alice", "password": loginSecret}}}
}

// TestSeedCredentials: credentials in a seed URL sign the crawl in to its
// host and are never stored: not in crawl.json, a record or the index;
// the pages get the group "login:" and the host.
func TestSeedCredentials(t *testing.T) {
	s := authtest.New(t, authtest.Options{Kind: authtest.Basic, User: "alice", Password: loginSecret, Pages: 3})
	host := strings.TrimPrefix(s.URL, "http://")
	dir := t.TempDir()
	c := crawl(t, dir, recrawlOptions("http://alice:"+loginSecret+"@"+host+"/"))
	if st := c.Stats(); st.Fetched != 4 {
		t.Errorf("fetched %d pages, want 4", st.Fetched)
	}
	for u, r := range records(t, c) {
		if strings.Contains(u, loginSecret) || strings.Contains(u, "alice") || r.Status == pages.Fetched && !slices.Equal(r.Groups, []string{"login:127.0.0.1"}) {
			t.Errorf("%s: %+v", u, r.Groups)
		}
	}
	c.Close()
	if leaks := grepDir(t, dir, loginSecret); len(leaks) > 0 {
		t.Errorf("the password is stored in %v", leaks)
	}
	// Resumed without the credentials, the revisits get 401s: the pages
	// are kept, not gone.
	opts := recrawlOptions("http://" + host + "/")
	c2, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	refused := s.Refused()
	watchUntil(t, c2, func() bool { return s.Refused() >= refused+8 })
	if st := c2.Stats(); st.Gone != 0 || st.Fetched != 4 {
		t.Errorf("revisits refused for want of a login: %d gone, %d fetched; want 0 and 4", st.Gone, st.Fetched)
	}
}

// grepDir returns the files under dir that hold s.
func grepDir(t *testing.T, dir, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(s)) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

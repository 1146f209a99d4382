package login

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"
)

// maxFormBytes bounds the login page read.
const maxFormBytes = 2 << 20

// A session is a form login's state: its cookies, the form's action
// (to tell the login form when a page comes back as it) and how many
// times it signed in.
type session struct {
	mu sync.Mutex // held while signing in

	state  sync.RWMutex // guards jar, action and gen (written holding mu too)
	jar    *cookiejar.Jar
	action string // the login form's action URL, once signed in
	gen    int    // sign-ins so far: which session jar holds
}

// current returns the session's cookies, its login form's action and
// its generation, read together: the generation is the one of those
// cookies.
func (s *session) current() (*cookiejar.Jar, string, int) {
	s.state.RLock()
	defer s.state.RUnlock()
	return s.jar, s.action, s.gen
}

// ensure signs in if the session never has.
func (s *session) ensure(ctx context.Context, base http.RoundTripper, site Site) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == 0 {
		return s.signIn(ctx, base, site)
	}
	return nil
}

// renew signs in again, unless another request already did since
// generation gen (the session a request found ended), and reports
// whether it signed in.
func (s *session) renew(ctx context.Context, base http.RoundTripper, site Site, gen int) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return false, nil
	}
	return true, s.signIn(ctx, base, site)
}

// signIn fetches the login page, fills the form that has a password
// field with the login's fields (the form's others keep their values, a
// hidden token among them) and submits it, following redirects with the
// session's cookies. It succeeds when the answer is no longer the login
// form. The caller holds s.mu.
func (s *session) signIn(ctx context.Context, base http.RoundTripper, site Site) error {
	fail := func(format string, args ...any) error {
		return &Error{Prefix: site.Prefix, Reason: fmt.Sprintf(format, args...), Err: ErrRefused}
	}
	jar, _ := cookiejar.New(nil) // a new session: the old cookies are spent
	client := &http.Client{Transport: base, Jar: jar}
	page, body, err := get(ctx, client, site.Form.URL)
	if err != nil {
		return fail("fetching the login page: %v", err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return fail("reading the login page: %v", err)
	}
	form := doc.Find("form").FilterFunction(func(_ int, f *goquery.Selection) bool {
		return f.Find(`input[type="password" i]`).Length() > 0
	}).First()
	if form.Length() == 0 {
		return fail("no form with a password field at %s", site.Form.URL)
	}
	values, err := formValues(form, site)
	if err != nil {
		return fail("%v", err)
	}
	action, _ := form.Attr("action")
	target, err := page.Parse(action)
	if err != nil {
		return fail("the login form's action %q: %v", action, err)
	}
	method := strings.ToUpper(form.AttrOr("method", http.MethodGet))
	var req *http.Request
	if method == http.MethodPost {
		req, err = http.NewRequestWithContext(ctx, method, target.String(), strings.NewReader(values.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		t := *target
		t.RawQuery = values.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, t.String(), nil)
	}
	if err != nil {
		return fail("%v", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fail("submitting the login form: %v", err)
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxFormBytes))
	resp.Body.Close()
	if err != nil {
		return fail("submitting the login form: %v", err)
	}
	if resp.StatusCode >= 400 || isLoginForm(target.String(), resp.Request.URL, answer) {
		return fail("the login form at %s did not sign in (HTTP %d; wrong credentials?)", site.Form.URL, resp.StatusCode)
	}
	s.state.Lock()
	s.jar, s.action = jar, target.String()
	s.gen++
	s.state.Unlock()
	return nil
}

// formValues returns the form's fields with their values, the login's
// fields set: every field it names must be in the form, and the form's
// password fields must be among them.
func formValues(form *goquery.Selection, site Site) (url.Values, error) {
	values := url.Values{}
	present := map[string]bool{}
	form.Find("input, select, textarea").Each(func(_ int, in *goquery.Selection) {
		name, ok := in.Attr("name")
		if !ok || name == "" {
			return
		}
		present[name] = true
		typ := strings.ToLower(in.AttrOr("type", "text"))
		switch {
		case typ == "submit" || typ == "button" || typ == "image" || typ == "reset" || typ == "file":
		case (typ == "checkbox" || typ == "radio") && !in.Is("[checked]"):
		case in.Is("select"):
			values.Set(name, in.Find("option[selected]").First().AttrOr("value", in.Find("option").First().AttrOr("value", "")))
		case in.Is("textarea"):
			values.Set(name, in.Text())
		default:
			values.Set(name, in.AttrOr("value", ""))
		}
	})
	for name, v := range site.Form.Fields {
		if !present[name] {
			return nil, fmt.Errorf("the login form at %s has no field %q", site.Form.URL, name)
		}
		values.Set(name, v.Reveal())
	}
	var missing []string
	form.Find(`input[type="password" i]`).Each(func(_ int, in *goquery.Selection) {
		if name := in.AttrOr("name", ""); name != "" && site.Form.Fields[name] == "" {
			missing = append(missing, name)
		}
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("the login form's password field %q has no value in the login's fields", missing[0])
	}
	return values, nil
}

// isLoginForm reports whether the HTML page body at u is the login form
// again: a form with a password field whose action is action.
func isLoginForm(action string, u *url.URL, body []byte) bool {
	if action == "" || !bytes.Contains(bytes.ToLower(body), []byte("password")) {
		return false
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return false
	}
	found := false
	doc.Find("form").EachWithBreak(func(_ int, f *goquery.Selection) bool {
		if f.Find(`input[type="password" i]`).Length() == 0 {
			return true
		}
		if a, err := u.Parse(f.AttrOr("action", "")); err == nil && samePage(a.String(), action) {
			found = true
		}
		return !found
	})
	return found
}

// get fetches rawURL with client and returns its final URL and body.
func get(ctx context.Context, client *http.Client, rawURL string) (*url.URL, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFormBytes))
	return resp.Request.URL, body, err
}

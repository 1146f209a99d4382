package login

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/Azure/go-ntlmssp"
)

// maxRenewals is how many times one request signs in again for a
// session that ended (other requests may spend a short-lived session
// before it is retried); a session another request renewed meanwhile
// does not count.
const maxRenewals = 2

// maxSends bounds how many times one request is sent while other
// requests keep renewing the session it finds ended.
const maxSends = 10

// maxPeekBytes is how much of a page under a form login is read to see
// whether it is the login form instead (a longer page is not).
const maxPeekBytes = 8 << 20

// Transport returns base wrapped so that each request under a login is
// signed in: the login's headers set; Basic or NTLM credentials given
// when the server's challenge asks for them (go-ntlmssp's Negotiator);
// under a form login, the session's cookies sent, and the session
// renewed once when an answer says it ended — a redirect to the form's
// page, a 401, the login form itself, or the login's Expired text — and
// the request sent again. A request the credentials or a renewed session
// cannot get fails with an *Error wrapping ErrRefused (never an answer a
// crawl would index or read as a deletion); a crawl's request for the
// login form's page or a logout link under a form login fails with
// ErrLoginPage. With no login, base itself is returned.
func (s *Set) Transport(base http.RoundTripper) http.RoundTripper {
	if s.Empty() {
		return base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{set: s, base: base, auth: ntlmssp.Negotiator{RoundTripper: base, AllowBasicAuth: true}, sessions: map[string]*session{}}
}

type transport struct {
	set  *Set
	base http.RoundTripper
	auth ntlmssp.Negotiator // Basic or NTLM, as challenged

	mu       sync.Mutex
	sessions map[string]*session // form logins' sessions, by prefix
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	site, ok := t.set.site(req.URL)
	if !ok {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	for name, v := range site.Headers {
		r.Header.Set(name, v.Reveal())
	}
	var resp *http.Response
	var err error
	switch {
	case site.Form != nil:
		return t.formTrip(site, r)
	case site.User != "":
		r.SetBasicAuth(site.User, site.Password.Reveal())
		resp, err = t.auth.RoundTrip(r)
	default:
		resp, err = t.base.RoundTrip(r)
	}
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		drain(resp)
		return nil, &Error{Prefix: site.Prefix, Reason: "the server refused the credentials (HTTP 401)", Err: ErrRefused}
	}
	return resp, err
}

// logoutPath matches the paths of links that end a session.
var logoutPath = regexp.MustCompile(`(?i)log-?out|sign-?out|log-?off`)

// formTrip sends r under a form login: the login page and logout links
// refused, the session's cookies sent, the session renewed once if the
// answer says it ended.
func (t *transport) formTrip(site Site, r *http.Request) (*http.Response, error) {
	if samePage(r.URL.String(), site.Form.URL) || logoutPath.MatchString(r.URL.Path) {
		return nil, &Error{Prefix: site.Prefix, Reason: "not crawled: " + r.URL.Path + " is the login form or a logout link", Err: ErrLoginPage}
	}
	s := t.session(site.Prefix)
	if err := s.ensure(r.Context(), t.base, site); err != nil {
		return nil, err
	}
	renewals := 0
	for sends := 1; ; sends++ {
		// gen is the session whose cookies were sent: renewing it
		// again is not needed if another request already has.
		resp, gen, err := s.send(t.base, r)
		if err != nil {
			return nil, err
		}
		ended, resp, err := s.ended(site, resp)
		if err != nil || !ended {
			return resp, err
		}
		drain(resp)
		switch {
		case renewals == maxRenewals:
			return nil, &Error{Prefix: site.Prefix, Reason: "the session ended again right after signing in", Err: ErrRefused}
		case sends == maxSends:
			return nil, &Error{Prefix: site.Prefix, Reason: "the session kept ending while other requests renewed it", Err: ErrRefused}
		}
		signedIn, err := s.renew(r.Context(), t.base, site, gen)
		if err != nil {
			return nil, err
		}
		if signedIn {
			renewals++
		}
	}
}

// session returns the form login session of prefix.
func (t *transport) session(prefix string) *session {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[prefix]
	if s == nil {
		jar, _ := cookiejar.New(nil)
		s = &session{jar: jar}
		t.sessions[prefix] = s
	}
	return s
}

// send sends r with the session's cookies (instead of any the caller's
// jar added) and keeps the cookies of the answer.
func (s *session) send(base http.RoundTripper, r *http.Request) (*http.Response, int, error) {
	jar, _, gen := s.current()
	r = r.Clone(r.Context())
	r.Header.Del("Cookie")
	for _, c := range jar.Cookies(r.URL) {
		r.AddCookie(c)
	}
	resp, err := base.RoundTrip(r)
	if err != nil {
		return nil, gen, err
	}
	if cs := resp.Cookies(); len(cs) > 0 {
		jar.SetCookies(r.URL, cs)
	}
	return resp, gen, nil
}

// ended reports whether resp says the session has ended: a redirect to
// the login form's page, a 401, or (an HTML page) the login form itself
// or the login's Expired text. It returns resp with its body still to
// read.
func (s *session) ended(site Site, resp *http.Response) (bool, *http.Response, error) {
	if resp.StatusCode == http.StatusUnauthorized {
		return true, resp, nil
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
		return err == nil && samePage(loc.String(), site.Form.URL), resp, nil
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/html" && mt != "application/xhtml+xml" {
		return false, resp, nil
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, maxPeekBytes))
	if err != nil {
		resp.Body.Close()
		return false, nil, err
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	if site.Form.Expired != "" && bytes.Contains(head, []byte(site.Form.Expired)) {
		return true, resp, nil
	}
	_, action, _ := s.current()
	return isLoginForm(action, resp.Request.URL, head), resp, nil
}

// samePage reports whether two URLs name the same page (scheme, host and
// path; the query and fragment aside).
func samePage(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	pa, pb := strings.TrimSuffix(ua.EscapedPath(), "/"), strings.TrimSuffix(ub.EscapedPath(), "/")
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host) && pa == pb
}

// drain reads and closes a body not used, so its connection is reused.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

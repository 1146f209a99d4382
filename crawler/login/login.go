// Package login signs a crawl in to the sites behind a login: HTTP Basic
// and NTLM (as the server asks, from a netrc file or a login file),
// a login form whose session cookie is renewed when it expires, and
// fixed request headers such as a bearer token — per URL prefix, each
// with the access groups its pages get.
//
// Secrets never leave memory: a login file names environment variables
// for them (${VAR}), a netrc file must be readable by its owner only, and
// a [Secret] prints, formats and marshals as "[redacted]". Nothing in
// this package writes a file.
//
// A [Set] is what a crawl uses: [Set.Transport] wraps the crawl's HTTP
// transport, [Set.Groups] says which access groups a page fetched with a
// login gets.
package login

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
)

// A Secret is a password or token. It prints, formats and marshals as
// "[redacted]", so that logging a Site, an Options or an error never
// shows it; Reveal returns it for the request that needs it.
type Secret string

// String implements fmt.Stringer.
func (Secret) String() string { return "[redacted]" }

// GoString implements fmt.GoStringer (%#v).
func (Secret) GoString() string { return `"[redacted]"` }

// MarshalText implements encoding.TextMarshaler: JSON and the like get
// "[redacted]" too.
func (Secret) MarshalText() ([]byte, error) { return []byte("[redacted]"), nil }

// Reveal returns the secret itself.
func (s Secret) Reveal() string { return string(s) }

// A Site is how to sign in to the pages under Prefix.
type Site struct {
	// Prefix is the URL prefix the login covers: scheme, host (with the
	// port, if any) and a path ("https://wiki.example/", or
	// "https://portal.example/team/"). The longest matching prefix wins.
	Prefix string
	// User and Password sign in with HTTP Basic or NTLM, whichever the
	// server asks for (its WWW-Authenticate challenge); User may be
	// "DOMAIN\user" for NTLM. Empty: the netrc file's machine for the
	// host, if any.
	User     string
	Password Secret
	// Form, if set, signs in with a login form and keeps its session.
	Form *Form
	// Headers are sent with every request under Prefix (for example
	// Authorization: Bearer …).
	Headers map[string]Secret
	// Groups are the access groups of the pages fetched under Prefix.
	// Default: "login:" and the host, so that a page behind a login is
	// never public by accident; a GroupRule of the crawl for the page's
	// URL comes first.
	Groups []string
}

// A Form is a login form: the crawl fetches URL, fills the form that has
// a password field with Fields (the form's other fields, such as a hidden
// token, keep their values) and submits it; its cookies are the session.
type Form struct {
	// URL is the page with the login form. The crawl never indexes it.
	URL string
	// Fields are the values of the form's fields by name ("username",
	// "password"). A password field's value must come from the
	// environment (${VAR} in a login file).
	Fields map[string]Secret
	// Expired, if set, is a text whose presence in a page means the
	// session has ended (besides the signs always read: a redirect to
	// URL, a 401, or the login form itself instead of the page).
	Expired string
}

// Errors for errors.Is.
var (
	// ErrLoginPage refuses a crawl's request for a login form's page or
	// a logout link under a form login: the first is not content, the
	// second would end the session.
	ErrLoginPage = errors.New("login page")
	// ErrRefused means the site refused the credentials or the session
	// could not be renewed: the page is not recorded as content, nor as
	// gone.
	ErrRefused = errors.New("login refused")
)

// An Error says which login failed and why; it wraps ErrLoginPage or
// ErrRefused. It never holds a secret.
type Error struct {
	Prefix string // the login's prefix
	Reason string
	Err    error
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("login for %s: %s", e.Prefix, e.Reason) }

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// A Set is the logins of a crawl: sites by prefix, and netrc machines by
// host name. The zero value has none.
type Set struct {
	sites []Site             // longest prefix first
	netrc map[string]machine // host name ("" for netrc's default) → credentials
}

// machine is a netrc entry's credentials.
type machine struct {
	user     string
	password Secret
}

// Add adds sites to s, after checking them (Validate).
func (s *Set) Add(sites ...Site) error {
	for _, site := range sites {
		if err := site.Validate(); err != nil {
			return err
		}
		s.sites = append(s.sites, site)
	}
	slices.SortStableFunc(s.sites, func(a, b Site) int { return len(b.Prefix) - len(a.Prefix) })
	return nil
}

// Empty reports whether s has no login.
func (s *Set) Empty() bool { return s == nil || len(s.sites) == 0 && len(s.netrc) == 0 }

// Validate checks a site: an absolute http(s) prefix, no credentials in
// it, a form with an absolute URL.
func (site Site) Validate() error {
	u, err := url.Parse(site.Prefix)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("login: prefix %q is not an absolute http or https URL", redactURL(site.Prefix))
	}
	if u.User != nil {
		return fmt.Errorf("login: prefix %s holds credentials: give them as user and password", redactURL(site.Prefix))
	}
	if site.Password != "" && site.User == "" {
		return fmt.Errorf("login for %s: a password without a user", site.Prefix)
	}
	if f := site.Form; f != nil {
		fu, err := url.Parse(f.URL)
		if err != nil || (fu.Scheme != "http" && fu.Scheme != "https") || fu.Host == "" {
			return fmt.Errorf("login for %s: form url %q is not an absolute http or https URL", site.Prefix, f.URL)
		}
		if len(f.Fields) == 0 {
			return fmt.Errorf("login for %s: a form without fields", site.Prefix)
		}
	}
	return nil
}

// site returns the login covering u: the credentials (user, form or
// headers) of the longest matching prefix that has some, else the netrc
// machine of u's host (or netrc's default); the groups of the longest
// matching prefix that has some. Its Prefix is that of the site whose
// credentials it has (else the longest match, else u's scheme and host).
// ok is false if nothing covers u.
func (s *Set) site(u *url.URL) (site Site, ok bool) {
	if s == nil {
		return Site{}, false
	}
	raw := u.String()
	creds := false
	for _, x := range s.sites { // longest first
		if !strings.HasPrefix(raw, x.Prefix) {
			continue
		}
		if !ok {
			site.Prefix, ok = x.Prefix, true
		}
		if !creds && (x.User != "" || x.Form != nil || len(x.Headers) > 0) {
			site.Prefix, site.User, site.Password, site.Form, site.Headers = x.Prefix, x.User, x.Password, x.Form, x.Headers
			creds = true
		}
		if len(site.Groups) == 0 {
			site.Groups = x.Groups
		}
	}
	if !creds {
		m, found := s.netrc[u.Hostname()]
		if !found {
			m, found = s.netrc[""]
		}
		if found {
			if !ok {
				site.Prefix = u.Scheme + "://" + u.Host + "/"
			}
			site.User, site.Password, ok = m.user, m.password, true
		}
	}
	return site, ok
}

// Groups returns the access groups of a page at rawURL fetched with a
// login, and false if no login covers it.
func (s *Set) Groups(rawURL string) ([]string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, false
	}
	site, ok := s.site(u)
	if !ok {
		return nil, false
	}
	if len(site.Groups) > 0 {
		return site.Groups, true
	}
	return []string{"login:" + u.Hostname()}, true
}

// TakeCredentials returns rawURL without the user and password it holds
// (http://alice:secret@host/ → http://host/), adding them to s as a
// login for its scheme and host; a URL without any is returned as it is.
// The password is used for that host only.
func (s *Set) TakeCredentials(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL, nil
	}
	pw, _ := u.User.Password()
	site := Site{Prefix: u.Scheme + "://" + u.Host + "/", User: u.User.Username(), Password: Secret(pw)}
	u.User = nil
	if err := s.Add(site); err != nil {
		return "", err
	}
	return u.String(), nil
}

// redactURL returns raw with any password replaced, for messages.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(an unparsable URL)"
}

// envRef matches a reference to an environment variable: ${NAME}.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expand replaces each ${NAME} in v with the environment variable NAME
// (lookup: os.LookupEnv); an unset variable is an error naming it, never
// its value. secret says v must hold a reference (a secret given in the
// file itself is refused).
func expand(v, what string, secret bool, lookup func(string) (string, bool)) (Secret, error) {
	if secret && !envRef.MatchString(v) {
		return "", fmt.Errorf("%s is a secret: name an environment variable for it (${NAME}), not the value", what)
	}
	var missing string
	out := envRef.ReplaceAllStringFunc(v, func(ref string) string {
		name := envRef.FindStringSubmatch(ref)[1]
		val, ok := lookup(name)
		if !ok && missing == "" {
			missing = name
		}
		return val
	})
	if missing != "" {
		return "", fmt.Errorf("%s: environment variable %s is not set", what, missing)
	}
	return Secret(out), nil
}

// lookupEnv is the environment expand reads; tests replace it.
var lookupEnv = os.LookupEnv

// Package authtest serves a small intranet behind a login on 127.0.0.1,
// for the tests of crawls that sign in: HTTP Basic, NTLM (NTLMv2,
// verified as a Windows server does), a bearer token, or a login form
// whose session ends after a few pages — by a redirect to the form, or
// by the form shown in the page's place, as sites do.
package authtest

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	//lint:ignore SA1019 NTLM is MD4-based: the protocol's, not a choice
	"golang.org/x/crypto/md4"
)

// Kind is how the site signs people in.
type Kind int

// The kinds of login.
const (
	Basic  Kind = iota // HTTP Basic
	NTLM               // NTLM (NTLMv2) over HTTP
	Bearer             // Authorization: Bearer TOKEN
	Form               // a login form and a session cookie
)

// Expiry is how a form login's site says the session has ended.
type Expiry int

// The ways a session's end shows.
const (
	Redirect Expiry = iota // a redirect to the login form
	Inline                 // the login form in the page's place (HTTP 200)
)

// Options configures a Site. User and Password (or Token, for Bearer)
// are what it accepts.
type Options struct {
	Kind     Kind
	User     string // for NTLM "DOMAIN\user" or "user"
	Password string
	Token    string
	Pages    int    // documents besides the home page; default 12
	Session  int    // form login: pages a session serves before it ends; default: never ends
	Expiry   Expiry // form login: how the end shows
}

// A Site is the intranet behind its login.
type Site struct {
	*httptest.Server
	opts Options

	mu        sync.Mutex
	logins    int            // form sign-ins accepted
	refused   int            // requests refused for want of a login
	sessions  map[string]int // session cookie → pages left
	tokens    map[string]bool
	challenge [8]byte
	served    map[string]int // path → pages served with a login
}

// New starts a Site on 127.0.0.1, closed when the test ends.
func New(t testing.TB, opts Options) *Site {
	if opts.Pages == 0 {
		opts.Pages = 12
	}
	s := &Site{opts: opts, sessions: map[string]int{}, tokens: map[string]bool{}, served: map[string]int{}}
	rand.Read(s.challenge[:])
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Logins returns how many times the login form signed someone in.
func (s *Site) Logins() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logins
}

// Refused returns how many requests were refused for want of a login.
func (s *Site) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// Served returns how many times each page was served to a signed-in
// client.
func (s *Site) Served() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.served {
		out[k] = v
	}
	return out
}

// Paths returns the paths of the site's pages, the home page first.
func (s *Site) Paths() []string {
	out := []string{"/"}
	for i := 1; i <= s.opts.Pages; i++ {
		out = append(out, fmt.Sprintf("/docs/%d", i))
	}
	return out
}

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/robots.txt":
		fmt.Fprint(w, "User-agent: *\nDisallow:\n")
		return
	case "/login":
		if s.opts.Kind == Form {
			s.loginForm(w)
			return
		}
	case "/session":
		if s.opts.Kind == Form && r.Method == http.MethodPost {
			s.signIn(w, r)
			return
		}
	case "/logout":
		if s.opts.Kind == Form {
			if c, err := r.Cookie("sid"); err == nil {
				s.mu.Lock()
				delete(s.sessions, c.Value)
				s.mu.Unlock()
			}
			http.Redirect(w, r, "/login", http.StatusFound)
			return
		}
	}
	if !s.allowed(w, r) {
		s.mu.Lock()
		s.refused++
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	s.served[r.URL.Path]++
	s.mu.Unlock()
	s.page(w, r)
}

// page writes the page at r's path, or 404.
func (s *Site) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.URL.Path == "/" {
		var b strings.Builder
		b.WriteString(`<html><head><title>Staff intranet</title></head><body><main><h1>Staff intranet</h1><p>Documents for staff only.</p><ul>`)
		for _, p := range s.Paths()[1:] {
			fmt.Fprintf(&b, `<li><a href="%s">Document %s</a></li>`, p, strings.TrimPrefix(p, "/docs/"))
		}
		b.WriteString(`</ul><p><a href="/login">Sign in</a> <a href="/logout">Sign out</a></p></main></body></html>`)
		fmt.Fprint(w, b.String())
		return
	}
	var n int
	if _, err := fmt.Sscanf(r.URL.Path, "/docs/%d", &n); err != nil || n < 1 || n > s.opts.Pages {
		http.NotFound(w, r)
		return
	}
	fmt.Fprintf(w, `<html><head><title>Protected document %d</title></head><body><main><h1>Protected document %d</h1><p>%s</p><p><a href="/">Home</a> <a href="/logout">Sign out</a></p></main></body></html>`,
		n, n, words(n))
}

// words returns a paragraph of its own for document n.
func words(n int) string {
	vocab := strings.Fields("budget holiday payroll server backup meeting travel contract invoice laptop printer network policy pension training canteen office parking badge project")
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString(vocab[(n*7+i*i*3+i*n)%len(vocab)])
		b.WriteByte(' ')
	}
	return fmt.Sprintf("Document %d says: %s", n, b.String())
}

// allowed checks r's login and answers for it when there is none.
func (s *Site) allowed(w http.ResponseWriter, r *http.Request) bool {
	switch s.opts.Kind {
	case Basic:
		if u, p, ok := r.BasicAuth(); ok && u == s.opts.User && p == s.opts.Password {
			return true
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="staff"`)
		http.Error(w, "sign in", http.StatusUnauthorized)
	case Bearer:
		if r.Header.Get("Authorization") == "Bearer "+s.opts.Token {
			return true
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="staff"`)
		http.Error(w, "token", http.StatusUnauthorized)
	case NTLM:
		return s.ntlm(w, r)
	case Form:
		c, err := r.Cookie("sid")
		s.mu.Lock()
		left, ok := 0, false
		if err == nil {
			left, ok = s.sessions[c.Value]
		}
		if ok && (s.opts.Session == 0 || left > 0) {
			if s.opts.Session > 0 {
				s.sessions[c.Value] = left - 1
			}
			s.mu.Unlock()
			return true
		}
		s.mu.Unlock()
		if s.opts.Expiry == Inline {
			s.loginForm(w)
		} else {
			http.Redirect(w, r, "/login?next="+r.URL.Path, http.StatusFound)
		}
	}
	return false
}

// loginForm writes the login page, with a fresh token.
func (s *Site) loginForm(w http.ResponseWriter) {
	var tok [8]byte
	rand.Read(tok[:])
	t := hex.EncodeToString(tok[:])
	s.mu.Lock()
	s.tokens[t] = true
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<html><head><title>Sign in</title></head><body><main><h1>Sign in to the staff intranet</h1>
<form method="post" action="/session"><input type="hidden" name="csrf" value="%s">
<label>User <input name="username"></label> <label>Password <input type="password" name="password"></label>
<input type="checkbox" name="remember" value="yes"><input type="submit" value="Sign in"></form></main></body></html>`, html.EscapeString(t))
}

// signIn checks a posted login form and starts a session.
func (s *Site) signIn(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	okToken := s.tokens[r.PostForm.Get("csrf")]
	delete(s.tokens, r.PostForm.Get("csrf"))
	s.mu.Unlock()
	if !okToken || r.PostForm.Get("username") != s.opts.User || r.PostForm.Get("password") != s.opts.Password {
		s.loginForm(w) // the form again, as sites answer a wrong password
		return
	}
	var id [12]byte
	rand.Read(id[:])
	sid := hex.EncodeToString(id[:])
	s.mu.Lock()
	s.sessions[sid] = s.opts.Session
	s.logins++
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true})
	http.Redirect(w, r, "/", http.StatusFound)
}

// ntlm runs the server's side of NTLM: a challenge for a negotiate
// message, and the check of the NTLMv2 response of an authenticate one.
func (s *Site) ntlm(w http.ResponseWriter, r *http.Request) bool {
	msg, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("Authorization"), "NTLM "))
	if len(msg) >= 12 && bytes.Equal(msg[:8], []byte("NTLMSSP\x00")) {
		switch binary.LittleEndian.Uint32(msg[8:12]) {
		case 1:
			w.Header().Set("WWW-Authenticate", "NTLM "+base64.StdEncoding.EncodeToString(s.challengeMessage()))
			http.Error(w, "challenge", http.StatusUnauthorized)
			return false
		case 3:
			if s.verify(msg) {
				return true
			}
		}
	}
	w.Header().Set("WWW-Authenticate", "NTLM")
	http.Error(w, "sign in", http.StatusUnauthorized)
	return false
}

// challengeMessage is an NTLM CHALLENGE message: NTLMv2 with target
// information (the domain name), Unicode.
func (s *Site) challengeMessage() []byte {
	target := utf16le("DOPPEL")
	var info bytes.Buffer
	binary.Write(&info, binary.LittleEndian, uint16(2)) // MsvAvNbDomainName
	binary.Write(&info, binary.LittleEndian, uint16(len(target)))
	info.Write(target)
	info.Write([]byte{0, 0, 0, 0}) // MsvAvEOL
	const flags = 0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | 0x00010000 | 0x00080000 | 0x00800000 | 0x20000000 | 0x80000000
	var m bytes.Buffer
	m.WriteString("NTLMSSP\x00")
	binary.Write(&m, binary.LittleEndian, uint32(2))
	field := func(n, offset int) {
		binary.Write(&m, binary.LittleEndian, uint16(n))
		binary.Write(&m, binary.LittleEndian, uint16(n))
		binary.Write(&m, binary.LittleEndian, uint32(offset))
	}
	const header = 48
	field(len(target), header)
	binary.Write(&m, binary.LittleEndian, uint32(flags))
	m.Write(s.challenge[:])
	m.Write(make([]byte, 8))
	field(info.Len(), header+len(target))
	m.Write(target)
	m.Write(info.Bytes())
	return m.Bytes()
}

// verify checks an NTLM AUTHENTICATE message's NTLMv2 response against
// the site's user and password.
func (s *Site) verify(msg []byte) bool {
	field := func(at int) []byte {
		if len(msg) < at+8 {
			return nil
		}
		n := int(binary.LittleEndian.Uint16(msg[at:]))
		off := int(binary.LittleEndian.Uint32(msg[at+4:]))
		if off < 0 || off+n > len(msg) {
			return nil
		}
		return msg[off : off+n]
	}
	nt, domain, user := field(20), fromUTF16le(field(28)), fromUTF16le(field(36))
	if len(nt) < 24 {
		return false
	}
	wantUser, wantDomain := s.opts.User, ""
	if d, u, ok := strings.Cut(s.opts.User, `\`); ok {
		wantDomain, wantUser = d, u
	}
	if !strings.EqualFold(user, wantUser) || !strings.EqualFold(domain, wantDomain) {
		return false
	}
	h := md4.New()
	h.Write(utf16le(s.opts.Password))
	v2 := hmacMD5(h.Sum(nil), utf16le(strings.ToUpper(user)+domain))
	return hmac.Equal(nt[:16], hmacMD5(v2, s.challenge[:], nt[16:]))
}

func hmacMD5(key []byte, data ...[]byte) []byte {
	m := hmac.New(md5.New, key)
	for _, d := range data {
		m.Write(d)
	}
	return m.Sum(nil)
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func fromUTF16le(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u))
}

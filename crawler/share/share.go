// Package share lets a crawl read SMB/CIFS shares (Windows file shares,
// Samba) and local folders like sites: http.RoundTrippers for
// smb://host[:port]/share/path URLs (Transport) and for file:///path URLs
// (Folders), which serve a folder as a listing of links to its entries
// and a file with the content type of its extension, as Go's file
// transport does. The SMB client is cloudsoda/go-smb2 (pure Go, SMB 2 and
// 3, NTLMv2).
//
// Neither reads outside what it serves: Folders opens each local folder
// as an os.Root, which refuses a path that leaves it by ".." or by a
// symbolic link, and refuses link loops; a Transport asks the server
// for names under the share only, and the server resolves the share's
// links (Samba refuses those that lead out of the share, its "wide
// links = no" default). What is refused is a *RefusedError whose
// reason the crawl records.
//
// Credentials are the Transport's (a guest session when User is empty):
// they are never part of a URL, so never recorded or shown.
package share

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	smb2 "github.com/cloudsoda/go-smb2"
)

// DefaultPort is the SMB port.
const DefaultPort = "445"

// A Transport fetches smb:// URLs. The zero value connects as a guest.
// It is safe for concurrent use; sessions are kept per host and share
// until Close.
type Transport struct {
	User, Password, Domain string
	// DialTimeout bounds connecting and logging on. Default 10s.
	DialTimeout time.Duration

	mu     sync.Mutex
	shares map[string]*mount // host:port/share → its session
}

// A mount is one share mounted over one session, served as files.
type mount struct {
	session *smb2.Session
	share   *smb2.Share
	files   http.RoundTripper
}

// RoundTrip answers a GET of smb://host[:port]/share/path: a listing for
// a folder (a redirect to the path with a final "/" first, as a file
// server does), the file's bytes otherwise, 404 for what does not exist.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "smb" {
		return nil, fmt.Errorf("share: not an smb URL: %s", r.URL)
	}
	name, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if name == "" {
		return nil, fmt.Errorf("share: %s names no share", r.URL)
	}
	for _, seg := range strings.FieldsFunc(r.URL.Path, func(c rune) bool { return c == '/' || c == '\\' }) {
		if seg == ".." { // a crawl asks for normalized URLs only
			return nil, &RefusedError{URL: r.URL.String(), Reason: ReasonOutside}
		}
	}
	m, err := t.mount(r.Context(), r.URL.Host, name)
	if err != nil {
		return nil, err
	}
	if dir := strings.TrimSuffix(rest, "/"); dir != rest && dir != "" && m.loop(dir) {
		return nil, &RefusedError{URL: r.URL.String(), Reason: ReasonLinkLoop}
	}
	inner := r.Clone(r.Context())
	inner.URL.Scheme, inner.URL.Host, inner.URL.Path, inner.URL.RawPath = "file", "", "/"+rest, ""
	resp, err := m.files.RoundTrip(inner)
	if err != nil || resp.StatusCode == http.StatusInternalServerError {
		// The session may have dropped (a server restart, a network
		// cut): the next request logs on again. The answer is a transient
		// failure for the crawl, which retries it.
		t.forget(r.URL.Host, name, m)
	}
	if err != nil {
		return nil, err
	}
	resp.Request = r
	if loc := resp.Header.Get("Location"); loc != "" && !strings.Contains(loc, "://") {
		// The file server's redirects are relative to the share's root.
		if strings.HasPrefix(loc, "/") {
			loc = "/" + name + loc
		}
		resp.Header.Set("Location", loc)
	}
	return resp, nil
}

// loop reports whether the folder dir of the share is one of the folders
// it lies in (the same file id as the share's root or one of the folders
// of its path): the server followed a link back up, and the path would
// never end (loop/loop/loop/…). The server resolves the share's links
// itself and shows none, so this is how a client sees a loop. Cost: one
// open and one query per segment of dir.
func (m *mount) loop(dir string) bool {
	id := func(name string) uint64 {
		f, err := m.share.Open(name)
		if err != nil {
			return 0
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return 0
		}
		if st, ok := fi.(*smb2.FileStat); ok {
			return st.FileId
		}
		return 0
	}
	self := id(dir)
	if self == 0 { // no such folder, or a server that gives no ids
		return false
	}
	for up := dir; up != ""; {
		if i := strings.LastIndexByte(up, '/'); i >= 0 {
			up = up[:i]
		} else {
			up = ""
		}
		if id(up) == self {
			return true
		}
	}
	return false
}

// key names host's share name in t.shares.
func key(host, name string) string {
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, DefaultPort)
	}
	return strings.ToLower(host) + "/" + name
}

// forget logs off m, host's share name, and drops it, unless another
// request has replaced it already.
func (t *Transport) forget(host, name string, m *mount) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := key(host, name); t.shares[k] == m {
		delete(t.shares, k)
		_ = m.session.Logoff()
	}
}

// mount returns the session of host's share name, logging on once.
func (t *Transport) mount(ctx context.Context, host, name string) (*mount, error) {
	key := key(host, name)
	if h, _, err := net.SplitHostPort(host); err != nil || h == "" {
		host = net.JoinHostPort(host, DefaultPort)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if m := t.shares[key]; m != nil {
		return m, nil
	}
	timeout := t.DialTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	user := t.User
	if user == "" {
		user = "guest"
	}
	d := &smb2.Dialer{Initiator: &smb2.NTLMInitiator{User: user, Password: t.Password, Domain: t.Domain}}
	s, err := d.Dial(dctx, host)
	if err != nil {
		return nil, fmt.Errorf("share: logging on to %s: %w", host, err)
	}
	sh, err := s.Mount(name)
	if err != nil {
		_ = s.Logoff()
		return nil, fmt.Errorf("share: mounting %s on %s: %w", name, host, err)
	}
	m := &mount{session: s, share: sh, files: http.NewFileTransportFS(sh.DirFS("."))}
	if t.shares == nil {
		t.shares = map[string]*mount{}
	}
	t.shares[key] = m
	return m, nil
}

// Close logs off every session.
func (t *Transport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var first error
	for k, m := range t.shares {
		if err := m.session.Logoff(); err != nil && first == nil {
			first = err
		}
		delete(t.shares, k)
	}
	return first
}

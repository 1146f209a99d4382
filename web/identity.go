package web

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/doppel-search/doppel/indexer"
)

// user is who a request is from.
type user struct {
	name   string   // for display
	groups []string // access groups
	admin  bool     // may see the status page, /api/stats and /metrics
}

type userKey struct{}

// who returns the request's user, as ServeHTTP identified it.
func who(r *http.Request) user {
	u, _ := r.Context().Value(userKey{}).(user)
	return u
}

// repeatedHeader refuses a request carrying the groups header more than
// once.
type repeatedHeader struct {
	header string // canonical
	times  int
}

func (e *repeatedHeader) Error() string {
	return fmt.Sprintf("repeated identity header %s (%d times)", e.header, e.times)
}

// message is what the refusal says.
func (e *repeatedHeader) message() string {
	return fmt.Sprintf("The %s header is repeated (%d times): the request is refused rather than trust either.", e.header, e.times)
}

// identify returns the request's user; it may set the demo-user cookie.
// A groups header from a trusted proxy gives the groups (a value of commas
// and blanks only: none, so the user is anonymous); the header repeated is
// an error, whoever sends it; from any other peer it is ignored.
func (srv *Server) identify(w http.ResponseWriter, r *http.Request) (user, error) {
	u, err := srv.identity(w, r)
	u.admin = srv.isAdmin(u.groups)
	return u, err
}

func (srv *Server) identity(w http.ResponseWriter, r *http.Request) (user, error) {
	if h := srv.opts.GroupsHeader; h != "" {
		values := r.Header.Values(h)
		switch {
		case len(values) > 1:
			srv.repeated.Add(1)
			return user{}, &repeatedHeader{http.CanonicalHeaderKey(h), len(values)}
		case len(values) == 0:
			return user{}, nil
		case !srv.trusted(peer(r)):
			srv.untrusted.Add(1)
			return user{}, nil
		}
		var groups []string
		for _, g := range strings.Split(values[0], ",") {
			if g = strings.TrimSpace(g); g != "" && g != indexer.PublicGroup && !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
		return user{name: strings.Join(groups, ", "), groups: groups}, nil
	}
	if len(srv.opts.DemoUsers) == 0 {
		return user{}, nil
	}
	name := r.URL.Query().Get("user")
	if name != "" {
		http.SetCookie(w, &http.Cookie{Name: "doppel_user", Value: url.QueryEscape(name), Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	} else if c, err := r.Cookie("doppel_user"); err == nil {
		name, _ = url.QueryUnescape(c.Value)
	}
	for _, d := range srv.opts.DemoUsers {
		if d.Name == name {
			return user{name: d.Name, groups: d.Groups}, nil
		}
	}
	d := srv.opts.DemoUsers[0]
	return user{name: d.Name, groups: d.Groups}, nil
}

// isAdmin reports whether a user with groups may see collection-wide
// numbers: only members of Options.AdminGroups.
func (srv *Server) isAdmin(groups []string) bool {
	for _, g := range groups {
		if slices.Contains(srv.opts.AdminGroups, g) {
			return true
		}
	}
	return false
}

// peer returns the address of the request's peer (invalid if it is not an
// IP address).
func peer(r *http.Request) netip.Addr {
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		return ap.Addr().Unmap()
	}
	a, _ := netip.ParseAddr(r.RemoteAddr)
	return a.Unmap()
}

// trusted reports whether a is one of Options.TrustedProxies.
func (srv *Server) trusted(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range srv.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// client returns who the limiter counts a request against: the peer, or
// for a trusted proxy the address it forwards in X-Forwarded-For (the
// right-most one that is not a trusted proxy: the left part is whatever
// the client sent). IPv6 clients count by /64, what one host usually has.
func (srv *Server) client(r *http.Request) string {
	a := peer(r)
	if srv.trusted(a) {
		fwd := r.Header.Values("X-Forwarded-For")
	scan:
		for i := len(fwd) - 1; i >= 0; i-- {
			hops := strings.Split(fwd[i], ",")
			for j := len(hops) - 1; j >= 0; j-- {
				h, err := netip.ParseAddr(strings.TrimSpace(hops[j]))
				if err != nil {
					break scan // garbage: believe no further
				}
				a = h.Unmap()
				if !srv.trusted(a) {
					break scan
				}
			}
		}
	}
	switch {
	case !a.IsValid():
		return r.RemoteAddr
	case a.Is6():
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

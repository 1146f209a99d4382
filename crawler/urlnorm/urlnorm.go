package urlnorm

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// Sentinel errors, for errors.Is.
var (
	// ErrInvalid means the input does not parse as an absolute URL with a host.
	ErrInvalid = errors.New("urlnorm: invalid URL")
	// ErrScheme means the URL's scheme is none of http, https, file and
	// smb.
	ErrScheme = errors.New("urlnorm: unsupported scheme (only http, https, file and smb)")
)

// DefaultDropParams is the list of tracking and session parameters dropped
// when Options.DropParams is nil.
var DefaultDropParams = []string{"utm_*", "sessionid", "jsessionid", "phpsessid", "sid", "gclid", "fbclid"}

// Options configures normalization. The zero value is ready to use.
type Options struct {
	// DropParams names query parameters (and ";name=value" path parameters)
	// to remove, compared case-insensitively. An entry ending in '*' is a
	// prefix ("utm_*" drops utm_source, utm_medium, ...). Default (nil):
	// DefaultDropParams. A non-nil empty slice drops nothing.
	DropParams []string
}

// drop reports whether the parameter name is configured to be dropped.
// Cost: O(len(DropParams)·len(name)).
func (o *Options) drop(name string) bool {
	list := o.DropParams
	if list == nil {
		list = DefaultDropParams
	}
	name = strings.ToLower(name)
	for _, p := range list {
		p = strings.ToLower(p)
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(name, prefix) {
				return true
			}
		} else if name == p {
			return true
		}
	}
	return false
}

// Normalize returns the canonical form of the absolute http(s) URL raw:
//
//   - scheme and host lowercased, the fragment dropped, the default port
//     (:80 for http, :443 for https) dropped;
//   - path parameters named in DropParams (";jsessionid=...") removed, "."
//     and ".." segments resolved (RFC 3986 §5.2.4), an empty path becomes "/";
//   - query parameters named in DropParams removed, the rest re-encoded in
//     canonical form (url.QueryEscape of the decoded key and value) and
//     sorted by key, then value; a "?" with nothing left after it is dropped.
//
// Percent-encoding in the path is kept as given. Userinfo ("user:password@")
// is dropped: it names no other page, and a credential must never be stored
// or shown with a URL (a crawl's logins carry it; see package login). Surrounding
// whitespace is trimmed. Errors wrap ErrInvalid or ErrScheme.
// Cost: O(len(raw)·log(len(raw))) for the query sort plus O(len(DropParams))
// per parameter.
func Normalize(raw string, opts Options) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return normalizeURL(u, &opts)
}

// Resolve resolves href (a link found on the page at base, possibly relative)
// against base and normalizes the result with [Normalize]. A nil base means
// href must be absolute. Links to other schemes ("mailto:", "javascript:")
// return an error wrapping ErrScheme. Cost: as Normalize.
func Resolve(base *url.URL, href string, opts Options) (string, error) {
	ref, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if base != nil {
		ref = base.ResolveReference(ref)
	}
	return normalizeURL(ref, &opts)
}

func normalizeURL(u *url.URL, opts *Options) (string, error) {
	scheme := strings.ToLower(u.Scheme)
	if scheme == "" {
		return "", fmt.Errorf("%w: %q is not absolute", ErrInvalid, u.String())
	}
	if scheme == "file" {
		return normalizeFile(u, opts)
	}
	if scheme != "http" && scheme != "https" && scheme != "smb" {
		return "", fmt.Errorf("%w: %q", ErrScheme, scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("%w: %q has no host", ErrInvalid, u.String())
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return "", fmt.Errorf("%w: %q has no host", ErrInvalid, u.String())
	}
	if port := u.Port(); port != "" && !(scheme == "http" && port == "80" || scheme == "https" && port == "443" || scheme == "smb" && port == "445") {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}

	var b strings.Builder
	b.Grow(len(u.Host) + len(u.RawPath) + len(u.Path) + len(u.RawQuery) + 16)
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	b.WriteString(cleanPath(u.EscapedPath(), opts))
	if q := cleanQuery(u.RawQuery, opts); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), nil
}

// normalizeFile normalizes a file URL of the local machine ("file:///srv/share/a.pdf";
// host empty or localhost): its path without dot segments, no query or
// fragment (a file has none).
func normalizeFile(u *url.URL, opts *Options) (string, error) {
	if u.Opaque != "" || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) {
		return "", fmt.Errorf("%w: %q is not a file of this machine", ErrInvalid, u.String())
	}
	return "file://" + cleanPath(u.EscapedPath(), opts), nil
}

// cleanPath strips dropped path parameters, then removes dot segments.
func cleanPath(p string, opts *Options) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		if strings.IndexByte(s, ';') >= 0 {
			s = stripParams(s, opts)
		}
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return "/" + strings.Join(out, "/")
}

// stripParams removes ";name=value" parameters whose name is dropped.
func stripParams(seg string, opts *Options) string {
	parts := strings.Split(seg, ";")
	kept := parts[:1]
	for _, p := range parts[1:] {
		name, _, _ := strings.Cut(p, "=")
		if !opts.drop(name) {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ";")
}

// cleanQuery drops configured parameters, canonicalizes the encoding of the
// rest and sorts them by key, then value. Pairs that do not decode are kept
// verbatim.
func cleanQuery(raw string, opts *Options) string {
	if raw == "" {
		return ""
	}
	type pair struct{ k, v, s string }
	var pairs []pair
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		rk, rv, hasEq := strings.Cut(part, "=")
		k, err1 := url.QueryUnescape(rk)
		v, err2 := url.QueryUnescape(rv)
		if err1 != nil || err2 != nil {
			k, v = rk, rv
		} else {
			k, v = url.QueryEscape(k), url.QueryEscape(v)
		}
		if opts.drop(unescapeOr(rk)) {
			continue
		}
		s := k
		if hasEq {
			s += "=" + v
		}
		pairs = append(pairs, pair{k, v, s})
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		if c := strings.Compare(a.k, b.k); c != 0 {
			return c
		}
		return strings.Compare(a.s, b.s)
	})
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.s
	}
	return strings.Join(parts, "&")
}

// unescapeOr returns the query-unescaped s, or s itself if it does not decode.
func unescapeOr(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

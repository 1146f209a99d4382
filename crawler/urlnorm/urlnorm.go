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
//   - in the path, percent-encoded unreserved characters decoded and the
//     other escapes' hex digits uppercased (RFC 3986 §6.2.2), so that
//     "%2e%2e" is a ".." segment; then path parameters named in DropParams
//     (";jsessionid=...") removed, "." and ".." segments resolved (RFC 3986
//     §5.2.4), an empty path becomes "/";
//   - query parameters named in DropParams, and session ids by their
//     shape (a name with "sess" or ending in "sid", a token value), removed;
//     the rest split at "&" only, their encoding made canonical without
//     touching reserved characters (see queryPart: "?C=N;O=D" stays so)
//     and sorted by key, then value; a "?" with nothing left after it is
//     dropped.
//
// Other percent-encoding in the path is kept ("%2F" is not a "/": see
// [DecodedPath] for the path a server may read). A file or smb URL's path
// is decoded in full instead, a backslash read as a "/" (as Windows, SMB
// and browsers' file URLs read it), its dot segments removed, then
// escaped again: it names one file, whatever its spelling. Userinfo ("user:password@")
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
	if scheme == "smb" {
		b.WriteString(cleanPath(filePath(u), opts))
	} else {
		b.WriteString(cleanPath(decodeUnreserved(u.EscapedPath()), opts))
	}
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
	return "file://" + cleanPath(filePath(u), opts), nil
}

// filePath returns the path of a file or smb URL decoded in full, its
// backslashes made slashes, escaped again: the name of the file it
// reads, spelled one way.
func filePath(u *url.URL) string {
	return (&url.URL{Path: strings.ReplaceAll(u.Path, `\`, "/")}).EscapedPath()
}

// DecodedPath returns the path of u as a server that decodes every
// percent-escape ("%2F" too) and reads a backslash as a "/" would read it,
// with its dot segments removed (RFC 3986 §5.2.4) after decoding: what a
// scope check compares, so that "/docs/..%2F..%2Fadmin" or
// "/docs/..\\admin" is not taken for a page under /docs/. An empty path
// is "/". For a normalized file or smb URL it is the URL's path (u.Path).
// Cost: O(len(path)).
func DecodedPath(u *url.URL) string {
	p := strings.ReplaceAll(u.Path, `\`, "/")
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	return removeDots(p)
}

// removeDots removes the "." and ".." segments of the absolute path p
// (RFC 3986 §5.2.4).
func removeDots(p string) string {
	segs := strings.Split(p[1:], "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
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

// decodeUnreserved decodes the percent-encoded unreserved characters of
// the escaped path p (ALPHA, DIGIT, "-", ".", "_", "~") and uppercases
// the hex digits of the other escapes (RFC 3986 §6.2.2.1–2). A "%" not
// followed by two hex digits is kept.
func decodeUnreserved(p string) string {
	if strings.IndexByte(p, '%') < 0 {
		return p
	}
	var b strings.Builder
	b.Grow(len(p))
	for i := 0; i < len(p); i++ {
		if p[i] != '%' || i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			b.WriteByte(p[i])
			continue
		}
		c := unhex(p[i+1])<<4 | unhex(p[i+2])
		if unreserved(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(p[i+1 : i+3]))
		}
		i += 2
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// cleanPath strips dropped path parameters, then removes dot segments.
func cleanPath(p string, opts *Options) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	if strings.IndexByte(p, ';') >= 0 {
		segs := strings.Split(p, "/")
		for i, s := range segs {
			if strings.IndexByte(s, ';') >= 0 {
				segs[i] = stripParams(s, opts)
			}
		}
		p = strings.Join(segs, "/")
	}
	return removeDots(p)
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

// cleanQuery drops configured parameters and session parameters (see
// sessionParam), canonicalizes the encoding of the rest (queryPart) and
// sorts them by key, then value. A query is split into parameters at "&"
// only: a ";" or "," stays where it is, as linked.
func cleanQuery(raw string, opts *Options) string {
	if raw == "" {
		return ""
	}
	type pair struct{ k, s string }
	var pairs []pair
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		rk, rv, hasEq := strings.Cut(part, "=")
		name := unescapeOr(rk)
		if opts.drop(name) || sessionParam(name, unescapeOr(rv)) {
			continue
		}
		k := queryPart(rk)
		s := k
		if hasEq {
			s += "=" + queryPart(rv)
		}
		pairs = append(pairs, pair{k, s})
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

// queryPart returns a query key or value in canonical form, as RFC 3986
// §6.2.2 allows and as form decoding reads it: percent-encoded
// unreserved characters decoded, the other escapes' hex digits
// uppercased, a space ("%20" or " ") written "+", and characters that
// may not stand in a query (controls, non-ASCII bytes, `"<>\^{|}` and
// the backquote) escaped. Reserved characters keep the form they were
// linked with: ";", ",", "/", ":", "@", "!", "$", "'", "(", ")", "*",
// "=" and "+" stay as they are and "%3B" stays "%3B" — a server may give
// them different meanings (Apache's "?C=N;O=D" is not "?C=N%3BO%3DD").
// A "%" not followed by two hex digits is kept.
func queryPart(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			switch {
			case unreserved(d):
				b.WriteByte(d)
			case d == ' ':
				b.WriteByte('+')
			default:
				b.WriteByte('%')
				b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			}
			i += 2
		case c == ' ':
			b.WriteByte('+')
		case c == '%' || unreserved(c) || strings.IndexByte("!$&'()*+,;=:@/?", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteString(fmt.Sprintf("%%%02X", c))
		}
	}
	return b.String()
}

// unreserved reports whether c is an unreserved character of RFC 3986
// (ALPHA, DIGIT, "-", ".", "_", "~").
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// unescapeOr returns the query-unescaped s, or s itself if it does not decode.
func unescapeOr(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

// sessionParam reports whether a query parameter is a session id by its
// shape, whatever DropParams says: a name that says session ("sess" in
// it, or ending in "sid": PHPSESSID, session_id, sessionKey, osCsid)
// with a value that looks like a token (see token). Such a parameter
// makes every visit's URLs new and names no other page.
func sessionParam(name, value string) bool {
	n := strings.ToLower(name)
	return (strings.Contains(n, "sess") || strings.HasSuffix(n, "sid")) && token(value)
}

// token reports whether v looks like a generated token: 16 or more
// ASCII letters, digits, "-" and "_", with at least one letter and one
// digit.
func token(v string) bool {
	if len(v) < 16 {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case '0' <= c && c <= '9':
			digit = true
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			letter = true
		case c != '-' && c != '_':
			return false
		}
	}
	return letter && digit
}

package schedule

import (
	"math"
	"net/url"
	"strings"
	"time"
)

// Group returns the key of the group a page's rate is pooled in: its host
// and the first two directories of its path, a directory of digits
// standing for any (https://h/news/2024/a.html and
// https://h/news/2025/b.html are one group, https://h/docs/x another).
// Pages of one URL template or section tend to change alike (Tan & Mitra
// 2010), so a page with little history borrows its group's rate.
func Group(rawURL string) string { return string(appendGroup(nil, rawURL)) }

// appendGroup appends rawURL's Group to dst. A plain URL — scheme, host,
// a path of unreserved characters — is read in place, without allocating
// (the policy looks a group up at every fetch); any other goes through
// url.Parse.
func appendGroup(dst []byte, rawURL string) []byte {
	host, path, ok := splitPlain(rawURL)
	if !ok {
		u, err := url.Parse(rawURL)
		if err != nil {
			return dst
		}
		host, path = u.Host, u.EscapedPath()
	}
	dst = append(dst, host...)
	path = strings.TrimPrefix(path, "/")
	for range 2 {
		dir, rest, found := strings.Cut(path, "/")
		if !found { // the file name is the page's own
			break
		}
		dst = append(dst, '/')
		if strings.Trim(dir, "0123456789") == "" {
			dst = append(dst, '*')
		} else {
			dst = append(dst, dir...)
		}
		path = rest
	}
	return dst
}

// splitPlain returns the host and path of a URL url.Parse would read the
// same way — scheme://host/path, then perhaps ?query or #fragment, with
// no user, no percent escapes and no characters that need them — and ok;
// otherwise ok is false.
func splitPlain(raw string) (host, path string, ok bool) {
	i := strings.Index(raw, "://")
	if i <= 0 {
		return "", "", false
	}
	rest := raw[i+3:]
	if j := strings.IndexAny(rest, "?#"); j >= 0 {
		rest = rest[:j]
	}
	host, path = rest, ""
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		host, path = rest[:j], rest[j:]
	}
	if !all(raw[:i], isLower) || !all(host, isHostByte) || !all(path, isPathByte) {
		return "", "", false
	}
	return host, path, true
}

// all reports whether every byte of s is one ok accepts.
func all(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// isLower: a scheme's letters, as url.Parse leaves them.
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// isHostByte: a lower-case host name's bytes, and a port's.
func isHostByte(c byte) bool {
	return isLower(c) || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':'
}

// isPathByte: the bytes a path holds unescaped (RFC 3986's unreserved, and /).
func isPathByte(c byte) bool {
	return isLower(c) || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/-._~", c) >= 0
}

// poolMin is how many pages a Pool needs to have observed before its fit
// replaces the default prior.
const poolMin = 8

// Prior shapes a Pool fits are kept within: a group of pages that look
// alike gives no more weight than two changes, and one whose pages are
// all different no less than a tenth of one.
const (
	minShape = 0.1
	maxShape = 2
)

// maxStatic bounds the share of a group's pages taken to be static, so
// that a group none of whose pages was yet seen changing is still
// revisited.
const maxStatic = 0.9

// maxDates is how many Last-Modified dates a Pool counts.
const maxDates = 64

// A Pool is the empirical-Bayes prior of one group of pages: a Gamma
// distribution of their change rates, fitted by moments to the changes
// each member was seen to make in the time it was observed, and updated
// as members are observed (Add) — O(1) per observation, a few words per
// group. It also counts the Last-Modified dates its members gave at their
// first fetch: a date several pages share is a deployment's or the site's
// creation, not a change of each.
type Pool struct {
	pages            float64 // members observed
	unchanged        float64 // of them, never seen changed
	n, t, nn, nt, tt float64 // Σ changes, Σ exposure (s), Σ n², Σ n·t, Σ t²
	dates            map[int64]int32
}

// Add replaces a member's contribution (changes, exposure) old by new;
// old is zero for a new member, new zero for a member that left.
func (p *Pool) Add(oldN float64, oldT time.Duration, newN float64, newT time.Duration) {
	if oldT > 0 {
		p.pages--
		if oldN == 0 {
			p.unchanged--
		}
		t := oldT.Seconds()
		p.n, p.t, p.nn, p.nt, p.tt = p.n-oldN, p.t-t, p.nn-oldN*oldN, p.nt-oldN*t, p.tt-t*t
	}
	if newT > 0 {
		p.pages++
		if newN == 0 {
			p.unchanged++
		}
		t := newT.Seconds()
		p.n, p.t, p.nn, p.nt, p.tt = p.n+newN, p.t+t, p.nn+newN*newN, p.nt+newN*t, p.tt+t*t
	}
}

// SharedDate counts a first fetch's Last-Modified date and reports
// whether another member gave the same one (to the second).
func (p *Pool) SharedDate(d time.Time) bool {
	if p.dates == nil {
		p.dates = map[int64]int32{}
	}
	k := d.Unix()
	n := p.dates[k]
	if n == 0 && len(p.dates) >= maxDates {
		for x, c := range p.dates { // forget the dates seen once
			if c == 1 {
				delete(p.dates, x)
			}
		}
		if len(p.dates) >= maxDates {
			return false
		}
	}
	p.dates[k] = n + 1
	return n > 0
}

// Prior returns the group's prior and whether it has one (poolMin
// members observed, some time covered): a share Static of pages that
// never change and a Gamma distribution of the rates of the others (a
// zero-inflated Gamma). Static is the share of members never seen
// changed — an upper bound of the share that never change, which favours
// the pages seen changing while little is known. The Gamma's mean is the group's rate
// (changes ÷ exposure, with half a change added so that a group seen
// without change is slow, not static); its shape mean²/variance, where
// the variance between members is what their changes vary beyond
// Poisson's noise (Σ(nᵢ − m·tᵢ)² = m·Σtᵢ + v·Σtᵢ²), within [0.1, 2].
func (p *Pool) Prior() (Prior, bool) {
	if p.pages < poolMin || p.t <= 0 {
		return Prior{}, false
	}
	m := (p.n + 0.5) / p.t
	resid := p.nn - 2*m*p.nt + m*m*p.tt
	shape := float64(maxShape)
	if v := (resid - m*p.t) / p.tt; v > 0 {
		shape = min(max(m*m/v, minShape), maxShape)
	}
	exp := shape / m
	if math.IsInf(exp, 0) || math.IsNaN(exp) {
		return Prior{}, false
	}
	return Prior{Changes: shape, Exposure: time.Duration(min(exp, 1e9) * float64(time.Second)),
		Static: min(p.unchanged/p.pages, maxStatic)}, true
}

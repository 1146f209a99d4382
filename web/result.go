package web

import (
	"fmt"
	"html/template"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/doppel-search/doppel/page/sitename"
)

// This file holds what the result page shows of each hit beyond its title
// and snippet (breadcrumbs, date, a link that opens) and its numbered
// pages.

// A ShareLink maps the results under a URL prefix, such as a file share's
// file:// or smb:// URLs, to the address people open them at: an HTTP
// file server's URL prefix, or a Windows (UNC) path \\server\share\ that
// a file manager opens.
type ShareLink struct {
	// Prefix is the start of the result URLs mapped, e.g.
	// "file:///srv/share/" or "smb://fs1/share/".
	Prefix string `json:"prefix"`
	// Target replaces Prefix: an http(s):// or file:// URL prefix (the rest
	// of the URL is appended as it is, escaped), or a UNC path starting
	// with \\ (the rest is appended unescaped, with backslashes).
	Target string `json:"target"`
}

// ParseShareLink parses "PREFIX=TARGET", the form of serve's --link-map
// flag, and checks it.
func ParseShareLink(s string) (ShareLink, error) {
	prefix, target, ok := strings.Cut(s, "=")
	l := ShareLink{Prefix: strings.TrimSpace(prefix), Target: strings.TrimSpace(target)}
	if !ok || l.Prefix == "" || l.Target == "" {
		return ShareLink{}, fmt.Errorf("link map %q: want PREFIX=TARGET, e.g. file:///srv/share/=\\\\fs1\\share\\ or smb://fs1/share/=https://files.example.com/share/", s)
	}
	if u, err := url.Parse(l.Prefix); err != nil || u.Scheme == "" {
		return ShareLink{}, fmt.Errorf("link map %q: the prefix %q is not a URL prefix such as file:///srv/share/", s, l.Prefix)
	}
	if !strings.HasPrefix(l.Target, `\\`) {
		u, err := url.Parse(l.Target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "file") {
			return ShareLink{}, fmt.Errorf("link map %q: the target %q is neither an http(s):// or file:// URL prefix nor a \\\\server\\share\\ path", s, l.Target)
		}
	}
	return l, nil
}

// An openLink is how a result is opened: the link's address, and for a
// file a browser will not open from a web page, the path to copy into a
// file manager.
type openLink struct {
	Href template.URL // a URL of a scheme in linkSchemes, or "#"
	Copy string       // "" for a link the browser opens
}

// linkSchemes are the schemes a result's link may have: html/template
// would replace any but http(s) with "#ZgotmplZ", a file share's too.
var linkSchemes = []string{"http", "https", "file", "smb"}

// href returns u as a link if its scheme is in linkSchemes, else "#".
func href(u string) template.URL {
	scheme, _, ok := strings.Cut(u, ":")
	if !ok || !slices.Contains(linkSchemes, strings.ToLower(scheme)) {
		return "#"
	}
	return template.URL(u)
}

// opener returns the template function that maps a result URL to its
// openLink through links (the longest matching prefix wins). An http(s)
// URL is its own link. A file:// or smb:// URL no link maps keeps its
// link, with its path to copy: the local path of a file:// URL, the smb://
// URL itself.
func opener(links []ShareLink) func(string) openLink {
	return func(raw string) openLink {
		best := -1
		for i, l := range links {
			if strings.HasPrefix(raw, l.Prefix) && (best < 0 || len(l.Prefix) > len(links[best].Prefix)) {
				best = i
			}
		}
		if best >= 0 {
			l := links[best]
			rest := raw[len(l.Prefix):]
			if !strings.HasPrefix(l.Target, `\\`) {
				return openLink{Href: href(l.Target + rest)}
			}
			if r, err := url.PathUnescape(rest); err == nil {
				rest = r
			}
			unc := strings.TrimSuffix(l.Target, `\`) + `\` + strings.ReplaceAll(rest, "/", `\`)
			// file://server/share/… is the URL of \\server\share\…, which
			// a browser opens where the intranet zone allows it.
			return openLink{Href: href("file:" + strings.ReplaceAll(unc, `\`, "/")), Copy: unc}
		}
		u, err := url.Parse(raw)
		if err != nil {
			return openLink{Href: href(raw)}
		}
		switch u.Scheme {
		case "file":
			return openLink{Href: href(raw), Copy: u.Path}
		case "smb":
			return openLink{Href: href(raw), Copy: raw}
		}
		return openLink{Href: href(raw)}
	}
}

// crumbs returns the breadcrumbs of a result URL: its host, then each
// folder of its path (unescaped); the file name is left out, the title
// stands for it. A file:// URL, which has no host, starts at its first
// folder.
func crumbs(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return []string{raw}
	}
	var out []string
	if u.Host != "" {
		out = append(out, u.Host)
	}
	dirs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if !strings.HasSuffix(u.Path, "/") {
		dirs = dirs[:len(dirs)-1] // the file
	}
	for _, d := range dirs {
		if d != "" {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		out = append(out, "/")
	}
	return out
}

// isoDate formats a date as 2006-01-02 (UTC), "" if unknown: the page
// shows it so, and page.js in the reader's locale.
func isoDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// A dated is the date a hit shows: its own (LastModified), else when it
// was fetched.
type dated struct {
	ISO     string // 2006-01-02; "" if neither is known
	Fetched bool   // ISO is the fetch date
}

// hitDate returns the template function giving a hit's dated from its
// URL and LastModified, asking fetched (if not nil) for a page without a
// date of its own.
func hitDate(fetched func(string) time.Time) func(string, time.Time) dated {
	return func(url string, modified time.Time) dated {
		if !modified.IsZero() {
			return dated{ISO: isoDate(modified)}
		}
		if fetched == nil {
			return dated{}
		}
		if d := isoDate(fetched(url)); d != "" {
			return dated{ISO: d, Fetched: true}
		}
		return dated{}
	}
}

// displayTitle returns the template function "title": a page's title
// as shown, without its host's site name (Options.SiteNames), or its
// URL if it has none.
func displayTitle(names func() *sitename.Names) func(string, string) string {
	return func(pageURL, title string) string {
		if title == "" {
			return pageURL
		}
		if names == nil {
			return title
		}
		return names().Strip(pageURL, title)
	}
}

// A pageLink is one of the numbered pages of a result: its number, its
// link, whether it is the page shown; Gap stands for pages left out
// between two numbers (…).
type pageLink struct {
	N       int
	Link    string
	Current bool
	Gap     bool
}

// pageLinks returns the numbered pages around page cur of last: the
// first, the last, and two either side of the current one, with gaps
// between. link(n) is page n's address; next, if not "", is the address
// of page cur+1 (the cursor's).
func pageLinks(cur, last int, link func(int) string, next string) []pageLink {
	if last <= 1 {
		return nil
	}
	var out []pageLink
	for n := 1; n <= last; n++ {
		if n != 1 && n != last && (n < cur-2 || n > cur+2) {
			if len(out) > 0 && !out[len(out)-1].Gap {
				out = append(out, pageLink{Gap: true})
			}
			continue
		}
		l := pageLink{N: n, Current: n == cur}
		switch {
		case l.Current:
		case n == cur+1 && next != "":
			l.Link = next
		default:
			l.Link = link(n)
		}
		out = append(out, l)
	}
	return out
}

// lastPage returns the last page a result has at size per page: the
// exact total's, or when the total is not exact the clusters counted
// (AtLeast), and at least the next page when there is one; at most
// maxPage.
func lastPage(total, atLeast int, exact bool, size, cur int, more bool) int {
	if size <= 0 {
		return cur
	}
	n := total
	if !exact {
		n = atLeast
	}
	last := (n + size - 1) / size
	if more {
		last = max(last, cur+1)
	}
	return min(max(last, cur), maxPage)
}

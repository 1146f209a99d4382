// Package sitename learns, per host, the site name that ends its pages'
// titles (" - Intranet Wiki", " — Python 3.11 documentation") and takes
// it off a title for display. The name is template, like a page's
// navigation: a result list whose every title ends "- Intranet Wiki"
// says nothing with it. It is learned from the titles themselves — a
// suffix after a separator (" - ", " – ", " — ", " | ", " · ") that at
// least half of a host's titles, and at least MinTitles of them, end
// with — so a host without one keeps its titles whole, and a title that
// is only the site name keeps it.
//
// Only the displayed title is stripped: the index keeps the title whole,
// so a query that pastes a page's full title finds it first, and the
// name, in every title of the host, weighs nothing special there (its
// words are in every document of the host, which tf-idf discounts).
package sitename

import (
	"net/url"
	"strings"
)

// MinTitles is the fewest titles of a host that must share a suffix for
// it to be the host's site name.
const MinTitles = 3

// separators are what sets a site name off the title before it.
var separators = []string{" - ", " – ", " — ", " | ", " · "}

// suffix returns title's suffix from its last separator on (" - Intranet
// Wiki"), "" if it has none or nothing before it.
func suffix(title string) string {
	at := -1
	for _, sep := range separators {
		if i := strings.LastIndex(title, sep); i > at {
			at = i
		}
	}
	if at <= 0 || strings.TrimSpace(title[:at]) == "" {
		return ""
	}
	return title[at:]
}

// A Learner counts the suffixes of titles per host. The zero value is
// ready; not safe for concurrent use.
type Learner struct {
	titles   map[string]int            // host → titles
	suffixes map[string]map[string]int // host → suffix → titles ending with it
}

// Add counts the title of the page at pageURL.
func (l *Learner) Add(pageURL, title string) {
	host := hostOf(pageURL)
	if host == "" {
		return
	}
	if l.titles == nil {
		l.titles, l.suffixes = map[string]int{}, map[string]map[string]int{}
	}
	l.titles[host]++
	if s := suffix(title); s != "" {
		if l.suffixes[host] == nil {
			l.suffixes[host] = map[string]int{}
		}
		l.suffixes[host][s]++
	}
}

// Names returns the site names learned: per host, the suffix at least
// half of its titles and at least MinTitles end with.
func (l *Learner) Names() *Names {
	n := &Names{byHost: map[string]string{}}
	for host, counts := range l.suffixes {
		for s, c := range counts {
			if c >= MinTitles && 2*c >= l.titles[host] {
				n.byHost[host] = s
			}
		}
	}
	return n
}

// Names holds the site name of each host that has one. A nil *Names
// strips nothing.
type Names struct {
	byHost map[string]string
}

// Of returns the site name suffix of the host of pageURL (" - Intranet
// Wiki"), "" if it has none.
func (n *Names) Of(pageURL string) string {
	if n == nil {
		return ""
	}
	return n.byHost[hostOf(pageURL)]
}

// Strip returns title without the site name of pageURL's host, for
// display; title itself if it does not end with it or is nothing else.
func (n *Names) Strip(pageURL, title string) string {
	s := n.Of(pageURL)
	if s == "" {
		return title
	}
	if rest, ok := strings.CutSuffix(title, s); ok && strings.TrimSpace(rest) != "" {
		return rest
	}
	return title
}

// hostOf returns the host (with its port) of u, lowercased; "" if u does
// not parse.
func hostOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.ToLower(p.Host)
}

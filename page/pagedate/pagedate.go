// Package pagedate reads the date a page names itself by: "IT maintenance
// window, January 2026", "Minutes of 3 March 2026", "Release notes
// 2026-02-14". It is the issue date of a page of a series — monthly
// notices, weekly newsletters, minutes — whose pages are copies of one
// another but for that date, and what the master policy cluster.Newest
// orders them by (package crawler/hook), so that the newest issue stands
// for its series.
//
// Only the page's title is read, and its first heading when the title
// names no date. The Last-Modified header and the markup's modification
// dates (meta tags, <time>) are not read on purpose: they say when a file
// was written, not which issue it is — a copy saved last year is "newer"
// than its original by them, and a static server gives every file its own
// — so they would hand a cluster to whatever copy was touched last.
//
// The forms read (English month names, full or abbreviated, any case; an
// ordinal suffix and a weekday are allowed): "3 January 2026", "January
// 3, 2026", "January 2026", "2026-01-03", "2026-01", "2026/01/03" and
// "2026年1月3日" (also 년/월/일). A date without a year ("3 January"), a
// year alone ("Report 2025") and the ambiguous "03/01/2026" are not dates
// here. A date with no day is the first of its month.
package pagedate

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/doppel-search/doppel/page"
)

// Of returns the date page p names itself by: the first date in its title,
// else in its first heading; zero if neither names one.
func Of(p page.Page) time.Time {
	if t, ok := Find(p.Title); ok {
		return t
	}
	if len(p.Headings) > 0 {
		if t, ok := Find(p.Headings[0]); ok {
			return t
		}
	}
	return time.Time{}
}

const (
	month = `(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`
	day   = `(\d{1,2})(?:st|nd|rd|th)?`
	year  = `(\d{4})`
)

// forms are the date forms, each with the submatch positions of its
// year, month and day (0: absent; a month given by name has a negative
// position) and of its second separator, which must equal the first (the
// position two before it; 0: none).
var forms = []struct {
	re                   *regexp.Regexp
	year, mon, mday, sep int
}{
	{regexp.MustCompile(`(?i)\b` + day + `\.?\s+(?:of\s+)?` + month + `,?\s+` + year + `\b`), 3, -2, 1, 0},
	{regexp.MustCompile(`(?i)\b` + month + `\s+` + day + `,?\s+` + year + `\b`), 3, -1, 2, 0},
	{regexp.MustCompile(`(?i)\b` + month + `,?\s+` + year + `\b`), 2, -1, 0, 0},
	{regexp.MustCompile(`\b` + year + `([-/])(\d{1,2})(?:([-/])(\d{1,2}))?\b`), 1, 3, 5, 4},
	{regexp.MustCompile(year + `\s*[年년]\s*(\d{1,2})\s*[月월](?:\s*(\d{1,2})\s*[日일])?`), 1, 2, 3, 0},
}

// Find returns the first date s names and whether there is one. Of
// readings that overlap, the one that starts first, then the longest,
// counts: "31 February 2026" is no date, not February 2026.
func Find(s string) (time.Time, bool) {
	type reading struct {
		at, end int
		t       time.Time
		ok      bool
	}
	var rs []reading
	for _, f := range forms {
		for _, m := range f.re.FindAllStringSubmatchIndex(s, -1) {
			group := func(i int) string {
				if i <= 0 || m[2*i] < 0 {
					return ""
				}
				return s[m[2*i]:m[2*i+1]]
			}
			mon := 0
			if f.mon < 0 {
				mon = monthNumber(group(-f.mon))
			} else {
				mon, _ = strconv.Atoi(group(f.mon))
			}
			y, _ := strconv.Atoi(group(f.year))
			d := 1
			if g := group(f.mday); g != "" {
				d, _ = strconv.Atoi(g)
			}
			t, ok := valid(y, mon, d)
			if f.sep > 0 && group(f.sep) != "" && group(f.sep) != group(f.sep-2) {
				ok = false // "2026-01/03": the separators must agree
			}
			rs = append(rs, reading{m[0], m[1], t, ok})
		}
	}
	slices.SortFunc(rs, func(a, b reading) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(b.end, a.end)) })
	covered := 0
	for _, r := range rs {
		if r.at < covered {
			continue
		}
		if r.ok {
			return r.t, true
		}
		covered = r.end
	}
	return time.Time{}, false
}

// valid returns the date y-m-d if it is one, with a year from 1000 to
// 2999.
func valid(y, m, d int) (time.Time, bool) {
	if y < 1000 || y > 2999 || m < 1 || m > 12 || d < 1 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t, t.Day() == d // 31 February is not a date
}

// monthNumber returns the number of the English month name or
// abbreviation name (any case, a trailing period allowed), 0 if none.
func monthNumber(name string) int {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	for m := time.January; m <= time.December; m++ {
		if full := strings.ToLower(m.String()); strings.HasPrefix(full, name) && len(name) >= 3 {
			return int(m)
		}
	}
	return 0
}

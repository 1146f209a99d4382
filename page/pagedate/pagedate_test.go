package pagedate

import (
	"testing"
	"time"

	"github.com/doppel-search/doppel/page"
)

func TestFind(t *testing.T) {
	date := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		in   string
		want time.Time // zero: no date
	}{
		{"IT maintenance window, January 2026", date(2026, time.January, 1)},
		{"IT maintenance window, December 2026", date(2026, time.December, 1)},
		{"Cafeteria notice for the week of 2 March 2026", date(2026, time.March, 2)},
		{"Minutes of Monday 2nd March 2026", date(2026, time.March, 2)},
		{"Minutes of the 3rd of Sept. 2025", date(2025, time.September, 3)},
		{"Board meeting, March 14, 2026", date(2026, time.March, 14)},
		{"Board meeting, MAR 14 2026", date(2026, time.March, 14)},
		{"Newsletter — sep 2025", date(2025, time.September, 1)},
		{"Release notes 2026-02-14", date(2026, time.February, 14)},
		{"Release notes 2026/02/14", date(2026, time.February, 14)},
		{"Backup report 2026-02", date(2026, time.February, 1)},
		{"2026年3月2日の会議", date(2026, time.March, 2)},
		{"2026년 3월 회의", date(2026, time.March, 1)},
		// the first date of several
		{"Changes from 1 March 2026 to 5 April 2026", date(2026, time.March, 1)},
		{"2025-12-01: report of January 2026", date(2025, time.December, 1)},
		// no date
		{"", time.Time{}},
		{"VPN setup guide", time.Time{}},
		{"Annual report 2025", time.Time{}},  // a year alone
		{"Party on 3 March", time.Time{}},    // no year
		{"Schedule 03/01/2026", time.Time{}}, // day and month ambiguous
		{"String (Java SE 17 & JDK 17)", time.Time{}},
		{"Python 3.12.1 documentation", time.Time{}},
		{"May the force be with you 2026", time.Time{}}, // "may" not beside the year
		{"Report 31 February 2026", time.Time{}},        // no such day
		{"Report 2026-13-01", time.Time{}},              // no such month
		{"Build 0999-01-01", time.Time{}},               // year out of range
		{"Batch 12026-01", time.Time{}},                 // not a four-digit year
		{"mayday 2026", time.Time{}},
		{"Build 2026-01/03", time.Time{}}, // mixed separators                    // a month name inside a word
	} {
		got, ok := Find(tc.in)
		if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
			t.Errorf("Find(%q) = %v, %v; want %v", tc.in, got, ok, tc.want)
		}
	}
}

func TestOf(t *testing.T) {
	jan := time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)
	feb := time.Date(2026, time.February, 1, 0, 0, 0, 0, time.UTC)
	modified := time.Date(2027, time.May, 5, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		p    page.Page
		want time.Time
	}{
		{"title", page.Page{Title: "Notice, January 2026", Headings: []string{"Notice, February 2026"}}, jan},
		{"first heading", page.Page{Title: "Notice", Headings: []string{"Notice, February 2026", "March 2026"}}, feb},
		{"later heading not read", page.Page{Title: "Notice", Headings: []string{"Notice", "February 2026"}}, time.Time{}},
		{"modification date not read", page.Page{Title: "Notice", LastModified: modified}, time.Time{}},
		{"text not read", page.Page{Title: "Notice", Text: "February 2026", Blocks: []string{"February 2026"}}, time.Time{}},
	} {
		if got := Of(tc.p); !got.Equal(tc.want) {
			t.Errorf("%s: Of = %v, want %v", tc.name, got, tc.want)
		}
	}
}

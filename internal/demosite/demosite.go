// Package demosite generates the bundled demo intranet: a deterministic set
// of a few hundred pages with the near-duplicates real intranets are full
// of — mirrored manual sections, printer-friendly copies, the same page
// under session-id URLs, and templated notices that differ only by a date —
// beside unique pages (news, team pages and an HR section) that are not
// near-duplicates of anything. It needs no files and no network.
package demosite

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Page is one demo page.
type Page struct {
	Path   string // URL path, e.g. "/manual/vpn.html"
	Title  string
	Text   string // main content
	Family string // the base page it copies ("" for a unique page); the expected cluster
}

// Pages returns the demo intranet's pages in a fixed order: the manual
// sections, each followed by its printer-friendly copy, its mirror and its
// session-id variant; the templated notices; then the unique pages (news,
// team pages and the HR section). Every call returns the same pages.
func Pages() []Page {
	var pages []Page
	for _, s := range slices.Concat(sections, moreSections) {
		base := "/manual/" + s.slug + ".html"
		pages = append(pages, Page{Path: base, Title: s.title, Text: s.text, Family: base})
		// Printer-friendly copy: the same text with a print banner.
		pages = append(pages, Page{Path: "/print" + base, Title: s.title + " (print)",
			Text: s.text + "\n\nPrinted from the Acme intranet.", Family: base})
		// Mirror of the manual kept by another department, with one edit.
		pages = append(pages, Page{Path: "/mirror/it" + base, Title: s.title,
			Text: strings.Replace(s.text, "the service desk", "the IT service desk", 1), Family: base})
		// The same page under a session-id URL.
		pages = append(pages, Page{Path: base + ";jsessionid=" + fmt.Sprintf("%08X", len(s.slug)*7919), Title: s.title, Text: s.text, Family: base})
	}
	// Templated notices: the same text with different dates. Each series
	// lives in its own directory, so each has its own URL template.
	for _, s := range series {
		first := ""
		for _, d := range s.dates() {
			path := s.path(d)
			if first == "" {
				first = path
			}
			pages = append(pages, Page{Path: path, Title: s.title(d), Text: s.text(d), Family: first})
		}
	}
	for _, u := range slices.Concat(uniques, moreNews) {
		pages = append(pages, Page{Path: "/news/" + u.slug + ".html", Title: u.title, Text: u.text})
	}
	for _, u := range teams {
		pages = append(pages, Page{Path: "/teams/" + u.slug + ".html", Title: u.title, Text: u.text})
	}
	for _, u := range hr {
		pages = append(pages, Page{Path: "/hr/" + u.slug + ".html", Title: u.title, Text: u.text})
	}
	return pages
}

// A templated series of notices: one page per date, all with the same
// text apart from the date.
type notices struct {
	dates             func() []time.Time
	path, title, text func(time.Time) string
}

var series = []notices{
	{ // weekly cafeteria notices
		dates: func() []time.Time { return weekly(time.Date(2026, time.March, 2, 0, 0, 0, 0, time.UTC), 6) },
		path:  func(d time.Time) string { return "/notices/cafeteria-" + d.Format("2006-01-02") + ".html" },
		title: func(d time.Time) string { return "Cafeteria notice for the week of " + d.Format("2 January 2006") },
		text:  func(d time.Time) string { return fmt.Sprintf(cafeteria, d.Format("Monday 2 January 2006")) },
	},
	{ // monthly IT maintenance windows, on the first Saturday of each month
		dates: func() []time.Time { return monthly(2026, time.Saturday, 1) },
		path:  func(d time.Time) string { return "/notices/it/maintenance-" + d.Format("2006-01") + ".html" },
		title: func(d time.Time) string { return "IT maintenance window, " + d.Format("January 2006") },
		text:  func(d time.Time) string { return fmt.Sprintf(maintenance, d.Format("Monday 2 January 2006")) },
	},
	{ // monthly payroll cut-off reminders, on the 18th
		dates: func() []time.Time { return monthly(2026, -1, 18) },
		path:  func(d time.Time) string { return "/notices/payroll/cutoff-" + d.Format("2006-01") + ".html" },
		title: func(d time.Time) string { return "Payroll cut-off for " + d.Format("January 2006") },
		text:  func(d time.Time) string { return fmt.Sprintf(payroll, d.Format("Monday 2 January 2006")) },
	},
	{ // monthly fire alarm tests, on the first Wednesday of each month
		dates: func() []time.Time { return monthly(2026, time.Wednesday, 1) },
		path:  func(d time.Time) string { return "/notices/fire-alarm/test-" + d.Format("2006-01") + ".html" },
		title: func(d time.Time) string { return "Fire alarm test, " + d.Format("January 2006") },
		text:  func(d time.Time) string { return fmt.Sprintf(fireAlarm, d.Format("Monday 2 January 2006")) },
	},
}

// weekly returns n dates a week apart from first.
func weekly(first time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = first.AddDate(0, 0, 7*i)
	}
	return out
}

// monthly returns one date in each month of year: the first weekday on or
// after day, or day itself if weekday is negative.
func monthly(year int, weekday time.Weekday, day int) []time.Time {
	out := make([]time.Time, 12)
	for m := range out {
		d := time.Date(year, time.Month(m+1), day, 0, 0, 0, 0, time.UTC)
		for weekday >= 0 && d.Weekday() != weekday {
			d = d.AddDate(0, 0, 1)
		}
		out[m] = d
	}
	return out
}

const cafeteria = `Cafeteria notice for the week starting %s. The cafeteria on the ground floor
serves breakfast from seven to ten and lunch from half past eleven to two. The salad bar,
the soup of the day and the vegetarian main course are available every day; the grill is
closed on Fridays for cleaning. Payment is by badge or card only, cash is no longer accepted.
Please return trays to the racks near the exit and sort your waste into the labelled bins.
Allergy information for every dish is posted at the counter; ask the staff if in doubt.`

const maintenance = `The monthly maintenance window of the IT department is on %s, from ten in the evening
until four the next morning. During the window servers are patched and restarted, so email, the file shares,
the finance portal and the software portal may each be unavailable for up to an hour. The VPN stays up but
may disconnect briefly. Please save your work and sign out before you leave on Friday. Urgent problems during
the window can be reported to the engineer on call through the phone line of the service desk.`

const payroll = `Payroll cut-off: changes that should affect this month's salary must be entered by %s at
noon. This includes overtime, shift allowances, new bank details, unpaid leave and new starters. Managers
approve overtime in the time tracking system before the cut-off; entries approved later are paid a month
later. Expense claims approved by the same date are reimbursed with this salary as well. Salaries are paid
on the last working day of the month, and payslips appear in the people portal two days earlier.`

const fireAlarm = `The fire alarm system in all buildings is tested on %s at eleven in the morning. The
sounders ring for up to two minutes and the voice announcement is played once. This is only a test: you do
not need to leave, and the lifts keep working. If the alarm continues for longer than five minutes, or if you
hear it at any other time, treat it as real and evacuate. Fire wardens check afterwards that the alarm was
audible in every room and report quiet spots to facilities management.`

type text struct{ slug, title, text string }

var sections = []text{
	{"vpn", "Connecting to the VPN", `To work from home you connect to the corporate network through the VPN client.
Install the client from the software portal, then sign in with your network account and the code
from your authenticator app. The client chooses the nearest gateway automatically; if the connection
drops more than twice an hour, switch to the backup gateway in the settings panel. Split tunnelling
is disabled: all traffic goes through the company network while the VPN is on, so streaming video
will be slow. If you cannot connect at all, restart your router first, then contact the service desk
with the error number the client shows. Contractors need a sponsor to request VPN access.`},
	{"printing", "Printing and scanning", `Every floor has two multifunction printers that print, copy and scan.
Send a job to the shared queue and release it at any printer by holding your badge against the reader;
jobs that are not released are deleted after twelve hours. Colour printing is enabled for managers and
for the marketing team, everyone else prints in black and white by default. Scans are delivered to your
mailbox as PDF files; large scans are split into several messages. Report paper jams that you cannot
clear and empty toner cartridges to the service desk, and never open the fuser unit yourself.`},
	{"expenses", "Submitting travel expenses", `Travel expenses are claimed in the finance portal within thirty days of
the end of a trip. Photograph every receipt with the mobile app or upload scans; paper receipts no longer
need to be posted to accounting. Hotel costs are reimbursed up to the city limit in the travel policy,
meals up to the daily allowance, and taxis only when no public transport was reasonable. Your manager
approves the claim, finance checks it, and the money arrives with the next salary payment. Questions
about a rejected claim go to the finance team, questions about the portal to the service desk.`},
	{"passwords", "Password and account policy", `Your network password must be at least fourteen characters long and is
never shared, not even with the service desk. Passwords no longer expire on a schedule, but you must change
yours at once if you suspect that someone else knows it. Use the self-service page to reset a forgotten
password after confirming your identity with your phone. Accounts are locked for fifteen minutes after ten
failed attempts. Shared mailboxes and service accounts are requested by a team lead and reviewed every
quarter; unused accounts are disabled after ninety days and deleted after a year.`},
	{"onboarding", "First week checklist for new staff", `Welcome to Acme. On your first day collect your badge at
reception and your laptop from the equipment counter on the second floor. Sign the acceptable use policy,
then complete the security awareness course in the learning portal during your first week. Your manager
will introduce you to your team and assign a buddy who answers everyday questions. Book the introduction
session for new staff, held every second Tuesday, and set up your profile in the staff directory with a
photo. Report any missing equipment or access rights to the service desk before the end of the week.`},
}

var uniques = []text{
	{"canteen-renovation", "Canteen renovation finished", `The renovation of the staff canteen is finished and the new seating area
on the terrace is open. Thanks to everyone for their patience during the building work over the summer months.`},
	{"quarterly-results", "Quarterly results meeting", `The chief financial officer presents the quarterly results in the main auditorium
on Thursday afternoon. The session is streamed for remote colleagues and the slides are published afterwards.`},
	{"bike-scheme", "New bicycle lease scheme", `Employees can now lease a bicycle or an electric bike through a salary sacrifice scheme.
The lease runs for three years and includes insurance and yearly maintenance at partner shops in the region.`},
	{"fire-drill", "Fire drill next month", `A fire drill will take place next month without further notice. When the alarm sounds leave
the building by the nearest staircase, do not use the lifts, and gather at the assembly point in the car park.`},
	{"parking", "Changes to visitor parking", `Visitor parking moves to the north car park while the south car park is resurfaced. Reception
hands out day permits; please tell your visitors in advance and allow extra time for the walk to the entrance.`},
	{"library", "Technical library opening hours", `The technical library on the fourth floor is open on weekdays from nine to five. Books, standards
and journals can be borrowed for four weeks, and the librarian orders titles that are missing from the catalogue.`},
}

package demosite

import (
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/features"
)

func TestPagesAreDeterministicAndUnique(t *testing.T) {
	a, b := Pages(), Pages()
	if len(a) != len(b) || len(a) < 250 || len(a) > 400 {
		t.Fatalf("len(Pages) = %d then %d, want equal and in [250, 400]", len(a), len(b))
	}
	paths := map[string]bool{}
	families := map[string]int{}
	for i, p := range a {
		if p != b[i] {
			t.Fatalf("page %d differs between calls", i)
		}
		if paths[p.Path] || p.Text == "" || p.Title == "" {
			t.Fatalf("page %q: duplicate path or empty text/title", p.Path)
		}
		paths[p.Path] = true
		if p.Family != "" {
			families[p.Family]++
		}
	}
	if want := len(sections) + len(moreSections) + len(series); len(families) != want {
		t.Errorf("%d families, want %d (manual sections and notice series)", len(families), want)
	}
}

// TestKnownPages pins pages that other packages' tests and the docs rely
// on: their paths, titles, families and the start of their text.
func TestKnownPages(t *testing.T) {
	byPath := map[string]Page{}
	for _, p := range Pages() {
		byPath[p.Path] = p
	}
	tests := []struct{ path, title, family, textPrefix string }{
		{"/manual/vpn.html", "Connecting to the VPN", "/manual/vpn.html", "To work from home you connect"},
		{"/print/manual/vpn.html", "Connecting to the VPN (print)", "/manual/vpn.html", "To work from home you connect"},
		{"/mirror/it/manual/vpn.html", "Connecting to the VPN", "/manual/vpn.html", "To work from home you connect"},
		{"/manual/vpn.html;jsessionid=00005CCD", "Connecting to the VPN", "/manual/vpn.html", "To work from home you connect"},
		{"/manual/printing.html", "Printing and scanning", "/manual/printing.html", "Every floor has two multifunction"},
		{"/manual/expenses.html", "Submitting travel expenses", "/manual/expenses.html", "Travel expenses are claimed"},
		{"/manual/passwords.html", "Password and account policy", "/manual/passwords.html", "Your network password must be"},
		{"/manual/onboarding.html", "First week checklist for new staff", "/manual/onboarding.html", "Welcome to Acme."},
		{"/notices/cafeteria-2026-03-02.html", "Cafeteria notice for the week of 2 March 2026", "/notices/cafeteria-2026-03-02.html",
			"Cafeteria notice for the week starting Monday 2 March 2026."},
		{"/notices/cafeteria-2026-04-06.html", "Cafeteria notice for the week of 6 April 2026", "/notices/cafeteria-2026-03-02.html",
			"Cafeteria notice for the week starting Monday 6 April 2026."},
		{"/news/canteen-renovation.html", "Canteen renovation finished", "", "The renovation of the staff canteen"},
		{"/news/library.html", "Technical library opening hours", "", "The technical library on the fourth floor"},
		{"/manual/annual-leave.html", "Booking annual leave", "/manual/annual-leave.html", "Full-time staff receive"},
		{"/notices/it/maintenance-2026-01.html", "IT maintenance window, January 2026", "/notices/it/maintenance-2026-01.html",
			"The monthly maintenance window of the IT department is on Saturday 3 January 2026,"},
		{"/notices/payroll/cutoff-2026-12.html", "Payroll cut-off for December 2026", "/notices/payroll/cutoff-2026-01.html",
			"Payroll cut-off: changes that should affect this month's salary must be entered by Friday 18 December 2026"},
		{"/notices/fire-alarm/test-2026-07.html", "Fire alarm test, July 2026", "/notices/fire-alarm/test-2026-01.html",
			"The fire alarm system in all buildings is tested on Wednesday 1 July 2026"},
		{"/teams/finance.html", "Finance department", "", "Finance prepares the monthly"},
		{"/hr/salary-bands.html", "Salary bands and grading", "", "Every position is assigned"},
	}
	for _, tt := range tests {
		p, ok := byPath[tt.path]
		if !ok {
			t.Errorf("no page %s", tt.path)
			continue
		}
		if p.Title != tt.title || p.Family != tt.family || !strings.HasPrefix(strings.Join(strings.Fields(p.Text), " "), tt.textPrefix) {
			t.Errorf("%s: title %q, family %q, text %.60q…; want %q, %q, %q…", tt.path, p.Title, p.Family, p.Text, tt.title, tt.family, tt.textPrefix)
		}
	}
}

func TestFamilies(t *testing.T) {
	pages := Pages()
	byPath := map[string]Page{}
	for _, p := range pages {
		byPath[p.Path] = p
	}
	size := map[string]int{}
	for _, p := range pages {
		if p.Family == "" {
			continue
		}
		base, ok := byPath[p.Family]
		if !ok || base.Family != base.Path {
			t.Errorf("%s: family %q is not a base page (its own family)", p.Path, p.Family)
		}
		size[p.Family]++
	}
	// The expected size of each kind of family, by the base page's path.
	tests := []struct {
		prefix   string
		families int
		size     int
	}{
		{"/manual/", len(sections) + len(moreSections), 4},
		{"/notices/cafeteria-", 1, 6},
		{"/notices/it/", 1, 12},
		{"/notices/payroll/", 1, 12},
		{"/notices/fire-alarm/", 1, 12},
	}
	for _, tt := range tests {
		n := 0
		for base, s := range size {
			if strings.HasPrefix(base, tt.prefix) {
				n++
				if s != tt.size {
					t.Errorf("family %s has %d pages, want %d", base, s, tt.size)
				}
			}
		}
		if n != tt.families {
			t.Errorf("%d families under %s, want %d", n, tt.prefix, tt.families)
		}
	}
	// Distinct families and unique pages have distinct titles.
	titles := map[string]string{}
	for _, p := range pages {
		key := cmpKey(p)
		if other, dup := titles[p.Title]; dup && other != key {
			t.Errorf("title %q used by %s and %s", p.Title, other, key)
		}
		titles[p.Title] = key
	}
}

// cmpKey is the cluster a page belongs to: its family, or itself.
func cmpKey(p Page) string {
	if p.Family == "" {
		return p.Path
	}
	return p.Family
}

// shingles returns the set of word 4-shingles of text as the dedup
// pipeline tokenizes it; strip also drops numbers and dates, as the
// crawler's detector does.
func shingles(t *testing.T, text string, strip bool) []uint64 {
	ext, err := features.New(features.Options{StripNumbers: strip, StripDates: strip})
	if err != nil {
		t.Fatal(err)
	}
	return features.Set(features.Shingles(ext.Terms(text), 4))
}

func TestResemblance(t *testing.T) {
	pages := Pages()
	for _, strip := range []bool{false, true} {
		sets := make([][]uint64, len(pages))
		for i, p := range pages {
			sets[i] = shingles(t, p.Title+"\n"+p.Text, strip)
		}
		maxCross, minWithin := 0.0, 1.0
		var maxPair, minPair [2]string
		for i := range pages {
			for j := i + 1; j < len(pages); j++ {
				r := features.Resemblance(sets[i], sets[j])
				if cmpKey(pages[i]) != cmpKey(pages[j]) {
					if r > maxCross {
						maxCross, maxPair = r, [2]string{pages[i].Path, pages[j].Path}
					}
					if r >= 0.3 {
						t.Errorf("strip %v: %s and %s have resemblance %.3f, want < 0.3", strip, pages[i].Path, pages[j].Path, r)
					}
				} else if r < minWithin {
					minWithin, minPair = r, [2]string{pages[i].Path, pages[j].Path}
				}
			}
		}
		t.Logf("strip numbers and dates %v: max resemblance across families %.3f (%s, %s), min within a family %.3f (%s, %s)",
			strip, maxCross, maxPair[0], maxPair[1], minWithin, minPair[0], minPair[1])
		// Within a family, pages differ by a banner, one edit or a date.
		if strip && minWithin < 0.8 {
			t.Errorf("min resemblance within a family %.3f (%s, %s), want >= 0.8 once dates are stripped", minWithin, minPair[0], minPair[1])
		}
	}
}

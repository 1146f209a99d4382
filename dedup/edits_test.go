package dedup

import (
	"fmt"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup/cluster"
)

// TestEditAllowance: with an edit allowance, a short page and its copy
// with a banner and a changed title (resemblance below 0.9) are near
// duplicates; two long pages of one template filled with different names
// (resemblance near 0.88) are not; nor is a short pair below the floor.
func TestEditAllowance(t *testing.T) {
	body := "To work from home you connect to the corporate network through the VPN client. Install the client from the software portal, " +
		"then sign in with your network account and the code from your authenticator app. The client chooses the nearest gateway " +
		"automatically; if the connection drops more than twice an hour, switch to the backup gateway in the settings panel."
	// An API page: the class name in a dozen different sentences, and a
	// long inherited-member list every class page shares.
	template := func(name string) string {
		var b strings.Builder
		for _, s := range []string{"Class %s extends Component.", "A %s combines the UIs of its children.", "Creates a new %s with no children.",
			"Returns the preferred size of this %s in pixels.", "Paints the %s with the graphics context given.", "Adds a child to the %s at the end.",
			"Removes every child of the %s and repaints it.", "Returns true if the %s contains the point.", "Installs the %s on a component.",
			"Uninstalls the %s from its component.", "Returns the accessible context of the %s.", "Updates the %s after a look and feel change."} {
			fmt.Fprintf(&b, s+" ", name)
		}
		for i := range 40 {
			fmt.Fprintf(&b, "inherited method%c%c from the base class, ", 'a'+i%26, 'a'+i/26)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name    string
		a, b    string
		allow   int
		want    bool
		minimum float64 // resemblance bounds the case is about
		maximum float64
	}{
		{"short copy with a banner and a title edit", "Connecting to the VPN " + body, "Connecting to the VPN (print) " + body + " Printed from the intranet.", 3, true, 0.8, 0.9},
		{"the same without an allowance", "Connecting to the VPN " + body, "Connecting to the VPN (print) " + body + " Printed from the intranet.", 0, false, 0.8, 0.9},
		{"long template, other names", template("ButtonPanel"), template("SliderPanel"), 3, false, 0.5, 0.9},
		{"short pages below the floor", "Uses of class Retention: none. " + body[:120], "Uses of class Target: none at all in this package. " + body[:100], 3, false, 0, 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(nil, Options{EditAllowance: tc.allow})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Add(Document{ID: "a", Text: tc.a}); err != nil {
				t.Fatal(err)
			}
			pa, _ := d.Prepare(Document{ID: "x", Text: tc.a})
			pb, _ := d.Prepare(Document{ID: "y", Text: tc.b})
			score, _ := d.match(pa.rec, pb.rec)
			if score < tc.minimum || score >= tc.maximum {
				t.Fatalf("resemblance %.3f, the case needs [%.2f, %.2f)", score, tc.minimum, tc.maximum)
			}
			res, err := d.Add(Document{ID: "b", Text: tc.b})
			if err != nil {
				t.Fatal(err)
			}
			if res.Duplicate != tc.want {
				t.Errorf("near-duplicate %v at resemblance %.3f, want %v", res.Duplicate, score, tc.want)
			}
		})
	}
	if err := (Options{EditAllowance: -1}).Validate(); err == nil {
		t.Error("a negative allowance is valid")
	}
	if err := (Options{EditFloor: 1.5}).Validate(); err == nil {
		t.Error("a floor above 1 is valid")
	}
}

// TestMasterHandOverKeepsCopies: under the edit allowance a newer page
// the master policy prefers takes over a cluster only if every member left
// out as a copy of the old master is a copy of it too.
func TestMasterHandOverKeepsCopies(t *testing.T) {
	var words []string
	for i := range 120 {
		words = append(words, fmt.Sprintf("w%c%c", 'a'+i%26, 'a'+i/26))
	}
	base := strings.Join(words, " ")
	edit := func(at int, w string) string { // one word replaced
		ws := strings.Fields(base)
		ws[at] = w
		return strings.Join(ws, " ")
	}
	for _, tc := range []struct {
		name  string
		a, n  string // a member, and a newcomer with the shortest URL
		takes bool
	}{
		{"newcomer a copy of every member", edit(10, "zz1"), edit(11, "zz2"), true},
		{"newcomer only close to a member", edit(10, "zz1"), edit(100, "zz2") + " " + edit(60, "zz3"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(nil, Options{EditAllowance: 3, Master: cluster.ShortestURL})
			if err != nil {
				t.Fatal(err)
			}
			add := func(id, url, text string) Result {
				t.Helper()
				r, err := d.Add(Document{ID: id, URL: url, Text: text})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			add("m", "http://x/long/master", base)
			if r := add("a", "http://x/longer/member", tc.a); !r.Duplicate || r.Edited {
				t.Fatalf("member: %+v, want a copy at the threshold", r)
			}
			r := add("n", "http://x/n", tc.n)
			if !r.Duplicate || r.NewMaster != tc.takes {
				t.Errorf("newcomer: duplicate %v, new master %v; want a duplicate, new master %v", r.Duplicate, r.NewMaster, tc.takes)
			}
		})
	}
}

package main

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"
)

// TestField reads ndd's output lines.
func TestField(t *testing.T) {
	out := "optimal: freshness=0.8320 mean_age_s=23.3 requests=2872\nround-robin: freshness=0.7846 mean_age_s=37.0\n"
	for _, tc := range []struct {
		prefix string
		want   float64
	}{{"optimal:", 0.832}, {"round-robin:", 0.7846}, {"", 0.832}} {
		if got, err := field(out, tc.prefix, "freshness"); err != nil || got != tc.want {
			t.Errorf("%q: %v %v, want %v", tc.prefix, got, err, tc.want)
		}
	}
	if _, err := field(out, "nutch:", "freshness"); err == nil {
		t.Error("a missing line gave no error")
	}
	if _, err := field("freshness=oops", "", "freshness"); err == nil {
		t.Error("a value that is not a number gave no error")
	}
}

// TestRender: the SVG is well-formed XML with one polyline per series, a
// point per window, x increasing, and a higher freshness drawn higher
// (a smaller y), inside the plot box.
func TestRender(t *testing.T) {
	all := []series{
		{Name: "adaptive", Color: "#00f", Values: []float64{0.3, 0.8, 0.85}},
		{Name: "optimum (knows every rate)", Color: "#f00", Dashed: true, Values: []float64{0.4, 0.9, 0.95}},
	}
	var b strings.Builder
	if err := render(&b, "a <title> & more", all, 60); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Lines []struct {
			ID     string `xml:"id,attr"`
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
	}
	if err := xml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b.String())
	}
	if len(doc.Lines) != 2 || doc.Lines[0].ID != "line-adaptive" || doc.Lines[1].ID != "line-optimum-knows-every-rate" {
		t.Fatalf("polylines %+v", doc.Lines)
	}
	pts := make([][][2]float64, 2)
	for i, l := range doc.Lines {
		for _, p := range strings.Fields(l.Points) {
			xy := strings.Split(p, ",")
			x, _ := strconv.ParseFloat(xy[0], 64)
			y, _ := strconv.ParseFloat(xy[1], 64)
			if x < left || x > width-right || y < top || y > base {
				t.Errorf("point %v outside the plot box", p)
			}
			pts[i] = append(pts[i], [2]float64{x, y})
		}
		if len(pts[i]) != 3 {
			t.Fatalf("%s: %d points, want one per window", l.ID, len(pts[i]))
		}
		for k := 1; k < 3; k++ {
			if pts[i][k][0] <= pts[i][k-1][0] {
				t.Errorf("%s: x not increasing: %v", l.ID, pts[i])
			}
		}
	}
	for k := range 3 {
		if pts[1][k][1] >= pts[0][k][1] {
			t.Errorf("window %d: the optimum (higher) is drawn at y %.1f, not above adaptive's %.1f", k, pts[1][k][1], pts[0][k][1])
		}
	}
	if err := render(&b, "", []series{{Name: "x"}}, 60); err == nil {
		t.Error("nothing to plot gave no error")
	}
}

package e2e

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"strings"

	"github.com/chromedp/chromedp"
)

// hostRow is a row of the status page's host table as the browser shows it.
type hostRow struct {
	Host    string `json:"host"`
	Fetched int64  `json:"fetched"`
	Errors  int64  `json:"errors"`
	Queued  int    `json:"queued"`
	Next    string `json:"next"`
}

const hostRowsJS = `[...document.querySelectorAll('table#hosts tr.host')].map(tr => ({
	host: tr.querySelector('td.name').textContent, fetched: +tr.querySelector('td.fetched').textContent,
	errors: +tr.querySelector('td.errors').textContent, queued: +tr.querySelector('td.queued').textContent,
	next: tr.querySelector('td.next').textContent}))`

// statusHosts opens the status page on the administrators' address, as
// `doppel run` serves it: the host table holds the demo intranet's host
// with the crawl's numbers, the crawl chart its three lines, and a
// screenshot of the table is a PNG of the table's size that is not blank.
func statusHosts(b *browser) {
	t := b.t
	b.do("opening the status page", chromedp.Navigate(b.admin+"/status"), chromedp.WaitVisible(chromedp.ID("hosts")))
	b.shot("status")
	st := fix.crawler.Stats()
	host := strings.TrimPrefix(b.site, "http://")

	dom := run(b, "dumping the DOM", chromedp.OuterHTML(chromedp.CSS("html")))
	if !strings.Contains(dom, `<td class="name">`+host+`</td>`) || !strings.Contains(dom, `id="crawl-chart"`) {
		t.Errorf("the DOM lacks the host row of %s or the crawl chart", host)
	}
	rows := run(b, "reading the host table", chromedp.Evaluate[[]hostRow](hostRowsJS))
	t.Logf("host table: %+v", rows)
	switch {
	case len(rows) != 1:
		t.Errorf("%d host rows, want the demo intranet's one", len(rows))
	case rows[0].Host != host || rows[0].Fetched != st.Fetched || rows[0].Fetched == 0 || rows[0].Queued != st.Queued:
		t.Errorf("host row %+v, want %s with %d pages fetched and %d queued", rows[0], host, st.Fetched, st.Queued)
	case !strings.HasPrefix(rows[0].Next, "in "):
		t.Errorf("next visit %q, want the next revisit (\"in …\")", rows[0].Next)
	}
	lines := run(b, "reading the chart", chromedp.Evaluate[[]int](
		`[...document.querySelectorAll('svg#crawl-chart polyline')].map(p => p.points.numberOfItems)`))
	if len(lines) != 3 || lines[0] < 2 {
		t.Errorf("the crawl chart has lines of %v points, want 3 lines of at least 2 (the crawl's start and end)", lines)
	}

	shot := run(b, "screenshot of the host table", chromedp.Screenshot(chromedp.CSS("table#hosts")))
	b.save("hosts-table", shot)
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the host table's screenshot is not a PNG (%d bytes): %v", len(shot), err)
	}
	type box struct{ W, H, Ratio float64 }
	want := run(b, "measuring the host table", chromedp.Evaluate[box](
		`(() => { const r = document.querySelector('table#hosts').getBoundingClientRect(); return {w: r.width, h: r.height, ratio: devicePixelRatio}; })()`))
	got := img.Bounds()
	if math.Abs(float64(got.Dx())-want.W*want.Ratio) > 2 || math.Abs(float64(got.Dy())-want.H*want.Ratio) > 2 || got.Dx() < 100 || got.Dy() < 20 {
		t.Errorf("the host table's screenshot is %dx%d, the table %.0fx%.0f (×%v)", got.Dx(), got.Dy(), want.W, want.H, want.Ratio)
	}
	if colours(img) < 2 {
		t.Error("the host table's screenshot is blank")
	}
}

// colours counts the distinct colours of img, up to 16.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y && len(seen) < 16; y++ {
		for x := r.Min.X; x < r.Max.X && len(seen) < 16; x++ {
			c0, c1, c2, c3 := img.At(x, y).RGBA()
			seen[[4]uint32{c0, c1, c2, c3}] = true
		}
	}
	return len(seen)
}

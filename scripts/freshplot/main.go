// Command freshplot draws freshness over time for each schedule of a
// scripts/freshness-bench.sh run, as an SVG: for every window of -step
// seconds it scores each crawl's site log with `ndd freshness` and, as
// the references, `ndd optimum` (the schedule that knows every page's
// change rate, and round-robin) on the same seed's history.
//
//	go run ./scripts/freshplot -dir /tmp/fb1 -ndd /tmp/ndd -seed 1 -seconds 1200 -step 60 > docs/freshness-seed1.svg
//
// It also prints the windows' figures as a table on stderr.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A series is one line of the plot: a freshness per window.
type series struct {
	Name   string
	Color  string
	Dashed bool
	Values []float64 // one per window; NaN-free
}

// policies are the crawls freshness-bench.sh runs, in its order, with
// their colours.
var policies = []struct{ dir, color string }{
	{"adaptive", "#1f6fd1"}, {"uniform", "#d18a1f"}, {"nutch", "#8a8a8a"}, {"adaptive+sitemap", "#2a9d4b"},
}

func main() {
	dir := flag.String("dir", "", "freshness-bench.sh's output directory (-out)")
	ndd := flag.String("ndd", "ndd", "the kit's ndd binary")
	seed := flag.Int("seed", 1, "the run's seed")
	pages := flag.Int("pages", 2000, "the run's pages")
	rate := flag.Float64("rate", 5, "the run's requests per second (for ndd optimum)")
	seconds := flag.Int("seconds", 1200, "the run's length in seconds")
	step := flag.Int("step", 60, "window length in seconds")
	flag.Parse()
	if *dir == "" || *step <= 0 || *seconds < *step {
		flag.Usage()
		os.Exit(2)
	}
	var all []series
	for _, p := range policies {
		logFile := filepath.Join(*dir, p.dir, "living.log")
		if _, err := os.Stat(logFile); err != nil {
			continue
		}
		s := series{Name: p.dir, Color: p.color}
		for from := 0; from+*step <= *seconds; from += *step {
			out, err := exec.Command(*ndd, "freshness", "-log", logFile, "-from", strconv.Itoa(from), "-to", strconv.Itoa(from+*step)).Output()
			if err != nil {
				log.Fatalf("ndd freshness %s: %v", logFile, err)
			}
			f, err := field(string(out), "", "freshness")
			if err != nil {
				log.Fatal(err)
			}
			s.Values = append(s.Values, f)
		}
		all = append(all, s)
	}
	if len(all) == 0 {
		log.Fatalf("no */living.log under %s", *dir)
	}
	opt := series{Name: "optimum (knows every rate)", Color: "#c0392b", Dashed: true}
	rr := series{Name: "round-robin", Color: "#7d3c98", Dashed: true}
	for from := 0; from+*step <= *seconds; from += *step {
		out, err := exec.Command(*ndd, "optimum", "-seed", strconv.Itoa(*seed), "-pages", strconv.Itoa(*pages),
			"-rate", strconv.FormatFloat(*rate, 'f', -1, 64), "-from", strconv.Itoa(from), "-to", strconv.Itoa(from+*step)).Output()
		if err != nil {
			log.Fatalf("ndd optimum: %v", err)
		}
		o, err := field(string(out), "optimal:", "freshness")
		if err != nil {
			log.Fatal(err)
		}
		r, err := field(string(out), "round-robin:", "freshness")
		if err != nil {
			log.Fatal(err)
		}
		opt.Values, rr.Values = append(opt.Values, o), append(rr.Values, r)
	}
	all = append(all, opt, rr)
	table(os.Stderr, all, *step)
	title := fmt.Sprintf("Freshness over time, kit living site, seed %d, %d pages, %g requests/s (windows of %d s)", *seed, *pages, *rate, *step)
	if err := render(os.Stdout, title, all, *step); err != nil {
		log.Fatal(err)
	}
}

// field returns the number after name= on the first line of out that
// starts with prefix.
func field(out, prefix, name string) (float64, error) {
	re := regexp.MustCompile(`(?:^|\s)` + regexp.QuoteMeta(name) + `=([0-9.eE+-]+)`)
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		if m := re.FindStringSubmatch(line); m != nil {
			return strconv.ParseFloat(m[1], 64)
		}
	}
	return 0, fmt.Errorf("no %s= on a line starting %q in %q", name, prefix, out)
}

// table writes each window's figures, one row per window.
func table(w io.Writer, all []series, step int) {
	fmt.Fprintf(w, "%-8s", "window")
	for _, s := range all {
		fmt.Fprintf(w, " %12.12s", s.Name)
	}
	fmt.Fprintln(w)
	for i := range all[0].Values {
		fmt.Fprintf(w, "%-8s", fmt.Sprintf("%d-%d", i*step, (i+1)*step))
		for _, s := range all {
			fmt.Fprintf(w, " %12.3f", s.Values[i])
		}
		fmt.Fprintln(w)
	}
}

// Plot geometry, in SVG units.
const (
	width, height          = 760, 420
	left, right, top, base = 60, 230, 40, 370 // the plot box: x in [left, width−right], y in [top, base]
)

// render writes the SVG: one polyline per series over the windows (a
// point at each window's middle), y from the lowest value (rounded down
// to 0.1) to 1, with grid lines and a legend.
func render(w io.Writer, title string, all []series, step int) error {
	n := 0
	low := 1.0
	for _, s := range all {
		n = max(n, len(s.Values))
		for _, v := range s.Values {
			low = min(low, v)
		}
	}
	if n == 0 {
		return fmt.Errorf("freshplot: nothing to plot")
	}
	low = float64(int(low*10)) / 10
	span := float64(n * step)
	x := func(sec float64) float64 { return left + sec/span*float64(width-right-left) }
	y := func(f float64) float64 { return base - (f-low)/(1-low)*float64(base-top) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="20" font-size="13">%s</text>`+"\n", left, escape(title))
	for f := low; f <= 1.0001; f += 0.05 {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e4e4e4"/>`+"\n", left, width-right, y(f), y(f))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.2f</text>`+"\n", left-6, y(f)+4, f)
	}
	tick := max(step, int(span)/10/60*60)
	for sec := 0; sec <= int(span); sec += tick {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#e4e4e4"/>`+"\n", x(float64(sec)), x(float64(sec)), top, base)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x(float64(sec)), base+16, minutes(sec))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">minutes since the crawl began</text>`+"\n", (left+width-right)/2, base+34)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444"/>`+"\n", left, top, width-right-left, base-top)
	for i, s := range all {
		var pts []string
		for k, v := range s.Values {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x((float64(k)+0.5)*float64(step)), y(v)))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline id="%s" fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", id(s.Name), s.Color, dash, strings.Join(pts, " "))
		ly := top + 10 + 20*i
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", width-right+12, width-right+36, ly, ly, s.Color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", width-right+42, ly+4, escape(s.Name))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func minutes(sec int) string {
	if sec%60 == 0 {
		return strconv.Itoa(sec / 60)
	}
	return strconv.FormatFloat(float64(sec)/60, 'f', 1, 64)
}

var nonID = regexp.MustCompile(`[^a-z0-9]+`)

// id is a series' polyline id: its name in lower case, other characters
// as dashes.
func id(name string) string {
	return "line-" + strings.Trim(nonID.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func escape(s string) string { return escaper.Replace(s) }

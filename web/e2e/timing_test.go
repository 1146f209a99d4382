package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"
)

// total is the number of hits user gets for q.
func total(tb testing.TB, base, user, q string) int {
	tb.Helper()
	resp, err := http.Get(base + "/api/search?" + url.Values{"q": {q}, "user": {user}}.Encode())
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Total int `json:"total"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		tb.Fatal(err)
	}
	return out.Total
}

// BenchmarkGuestTiming measures what the time of an answer tells a guest
// (issue 36): the guest's response time for words only hidden pages hold
// (/hr/), for words no page holds (the same words with one letter
// changed), and for words visible pages hold, alone and after a common
// word ("vpn grievance"), asked in turn so that the machine's load falls
// on every class alike. It reports each class's median and 90th
// percentile in ms, and the hidden class's median over the absent one's.
//
//	go test ./web/e2e -run XXX -bench BenchmarkGuestTiming -benchtime 1x
func BenchmarkGuestTiming(b *testing.B) {
	base := demo(b).search.URL
	var hidden, absent, visible []string
	for _, w := range []string{"grievance", "misconduct", "probation", "relocation", "overtime", "insurance", "personnel", "statutory", "violence", "disciplinary"} {
		if total(b, base, "guest", w) == 0 && total(b, base, "hr-staff", w) > 0 {
			hidden = append(hidden, w)
			fake := w[:len(w)-2] + "q" + w[len(w)-1:]
			if total(b, base, "hr-staff", fake) == 0 {
				absent = append(absent, fake)
			}
		}
	}
	for _, w := range []string{"vpn", "canteen", "printer", "laptop", "holiday", "meeting", "project", "office", "password", "network"} {
		if total(b, base, "guest", w) > 0 {
			visible = append(visible, w)
		}
	}
	if len(hidden) == 0 || len(absent) == 0 || len(visible) == 0 {
		b.Skipf("the demo has no words of each class: hidden %v, absent %v, visible %v", hidden, absent, visible)
	}
	b.Logf("hidden-only %v; absent %v; visible %v", hidden, absent, visible)
	classes := []struct {
		name  string
		words []string
		times []float64
	}{{name: "hidden", words: hidden}, {name: "absent", words: absent}, {name: "visible", words: visible}}
	const rounds = 60
	b.ResetTimer()
	for range b.N {
		for r := range rounds {
			for i := range classes {
				c := &classes[(i+r)%len(classes)] // each class first in turn
				w := c.words[r%len(c.words)]
				q := w
				if r%2 == 1 {
					q = "vpn " + w
				}
				start := time.Now()
				total(b, base, "guest", q)
				c.times = append(c.times, float64(time.Since(start).Microseconds())/1000)
			}
		}
	}
	b.StopTimer()
	p := func(xs []float64, q float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[int(q*float64(len(s)-1))]
	}
	for _, c := range classes {
		b.ReportMetric(p(c.times, 0.5), c.name+"-p50-ms")
		b.ReportMetric(p(c.times, 0.9), c.name+"-p90-ms")
	}
	b.ReportMetric(p(classes[0].times, 0.5)/p(classes[1].times, 0.5), "hidden/absent-p50")
	fmt.Println() // the metrics on a line of their own
}

package admit

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkLinkPages decides about the links of pages shaped as an API
// reference's (rustdoc's): every page of a module links the module's
// 400 items from its sidebar, and 20 links of its own. It reports the
// cost of a page's links (µs/page) and of a link (ns/link): on Rust's
// documentation a crawl's link admission was 8 % of its CPU before each
// link's keys were kept (linkKeys).
func BenchmarkLinkPages(b *testing.B) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	}))
	defer s.Close()
	a := New(Options{AllowedHosts: []string{strings.TrimPrefix(s.URL, "http://")}})
	sidebar := make([]string, 400)
	for i := range sidebar {
		sidebar[i] = fmt.Sprintf("%s/core/arch/x86_64/fn._mm256_op_%d.html", s.URL, i)
	}
	links, page := 0, 0
	for b.Loop() {
		for _, l := range sidebar {
			a.Link(l)
		}
		for i := range 20 {
			a.Link(fmt.Sprintf("%s/core/arch/x86_64/fn._mm256_op_%d.html#method.%d", s.URL, page, i))
		}
		links += len(sidebar) + 20
		page++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(page), "µs/page")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(links), "ns/link")
}

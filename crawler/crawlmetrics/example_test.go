package crawlmetrics_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/crawlmetrics"
)

// A crawl's counters on a registry of one's own, as /metrics serves them.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<main><p>Intranet home.</p><a href="/gone">An old page</a></main>`)
	}))
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "doppel-example")
	defer os.RemoveAll(dir)
	c, err := crawler.Open(dir, crawler.Options{Seeds: []string{srv.URL + "/"}, Delay: time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	if err := c.Run(context.Background()); err != nil {
		panic(err)
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(crawlmetrics.New(c))
	families, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			if len(m.GetLabel()) > 0 && v != 0 {
				fmt.Printf("%s{%s=%q} %v\n", f.GetName(), m.GetLabel()[0].GetName(), m.GetLabel()[0].GetValue(), v)
			}
		}
	}
	// Output:
	// doppel_crawl_fetch_errors_total{class="http_4xx"} 1
	// doppel_crawl_urls{outcome="failed"} 1
	// doppel_crawl_urls{outcome="fetched"} 1
}

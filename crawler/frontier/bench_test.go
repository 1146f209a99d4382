package frontier

import (
	"fmt"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/gocolly/colly/v2"
)

// BenchmarkCycle measures one URL's life through the colly interface:
// AddRequest of a serialized request, GetRequest, Done — three write
// transactions. urls/s is the sustainable frontier throughput.
func BenchmarkCycle(b *testing.B) {
	for _, sync := range []bool{false, true} {
		for _, backlog := range []int{0, 10000} {
			if sync && backlog > 0 {
				continue
			}
			b.Run(fmt.Sprintf("sync=%v/backlog=%d", sync, backlog), func(b *testing.B) {
				f, err := Open(filepath.Join(b.TempDir(), "f.db"), Options{NoSync: !sync})
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				for i := range backlog { // low priority: never popped below
					if _, err := f.Add(fmt.Sprintf("http://backlog.example/%d", i), -1, nil); err != nil {
						b.Fatal(err)
					}
				}
				ctx := colly.NewContext()
				ctx.Put(PriorityKey, 1)
				reqs := make([][]byte, b.N)
				urls := make([]string, b.N)
				for i := range reqs {
					urls[i] = fmt.Sprintf("http://intra.example/docs/section-%d/page.html?id=%d", i%100, i)
					u, _ := url.Parse(urls[i])
					reqs[i], _ = (&colly.Request{URL: u, Method: "GET", Ctx: ctx}).Marshal()
				}
				b.SetBytes(int64(len(reqs[0])))
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if err := f.AddRequest(reqs[i]); err != nil {
						b.Fatal(err)
					}
					if _, err := f.GetRequest(); err != nil {
						b.Fatal(err)
					}
					if err := f.Done(urls[i], "fetched"); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "urls/s")
			})
		}
	}
}

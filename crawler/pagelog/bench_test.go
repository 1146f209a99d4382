package pagelog

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doppel-search/doppel/internal/testrig/redistest"
)

// BenchmarkLog: workers append 1 KB payloads (and commit them, in fake
// fates) in parallel, then a reader reads them all in number order.
// Reported: appends/s and entries read/s.
func BenchmarkLog(b *testing.B) {
	rdb := redistest.Start(b, 3, 0).Client()
	l := open(b, rdb, Options{})
	fates := newFates()
	body := make([]byte, 1024)
	var next atomic.Uint32
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := next.Add(1) - 1
			if err := l.Append(context.Background(), n, body); err != nil {
				b.Error(err)
				return
			}
			fates.set(n, Committed)
		}
	})
	appended := time.Since(start)
	start = time.Now()
	r := l.Reader(fates, 0, ReaderOptions{})
	for range b.N {
		if _, err := r.Next(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/appended.Seconds(), "appends/s")
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "reads/s")
}

package schedule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/doppel-search/doppel/internal/testrig/cputime"
)

// BenchmarkSchedule measures the Adaptive policy at 100k and 1M pages
// (log-uniform means of 1 minute to 4 hours, 30 % static, 100 URL
// groups): one op is one fetch observed and its next interval computed
// (Observe + Next), on a random page that has been fetched before. It
// reports the cost per event (ns/op, flat when the allocation is
// incremental), the heap the policy and the states take per page
// (bytes/page), and, as the reference measured in the same run, one pass
// estimating every page's rate (pass-ms: the least an allocation that is
// not incremental pays each time it plans). cpu-ns/op is the process's
// CPU time per op (garbage collection included), where the OS gives it,
// and touch-cpu-ns/op the CPU time of reading the same pages' states and
// URLs without the policy: the memory latency any fetch pays, which grows
// with the pages while the policy's own work does not.
func BenchmarkSchedule(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, uint64(n)))
			means := make([]float64, n)
			for i := range means {
				if r.Float64() >= 0.3 {
					means[i] = math.Exp(math.Log(60) + r.Float64()*math.Log(240))
				}
			}
			urls := make([]string, n)
			for i := range urls {
				urls[i] = fmt.Sprintf("https://h/s%d/p%d", i%100, i)
			}
			start := time.Unix(1_000_000, 0)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			a := NewAdaptive(Options{Budget: float64(n) / 3600, MinInterval: time.Minute, MaxInterval: 24 * time.Hour})
			states := make([]State, n)
			now := start
			for i := range states { // every page fetched twice
				a.Observe(urls[i], &states[i], now, false, now.Add(-time.Duration(r.Float64()*float64(time.Hour))))
			}
			for i := range states {
				now = now.Add(time.Millisecond)
				changed := means[i] > 0 && r.Float64() < 1-math.Exp(-3600/means[i])
				a.Observe(urls[i], &states[i], now, changed, time.Time{})
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			perPage := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)

			t0 := time.Now() // the reference: one pass over every page
			for i := range states {
				_ = EstimateRate(states[i].History, Prior{Mean: time.Hour})
			}
			full := time.Since(t0)

			pick := make([]int, 1<<16)
			for i := range pick {
				pick[i] = r.IntN(n)
			}
			// The setup's garbage collected now, not in the timed loop: a
			// collection marks the whole heap, which at 1M pages costs
			// more than a short loop of fetches (it made the cost per
			// fetch look 1.3–4.9× higher at 1M than at 100k).
			runtime.GC()
			b.ReportAllocs()
			cpu0 := cputime.Process()
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				i := pick[k&(len(pick)-1)]
				now = now.Add(time.Millisecond)
				changed := means[i] > 0 && r.Float64() < 0.3
				a.Observe(urls[i], &states[i], now, changed, time.Time{})
				_ = a.Next(&states[i])
			}
			b.StopTimer()
			cpu := cputime.Process() - cpu0
			// The reference for the memory a fetch reads: the same random
			// pages' states, histories and URLs (and the benchmark's own
			// data) touched without the policy, whose cost grows with the
			// pages as the working set outgrows the caches.
			sink := 0.0
			cpu1 := cputime.Process()
			for k := 0; k < b.N; k++ {
				// Each page picked after the last one's data is read, as
				// the fetches come one after another: the misses do not
				// overlap.
				dep := int(math.Float64bits(sink) & 1)
				i := pick[(k+dep)&(len(pick)-1)]
				s := &states[i]
				sink += s.Rate + means[i] + float64(len(urls[i])+int(urls[i][len(urls[i])-1]))
				if h := s.History; len(h) > 0 {
					sink += h[len(h)-1].Interval.Seconds()
				}
			}
			touch := cputime.Process() - cpu1
			if sink == 0 {
				b.Log("nothing touched")
			}
			if cpu > 0 {
				// CPU time: what the loop cost the process, less
				// sensitive than ns/op to other work on a shared machine.
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(touch.Nanoseconds())/float64(b.N), "touch-cpu-ns/op")
			}
			b.ReportMetric(perPage, "bytes/page")
			b.ReportMetric(float64(full.Microseconds())/1000, "pass-ms")
		})
	}
}

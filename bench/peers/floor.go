package main

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// floorSink keeps the floor's hashes alive.
var floorSink atomic.Uint64

// runFloor measures the tokenize-and-hash floor: cut every document of
// the corpus (already in memory) into the definition's tokens and hash
// every token with FNV-1a, nothing else, on workers goroutines (each a
// contiguous share of the documents), reps times. It reports the median
// repetition's MB/s and documents/s, and per core (divided by workers).
func runFloor(docs []doc, workers, reps int, rep *report) {
	rep.Library = "none (the peers command's tokenizer + FNV-1a 64)"
	var times []time.Duration
	var tokens int64
	for r := 0; r < max(reps, 1); r++ {
		var wg sync.WaitGroup
		var ntok atomic.Int64
		t := time.Now()
		for w := 0; w < workers; w++ {
			lo, hi := len(docs)*w/workers, len(docs)*(w+1)/workers
			wg.Add(1)
			go func() {
				defer wg.Done()
				var tok tokenizer
				var x uint64
				n := 0
				for _, d := range docs[lo:hi] {
					tok.reset(d.Text)
					for i := 0; i < tok.n(); i++ {
						x ^= fnv1a(tok.token(i), basis1)
					}
					n += tok.n()
				}
				floorSink.Add(x)
				ntok.Add(int64(n))
			}()
		}
		wg.Wait()
		times = append(times, time.Since(t))
		tokens = ntok.Load()
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	med := times[len(times)/2].Seconds()
	rep.WallS = med
	rep.DocsPerS = float64(len(docs)) / med
	rep.MBPerS = rep.TextMB / med
	rep.Phases["floor_median"] = med
	rep.Params = map[string]any{"reps": reps, "tokens": tokens,
		"mb_per_s_per_core": rep.MBPerS / float64(workers), "docs_per_s_per_core": rep.DocsPerS / float64(workers)}
}

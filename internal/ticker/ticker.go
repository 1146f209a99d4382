// Package ticker calls a function at a steady interval from a goroutine
// of its own until it is stopped: the loop behind a crawl's progress
// lines, its history samples and a compaction's progress reports.
package ticker

import (
	"sync"
	"time"
)

// Every calls fn every interval (a positive duration), from a goroutine
// of its own, until the function it returns is called; that function
// waits for a call of fn in progress, after which fn is not called again.
// Calling it more than once does nothing more.
func Every(interval time.Duration, fn func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				select {
				case <-done: // stopped while the tick was due
					return
				default:
					fn()
				}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		wg.Wait()
	}
}

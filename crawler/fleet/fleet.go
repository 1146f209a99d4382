// Package fleet holds what the status pages show of the workers that
// crawl one site together: each worker's entry on the roll (Worker), what
// it reports at each beat (Report), and the report of the whole crawl
// (Total). It keeps nothing itself: package redisfleet keeps the roll on
// a Redis Cluster, and the web pages read these types without a Redis
// client.
package fleet

import "time"

// The states of a worker (Worker.State).
const (
	Up   = "up"   // beating
	Left = "left" // left cleanly
	Lost = "lost" // no beat for a while (redisfleet.Options.Lost)
)

// A Worker is one entry of the roll.
type Worker struct {
	// ID names the worker in the crawl; unique among the workers up.
	ID string `json:"id"`
	// Host is the machine it runs on, PID its process there.
	Host string `json:"host,omitempty"`
	PID  int    `json:"pid,omitempty"`
	// StatusURL is its own status page, if it serves one.
	StatusURL string `json:"status_url,omitempty"`
	// Started is when it joined, Seen its last beat (the server's clock).
	Started time.Time `json:"started"`
	Seen    time.Time `json:"seen"`
	// State is Up, Left or Lost.
	State string `json:"state"`
	// Report is what it reported at its last beat.
	Report
}

// A Report is what a worker tells at each beat: Counters, which only
// grow (pages fetched, failed), and Gauges, which say how things are now
// (pages in flight), by name.
type Report struct {
	Counters map[string]int64 `json:"counters,omitempty"`
	Gauges   map[string]int64 `json:"gauges,omitempty"`
}

// Total returns the report of the crawl as a whole: every worker's
// counters summed (those that left or were lost too: their pages count),
// and the gauges of the workers up.
func Total(workers []Worker) Report {
	out := Report{Counters: map[string]int64{}, Gauges: map[string]int64{}}
	for _, w := range workers {
		for k, v := range w.Counters {
			out.Counters[k] += v
		}
		if w.State != Up {
			continue
		}
		for k, v := range w.Gauges {
			out.Gauges[k] += v
		}
	}
	return out
}

package web

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// registerMetrics registers the Server's metrics — query counts and
// latency, the index's size, and Stats — and Options.Metrics.
func (srv *Server) registerMetrics() error {
	srv.queries = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "doppel_queries_total",
		Help: "Queries answered, by endpoint and outcome (ok, invalid, too_broad, timeout, canceled, error)."}, []string{"endpoint", "outcome"})
	srv.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "doppel_query_duration_seconds",
		Help: "Query latency, by endpoint.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)}, []string{"endpoint"})
	counter := func(name, help string, f func(Stats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(f(srv.Stats())) })
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	srv.registry.MustRegister(srv.queries, srv.latency,
		gauge("doppel_index_documents", "Documents in the index that can be results.", func() float64 { return float64(srv.status().Searchable) }),
		gauge("doppel_clusters", "Near-duplicate clusters.", func() float64 { return float64(srv.status().Clusters) }),
		gauge("doppel_requests_running", "Requests holding a slot.", func() float64 { return float64(srv.limiter.Stats().Running) }),
		counter("doppel_requests_admitted_total", "Requests that got a slot.", func(s Stats) uint64 { return s.Limiter.Admitted }),
		counter("doppel_requests_waited_total", "Requests that waited for a slot.", func(s Stats) uint64 { return s.Limiter.Waited }),
		counter("doppel_rejected_busy_total", "Requests refused with 503: every slot was taken.", func(s Stats) uint64 { return s.Limiter.RejectedBusy }),
		counter("doppel_rejected_client_total", "Requests refused with 429: the client had its share of slots.", func(s Stats) uint64 { return s.Limiter.RejectedClient }),
		counter("doppel_rejected_held_total", "Refusals (429) of greedy clients held for a while before the answer.", func(s Stats) uint64 { return s.Limiter.Held }),
		counter("doppel_requests_deferred_total", "Requests of greedy clients that waited while others were served.", func(s Stats) uint64 { return s.Limiter.Deferred }),
		gauge("doppel_greedy_clients", "Clients refused for their share recently, served last.", func() float64 { return float64(srv.limiter.Stats().Greedy) }),
		counter("doppel_rejected_too_long_total", "Requests refused with 414: a parameter over the maximum length.", func(s Stats) uint64 { return s.TooLong }),
		counter("doppel_rejected_too_broad_total", "Queries refused with 400: wildcards, regular expressions, prefixes or fuzzy terms matching too many terms.", func(s Stats) uint64 { return s.TooBroad }),
		counter("doppel_timeouts_total", "Requests stopped at the deadline (503).", func(s Stats) uint64 { return s.Timeouts }),
		counter("doppel_identity_repeated_total", "Requests refused with 400: the groups header repeated.", func(s Stats) uint64 { return s.RepeatedIdentity }),
		counter("doppel_identity_untrusted_total", "Requests whose groups header came from an untrusted peer and was ignored.", func(s Stats) uint64 { return s.UntrustedIdentity }),
		counter("doppel_diffs_computed_total", "\"What differs\" comparisons run.", func(s Stats) uint64 { return s.Diff.Computed }),
		counter("doppel_diffs_too_large_total", "Comparisons abandoned as too large to compare quickly.", func(s Stats) uint64 { return s.Diff.TooLarge }),
		counter("doppel_diffs_cached_total", "Comparisons answered from the cache.", func(s Stats) uint64 { return s.Diff.Hits }),
		counter("doppel_diffs_shared_total", "Comparisons answered by one another request started.", func(s Stats) uint64 { return s.Diff.Shared }),
	)
	for _, c := range srv.opts.Metrics {
		if err := srv.registry.Register(c); err != nil {
			return fmt.Errorf("web: metrics: %w", err)
		}
	}
	return nil
}

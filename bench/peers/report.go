package main

import (
	"bufio"
	"math"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A report is the JSON line a pipeline prints.
type report struct {
	Pipeline   string             `json:"pipeline"`
	Library    string             `json:"library"`
	Corpus     string             `json:"corpus"`
	Docs       int                `json:"docs"`
	TextMB     float64            `json:"text_mb"`
	Unsigned   int                `json:"unsigned,omitempty"` // documents without a token
	Workers    int                `json:"workers"`
	Params     map[string]any     `json:"params,omitempty"`
	Pairs      int                `json:"pairs"`
	OverLimit  bool               `json:"over_limit,omitempty"` // more pairs than -max-pairs: no pair file
	Truth      *truthScore        `json:"truth,omitempty"`      // -truth
	Phases     map[string]float64 `json:"phases_s"`
	WallS      float64            `json:"wall_s"` // whole run (floor: the median repetition)
	DocsPerS   float64            `json:"docs_per_s"`
	MBPerS     float64            `json:"mb_per_s"`
	PeakHeapMB float64            `json:"peak_heap_mb"` // heap objects, sampled every 10 ms
	PeakRSSMB  float64            `json:"peak_rss_mb"`  // VmHWM
	Go         string             `json:"go"`
	GOMAXPROCS int                `json:"gomaxprocs"`
	Date       string             `json:"date"`
}

// A truthScore is a pipeline's pairs scored against ndd oracle pairs, as
// ndd score does.
type truthScore struct {
	Def        string  `json:"def"`
	T          float64 `json:"t"`
	TruthPairs int     `json:"truth_pairs"`
	Predicted  int     `json:"predicted_pairs"`
	TP         int     `json:"true_positives"`
	Precision  float64 `json:"precision"`
	Recall     float64 `json:"recall"`
	F1         float64 `json:"f1"`
}

// fill computes precision, recall and F1 from the counts (0 when
// undefined, as ndd score).
func (s *truthScore) fill() {
	if s.Predicted > 0 {
		s.Precision = float64(s.TP) / float64(s.Predicted)
	}
	if s.TruthPairs > 0 {
		s.Recall = float64(s.TP) / float64(s.TruthPairs)
	}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
}

// round rounds the report's figures for printing.
func (r *report) round() {
	r3 := func(x float64) float64 { return math.Round(x*1000) / 1000 }
	r.TextMB, r.WallS, r.MBPerS = r3(r.TextMB), r3(r.WallS), r3(r.MBPerS)
	r.DocsPerS, r.PeakHeapMB, r.PeakRSSMB = math.Round(r.DocsPerS), math.Round(r.PeakHeapMB), math.Round(r.PeakRSSMB)
	for k, v := range r.Phases {
		r.Phases[k] = r3(v)
	}
	for k, v := range r.Params {
		if f, ok := v.(float64); ok {
			r.Params[k] = r3(f)
		}
	}
}

// sampleHeap samples the bytes of live and not yet swept heap objects
// every period until the returned function is called, which returns the
// largest sample.
func sampleHeap(period time.Duration) func() uint64 {
	var peak atomic.Uint64
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				read()
			}
		}
	}()
	return func() uint64 {
		close(stop)
		<-done
		read()
		return peak.Load()
	}
}

// peakRSS returns the process's peak resident set size (VmHWM of
// /proc/self/status), 0 where there is none.
func peakRSS() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

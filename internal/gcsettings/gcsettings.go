// Package gcsettings sets the garbage collector of a long-running Doppel
// process (doppel crawl and run): how far the heap may grow between
// collections (GOGC) and a soft memory limit (GOMEMLIMIT) that keeps the
// collector up as the process nears it. The environment's GOGC and
// GOMEMLIMIT, when set, win over both.
package gcsettings

import (
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultPercent is the heap's growth between collections, in per cent
// of the live heap, when Settings.Percent is zero: Go's own default. 200
// was tried (collecting half as often); on a quiet machine it made a
// crawl of the 10,552-page test intranet no faster (98 and 108 s against
// 79 s with 100) and its peak memory up to 1.8 times larger
// (docs/measurements.md, "The crawl's speed (session 6)").
const DefaultPercent = 100

// DefaultLimitShare is the share of the machine's memory (or of the
// cgroup's limit, if lower) that is the soft limit when Settings.Limit
// is zero.
const DefaultLimitShare = 0.5

// Settings are the collector's settings. The zero value is the default.
type Settings struct {
	// Percent is GOGC: the heap may grow by this per cent of the live heap
	// between collections. 0: DefaultPercent; negative: as Go's default
	// (100).
	Percent int
	// Limit is the soft memory limit in bytes (runtime/debug.SetMemoryLimit):
	// the collector runs more often as the process's memory nears it. 0:
	// DefaultLimitShare of the machine's memory; negative: none.
	Limit int64
}

// Apply sets the collector as s says, but what the environment sets
// (GOGC, GOMEMLIMIT), and returns the function that restores the
// settings before.
func Apply(s Settings) (restore func()) {
	percent, limit := s.effective()
	oldPercent, oldLimit := -2, int64(-1)
	if os.Getenv("GOGC") == "" {
		oldPercent = debug.SetGCPercent(percent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		oldLimit = debug.SetMemoryLimit(limit)
	}
	return func() {
		if oldPercent != -2 {
			debug.SetGCPercent(oldPercent)
		}
		if oldLimit >= 0 {
			debug.SetMemoryLimit(oldLimit)
		}
	}
}

// effective returns the GOGC and the soft limit s stands for.
func (s Settings) effective() (percent int, limit int64) {
	switch {
	case s.Percent == 0:
		percent = DefaultPercent
	case s.Percent < 0:
		percent = 100
	default:
		percent = s.Percent
	}
	switch {
	case s.Limit == 0:
		limit = math.MaxInt64
		if m := machineMemory(); m > 0 {
			limit = int64(float64(m) * DefaultLimitShare)
		}
	case s.Limit < 0:
		limit = math.MaxInt64
	default:
		limit = s.Limit
	}
	return percent, limit
}

// machineMemory returns the memory this process may use: the machine's
// (MemTotal), or its cgroup's limit if lower; 0 if unknown.
func machineMemory() int64 {
	var total int64
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				total = kb << 10
			}
		}
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

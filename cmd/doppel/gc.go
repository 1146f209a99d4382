package main

import (
	"flag"

	"github.com/doppel-search/doppel/internal/gcsettings"
)

// gcFlags are the garbage collector's flags of the commands that run
// long (crawl, run): see package internal/gcsettings.
type gcFlags struct{ percent, limitMB int }

// define defines the flags on fs.
func (g *gcFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&g.percent, "gc-percent", 0, "garbage collection: the heap may grow by this `percent` of the live heap between collections (0 or -1: Go's default, 100; the GOGC environment variable wins)")
	fs.IntVar(&g.limitMB, "memory-limit", 0, "soft memory limit in `MiB`: the collector works harder as the process nears it (0: half the machine's memory, or of its cgroup's limit; -1: none; the GOMEMLIMIT environment variable wins)")
}

// apply sets the collector and returns the function that restores it.
func (g gcFlags) apply() (restore func()) {
	limit := int64(g.limitMB) << 20
	if g.limitMB < 0 {
		limit = -1
	}
	return gcsettings.Apply(gcsettings.Settings{Percent: g.percent, Limit: limit})
}

package main

import (
	"flag"
	"fmt"
)

// profileFlags are the crawl's --cpuprofile and --memprofile: files for
// `go tool pprof` with where a crawl's time and memory went.
type profileFlags struct{ cpu, mem string }

// define defines the flags on fs.
func (p *profileFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the crawl to this `file` (go tool pprof)")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile taken at the end of the crawl to this `file` (go tool pprof)")
}

// start starts the CPU profile (startCPUProfile), if asked for. The
// returned stop ends it and writes the heap profile (writeHeapProfile),
// if asked for.
func (p *profileFlags) start() (stop func() error, err error) {
	stopCPU := func() {}
	if p.cpu != "" {
		if stopCPU, err = startCPUProfile(p.cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() error {
		stopCPU()
		if p.mem == "" {
			return nil
		}
		if err := writeHeapProfile(p.mem); err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		return nil
	}, nil
}

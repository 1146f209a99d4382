package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/trace"
)

// profileFlags are the crawl's --cpuprofile, --memprofile and --trace:
// files for `go tool pprof` and `go tool trace` with where a crawl's time
// and memory went.
type profileFlags struct{ cpu, mem, trace string }

// define defines the flags on fs.
func (p *profileFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the crawl to this `file` (go tool pprof)")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile taken at the end of the crawl to this `file` (go tool pprof)")
	fs.StringVar(&p.trace, "trace", "", "write an execution trace of the crawl to this `file` (go tool trace: which goroutines ran when, and what they waited on)")
}

// start starts the CPU profile (startCPUProfile) and the execution trace
// (startTrace), if asked for. The returned stop ends them and writes the
// heap profile (writeHeapProfile), if asked for.
func (p *profileFlags) start() (stop func() error, err error) {
	stopCPU, stopTrace := func() {}, func() {}
	if p.cpu != "" {
		if stopCPU, err = startCPUProfile(p.cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if p.trace != "" {
		if stopTrace, err = startTrace(p.trace); err != nil {
			stopCPU()
			return nil, fmt.Errorf("--trace: %w", err)
		}
	}
	return func() error {
		stopTrace()
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

// startTrace starts writing an execution trace to path; stop ends it.
func startTrace(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		trace.Stop()
		f.Close()
	}, nil
}

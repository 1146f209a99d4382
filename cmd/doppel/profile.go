package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/trace"

	"github.com/doppel-search/doppel/internal/outfile"
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
// (startTrace), if asked for; "-" is stdout. The returned stop ends them
// and writes the heap profile (writeHeapProfile), if asked for.
func (p *profileFlags) start(stdout io.Writer) (stop func() error, err error) {
	stopCPU, stopTrace := func() error { return nil }, func() error { return nil }
	if p.cpu != "" {
		if stopCPU, err = startCPUProfile(p.cpu, stdout); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	if p.trace != "" {
		if stopTrace, err = startTrace(p.trace, stdout); err != nil {
			stopCPU()
			return nil, fmt.Errorf("--trace: %w", err)
		}
	}
	return func() error {
		var errs []error
		if err := stopTrace(); err != nil {
			errs = append(errs, fmt.Errorf("--trace: %w", err))
		}
		if err := stopCPU(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
		}
		if p.mem != "" {
			if err := writeHeapProfile(p.mem, stdout); err != nil {
				errs = append(errs, fmt.Errorf("--memprofile: %w", err))
			}
		}
		return errors.Join(errs...)
	}, nil
}

// outputs names the profile files, for checkOutputs.
func (p *profileFlags) outputs() []namedPath {
	return []namedPath{{"--cpuprofile", p.cpu}, {"--memprofile", p.mem}, {"--trace", p.trace}}
}

// startTrace starts writing an execution trace to path (as
// startCPUProfile does); stop ends it.
func startTrace(path string, stdout io.Writer) (stop func() error, err error) {
	f, err := outfile.Create(path, stdout)
	if err != nil {
		return nil, err
	}
	if err := trace.Start(f); err != nil {
		f.Abort()
		return nil, err
	}
	return func() error {
		trace.Stop()
		return f.Commit()
	}, nil
}

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// forceAfter is how long after the first interrupt a second one stops the
// process at once. Signals closer together are one interrupt: GNU timeout
// sends its signal to the command and then to the command's process
// group, so the command gets it twice within microseconds, and treating
// that as a person's second Ctrl-C lost the summary of a crawl stopped by
// `timeout -s INT` (2 of 26 living-site crawls of session 12).
const forceAfter = time.Second

// watchSignals cancels the command's context at the first SIGINT or
// SIGTERM, lets it finish (a crawl writes its summary and exits 130), and
// stops the process at once, by the signal's default action, at a second
// one forceAfter or more later (the crawl state survives that too).
func watchSignals(cancel func()) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go interrupts(sigs, cancel, time.Now, func(sig os.Signal) {
		signal.Reset(sig)
		if s, ok := sig.(syscall.Signal); ok {
			_ = syscall.Kill(os.Getpid(), s)
		}
		os.Exit(130) // if the signal's default action did not end the process
	})
}

// interrupts reads sigs until it is closed: the first signal calls cancel,
// and a signal that comes forceAfter or more after the first (by now)
// calls force with it; those in between are the first one again.
func interrupts(sigs <-chan os.Signal, cancel func(), now func() time.Time, force func(os.Signal)) {
	var first time.Time
	for sig := range sigs {
		switch {
		case first.IsZero():
			first = now()
			cancel()
		case now().Sub(first) >= forceAfter:
			force(sig)
			return
		}
	}
}

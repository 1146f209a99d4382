package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/doppel-search/doppel/crawler"
)

// checkSettings are doppel check's flags.
type checkSettings struct {
	Data   string `json:"data" flag:"data" help:"the crawl's data {directory} (required)"`
	DryRun bool   `json:"dry_run" flag:"dry-run" help:"only report: change nothing"`
}

// runCheck checks the stores of the crawl in --data and, unless
// --dry-run, rebuilds what it can from those that survive.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	c := defineConfig(fs, checkSettings{}, false)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel check --data DIR [--dry-run]\n\n"+
			"Checks every store of a crawl (crawl.json, pages.db, frontier.db, the search index, the detector's\n"+
			"snapshot and its verification sets), one line each, and rebuilds the damaged ones from those that\n"+
			"survive: a damaged file is "+
			"moved aside (NAME.damaged-TIME), never overwritten. Exit status 0 if every store is sound\n"+
			"or was repaired, 1 otherwise.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	cfg, err := c.load(stderr)
	if err != nil {
		return err
	}
	if cfg.Data == "" {
		fmt.Fprintln(stderr, "doppel check: --data is required")
		usageHint(fs, stderr)
		return errUsage
	}
	var st []crawler.StoreState
	if cfg.DryRun {
		st, err = crawler.Check(cfg.Data)
	} else {
		st, err = crawler.Repair(cfg.Data, time.Now())
	}
	for _, s := range st {
		fmt.Fprintln(stdout, s.Line())
	}
	if err != nil {
		return err
	}
	if crawler.Sound(st) {
		return nil
	}
	if cfg.DryRun {
		return fmt.Errorf("%s has damaged stores: run \"doppel check --data %s\" to repair what the lines above say", cfg.Data, cfg.Data)
	}
	// Repaired: check again.
	after, err := crawler.Check(cfg.Data)
	if err != nil {
		return err
	}
	if !crawler.Sound(after) {
		for _, s := range after {
			if s.Err != nil {
				fmt.Fprintln(stderr, "still damaged:", s.Line())
			}
		}
		return fmt.Errorf("%s: some stores could not be repaired", cfg.Data)
	}
	fmt.Fprintln(stdout, "repaired: every store is sound now")
	return nil
}

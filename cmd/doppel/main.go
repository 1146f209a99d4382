// Command doppel finds near-duplicate documents.
//
// Usage:
//
//	doppel demo   [--data DIR]
//	doppel crawl  --seed URL [--seed URL…] --data DIR [--max-pages N] [--config FILE] [flags]
//	doppel export --data DIR [--out FILE]
//	doppel report --data DIR [--format text|csv|json]
//	doppel compact --data DIR [--timeout D]
//	doppel serve  --data DIR [--shards URLS] [--addr 127.0.0.1:8080] [--groups-header H [--trusted-proxies CIDRS] | --demo-users SPEC]
//	              [--admin-groups G | --admin-addr 127.0.0.1:8081]
//	doppel shard  --index SHARD_DIR | --data DIR --shard N [--addr 127.0.0.1:9100]
//	doppel dedup  --in docs.jsonl[.gz] --out clusters.jsonl [flags]
//	doppel detect --data DIR [--listen 127.0.0.1:9300] [--redis ADDRS [--crawl NAME]]
//	doppel eval   --in docs.jsonl[.gz] [--truth pairs.jsonl.gz] [flags]
//	doppel version
//
// Run "doppel COMMAND -h" for the flags of a command.
//
// Crawl writes everything into its data directory and resumes from it: run
// without --seed (or with the same command line) after Ctrl-C, SIGTERM, a
// crash or to raise --max-pages. Its options come from flags, which
// override an optional JSON config file (--config; "doppel crawl -h" prints
// a complete example). Progress goes to stderr — a line redrawn twice a
// second on a terminal, a log line every 5 seconds otherwise — and a
// summary to stdout. Export prints one JSON line per URL the crawl has seen
// (crawler.Entry). Demo serves the bundled demo intranet on a random
// 127.0.0.1 port, crawls it into a temporary directory (or --data), prints
// the summary, the near-duplicate clusters and collapsed example queries,
// then serves the search UI until Ctrl-C.
//
// Exit status: 0 success; 1 error; 2 usage error (bad flags or arguments);
// 3 a one-pass crawl (--once) that stopped at its page budget with URLs
// still queued, as its summary's last line says; 130 a crawl interrupted by SIGINT or SIGTERM, which prints "interrupted;
// run the same command again to resume" (an interrupted demo exits 1, an
// interrupted serve or demo search UI 0).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"demo", "crawl, deduplicate and index the bundled demo intranet; show clusters and collapsed queries", runDemo},
	{"crawl", "crawl an intranet into a data directory (resumable), deduplicating and indexing, and keep it fresh", runCrawl},
	{"run", "crawl, keep fresh and serve search from one process (crawl --serve)", runRun},
	{"export", "print one JSON line per URL a crawl has seen", runExport},
	{"report", "print a crawl's duplicates: largest clusters, twins, series, budget spent on copies", runReport},
	{"check", "check a crawl's stores and repair what can be from those that survive", runCheck},
	{"compact", "merge the segments of a crawl's search index (crawl --once does at its end)", runCompact},
	{"serve", "serve the search UI and JSON API over a crawl", runServe},
	{"worker", "join a crawl shared on a Redis Cluster as one of its workers", runWorker},
	{"shard", "serve one shard of a sharded index to doppel serve --shards", runShard},
	{"dedup", "assign every document of a JSONL file to a near-duplicate cluster", runDedup},
	{"detect", "serve near-duplicate detection to another engine over HTTP/JSON (cluster, master, changes)", runDetect},
	{"eval", "measure every method against ground truth and print the tables", runEval},
	{"extract", "print the text of documents (PDF, DOCX, PPTX, XLSX, ODT, ODP, ODS) as a crawl reads it", runExtract},
	{"version", "print the version, the source revision it was built from and the Go version", runVersion},
}

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	watchSignals(cancel)
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-version" || args[0] == "--version") {
		args = append([]string{"version"}, args[1:]...)
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				return 2
			case err == errBudget: // the summary's last line said so
				return 3
			case errors.Is(err, errInterrupted):
				fmt.Fprintf(stderr, "doppel %s: %v\n", c.name, err)
				return 130
			}
			fmt.Fprintf(stderr, "doppel %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "doppel: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// errUsage reports a command line the flag package already complained about.
var errUsage = errors.New("usage")

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: doppel COMMAND [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"doppel COMMAND -h\" for the flags of a command.")
}

// parseFlags parses args with fs, mapping flag errors to errUsage. A
// usage error prints the error and one line saying where the flags are
// described; -h prints them all.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if err := parseFlagsArgs(fs, args, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %q\n", fs.Args())
		usageHint(fs, stderr)
		return errUsage
	}
	return nil
}

// parseFlagsArgs is parseFlags for a command that takes arguments after
// its flags.
func parseFlagsArgs(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	full := fs.Usage
	if full == nil {
		full = func() {
			fmt.Fprintf(stderr, "usage of doppel %s:\n", fs.Name())
			fs.PrintDefaults()
		}
	}
	// The flag package calls Usage on -h and after printing an error.
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = full
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			full()
			return err
		}
		usageHint(fs, stderr)
		return errUsage
	}
	return nil
}

// usageHint prints the one line that follows a usage error.
func usageHint(fs *flag.FlagSet, stderr io.Writer) {
	fmt.Fprintf(stderr, "run \"doppel %s -h\" for its flags\n", fs.Name())
}

package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/report"
)

// runReport prints the duplicates report of the crawl in --data.
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	data := fs.String("data", "", "the crawl's data `directory` (required)")
	format := fs.String("format", "text", "output `format`: text, csv or json")
	top := fs.Int("top", 20, "list the `N` largest clusters of each kind")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel report --data DIR [--format text|csv|json] [--top N]\n\n"+
			"The duplicates report of a crawl: the largest near-duplicate clusters, cross-format twins\n"+
			"(a page and its PDF, DOCX, ODT…), series (clusters of pages naming different dates), pages\n"+
			"contained in a larger one (a chapter in its book: kept apart, not a copy), the crawl budget\n"+
			"spent fetching copies and the index space saved. It reads the data directory\n"+
			"read-only, beside doppel serve; a crawl running there holds it.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	write := map[string]func(*report.Report, io.Writer) error{
		"text": (*report.Report).WriteText, "csv": (*report.Report).WriteCSV, "json": (*report.Report).WriteJSON,
	}[*format]
	switch {
	case *data == "":
		fmt.Fprintln(stderr, "doppel report: --data is required")
	case write == nil:
		fmt.Fprintf(stderr, "doppel report: --format %q: want text, csv or json\n", *format)
	case *top < 1:
		fmt.Fprintf(stderr, "doppel report: --top %d: want at least 1\n", *top)
	default:
		v, err := crawler.OpenView(*data)
		if err != nil {
			return err
		}
		defer v.Close()
		r, err := report.Build(v, v.Store(), report.Options{Top: *top})
		if err != nil {
			return crawler.Damage(*data, err)
		}
		bw := bufio.NewWriter(stdout)
		if err := write(r, bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	usageHint(fs, stderr)
	return errUsage
}

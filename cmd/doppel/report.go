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

// reportSettings are doppel report's flags.
type reportSettings struct {
	Data   string `json:"data" flag:"data" help:"the crawl's data {directory} (required)"`
	Format string `json:"format" flag:"format" help:"output {format}: text, csv or json"`
	Top    int    `json:"top" flag:"top" help:"list the {N} largest clusters of each kind"`
}

// runReport prints the duplicates report of the crawl in --data.
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	c := defineConfig(fs, reportSettings{Format: "text", Top: 20}, false)
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
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	write := map[string]func(*report.Report, io.Writer) error{
		"text": (*report.Report).WriteText, "csv": (*report.Report).WriteCSV, "json": (*report.Report).WriteJSON,
	}[s.Format]
	switch {
	case s.Data == "":
		fmt.Fprintln(stderr, "doppel report: --data is required")
	case write == nil:
		fmt.Fprintf(stderr, "doppel report: --format %q: want text, csv or json\n", s.Format)
	case s.Top < 1:
		fmt.Fprintf(stderr, "doppel report: --top %d: want at least 1\n", s.Top)
	default:
		v, err := crawler.OpenView(s.Data)
		if err != nil {
			return err
		}
		defer v.Close()
		r, err := report.Build(v, v.Store(), report.Options{Top: s.Top})
		if err != nil {
			return crawler.Damage(s.Data, err)
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

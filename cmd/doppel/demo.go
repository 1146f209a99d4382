package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/features"
	"github.com/doppel-search/doppel/internal/demosite"
)

// The demo's settings: intranet pages differ by dates and numbers, and the
// shortest URL is the one worth showing.
var (
	demoTerms  = features.Options{StripNumbers: true, StripDates: true}
	demoMaster = cluster.ShortestURL
)

// runDemo deduplicates the bundled demo intranet and prints its clusters.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel demo\n\nDeduplicates the bundled demo intranet (no files or network needed) and prints its clusters.")
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	pages := demosite.Pages()
	docs := make([]dedup.Document, len(pages))
	opts := dedup.Options{Terms: demoTerms}
	tb, err := dedup.NewTableBuilder(opts)
	if err != nil {
		return err
	}
	for i, p := range pages {
		docs[i] = dedup.Document{ID: p.Path, URL: p.Path, Title: p.Title, Text: p.Text}
		tb.Add(p.Text)
	}
	opts.Master = demoMaster
	det, err := dedup.New(tb.Table(), opts)
	if err != nil {
		return err
	}
	if err := det.AddAll(ctx, docs, 2, func(dedup.Result) error { return nil }); err != nil {
		return err
	}
	st := det.Stats()
	fmt.Fprintf(stdout, "Demo intranet: %d pages, %d clusters, %d near-duplicates (method %s, masters: %s).\n\n",
		st.Documents, st.Clusters, st.Duplicates, det.Options().Method, demoMaster)
	for _, c := range det.Clusters() {
		if len(c.Members) < 2 {
			continue
		}
		fmt.Fprintf(stdout, "%s  %d pages, master %s\n", c.ID, len(c.Members), c.Master.ID)
		members := slices.Clone(c.Members)
		slices.SortFunc(members, func(a, b cluster.Member) int { return strings.Compare(a.ID, b.ID) })
		for _, m := range members {
			if m.ID != c.Master.ID {
				fmt.Fprintf(stdout, "    %s\n", m.ID)
			}
		}
	}
	return nil
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/internal/jsonl"
)

// exportSettings are doppel export's flags.
type exportSettings struct {
	Data string `json:"data" flag:"data" help:"the crawl's data {directory} (required)"`
	Out  string `json:"out" flag:"out" help:"write to {file} (atomically) instead of stdout"`
}

// runExport prints one JSON line per URL the crawl in --data has seen.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	c := defineConfig(fs, exportSettings{}, false)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel export --data DIR [--out FILE]\n\n"+
			"One JSON line per URL the crawl has seen:\n"+
			`  {"url", "status": fetched|skipped|error|gone|queued, "reason", "cluster", "master", "indexed", "fetched_at"}`+"\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	if s.Data == "" {
		fmt.Fprintln(stderr, "doppel export: --data is required")
		usageHint(fs, stderr)
		return errUsage
	}
	var state []namedPath
	for _, f := range []string{"crawl.json", "frontier.db", "pages.db"} {
		state = append(state, namedPath{"the crawl's " + f, filepath.Join(s.Data, f)})
	}
	if err := errors.Join(checkOutputs(state, []namedPath{{"--out", s.Out}}), checkOutside(s.Data, []namedPath{{"--out", s.Out}})); err != nil {
		fmt.Fprintln(stderr, "doppel export:", err)
		return errUsage
	}
	v, err := crawler.OpenView(s.Data)
	if err != nil {
		return err
	}
	defer v.Close()
	if s.Out == "" {
		bw := bufio.NewWriter(stdout)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		if err := v.Entries(func(e crawler.Entry) error { return enc.Encode(e) }); err != nil {
			bw.Flush()
			return crawler.Damage(s.Data, err) // after the lines read before it
		}
		return bw.Flush()
	}
	w, err := jsonl.CreateTo(s.Out, stdout)
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := v.Entries(func(e crawler.Entry) error { return w.Write(e) }); err != nil {
		return crawler.Damage(s.Data, err)
	}
	return w.Commit()
}

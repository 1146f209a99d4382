package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/doppel-search/doppel/crawler/extract"
)

// extractSettings are doppel extract's flags.
type extractSettings struct {
	JSON bool `json:"json" flag:"json" help:"one JSON line per file: {\"file\", \"type\", \"title\", \"modified\", \"pages\", \"cut\", \"text\"}, or {\"file\", \"error\"}"`
}

// runExtract prints the text Doppel reads from documents (PDF, DOCX,
// PPTX, XLSX, ODT, ODP, ODS): what a crawl indexes of them.
func runExtract(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("extract", flag.ContinueOnError)
	c := defineConfig(fs, extractSettings{}, false)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: doppel extract [--json] FILE...\n\n"+
			"Prints the title and text of each document as a crawl reads it (the format by the file's\n"+
			"extension, else its first bytes). A file that cannot be read is reported with the reason on\n"+
			"stderr and the others are still read; the exit status is 1 if any failed.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := parseFlagsArgs(fs, args, stderr); err != nil {
		return err
	}
	s, err := c.load(stderr)
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "doppel extract: no file given")
		usageHint(fs, stderr)
		return errUsage
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	failed := 0
	for _, name := range fs.Args() {
		doc, err := extractFile(name)
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "doppel extract: %s: %v\n", name, err)
			if s.JSON {
				writeJSON(w, map[string]any{"file": name, "error": err.Error()})
			}
			continue
		}
		if s.JSON {
			writeJSON(w, map[string]any{"file": name, "type": doc.Type, "title": doc.Title, "modified": doc.Modified,
				"pages": doc.Pages, "cut": doc.Cut, "text": joinBlocks(doc.Blocks)})
			continue
		}
		fmt.Fprintf(w, "%s\n\n%s\n\f", doc.Title, joinBlocks(doc.Blocks))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d files could not be read", failed, fs.NArg())
	}
	return nil
}

// extractFile reads one document file.
func extractFile(name string) (*extract.Document, error) {
	body, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	t, ok := extract.Detect("", name, body[:min(len(body), 8)])
	if !ok {
		return nil, fmt.Errorf("not a document Doppel reads (PDF, DOCX, PPTX, XLSX, ODT, ODP, ODS)")
	}
	return extract.Read(t, body, extract.Limits{})
}

// joinBlocks joins a document's blocks with blank lines.
func joinBlocks(blocks []string) string { return strings.Join(blocks, "\n\n") }

// writeJSON writes v as one JSON line.
func writeJSON(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "%s\n", b)
}

package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/doppel-search/doppel/crawler/clean"
	"github.com/doppel-search/doppel/crawler/extract"
	"github.com/doppel-search/doppel/internal/jsonl"
)

// readFolder reads every file under dir that Doppel reads — HTML pages
// (their main content, as a crawl cleans it), plain text (.txt, .md) and
// documents (PDF, DOCX, PPTX, XLSX, ODT, ODP, ODS) — as documents whose
// ids are their paths relative to dir, in path order. Files of other
// kinds, and documents that cannot be read, are listed in skipped with
// the reason.
func readFolder(dir string) (recs []jsonl.Record, skipped []string, err error) {
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		text, title, reason := readFile(path)
		if reason != "" {
			skipped = append(skipped, rel+": "+reason)
			return nil
		}
		recs = append(recs, jsonl.Record{ID: rel, Text: text, Title: title, URL: "file://" + filepath.ToSlash(path)})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	return recs, skipped, nil
}

// readFile returns the main text and title of one file, or why it is not
// read.
func readFile(path string) (text, title, reason string) {
	body, err := os.ReadFile(path)
	if err != nil {
		return "", "", err.Error()
	}
	if t, ok := extract.Detect("", path, body[:min(len(body), 8)]); ok {
		doc, err := extract.Read(t, body, extract.Limits{})
		if err != nil {
			return "", "", err.Error()
		}
		return strings.Join(doc.Blocks, "\n\n"), doc.Title, ""
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".html", ".htm", ".xhtml":
		p, err := clean.Parse(bytes.NewReader(body), &url.URL{Scheme: "file", Path: filepath.ToSlash(path)}, clean.Options{})
		if err != nil {
			return "", "", err.Error()
		}
		return strings.Join(p.Blocks, "\n\n"), p.Title, ""
	case ".txt", ".md", ".text", ".rst":
		return string(body), "", ""
	}
	return "", "", "not a page or document Doppel reads"
}

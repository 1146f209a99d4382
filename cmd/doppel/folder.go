package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/doppel-search/doppel/crawler/extract"
	"github.com/doppel-search/doppel/crawler/hook"
	"github.com/doppel-search/doppel/internal/jsonl"
)

// readFolder reads every file under dir that Doppel reads — HTML pages
// (their main content, as a crawl cleans it), plain text (.txt, .md) and
// documents (PDF, DOCX, PPTX, XLSX, ODT, ODP, ODS) — as documents whose
// ids are their paths relative to dir, in path order. Files of other
// kinds, and documents that cannot be read, are listed in skipped with
// the reason.
func readFolder(dir string) (recs []jsonl.Record, skipped []string, err error) {
	h, err := hook.New(hook.Options{NoDedup: true})
	if err != nil {
		return nil, nil, err
	}
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
		text, title, reason := readFile(h, path)
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
// read: the crawl's own reading (hook.Parse) of a page, a text file or a
// document, its type told by its extension.
func readFile(h *hook.Hook, path string) (text, title, reason string) {
	ctype := ""
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".html" || ext == ".htm" || ext == ".xhtml":
		ctype = "text/html"
	case ext == ".txt" || ext == ".md" || ext == ".text" || ext == ".rst":
		ctype = "text/plain"
	case extract.IsDocument(path):
	default:
		return "", "", "not a page or document Doppel reads"
	}
	body, err := os.ReadFile(path)
	if err != nil {
		return "", "", err.Error()
	}
	p, err := h.Parse("file://"+filepath.ToSlash(path), http.Header{"Content-Type": {ctype}}, body)
	if err != nil {
		var skipped *hook.SkipError
		if errors.As(err, &skipped) {
			return "", "", skipped.Reason
		}
		return "", "", err.Error()
	}
	return strings.Join(p.Blocks, "\n\n"), p.Title, ""
}

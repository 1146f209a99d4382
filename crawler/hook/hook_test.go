package hook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/gocolly/colly/v2"

	"github.com/doppel-search/doppel/indexer"
)

func header(ctype string) http.Header {
	h := http.Header{}
	if ctype != "" {
		h.Set("Content-Type", ctype)
	}
	return h
}

func TestParse(t *testing.T) {
	h, err := New(Options{MaxBodyBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	page := `<html><head><title>T</title></head><body><main><p>Hello there.</p></main></body></html>`
	for _, tc := range []struct {
		name, ctype, body string
		skip              string // reason substring; "" means processed
		text              string
	}{
		{"html", "text/html; charset=utf-8", page, "", "Hello there."},
		{"no content type", "", page, "", "Hello there."},
		{"xhtml", "application/xhtml+xml", page, "", "Hello there."},
		{"plain text", "text/plain", "First  para.\n\nSecond\npara.", "", "First para.\n\nSecond para."},
		{"pdf", "application/pdf", "%PDF-1.4\x00\x01", "content type application/pdf", ""},
		{"image", "image/png", "\x89PNG", "content type image/png", ""},
		{"too large: cut and parsed", "text/html", "<p>" + strings.Repeat("x ", 600) + "</p>", "", strings.TrimSpace(strings.Repeat("x ", 498) + "x")},
		{"noindex", "text/html", `<html><head><meta name="robots" content="noindex"></head><body><p>x</p></body></html>`, "noindex", ""},
		{"binary as html", "text/html", "\x00\x01\x02\x03\x04\x05 binary", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := h.Parse("http://intra.example/a", header(tc.ctype), []byte(tc.body))
			switch {
			case tc.name == "binary as html":
				// Binary bytes labelled HTML must be refused with a reason,
				// never crash.
				if err == nil || !errors.Is(err, ErrSkipped) {
					t.Fatalf("binary body labelled text/html: %v, want ErrSkipped", err)
				}
			case tc.skip != "":
				if !errors.Is(err, ErrSkipped) || !strings.Contains(err.Error(), tc.skip) {
					t.Fatalf("err = %v, want ErrSkipped mentioning %q", err, tc.skip)
				}
			case err != nil:
				t.Fatal(err)
			case p.Text != tc.text:
				t.Errorf("text = %q, want %q", p.Text, tc.text)
			case p.Truncated != strings.HasPrefix(tc.name, "too large"):
				t.Errorf("truncated = %v", p.Truncated)
			}
		})
	}
}

func TestAttachIndexesOneMasterPerCluster(t *testing.T) {
	text := "The travel policy reimburses hotels up to the city limit, meals up to the daily allowance and taxis only when no public transport was reasonable. Claims are filed within thirty days."
	mux := http.NewServeMux()
	serve := func(path, title, body string, links ...string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html><head><title>%s</title></head><body><main><h1>%s</h1><p>%s</p>", title, title, body)
			for _, l := range links {
				fmt.Fprintf(w, `<a href="%s">link</a>`, l)
			}
			fmt.Fprint(w, "</main></body></html>")
		})
	}
	serve("/{$}", "Home", "Welcome to the intranet home page.", "/travel.html", "/print/travel.html", "/files/a.pdf")
	serve("/travel.html", "Travel", text)
	serve("/print/travel.html", "Travel", text+" Printed copy.")
	mux.HandleFunc("/files/a.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	bi, err := bleve.NewMemOnly(indexer.Mapping())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := indexer.Wrap(bi, indexer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	col := colly.NewCollector()
	var skipped []string
	var pages []Page
	h, err := Attach(col, Options{Index: ix,
		OnPage: func(p Page) { pages = append(pages, p) },
		OnSkip: func(u string, err error) { skipped = append(skipped, strings.TrimPrefix(u, srv.URL)+": "+err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	col.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	if err := col.Visit(srv.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(pages) != 3 || len(skipped) != 1 || !strings.Contains(skipped[0], "application/pdf") {
		t.Fatalf("processed %d pages, skipped %q; want 3 and the PDF", len(pages), skipped)
	}
	if !pages[2].Result.Duplicate || pages[2].Result.Master != srv.URL+"/travel.html" || pages[2].Result.Simhash == 0 {
		t.Errorf("printer copy: %+v, want a duplicate of /travel.html with a SimHash", pages[2].Result)
	}
	res, err := bi.Search(bleve.NewSearchRequest(ix.Searchable(indexer.TextQuery("hotels allowance"))))
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Hits[0].ID != srv.URL+"/travel.html" {
		t.Errorf("search found %d hits (%v), want only the master /travel.html", res.Total, res.Hits)
	}
	members, err := ix.Members(string(pages[2].Result.Cluster))
	if err != nil || len(members) != 2 {
		t.Errorf("cluster members %v, %v; want the page and its printer copy", members, err)
	}
}

// Package appsite generates the intranet applications a crawl meets,
// for tests on loopback: a MediaWiki-like wiki (Wiki) — articles with
// the furniture of MediaWiki's skin: edit, history, info, oldid,
// printable and Special: links marked noindex, red links, talk pages,
// section edit links, a "Retrieved from" footer, the site name in every
// title, a few copies and redirects (answered 200 with the target's
// text and a canonical link, as MediaWiki answers them) — and an
// Apache-autoindex-like file tree (Files) whose listings link their
// sort orders ("?C=N;O=D"). Each is an
// http.Handler that logs every request as it arrived (Log), with its
// ground truth: the pages a crawl should keep.
//
// The text is generated from a seeded vocabulary, so that two articles
// share no more than chance words and a copy is a copy.
package appsite

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
)

// A Log records the requests a site answered, in order: the request
// URI as it arrived (path and raw query, never re-encoded). It is safe
// for concurrent use.
type Log struct {
	mu   sync.Mutex
	uris []string
}

// add logs one request.
func (l *Log) add(r *http.Request) {
	l.mu.Lock()
	l.uris = append(l.uris, r.RequestURI)
	l.mu.Unlock()
}

// URIs returns the request URIs logged so far, in order.
func (l *Log) URIs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.uris...)
}

// Pages returns the logged request URIs less those of robots.txt, the
// default sitemap (/sitemap.xml) and the crawler's probe for a missing
// page ("/doppel-probe-…"): the requests a crawl's page budget bounds.
func (l *Log) Pages() []string {
	var out []string
	for _, u := range l.URIs() {
		if u == "/robots.txt" || u == "/sitemap.xml" || strings.HasPrefix(u, "/doppel-probe-") {
			continue
		}
		out = append(out, u)
	}
	return out
}

// logged wraps h so that every request is logged in l first.
func logged(l *Log, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.add(r)
		h.ServeHTTP(w, r)
	})
}

// vocabulary returns n pseudo-words made of syllables, from rng.
func vocabulary(rng *rand.Rand, n int) []string {
	syl := []string{"ka", "lo", "mi", "ne", "tu", "ra", "si", "ve", "do", "pa", "ri", "zu", "be", "fo", "gu", "ha", "ji", "ke", "ly", "mo", "nu", "qi", "sa", "te", "vo", "wy", "xe", "yo", "ze", "bri", "cla", "dro", "fle", "gri", "plu", "stra", "tho"}
	seen := map[string]bool{}
	words := make([]string, 0, n)
	for len(words) < n {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syl[rng.IntN(len(syl))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	return words
}

// paragraph returns a sentence-cased paragraph of n words from vocab.
func paragraph(rng *rand.Rand, vocab []string, n int) string {
	var b strings.Builder
	for i := range n {
		w := vocab[rng.IntN(len(vocab))]
		switch {
		case i == 0:
			w = strings.ToUpper(w[:1]) + w[1:]
		case i%11 == 10:
			w += "."
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String() + "."
}

// esc escapes s for HTML text and attributes.
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// htmlPage writes an HTML page: its title, robots meta (if any) and body.
func htmlPage(w http.ResponseWriter, title, robots, body string) {
	htmlHead(w, title, robots, "", body)
}

// htmlHead writes an HTML page with more in its head (a canonical link).
func htmlHead(w http.ResponseWriter, title, robots, head, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	meta := ""
	if robots != "" {
		meta = fmt.Sprintf(`<meta name="robots" content="%s">`, robots)
	}
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>%s%s</head>\n<body>%s</body></html>\n", esc(title), meta, head, body)
}

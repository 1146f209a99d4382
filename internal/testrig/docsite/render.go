package docsite

import (
	"html"
	"net/http"
	"strings"
)

// A block is one block element of a page's main content: its tag ("h1",
// "p", "pre", "li", "div") and its inline parts. Consecutive "li" blocks
// are rendered inside one <ul>.
type block struct {
	tag   string
	parts []link
}

// A link is an inline part of a block, a hyperlink if href is set, or a
// sidebar entry.
type link struct{ href, text string }

func h1(s string) block   { return block{"h1", []link{{"", s}}} }
func h2(s string) block   { return block{"h2", []link{{"", s}}} }
func para(s string) block { return block{"p", []link{{"", strings.Join(strings.Fields(s), " ")}}} }
func pre(s string) block  { return block{"pre", []link{{"", s}}} }
func div(s string) block  { return block{"div", []link{{"", s}}} }

// linkList returns one "li" block per link.
func linkList(items []link) []block {
	out := make([]block, len(items))
	for i, l := range items {
		out[i] = block{"li", []link{l}}
	}
	return out
}

// text is the main text of blocks as the kit's extraction reads it: each
// block's text split at line breaks, each line's white space collapsed,
// blank lines dropped, joined by "\n".
func text(blocks []block) string {
	var lines []string
	for _, b := range blocks {
		var sb strings.Builder
		for _, p := range b.parts {
			sb.WriteString(p.text)
		}
		for _, l := range strings.Split(sb.String(), "\n") {
			if l = strings.Join(strings.Fields(l), " "); l != "" {
				lines = append(lines, l)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// Handler serves the pages of Pages(opts), each in its site's template:
// API pages as rustdoc lays them out (a sidebar of the module's items and
// a search bar around <main>), manual pages as the Apache manual does (a
// page header and breadcrumbs around #page-content). Any other path is
// 404; /robots.txt allows everything. The handler is safe for concurrent
// use.
func Handler(opts Options) http.Handler {
	byPath := map[string]*Page{}
	pages := Pages(opts)
	for i := range pages {
		byPath[pages[i].Path] = &pages[i]
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write([]byte("User-agent: *\nDisallow:\n"))
			return
		}
		p, ok := byPath[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(Render(*p)))
	})
}

// Render returns the HTML of page p as Handler serves it.
func Render(p Page) string {
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString(`<!DOCTYPE html><html lang="` + esc(p.Lang) + `"><head><meta charset="utf-8"><title>` + esc(p.Title) + "</title></head>\n")
	manual := strings.HasPrefix(p.Path, "/manual/")
	switch {
	case manual:
		b.WriteString(`<body id="manual-page"><div id="page-header"><p class="menu"><a href="/manual/en/index.html">Harbor</a> | <a href="index.html">` +
			esc(p.Lang) + `</a> | <a href="/">Documentation</a></p><p class="apache">Harbor HTTP Server Version 3.1</p></div>` + "\n")
		b.WriteString(`<div id="path"><a href="/">Documentation</a> &gt; <a href="index.html">Harbor 3.1</a></div>` + "\n")
		b.WriteString(`<div id="page-content">` + "\n")
	default:
		b.WriteString(`<body class="rustdoc"><nav class="sidebar"><a class="sidebar-logo" href="/rust/core/index.html">core</a> <a href="/rust/std/index.html">std</a><div class="sidebar-elems"><ul>`)
		for _, l := range p.nav {
			b.WriteString(`<li><a href="` + esc(l.href) + `">` + esc(l.text) + "</a></li>")
		}
		b.WriteString("</ul></div></nav>\n<main><nav class=\"sub\"><form class=\"search-form\"><input class=\"search-input\" name=\"search\" placeholder=\"Click or press ‘S’ to search, ‘?’ for more options…\" type=\"search\"></form></nav><section id=\"main-content\" class=\"content\">\n")
	}
	inList := false
	for _, bl := range p.blocks {
		if bl.tag == "li" && !inList {
			b.WriteString("<ul>")
			inList = true
		} else if bl.tag != "li" && inList {
			b.WriteString("</ul>\n")
			inList = false
		}
		b.WriteString("<" + bl.tag + ">")
		for _, part := range bl.parts {
			if part.href != "" {
				b.WriteString(`<a href="` + esc(part.href) + `">` + esc(part.text) + "</a>")
			} else {
				b.WriteString(esc(part.text))
			}
		}
		b.WriteString("</" + bl.tag + ">\n")
	}
	if inList {
		b.WriteString("</ul>\n")
	}
	if manual {
		b.WriteString("</div>\n<div id=\"footer\"><p class=\"apache\">Copyright 2026 The Harbor Project. Licensed under the Apache License, Version 2.0.</p></div>\n")
	} else {
		b.WriteString("</section></main>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

package appsite

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// WikiOptions shapes a generated wiki. The zero value gives the
// defaults.
type WikiOptions struct {
	// Articles is how many articles the wiki holds. Default 60.
	Articles int
	// Copies is how many articles have a verbatim copy ("Copy_of_…").
	// Default 3.
	Copies int
	// Seed seeds the text. Default 1.
	Seed uint64
	// SiteName ends every title (" - Intranet Wiki"). Default
	// "Intranet Wiki".
	SiteName string
}

// A Wiki is a generated MediaWiki-like site, served under /index.php
// as PHP's built-in server serves MediaWiki: articles at
// /index.php/Title, every other view at /index.php?title=…&action=….
// Every view but articles, talk pages and the main page is marked
// noindex,nofollow, as MediaWiki marks them.
type Wiki struct {
	http.Handler
	// Log holds the requests the wiki answered.
	Log *Log
	// Articles are the articles' titles (underscored, as in URLs).
	Articles []string
	// Copies maps each copy's title to its original's.
	Copies map[string]string
	// Talk are the talk pages that exist ("Talk:Title").
	Talk []string
	// Redirects maps each redirect's title to its target article's. As
	// MediaWiki serves them, a redirect answers 200 with its target's
	// text and a canonical link to the target, not an HTTP redirect.
	Redirects map[string]string

	opts  WikiOptions
	text  map[string][]string // title → intro and sections
	index map[string]int      // article title → its number
}

// NewWiki generates a wiki.
func NewWiki(opts WikiOptions) *Wiki {
	if opts.Articles == 0 {
		opts.Articles = 60
	}
	if opts.Copies == 0 {
		opts.Copies = 3
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.SiteName == "" {
		opts.SiteName = "Intranet Wiki"
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 37))
	vocab := vocabulary(rng, 3000)
	w := &Wiki{Log: &Log{}, Copies: map[string]string{}, Redirects: map[string]string{}, opts: opts, text: map[string][]string{}, index: map[string]int{}}
	for i := range opts.Articles {
		a, b := vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))]
		title := fmt.Sprintf("%s%s_%s_%d", strings.ToUpper(a[:1]), a[1:], b, i)
		w.Articles = append(w.Articles, title)
		w.index[title] = i
		w.text[title] = []string{paragraph(rng, vocab, 40), paragraph(rng, vocab, 70), paragraph(rng, vocab, 70), paragraph(rng, vocab, 70)}
		if i%4 == 1 {
			talk := "Talk:" + title
			w.Talk = append(w.Talk, talk)
			w.text[talk] = []string{paragraph(rng, vocab, 50)}
		}
	}
	for i := range min(opts.Copies, opts.Articles) {
		orig := w.Articles[i*7%opts.Articles]
		cp := "Copy_of_" + orig
		w.Copies[cp] = orig
		w.text[cp] = w.text[orig]
	}
	for i := 3; i < opts.Articles; i += 10 {
		orig := w.Articles[i]
		w.Redirects["Short_"+strings.SplitN(orig, "_", 2)[0]+fmt.Sprint(i)] = orig
	}
	w.Handler = logged(w.Log, http.HandlerFunc(w.serve))
	return w
}

// Kept returns the paths of the pages a crawl should keep: the main
// page, the articles, their copies and the talk pages that exist.
func (w *Wiki) Kept() []string {
	out := []string{"/index.php/Main_Page"}
	for _, t := range w.Articles {
		out = append(out, "/index.php/"+t)
	}
	for cp := range w.Copies {
		out = append(out, "/index.php/"+cp)
	}
	for _, t := range w.Talk {
		out = append(out, "/index.php/"+t)
	}
	return out
}

// revision is the id of an article's current revision.
func (w *Wiki) revision(title string) int { return 700 + 2*len(title) + w.index[title] }

func (w *Wiki) serve(rw http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" {
		http.Redirect(rw, r, "/index.php/Main_Page", http.StatusMovedPermanently)
		return
	}
	if r.URL.Path == "/robots.txt" {
		http.NotFound(rw, r)
		return
	}
	q, _ := url.ParseQuery(r.URL.RawQuery)
	title := q.Get("title")
	if rest, ok := strings.CutPrefix(r.URL.Path, "/index.php/"); ok {
		title = rest
	} else if r.URL.Path != "/index.php" {
		http.NotFound(rw, r)
		return
	}
	_, isText := w.text[title]
	target, isRedirect := w.Redirects[title]
	switch {
	case title == "":
		http.Redirect(rw, r, "/index.php/Main_Page", http.StatusFound)
	case title == "Special:Random":
		http.Redirect(rw, r, "/index.php/"+w.Articles[rand.IntN(len(w.Articles))], http.StatusFound)
	case q.Get("action") != "" || q.Get("oldid") != "" || q.Get("diff") != "" || q.Get("printable") != "" || strings.HasPrefix(title, "Special:"):
		w.tool(rw, title, q)
	case title == "Main_Page":
		w.mainPage(rw)
	case isText:
		w.article(rw, r.Host, title)
	case isRedirect:
		w.article(rw, r.Host, target)
	default:
		rw.WriteHeader(http.StatusNotFound)
		htmlPage(rw, strings.ReplaceAll(title, "_", " ")+" - "+w.opts.SiteName, "noindex,nofollow",
			"<p>There is currently no text in this page.</p>")
	}
}

// chrome returns the skin around an article's content: the sidebar,
// the personal and page tools, as MediaWiki's Vector skin links them.
func (w *Wiki) chrome(title string) (head, foot string) {
	e := url.QueryEscape(title)
	talk, tab := "Talk:"+title, ""
	if strings.HasPrefix(title, "Talk:") {
		talk = strings.TrimPrefix(title, "Talk:")
	}
	if _, ok := w.text[talk]; ok || talk == strings.TrimPrefix(title, "Talk:") {
		tab = fmt.Sprintf(`<li><a href="/index.php/%s">Discussion</a></li>`, talk)
	} else {
		tab = fmt.Sprintf(`<li class="new"><a href="/index.php?title=%s&amp;action=edit&amp;redlink=1">Discussion</a></li>`, url.QueryEscape(talk))
	}
	head = `<div id="mw-navigation"><ul>` +
		`<li><a href="/index.php/Main_Page">Main page</a></li>` +
		`<li><a href="/index.php/Special:RecentChanges">Recent changes</a></li>` +
		`<li><a href="/index.php/Special:Random">Random page</a></li>` +
		`<li><a href="/index.php/Special:SpecialPages">Special pages</a></li></ul>` +
		fmt.Sprintf(`<ul id="p-personal"><li><a href="/index.php?title=Special:CreateAccount&amp;returnto=%s">Create account</a></li>`, e) +
		fmt.Sprintf(`<li><a href="/index.php?title=Special:UserLogin&amp;returnto=%s">Log in</a></li></ul>`, e) +
		fmt.Sprintf(`<ul id="p-views"><li><a href="/index.php/%s">Page</a></li>%s`, title, tab) +
		fmt.Sprintf(`<li><a href="/index.php?title=%s&amp;action=edit">Edit</a></li>`, e) +
		fmt.Sprintf(`<li><a href="/index.php?title=%s&amp;action=history">View history</a></li></ul></div>`, e)
	foot = `<div id="p-tb"><ul>` +
		fmt.Sprintf(`<li><a href="/index.php/Special:WhatLinksHere/%s">What links here</a></li>`, title) +
		fmt.Sprintf(`<li><a href="/index.php/Special:RecentChangesLinked/%s">Related changes</a></li>`, title) +
		fmt.Sprintf(`<li><a href="/index.php?title=%s&amp;printable=yes">Printable version</a></li>`, e) +
		fmt.Sprintf(`<li><a href="/index.php?title=%s&amp;oldid=%d">Permanent link</a></li>`, e, w.revision(title)) +
		fmt.Sprintf(`<li><a href="/index.php?title=%s&amp;action=info">Page information</a></li></ul></div>`, e) +
		`<div id="footer"><ul><li>This page was last edited on 3 March 2026, at 10:12.</li>` +
		`<li><a href="/index.php/Intranet_Wiki:Privacy_policy">Privacy policy</a></li>` +
		`<li><a href="/index.php/Intranet_Wiki:About">About Intranet Wiki</a></li></ul></div>`
	return head, foot
}

// article serves an article, a copy or a talk page.
func (w *Wiki) article(rw http.ResponseWriter, host, title string) {
	text := w.text[title]
	name := strings.ReplaceAll(title, "_", " ")
	head, foot := w.chrome(title)
	var b strings.Builder
	b.WriteString(head)
	fmt.Fprintf(&b, `<div id="content"><h1 id="firstHeading">%s</h1><div id="mw-content-text"><p>%s</p>`, esc(name), esc(text[0]))
	if i, ok := w.index[title]; ok {
		n := len(w.Articles)
		b.WriteString("<p>See also")
		for _, j := range []int{(i + 1) % n, (i + 7) % n, (i + 13) % n} {
			fmt.Fprintf(&b, ` <a href="/index.php/%s">%s</a>,`, w.Articles[j], esc(strings.ReplaceAll(w.Articles[j], "_", " ")))
		}
		fmt.Fprintf(&b, ` and <a href="/index.php?title=Missing_topic_%d&amp;action=edit&amp;redlink=1" class="new">missing topic %d</a>.</p>`, i, i)
	}
	for k, sec := range text[1:] {
		fmt.Fprintf(&b, `<h2><span class="mw-headline">Part %d</span><span class="mw-editsection"><span class="mw-editsection-bracket">[</span>`+
			`<a href="/index.php?title=%s&amp;action=edit&amp;section=%d">edit</a><span class="mw-editsection-bracket">]</span></span></h2><p>%s</p>`,
			k+1, url.QueryEscape(title), k+1, esc(sec))
	}
	rev := w.revision(title)
	fmt.Fprintf(&b, `</div><div class="printfooter">Retrieved from "<a dir="ltr" href="http://%s/index.php?title=%s&amp;oldid=%d">http://%s/index.php?title=%s&amp;oldid=%d</a>"</div></div>`,
		host, url.QueryEscape(title), rev, host, url.QueryEscape(title), rev)
	b.WriteString(foot)
	htmlHead(rw, name+" - "+w.opts.SiteName, "",
		fmt.Sprintf(`<link rel="canonical" href="http://%s/index.php/%s">`, host, title), b.String())
}

// mainPage serves the main page: a welcome, the first articles and the
// copies.
func (w *Wiki) mainPage(rw http.ResponseWriter) {
	head, foot := w.chrome("Main_Page")
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(`<div id="content"><h1>Main Page</h1><div id="mw-content-text"><p>Welcome to the intranet wiki, where the teams keep their notes.</p><ul>`)
	for _, t := range w.Articles[:min(5, len(w.Articles))] {
		fmt.Fprintf(&b, `<li><a href="/index.php/%s">%s</a></li>`, t, esc(strings.ReplaceAll(t, "_", " ")))
	}
	for _, r := range slices.Sorted(maps.Keys(w.Redirects)) {
		fmt.Fprintf(&b, `<li><a href="/index.php/%s">%s</a></li>`, r, esc(strings.ReplaceAll(r, "_", " ")))
	}
	for _, t := range w.Articles {
		if cp := "Copy_of_" + t; w.Copies[cp] != "" {
			fmt.Fprintf(&b, `<li><a href="/index.php/%s">%s</a></li>`, cp, esc(strings.ReplaceAll(cp, "_", " ")))
		}
	}
	b.WriteString("</ul></div></div>")
	b.WriteString(foot)
	htmlPage(rw, "Main Page - "+w.opts.SiteName, "", b.String())
}

// tool serves a view that is not an article — an edit form, a history,
// page information, an old revision, a printable version, a special
// page — marked noindex,nofollow as MediaWiki marks them, with the
// article's links that MediaWiki's views carry.
func (w *Wiki) tool(rw http.ResponseWriter, title string, q url.Values) {
	name := strings.ReplaceAll(title, "_", " ")
	what := "Editing " + name
	switch {
	case q.Get("action") == "history":
		what = name + ": Revision history"
	case q.Get("action") == "info":
		what = "Information for \"" + name + "\""
	case strings.HasPrefix(title, "Special:"):
		what = strings.TrimPrefix(name, "Special:")
	case q.Get("oldid") != "" || q.Get("printable") != "":
		what = name
	}
	var b strings.Builder
	head, foot := w.chrome(title)
	b.WriteString(head)
	fmt.Fprintf(&b, "<h1>%s</h1>", esc(what))
	if text, ok := w.text[title]; ok {
		fmt.Fprintf(&b, "<textarea>%s</textarea>", esc(strings.Join(text, "\n\n")))
	} else {
		b.WriteString("<p>This page is one of the wiki's tools.</p>")
	}
	b.WriteString(foot)
	htmlPage(rw, what+" - "+w.opts.SiteName, "noindex,nofollow", b.String())
}

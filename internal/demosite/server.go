package demosite

import (
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
)

// Handler serves the demo intranet over HTTP: every page of [Pages]
// rendered inside the site's template, plus what real intranets also have
// and a crawler must survive —
//
//   - /robots.txt disallowing /private/;
//   - /calendar/YYYY/MM: an infinite calendar, each month linking to the next;
//   - /deep/…: ever-deepening paths, each page linking one level deeper;
//   - /loop/a and /loop/b: a redirect loop;
//   - /old/…: permanent redirects to the manual;
//   - /missing…: a "soft 404" (status 200, a not-found page);
//   - /files/handbook.pdf: a broken PDF (recorded as such).
//
// The home page links the section index pages (/manual/, /news/,
// /notices/, /teams/, /hr/), which link every base and unique page, and
// the site navigation links them too, so every page of [Pages] is at most
// three links from the home page.
//
// Manual pages link to their printer-friendly copy, their mirror and a
// jsessionid variant of themselves, so a crawler discovers the
// near-duplicates by following links. Everything is escaped by
// html/template. The handler is safe for concurrent use.
func Handler() http.Handler {
	pages := Pages()
	byPath, variant := pagesByPath(pages)
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		render(w, "Acme intranet", []string{"Welcome to the Acme intranet."}, homeLinks(pages), chromeMain)
	})
	for _, ix := range indexes {
		links := indexLinks(pages, ix.prefix)
		mux.HandleFunc(ix.prefix+"{$}", func(w http.ResponseWriter, r *http.Request) {
			render(w, ix.title, []string{ix.intro}, links, chromeMain)
		})
	}
	mux.HandleFunc("/calendar/{year}/{month}", serveCalendar)
	mux.HandleFunc("/deep/", serveDeep)
	mux.HandleFunc("/loop/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/b", http.StatusFound) })
	mux.HandleFunc("/loop/b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop/a", http.StatusFound) })
	mux.HandleFunc("/old/{name}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/manual/"+r.PathValue("name")+".html", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/files/handbook.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write([]byte("%PDF-1.4\n\x00\x01\x02\x03 binary handbook\n"))
	})
	mux.HandleFunc("/", pageHandler(byPath, variant))
	return mux
}

// pagesByPath indexes pages by path, leaving out the ;jsessionid
// variants, and maps each base path to its variant's path.
func pagesByPath(pages []Page) (byPath map[string]Page, variant map[string]string) {
	byPath = make(map[string]Page, len(pages))
	variant = map[string]string{} // base path → its ;jsessionid variant
	for _, p := range pages {
		path, _, isVariant := strings.Cut(p.Path, ";")
		if isVariant {
			variant[path] = p.Path // served by its base page
			continue
		}
		byPath[path] = p
	}
	return byPath, variant
}

// homeLinks returns the home page's links: the section indexes, the
// first notice of each series, the first news items and the crawler traps.
func homeLinks(pages []Page) []link {
	var links []link
	for _, ix := range indexes {
		links = append(links, link{ix.prefix, ix.title})
	}
	// The first notice of each series, so that a crawler meets it
	// before the rest of its series (which /notices/ lists): ties
	// among a series' equally long URLs then go to the same page in
	// every crawl. Then the first news items.
	news := 0
	for _, p := range pages {
		isNews := strings.HasPrefix(p.Path, "/news/")
		if p.Family == p.Path && strings.HasPrefix(p.Path, "/notices/") || isNews && news < 6 {
			links = append(links, link{p.Path, p.Title})
		}
		if isNews {
			news++
		}
	}
	return append(links, link{"/calendar/2026/03", "Events calendar"}, link{"/deep/1", "Archive"},
		link{"/loop/a", "Old portal"}, link{"/old/vpn", "VPN (old address)"}, link{"/missing-report", "Annual report"},
		link{"/files/handbook.pdf", "Handbook (PDF)"}, link{"/private/salaries.html", "Salaries"})
}

// indexLinks returns the links of the index page of prefix: the pages
// whose path starts with it, but not their ;jsessionid variants.
func indexLinks(pages []Page, prefix string) []link {
	var links []link
	for _, p := range pages {
		if strings.HasPrefix(p.Path, prefix) && !strings.Contains(p.Path, ";") {
			links = append(links, link{p.Path, p.Title})
		}
	}
	return links
}

// serveCalendar serves /calendar/{year}/{month}: an infinite calendar,
// each month linking to the next.
func serveCalendar(w http.ResponseWriter, r *http.Request) {
	y, errY := strconv.Atoi(r.PathValue("year"))
	m, errM := strconv.Atoi(r.PathValue("month"))
	if errY != nil || errM != nil || m < 1 || m > 12 {
		http.NotFound(w, r)
		return
	}
	ny, nm := y, m+1
	if nm > 12 {
		ny, nm = y+1, 1
	}
	render(w, fmt.Sprintf("Events %04d-%02d", y, m), []string{fmt.Sprintf("No events are planned for %04d-%02d.", y, m)},
		[]link{{fmt.Sprintf("/calendar/%04d/%02d", ny, nm), "Next month"}}, chromeMain)
}

// serveDeep serves /deep/…: ever-deepening paths, each page linking one
// level deeper.
func serveDeep(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	render(w, "Archive "+path, []string{"Archived material, level " + strconv.Itoa(strings.Count(path, "/")-1) + "."},
		[]link{{path + "/1", "Older"}}, chromeMain)
}

// pageHandler serves the pages of byPath (and their ;jsessionid variants,
// listed in variant) and a soft 404 for any other path.
func pageHandler(byPath map[string]Page, variant map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if i := strings.Index(path, ";"); i >= 0 {
			path = path[:i] // ;jsessionid=… variants serve the same page
		}
		p, ok := byPath[path]
		if !ok {
			// A soft 404: status 200 with a not-found page, as many intranets do.
			render(w, "Page not found", []string{"Sorry, the page you requested could not be found."}, nil, chromeMain)
			return
		}
		links, chrome := pageLinksAndChrome(p, variant)
		render(w, p.Title, paragraphs(p.Text), links, chrome)
	}
}

// pageLinksAndChrome returns the extra links and the template of page p:
// a manual page links its printer-friendly copy, its mirror and its
// ;jsessionid variant; printer-friendly and mirror pages have their own
// templates.
func pageLinksAndChrome(p Page, variant map[string]string) ([]link, chrome) {
	switch {
	case strings.HasPrefix(p.Path, "/manual/") && !strings.Contains(p.Path, ";"):
		return []link{{"/print" + p.Path, "Printer-friendly version"}, {"/mirror/it" + p.Path, "IT department copy"},
			{variant[p.Path], "Permalink"}}, chromeMain
	case strings.HasPrefix(p.Path, "/print/"):
		return nil, chromePrint
	case strings.HasPrefix(p.Path, "/mirror/"):
		return nil, chromeMirror
	}
	return nil, chromeMain
}

// link is a hyperlink of a rendered page.
type link struct{ Href, Text string }

// indexes are the section index pages: each lists the pages whose path
// starts with its prefix (but not their ;jsessionid variants).
var indexes = []struct{ prefix, title, intro string }{
	{"/manual/", "Staff manual", "How things work at Acme: computers, accounts, buildings, travel, leave and conduct."},
	{"/news/", "News", "News from around the company."},
	{"/notices/", "Notices", "Recurring notices: the cafeteria, IT maintenance windows, payroll cut-off dates and fire alarm tests."},
	{"/teams/", "Teams and departments", "Who does what at Acme, and how to reach them."},
	{"/hr/", "Human resources", "Policies and procedures of the people and culture team."},
}

// chrome is the site template around the main content.
type chrome int

const (
	chromeMain   chrome = iota // the intranet's navigation and footer
	chromePrint                // no navigation, as printer-friendly pages are
	chromeMirror               // another department's template
)

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<meta name="description" content="{{.Title}}"></head>
<body>
{{if eq .Chrome 0}}<header><nav><a href="/">Home</a> <a href="/manual/">Manual</a> <a href="/news/">News</a> <a href="/notices/">Notices</a> <a href="/teams/">Teams</a> <a href="/hr/">HR</a> <a href="/manual/vpn.html">VPN</a> <a href="/manual/printing.html">Printing</a> <a href="/manual/expenses.html">Expenses</a> <a href="/manual/passwords.html">Passwords</a> <a href="/manual/onboarding.html">New staff</a> <a href="/notices/cafeteria-2026-03-02.html">Cafeteria</a></nav></header>{{end}}
{{if eq .Chrome 2}}<div class="it-banner"><a href="/mirror/it/">IT department</a> knowledge base mirror</div>{{end}}
<main><h1>{{.Title}}</h1>
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}<ul>{{range .Links}}<li><a href="{{.Href}}">{{.Text}}</a></li>
{{end}}</ul></main>
{{if eq .Chrome 0}}<footer>Acme Corporation intranet. Contact the service desk for help with this site.</footer>{{end}}
</body></html>
`))

// render writes a page of the site with the given template.
func render(w http.ResponseWriter, title string, paras []string, links []link, c chrome) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	err := pageTemplate.Execute(w, struct {
		Title      string
		Paragraphs []string
		Links      []link
		Chrome     chrome
	}{title, paras, links, c})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// paragraphs splits text at blank lines into paragraphs with their white
// space collapsed.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

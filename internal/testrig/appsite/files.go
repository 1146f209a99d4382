package appsite

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"path"
	"slices"
	"strings"
)

// FilesOptions shapes a generated file tree. The zero value gives the
// defaults.
type FilesOptions struct {
	// Depth is how deep folders nest below the root. Default 3.
	Depth int
	// Fanout is how many folders each folder above Depth holds.
	// Default 3.
	Fanout int
	// FilesPerFolder is how many files each folder holds: pages
	// (.html), notes (.txt) and one archive (.gz). Default 3.
	FilesPerFolder int
	// Seed seeds the text. Default 1.
	Seed uint64
}

// Files is a generated file tree served as Apache httpd serves a folder
// with "Options +Indexes": each folder as a listing titled "Index of
// /path/" whose column headers link its sort orders ("?C=N;O=D",
// "?C=M;O=A", …, with ";" between the parameters), sorted as asked —
// and, as Apache does, in the default order when the query does not
// read ("?C=N%3BO%3DD").
type Files struct {
	http.Handler
	// Log holds the requests the tree answered.
	Log *Log
	// Folders are the folders' paths ("/", "/a0/", …).
	Folders []string
	// Documents are the files' paths that hold text (.html, .txt).
	Documents []string

	files map[string]string   // path → content
	dirs  map[string][]string // folder → its entries (names; folders end in "/")
}

// NewFiles generates a file tree.
func NewFiles(opts FilesOptions) *Files {
	if opts.Depth == 0 {
		opts.Depth = 3
	}
	if opts.Fanout == 0 {
		opts.Fanout = 3
	}
	if opts.FilesPerFolder == 0 {
		opts.FilesPerFolder = 3
	}
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 39))
	vocab := vocabulary(rng, 3000)
	f := &Files{Log: &Log{}, files: map[string]string{}, dirs: map[string][]string{}}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		f.Folders = append(f.Folders, dir)
		for i := range opts.FilesPerFolder {
			var name string
			switch {
			case i == opts.FilesPerFolder-1 && i > 0:
				name = fmt.Sprintf("changelog%d.gz", depth)
				f.files[dir+name] = "\x1f\x8b\x08\x00binary"
			case i%2 == 0:
				name = fmt.Sprintf("%s-%d.html", vocab[rng.IntN(len(vocab))], i)
				f.files[dir+name] = fmt.Sprintf("<!DOCTYPE html><html><head><title>%s</title></head><body><h1>%s</h1><p>%s</p><p>%s</p></body></html>",
					name, name, paragraph(rng, vocab, 80), paragraph(rng, vocab, 80))
				f.Documents = append(f.Documents, dir+name)
			default:
				name = fmt.Sprintf("NOTES-%d.txt", i)
				f.files[dir+name] = paragraph(rng, vocab, 120)
				f.Documents = append(f.Documents, dir+name)
			}
			f.dirs[dir] = append(f.dirs[dir], name)
		}
		if depth == opts.Depth {
			return
		}
		for i := range opts.Fanout {
			sub := fmt.Sprintf("%s%d/", vocab[rng.IntN(len(vocab))], i)
			f.dirs[dir] = append(f.dirs[dir], sub)
			walk(dir+sub, depth+1)
		}
	}
	walk("/", 0)
	f.Handler = logged(f.Log, http.HandlerFunc(f.serve))
	return f
}

// sortOrder reads an autoindex query as Apache's mod_autoindex does:
// parameters separated by ";" or "&", C the column (N, M, S or D) and O
// the order (A or D); anything it does not read leaves the default
// (name, ascending).
func sortOrder(raw string) (col, order string) {
	col, order = "N", "A"
	for part := range strings.FieldsFuncSeq(raw, func(r rune) bool { return r == ';' || r == '&' }) {
		switch part {
		case "C=N", "C=M", "C=S", "C=D":
			col = part[2:]
		case "O=A", "O=D":
			order = part[2:]
		}
	}
	return col, order
}

func (f *Files) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if entries, ok := f.dirs[p]; ok {
		f.listing(w, p, entries, r.URL.RawQuery)
		return
	}
	if _, ok := f.dirs[p+"/"]; ok {
		http.Redirect(w, r, p+"/", http.StatusMovedPermanently)
		return
	}
	body, ok := f.files[p]
	if !ok {
		http.NotFound(w, r)
		return
	}
	switch path.Ext(p) {
	case ".html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	case ".txt":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	default:
		w.Header().Set("Content-Type", "application/gzip")
	}
	fmt.Fprint(w, body)
}

// listing serves a folder's listing as mod_autoindex's FancyIndexing
// does: column headers linking the sort orders (the current column's
// header reverses its order), a parent link, the entries.
func (f *Files) listing(w http.ResponseWriter, dir string, entries []string, query string) {
	col, order := sortOrder(query)
	sorted := slices.Clone(entries)
	slices.Sort(sorted)
	if col == "S" || col == "M" { // sizes and dates: an order of their own
		slices.SortFunc(sorted, func(a, b string) int { return len(a) - len(b) })
	}
	if order == "D" {
		slices.Reverse(sorted)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<h1>Index of %s</h1><table><tr>", esc(dir))
	for _, c := range []struct{ key, name string }{{"N", "Name"}, {"M", "Last modified"}, {"S", "Size"}, {"D", "Description"}} {
		o := "A"
		if c.key == col && order == "A" {
			o = "D"
		}
		fmt.Fprintf(&b, `<th><a href="?C=%s;O=%s">%s</a></th>`, c.key, o, c.name)
	}
	b.WriteString("</tr>")
	if dir != "/" {
		fmt.Fprintf(&b, `<tr><td><a href="%s">Parent Directory</a></td></tr>`, path.Dir(strings.TrimSuffix(dir, "/"))+"/")
	}
	for _, e := range sorted {
		fmt.Fprintf(&b, `<tr><td><a href="%s">%s</a></td><td>2026-03-03 10:12</td><td>4.2K</td><td></td></tr>`, e, esc(e))
	}
	b.WriteString("</table><address>Apache/2.4.62 (Debian) Server at intranet Port 80</address>")
	w.Header().Set("Content-Type", "text/html;charset=UTF-8")
	fmt.Fprintf(w, "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\">\n<html><head><title>Index of %s</title></head><body>%s</body></html>\n", esc(dir), b.String())
}

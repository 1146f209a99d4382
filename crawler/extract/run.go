package extract

import (
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// A run is one extraction in progress: the document being built and the
// limits it is held to.
type run struct {
	doc      *Document
	lim      Limits
	start    time.Time
	deadline time.Time
	late     bool // the time ran out: the reading stopped, and fails (Read)
	text     int  // bytes of text kept
}

func newRun(t Type, lim Limits) *run {
	now := time.Now()
	return &run{doc: &Document{Type: t}, lim: lim, start: now, deadline: now.Add(lim.Timeout)}
}

// block adds a block of text, its white space collapsed (form feeds
// too) and its soft hyphens (U+00AD, where a word processor may break a
// word) taken out; an empty one is dropped. It reports false once the
// text limit is reached (the document is then Cut): stop reading.
func (r *run) block(s string) bool {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00ad", "")), " ")
	if s == "" {
		return !r.doc.Cut
	}
	if r.text+len(s) > r.lim.MaxText {
		r.doc.Cut = true
		return false
	}
	r.text += len(s)
	r.doc.Blocks = append(r.doc.Blocks, s)
	return true
}

// page counts a page (or slide, or sheet) about to be read and reports
// whether it may be: false once MaxPages are read (the document is then
// Cut) or the time is up (late: Read fails, as a text cut by the time
// would depend on how busy the machine was).
func (r *run) page() bool {
	if r.doc.Cut || r.late {
		return false
	}
	if time.Now().After(r.deadline) {
		r.late = true
		return false
	}
	if r.doc.Pages >= r.lim.MaxPages {
		r.doc.Cut = true
		return false
	}
	r.doc.Pages++
	return true
}

// title sets the document's title if it has none (whitespace collapsed).
func (r *run) title(s string) {
	if s = strings.Join(strings.Fields(s), " "); s != "" && r.doc.Title == "" {
		r.doc.Title = s
	}
}

// finish leaves out the blocks that only repeat a document's title at
// its start (titleBlocks) and a last-updated stamp at its end
// (isStamp), then gives a document without a title metadata its first
// block, shortened to a line, as title.
func (r *run) finish() {
	if r.doc.Title != "" {
		r.doc.Blocks = r.doc.Blocks[titleBlocks(r.doc.Blocks, r.doc.Title):]
	}
	if n := len(r.doc.Blocks); n > 1 && isStamp(r.doc.Blocks[n-1]) {
		r.doc.Blocks = r.doc.Blocks[:n-1]
	}
	if r.doc.Title != "" || len(r.doc.Blocks) == 0 {
		return
	}
	r.doc.Title = shorten(r.doc.Blocks[0], 120)
}

// titleBlocks returns how many of blocks, from the first, only repeat
// the title (each a part of it: a converter writes the title as a title
// block, then as the heading, which a PDF may wrap over two lines), all
// of them but the last if none else. A web page shows its title outside
// the text (the title bar, a header the cleaning leaves out); left in, a
// short document would differ from its page by the title written two or
// three times (git's 30-word "moved" stubs). The title stays the
// Document's Title, searched as every title is.
func titleBlocks(blocks []string, title string) int {
	t := strings.ToLower(title)
	n := 0
	for n < len(blocks)-1 && strings.Contains(t, strings.ToLower(blocks[n])) {
		n++
	}
	return n
}

// stamp matches a last-updated stamp: "Last updated 2024-05-31 00:35:55
// UTC", "Last modified: 31/05/2024", "Revised on 2024-05-31".
var stamp = regexp.MustCompile(`(?i)^(last\s+)?(updated|modified|revised|changed)(\s+on)?\s*:?\s*[0-9][0-9:./\- ]*(\s*[a-z]{2,4})?$`)

// isStamp reports whether a block is only a last-updated stamp, the
// footer a documentation generator writes on every page (a web page's
// footer, which the page's cleaning leaves out).
func isStamp(block string) bool { return stamp.MatchString(block) }

// shorten cuts s to at most n bytes, at a space if there is one in its
// second half, else at a character boundary, and marks the cut with "…".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndex(s[:cut], " "); sp > n/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

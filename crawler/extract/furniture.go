package extract

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A laid-out document (PDF) carries what its pages need and a web page
// does not: a running header or footer on every page (the title, the
// chapter, the page number), bare page numbers, and a table of contents
// whose entries end in dot leaders and page numbers. A PDF and the HTML
// page it was made from would differ by those, line after line, and not
// be copies (crawler/hook compares their word 5-shingles). What is left
// out here:
//
//   - a line at a page's top or bottom edge (up to edgeLines of them,
//     from the edge inwards, each only if those nearer the edge are left
//     out too) that is a page number alone ("7", "- 7 -", "iv", "Page 7
//     of 20"); that is, numbers aside, the line at the same edge of
//     another page ("Chapter 2: Spreadsheet-like data 9"); or that
//     begins or ends with the page's number, as a running header names
//     the chapter and the page ("Chapter 6: Image files 25", a chapter of
//     one page): the number of the page, counted from the document's
//     first, plus an offset that the edge lines of at least three pages
//     and a quarter of them agree on;
//   - a table of contents' dot leaders and page numbers ("1.2 Export to
//     text files . . . . . 4" reads "1.2 Export to text files", as the
//     page's own table of contents does);
//   - a back-of-the-book index: a line "Index" (or "Concept Index", …)
//     and the entries after it — a term and its page numbers
//     ("attach, 34, 56"), or a letter heading ("A") — up to the first
//     other line. Its terms are the text's own words, listed with page
//     numbers a web page has no use for; left in, they are a block of
//     text in one place that the page lacks, as a section appended to
//     it would be (dedup's twinScore tells a twin from a part by that).
//
// Of a document of one page, whose edges repeat nowhere, only a last
// line that is the page number 1 alone ("1", "Page 1", "Page 1 of 1") is
// left out.
//
// On every page, whatever their number, a browser's "Save as PDF" header
// and footer leave too (isPrinted): up to edgeLines lines from either end
// of the page's text made of the date and time of printing, the page's
// URL, its title (the document's, or the beginning of it cut with "…")
// and the page counter ("11/28/26, 11:24 AM Installation — Sphinx",
// "http://intranet/install.html 1/3"). Chromium draws them after the
// page's content, so its text has both at its end, where a page short
// of lines would hold the header among its top lines.
const edgeLines = 3

// stripFurniture returns pages (each its lines, trimmed) without their
// running headers, footers and page numbers, and with table-of-contents
// entries without their leaders and page numbers. title is the
// document's title (its metadata), "" if none. It keeps pages' order
// and the order of lines; an empty line stays (it ends a paragraph).
func stripFurniture(pages [][]string, title string) [][]string {
	pages = withoutPrinted(pages, title)
	var pagesOf map[edge]int
	offset := numberOffsets(pages)
	if len(pages) > 1 {
		pagesOf = repeatedEdges(pages)
	}
	out := make([][]string, len(pages))
	inIndex := false // after an index heading, while lines are entries
	for p, lines := range pages {
		drop := make([]bool, len(lines))
		if len(pages) > 1 { // a single page's edges repeat nowhere
			markEdgeFurniture(drop, lines, p, pagesOf, offset)
		} else {
			markLoneNumber(drop, lines)
		}
		out[p], inIndex = keptLines(lines, drop, inIndex)
	}
	return out
}

// edge is an edge line's place (the top edge or the bottom) and its
// furnitureKey, the same on every page a running header or footer is on.
type edge struct {
	top bool
	key string
}

// repeatedEdges counts, for each edge line's edge, the pages on which
// it is (once a page however often it occurs there).
func repeatedEdges(pages [][]string) map[edge]int {
	pagesOf := map[edge]int{}
	for _, lines := range pages {
		seen := map[edge]bool{}
		for _, e := range edgesOf(lines) {
			k := edge{e.top, furnitureKey(lines[e.line])}
			if k.key != "" && !seen[k] {
				seen[k] = true
				pagesOf[k]++
			}
		}
	}
	return pagesOf
}

// markEdgeFurniture sets drop for the lines of page p that are
// furniture: from each edge inwards, while a line is a page number
// alone, at the same edge of another page (pagesOf), or begins or ends
// with the page's number (offset, numberOffsets' value).
func markEdgeFurniture(drop []bool, lines []string, p int, pagesOf map[edge]int, offset map[bool]int) {
	for _, top := range []bool{true, false} {
		for _, e := range edgesOf(lines) {
			if e.top != top {
				continue
			}
			l := lines[e.line]
			if !isPageNumber(l) && pagesOf[edge{top, furnitureKey(l)}] < 2 && !numbered(l, p, offset[top]) {
				break
			}
			drop[e.line] = true
		}
	}
}

// withoutPrinted returns pages without the lines a browser's "Save as
// PDF" adds (isPrinted): from each page's first non-empty line down and
// from its last up, at most edgeLines each way, while they are such
// lines. The running headers and footers of the page are then its edge
// lines (markEdgeFurniture).
func withoutPrinted(pages [][]string, title string) [][]string {
	out := make([][]string, len(pages))
	for p, lines := range pages {
		drop := make([]bool, len(lines))
		for _, step := range []int{1, -1} {
			i, seen := 0, 0
			if step < 0 {
				i = len(lines) - 1
			}
			for ; i >= 0 && i < len(lines) && seen < edgeLines; i += step {
				if lines[i] == "" {
					continue
				}
				seen++
				if !isPrinted(lines[i], title) {
					break
				}
				drop[i] = true
			}
		}
		for i, l := range lines {
			if !drop[i] {
				out[p] = append(out[p], l)
			}
		}
	}
	return out
}

// printedTime matches the date and time a browser prints in a page's
// header or footer, in the formats of its locales: "11/28/26, 11:24 AM",
// "28/11/2026, 11:24", "28.11.26, 11:24", "2026-11-28 11:24:05".
var printedTime = regexp.MustCompile(`(?i)(?:^|\s)\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?\s?m\.?)?(?:\s|$)`)

// printedURL matches a URL as a browser prints it, its middle perhaps
// cut with "…".
var printedURL = regexp.MustCompile(`(?i)(?:^|\s)(?:https?|file|ftp)://\S+(?:\s|$)`)

// printedCounter matches a page counter: "1/12", "Page 1 of 12".
var printedCounter = regexp.MustCompile(`(?i)(?:^|\s)(?:page\s+)?\d{1,5}\s*(?:/|of)\s*\d{1,5}(?:\s|$)`)

// isPrinted reports whether line is a browser's print header or footer:
// it holds the date and time of printing or a URL, and apart from those
// and a page counter at most the document's title, whole or its
// beginning cut with "…" (as a browser shortens it). A line that says
// anything else stays.
func isPrinted(line, title string) bool {
	if len(line) > 2*maxHeader {
		return false
	}
	found := false
	for _, re := range []*regexp.Regexp{printedTime, printedURL} {
		if re.MatchString(line) {
			found = true
			line = re.ReplaceAllString(line, " ")
		}
	}
	if !found {
		return false
	}
	rest := strings.Join(strings.Fields(printedCounter.ReplaceAllString(line, " ")), " ")
	return rest == "" || titlePart(rest, title)
}

// titlePart reports whether s is title, or its beginning cut with "…"
// or "...", whatever the case and white space.
func titlePart(s, title string) bool {
	t := strings.ToLower(strings.Join(strings.Fields(title), " "))
	s = strings.ToLower(s)
	if s == t {
		return t != ""
	}
	cut := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, "…"), "..."))
	return cut != s && len(cut) >= 8 && strings.HasPrefix(t, cut)
}

// markLoneNumber sets drop for the last non-empty line of a document's
// only page if it is its page number, 1, alone.
func markLoneNumber(drop []bool, lines []string) {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] == "" {
			continue
		}
		if isPageNumber(lines[i]) && slices.Contains(edgeNumbers(lines[i]), 1) {
			drop[i] = true
		}
		return
	}
}

// keptLines returns a page's lines but those dropped and a back-of-the-
// book index's heading and entries, with table-of-contents entries
// without their leaders and page numbers. inIndex says the page begins
// inside an index (its entries continue from the page before); the
// result says whether it ends inside one.
func keptLines(lines []string, drop []bool, inIndex bool) ([]string, bool) {
	kept := make([]string, 0, len(lines))
	for i, l := range lines {
		if drop[i] {
			continue
		}
		switch {
		case indexHeading.MatchString(l):
			inIndex = true
			continue
		case inIndex && (l == "" || isIndexEntry(l)):
			continue
		}
		inIndex = false
		if entry, ok := tocEntry(l); ok {
			l = entry
		}
		kept = append(kept, l)
	}
	return kept, inIndex
}

// noOffset is numberOffsets' value for an edge without page numbers.
const noOffset = -1 << 30

// numberOffsets returns, for the top edge (true) and the bottom edge
// (false), the offset between the numbers that begin or end the pages'
// edge lines and the pages' positions (0 for the first) that at least
// three pages, and a quarter of them, agree on; noOffset if none.
func numberOffsets(pages [][]string) map[bool]int {
	out := map[bool]int{true: noOffset, false: noOffset}
	for _, top := range []bool{true, false} {
		count := map[int]int{}
		for p, lines := range pages {
			seen := map[int]bool{}
			for _, e := range edgesOf(lines) {
				if e.top != top {
					continue
				}
				for _, n := range edgeNumbers(lines[e.line]) {
					if off := n - p; !seen[off] {
						seen[off] = true
						count[off]++
					}
				}
			}
		}
		best, most := noOffset, 0
		for off, n := range count {
			if n > most || n == most && off < best {
				best, most = off, n
			}
		}
		if most >= 3 && most*4 >= len(pages) {
			out[top] = best
		}
	}
	return out
}

// maxHeader is the longest running header or footer line, in bytes.
const maxHeader = 160

// edgeNumbers returns the numbers a line of at most maxHeader bytes
// begins and ends with ("25" of "Chapter 6: Image files 25"), at most
// 5 digits each.
func edgeNumbers(line string) []int {
	if len(line) > maxHeader {
		return nil
	}
	var out []int
	f := strings.Fields(line)
	for _, w := range []string{f[0], f[len(f)-1]} {
		if n, err := strconv.Atoi(w); err == nil && len(w) <= 5 && n >= 0 {
			out = append(out, n)
		}
	}
	return out
}

// numbered reports whether line begins or ends with the number of page p
// plus offset.
func numbered(line string, p, offset int) bool {
	if offset == noOffset {
		return false
	}
	for _, n := range edgeNumbers(line) {
		if n-p == offset {
			return true
		}
	}
	return false
}

// An edgeLine is the position of a non-empty line near a page's top or
// bottom edge.
type edgeLine struct {
	line int
	top  bool
}

// edgesOf returns the positions of the first edgeLines non-empty lines
// from the top (nearest first), then of the last edgeLines from the
// bottom (nearest first); a line is at one edge only, and a page of
// fewer than 2·edgeLines non-empty lines gives each edge half of them
// (the top the middle one).
func edgesOf(lines []string) []edgeLine {
	var nb []int
	for i, l := range lines {
		if l != "" {
			nb = append(nb, i)
		}
	}
	top := min(edgeLines, (len(nb)+1)/2)
	out := make([]edgeLine, 0, 2*edgeLines)
	for _, i := range nb[:top] {
		out = append(out, edgeLine{i, true})
	}
	for j := len(nb) - 1; j >= max(top, len(nb)-edgeLines); j-- {
		out = append(out, edgeLine{nb[j], false})
	}
	return out
}

// furnitureKey is what a running header or footer line has in common
// from page to page: its letters lowercased and its white space
// collapsed, each run of digits one '#', and a roman numeral that stands
// alone '#' too. "" for a line without letters (a page number alone is
// isPageNumber's).
func furnitureKey(line string) string {
	var b strings.Builder
	letters := false
	for _, w := range strings.Fields(line) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if isRoman(w) {
			b.WriteByte('#')
			continue
		}
		digits := false
		for _, r := range w {
			switch {
			case unicode.IsDigit(r):
				if !digits {
					b.WriteByte('#')
				}
				digits = true
				continue
			case unicode.IsLetter(r):
				letters = true
			}
			digits = false
			b.WriteRune(unicode.ToLower(r))
		}
	}
	if !letters {
		return ""
	}
	return b.String()
}

// pageNumber matches a line that is a page number alone: "7", "- 7 -",
// "[7]", "7 / 20", "Page 7", "page 7 of 20", "Seite 7", "p. 7".
var pageNumber = regexp.MustCompile(`(?i)^[\-–—\[(]?\s*(?:(?:page|seite|pág\.?|p\.)\s*)?(?:\d{1,5}|[ivxlcdm]{1,7})(?:\s*(?:/|of|von|de)\s*\d{1,5})?\s*[\-–—\])]?$`)

// isPageNumber reports whether line is a page number alone.
func isPageNumber(line string) bool {
	return len(line) <= 24 && pageNumber.MatchString(line) && (hasDigit(line) || isRoman(strings.Trim(line, "-–—[]() ")))
}

// hasDigit reports whether s holds an ASCII digit.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// isRoman reports whether w is a lowercase or uppercase roman numeral as
// front matter is numbered with (i … mmm), not a word: "mix", "dim",
// "civil" are not.
func isRoman(w string) bool {
	if w == "" || len(w) > 9 {
		return false
	}
	lw := strings.ToLower(w)
	if w != lw && w != strings.ToUpper(w) {
		return false
	}
	return romanNumeral.MatchString(lw)
}

// romanNumeral matches a well-formed roman numeral below 4000.
var romanNumeral = regexp.MustCompile(`^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$`)

// tocLeader matches a table-of-contents entry: its title, a leader of
// at least three dots (spaced or not, or ellipses), and the page number.
var tocLeader = regexp.MustCompile(`^(.*?\S)\s*(?:(?:\.\s*){3,}|(?:…\s*)+)(\d{1,5}|[ivxlcdmIVXLCDM]{1,7})$`)

// tocEntry returns the title of a table-of-contents line ("2.1
// Variations on read.table . . . . . 8" → "2.1 Variations on
// read.table") and true, or "" and false for any other line.
func tocEntry(line string) (string, bool) {
	m := tocLeader.FindStringSubmatch(line)
	if m == nil || !hasDigit(m[2]) && !isRoman(m[2]) {
		return "", false
	}
	return strings.TrimRight(m[1], " ."), true
}

// indexHeading matches the heading of a back-of-the-book index: "Index",
// "INDEX", "Concept Index", "Function and Variable Index" (not "Build
// the index").
var indexHeading = regexp.MustCompile(`^(?:(?:\p{Lu}\pL*|and|of) ){0,3}(?:Index|INDEX)$`)

// indexEntryLine matches an index entry: a term of at most 80 bytes, a
// comma, spaces or a dot leader, then page numbers ("attach, 34",
// "as.vector . . . 12", "options 5, 17–19").
var indexEntryLine = regexp.MustCompile(`^\S.{0,79}?(?:,\s*|\s+|\s*(?:\.\s*){3,})(?:\d{1,5}|[ivxlc]{1,7})(?:\s*[,–-]\s*\d{1,5})*$`)

// isIndexEntry reports whether line is an entry of a back-of-the-book
// index or one of its letter headings ("A", "Symbols").
func isIndexEntry(line string) bool {
	return utf8.RuneCountInString(line) == 1 || line == "Symbols" || indexEntryLine.MatchString(line)
}

package extract

import (
	"slices"
	"strings"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// PDFium gives a page's text in the order it was drawn, and a browser
// does not always draw in reading order: Chromium's "Save as PDF" paints
// a block with its own layer (a code example of `overflow: auto`) after
// the text around it, so each example's lines come a few lines after
// their place — the same words in another order, which shingles count as
// different text. readPageText puts each line back where it stands on
// the page: a line is moved up past the lines drawn before it that lie
// wholly below it in the same column (their widths overlap). Lines side
// by side — the columns of a two-column page, the cells of a table row —
// never overlap in width, so they keep the order they were drawn in (a
// table is read cell by cell, as before), and a page drawn in reading
// order, as LibreOffice, TeX and the others draw, is unchanged.

// textLine is one line of a page's text and its box (points, y up);
// placed is false for a line without a box (an empty line), which moves
// no other line past it.
type textLine struct {
	text                     string
	left, top, right, bottom float64
	placed                   bool
}

// readPageText returns the text of page i of doc, its lines in reading
// order (see above), one a line. When PDFium's text does not have one
// character per character index (which the lines' boxes are read by),
// the page's text is returned as drawn.
func readPageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (string, error) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: page})
	if err != nil {
		return "", err
	}
	defer inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage}) //nolint:errcheck // nothing to do about it
	n, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return "", err
	}
	if n.Count <= 0 {
		return "", nil
	}
	txt, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, StartIndex: 0, Count: n.Count})
	if err != nil {
		return "", err
	}
	// FPDFText_GetText writes U+FFFE where the character-by-character
	// reading (FPDFText_GetUnicode) gives 2, PDFium's mark of a hyphen it
	// took out at a line's end (see pageLines).
	text := strings.ReplaceAll(txt.Text, "\uFFFE", "\x02")
	runes := []rune(text)
	if len(runes) != n.Count || !strings.Contains(text, "\n") {
		return text, nil
	}
	var lines []textLine
	for start := 0; start <= len(runes); {
		end := start
		for end < len(runes) && runes[end] != '\n' {
			end++
		}
		stop := end
		if stop > start && runes[stop-1] == '\r' {
			stop--
		}
		l := textLine{text: string(runes[start:stop])}
		if stop > start {
			lineBox(inst, tp.TextPage, start, stop-start, &l)
		}
		lines = append(lines, l)
		start = end + 1
	}
	var b strings.Builder
	for k, l := range readingOrder(lines) {
		if k > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.text)
	}
	return b.String(), nil
}

// lineBox sets l's box to the union of the rectangles PDFium gives for
// the count characters from start (placed: false if none).
func lineBox(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, start, count int, l *textLine) {
	rc, err := inst.FPDFText_CountRects(&requests.FPDFText_CountRects{TextPage: tp, StartIndex: start, Count: count})
	if err != nil || rc.Count <= 0 {
		return
	}
	for j := range rc.Count {
		r, err := inst.FPDFText_GetRect(&requests.FPDFText_GetRect{TextPage: tp, Index: j})
		if err != nil || r.Right <= r.Left || r.Top <= r.Bottom {
			continue
		}
		if !l.placed {
			l.left, l.top, l.right, l.bottom, l.placed = r.Left, r.Top, r.Right, r.Bottom, true
			continue
		}
		l.left, l.top = min(l.left, r.Left), max(l.top, r.Top)
		l.right, l.bottom = max(l.right, r.Right), min(l.bottom, r.Bottom)
	}
}

// readingOrder returns lines with each line moved up past the lines
// before it that lie wholly below it in its column (see above); then the
// line above every other line of the page (a running header drawn after
// the text, in the margin, where no column is) goes first, and the line
// below every other last.
func readingOrder(lines []textLine) []textLine {
	out := make([]textLine, 0, len(lines))
	for _, l := range lines {
		at := len(out)
		if l.placed {
			for at > 0 && out[at-1].placed && under(out[at-1], l) {
				at--
			}
		}
		out = slices.Insert(out, at, l)
	}
	if i := topmost(out); i > 0 {
		l := out[i]
		out = slices.Insert(slices.Delete(out, i, i+1), 0, l)
	}
	return out
}

// topmost returns the index of the placed line that lies above every
// other placed line of lines, -1 if none does.
func topmost(lines []textLine) int {
	top := -1
	for i, l := range lines {
		if l.placed && (top < 0 || l.top > lines[top].top) {
			top = i
		}
	}
	if top < 0 {
		return -1
	}
	for i, l := range lines {
		if i != top && l.placed && !above(lines[top], l) {
			return -1
		}
	}
	return top
}

// above reports whether line a lies wholly above line b (their boxes
// may touch by a quarter of the lower line's height), whatever their
// widths.
func above(a, b textLine) bool {
	h := min(a.top-a.bottom, b.top-b.bottom)
	return b.top <= a.bottom+h/4 && b.bottom < a.bottom
}

// under reports whether line a lies below line b in b's column: their
// widths overlap, and a's top is below b's bottom, or above it by less
// than a quarter of the lower line's height (boxes of adjacent lines may
// touch).
func under(a, b textLine) bool {
	if a.right <= b.left || b.right <= a.left {
		return false // side by side: another column, another cell
	}
	return above(b, a)
}

package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/text/unicode/norm"

	"github.com/doppel-search/doppel/internal/tokens"
)

// PDFs are read by PDFium (the PDF engine of Chromium), compiled to
// WebAssembly and run by wazero: pure Go, sandboxed — a hostile file can
// at worst make an instance fail — and with the text layout of a
// browser. The pool is made on first use (about 2 s to compile PDFium;
// the compiled code is cached in the user's cache directory, so later
// processes start in a fraction of that) and kept for the process.
var pdfPool struct {
	once  sync.Once
	pool  pdfium.Pool
	err   error
	limit int64 // each instance's memory limit: Limits.MaxMemory of the first PDF read
}

// pdfInstance returns a PDFium instance from the pool; close it when
// done.
func pdfInstance(lim Limits) (pdfium.Pdfium, error) {
	pdfPool.once.Do(func() {
		// PDFium needs WebAssembly's exception handling besides the core
		// features (as go-pdfium's default configuration has it). Its
		// module declares a memory of at most 2 GiB. The runtime's own
		// limit (WithMemoryLimitPages) is left there: a growth it refuses
		// is refused unseen, while the allocator refuses one past
		// MaxMemory where it is counted, and so reported (wasmmem.go).
		rc := wazero.NewRuntimeConfig().WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
		pdfPool.limit = lim.MaxMemory
		if dir, err := os.UserCacheDir(); err == nil {
			if cache, err := wazero.NewCompilationCacheWithDir(filepath.Join(dir, "doppel", "wazero")); err == nil {
				rc = rc.WithCompilationCache(cache)
			}
		}
		// An instance is closed after each document (go-pdfium reuses no
		// worker), and its memory unmapped then (wasmAllocator).
		ctx := experimental.WithMemoryAllocator(context.Background(), wasmAllocator{limit: uint64(lim.MaxMemory)})
		pdfPool.pool, pdfPool.err = webassembly.Init(webassembly.Config{Context: ctx, MinIdle: 0, MaxIdle: 2, MaxTotal: 2, RuntimeConfig: rc})
	})
	if pdfPool.err != nil {
		return nil, pdfPool.err
	}
	return pdfPool.pool.GetInstance(time.Minute)
}

// readPDF reads a PDF's title and modification date (its Info
// dictionary) and its text, page by page, then leaves out what the
// layout added (running headers and footers, page numbers, table of
// contents leaders: stripFurniture) and joins lines into blocks (a block
// ends at a blank line or a short line, and may go on over a page
// break; a word hyphenated at a line's end is joined again).
func readPDF(r *run, body []byte) (err error) {
	inst, err := pdfInstance(r.lim)
	if err != nil {
		return fail(PDF, "no PDF reader: %v", err)
	}
	defer inst.Close()
	// A memory that grew to its limit during this reading (or, rarely, a
	// reading beside it) refuses the document, whatever PDFium made of
	// the allocations that failed.
	hits := memoryHits.Load()
	defer func() {
		if memoryHits.Load() != hits {
			err = fail(PDF, "memory limit: PDFium needed more than %d MiB", pdfPool.limit>>20)
		}
	}()
	doc, err := inst.OpenDocument(&requests.OpenDocument{File: &body})
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return fail(PDF, "encrypted")
	case err != nil:
		return fail(PDF, "malformed: %v", err)
	}
	defer inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	meta := func(tag string) string {
		m, err := inst.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc.Document, Tag: tag})
		if err != nil {
			return ""
		}
		return m.Value
	}
	r.title(meta("Title"))
	if r.doc.Modified = pdfDate(meta("ModDate")); r.doc.Modified.IsZero() {
		r.doc.Modified = pdfDate(meta("CreationDate"))
	}
	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return fail(PDF, "malformed: %v", err)
	}
	// The pages are read whole before any is laid out: a running header
	// is known by its repetition. What is held is bounded as the text
	// kept is (MaxText, counted on the lines as read).
	var pages [][]string
	read := 0
	for i := 0; i < count.PageCount && r.page(); i++ {
		txt, err := readPageText(inst, doc.Document, i)
		if err != nil {
			return fail(PDF, "malformed: page %d: %v", i+1, err)
		}
		lines := pageLines(txt)
		pages = append(pages, lines)
		for _, l := range lines {
			read += len(l)
		}
		if read > r.lim.MaxText {
			r.doc.Cut = true
			break
		}
	}
	layOut(r, stripFurniture(pages, r.doc.Title))
	r.finish()
	return nil
}

// pageLines returns the lines of a page's text, trimmed, accents drawn
// before their letter put on it. PDFium marks a hyphen it found at a
// line's end, the line break taken out, with U+0002 ("re\x02usable"):
// the line is broken there again after the hyphen ("re-", "usable"), so
// that a line is as wide as it was printed — two lines in one would be
// the page's longest, and make every other line look short (layOut) —
// and joinLine joins the word ("reusable", "Firmware-Dateien"). A form
// feed breaks a line.
func pageLines(text string) []string {
	text = strings.ReplaceAll(composeAccents(text), "\x02", "-\n")
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\f", "\n").Replace(text)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// printedLink matches a link target a PDF prints after the link's text,
// in parentheses, where a web page has it in the link ("RODBC
// (https://CRAN.R-project.org/package=RODBC)", as Texinfo and browsers'
// print styles write it), its line break, if any, joined to a space.
var printedLink = regexp.MustCompile(`\s*\((?:https?|ftp)://[^\s()]+(?: [^\s()]+)?\)`)

// layOut adds the pages' lines to r as blocks, until r is full. A line
// much shorter than its page's longest (a heading, a paragraph's last
// line) or a blank line ends a block; a page's last block goes on with
// the next page's first line. Between CJK letters, written without
// spaces, a line is measured against the next line instead (see
// wrapsCJK). Printed link targets are left out (printedLink).
func layOut(r *run, pages [][]string) {
	block := func(s string) bool {
		if strings.Contains(s, "://") {
			s = printedLink.ReplaceAllString(s, "")
		}
		return r.block(s)
	}
	var para strings.Builder
	for _, lines := range pages {
		longest := 0
		for _, l := range lines {
			longest = max(longest, utf8.RuneCountInString(l))
		}
		for i, line := range lines {
			if line != "" {
				joinLine(&para, line)
			}
			short := utf8.RuneCountInString(line) < longest*6/10
			if i+1 < len(lines) && wrapsCJK(line, lines[i+1]) {
				short = false
			}
			if line == "" || short {
				if !block(para.String()) {
					return
				}
				para.Reset()
			}
		}
	}
	block(para.String())
}

// wrapsCJK reports whether line, ending in a CJK letter, goes on in next,
// beginning with one: a sentence of Chinese or Japanese ends in a stop
// (。), so a line ending in a letter is wrapped where it was full, in a
// paragraph as wide as the page or in a table's narrow cell alike, unless
// it is much narrower than next (a heading before its paragraph). Widths
// are in columns, a CJK character two: a full line of Japanese holds
// half the characters of a full line of English, so a page's longest
// line (often Latin) would make every line of a CJK paragraph look short
// and break it into lines, each break losing the bigram across it. A
// heading about as wide as the line after it is joined to it (one bigram
// too many); measured against the page's widest line instead, a
// table's narrow cells and notes stay broken line by line, and the
// Japanese and Chinese PDFs of the documents intranet resemble their
// DOCX 0.82–0.89 instead of 0.91–0.97 (docs/measurements.md).
func wrapsCJK(line, next string) bool {
	last, _ := utf8.DecodeLastRuneInString(line)
	first, _ := utf8.DecodeRuneInString(next)
	if !isWide(last) || !isWide(first) || !unicode.IsLetter(last) || !unicode.IsLetter(first) {
		return false
	}
	return columns(line) >= columns(next)*6/10
}

// columns returns the width of s in columns: two for a CJK character
// (isWide) or a fullwidth form, one for any other.
func columns(s string) int {
	n := 0
	for _, r := range s {
		if isWide(r) || r >= 0xFF00 && r <= 0xFFEF {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// spacingAccents maps the spacing accents TeX and others draw before a
// letter to the combining marks they stand for.
var spacingAccents = map[rune]rune{
	'\u00A8': '\u0308', '\u00B4': '\u0301', '`': '\u0300', '\u02C6': '\u0302', '\u02DC': '\u0303',
	'\u00B8': '\u0327', '\u02C7': '\u030C', '\u02DA': '\u030A', '\u02D8': '\u0306', '\u02DD': '\u030B',
}

// composeAccents puts a spacing accent drawn before a letter on the
// letter ("M¨oller" → "Möller"), as a text layout of the page shows it.
// A grave accent is the ASCII backtick too, which opens a command in
// code ("`xslt-config --libs`"): it is put on a letter only inside a
// word ("cr`eme").
func composeAccents(s string) string {
	if !strings.ContainsAny(s, "\u00A8\u00B4`\u02C6\u02DC\u00B8\u02C7\u02DA\u02D8\u02DD") {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		if mark, ok := spacingAccents[rs[i]]; ok && i+1 < len(rs) && unicode.IsLetter(rs[i+1]) && (rs[i] != '`' || i > 0 && unicode.IsLetter(rs[i-1])) {
			b.WriteRune(rs[i+1])
			b.WriteRune(mark)
			i++
			continue
		}
		b.WriteRune(rs[i])
	}
	return norm.NFC.String(b.String())
}

// joinLine appends a line to a paragraph: after a space, or without the
// hyphen when the paragraph ends with a letter and a hyphen and the line
// starts with a lowercase letter ("docu-" "ment"), or with the hyphen and
// no space when it starts with a capital ("Firmware-" "Dateien"). CJK text, written
// without spaces, is joined without one.
func joinLine(para *strings.Builder, line string) {
	s := para.String()
	if s == "" {
		para.WriteString(line)
		return
	}
	first := []rune(line)[0]
	last := []rune(s[max(0, len(s)-8):])
	end := last[len(last)-1]
	switch {
	case end == '-' && len(last) >= 2 && unicode.IsLetter(last[len(last)-2]) && unicode.IsLower(first):
		para.Reset()
		para.WriteString(s[:len(s)-1])
	case end == '-' && len(last) >= 2 && unicode.IsLetter(last[len(last)-2]) && unicode.IsUpper(first):
		// a compound broken at its hyphen ("Firmware-" "Dateien")
	case isWide(end) && isWide(first):
	default:
		para.WriteByte(' ')
	}
	para.WriteString(line)
}

// isWide reports whether r belongs to a script written without spaces
// between words: the tokenizer's CJK characters but Hangul, which is
// written with spaces, and the CJK punctuation (、。「」).
func isWide(r rune) bool {
	return tokens.IsCJK(r) && !unicode.Is(unicode.Hangul, r) || r >= 0x3000 && r <= 0x303F
}

// pdfDate parses a PDF date ("D:20240131120000+01'00'", or a prefix of
// it down to the year); zero if unreadable.
func pdfDate(s string) time.Time {
	s = strings.TrimPrefix(strings.TrimSpace(s), "D:")
	s = strings.ReplaceAll(s, "'", "")
	for _, layout := range []string{"20060102150405-0700", "20060102150405Z", "20060102150405", "200601021504", "2006010215", "20060102", "200601", "2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	if len(s) >= 14 {
		if t, err := time.Parse("20060102150405", s[:14]); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

package hook

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/features"
)

// twinVocabulary is the words of the made-up manual.
var twinVocabulary = strings.Fields(`the a of to and in for with on by from server client connection network account
password gateway portal certificate configuration settings manual chapter section printer queue backup archive
restore schedule report quarterly budget department employee contract invoice payment approval request ticket
support helpdesk install update upgrade release version package library module function parameter variable
default option value file folder directory path permission group user administrator security policy audit
documentation meeting calendar room booking travel expense receipt reimbursement holiday leave sickness training
course workshop presentation slides spreadsheet database query table column index record export import format
encoding character language translation terminal command shell script process memory storage disk volume
partition mount network interface address route firewall proxy domain mailbox message attachment signature`)

// manual returns the sections of a made-up manual: titles and paragraphs
// of words, the same for the same seed.
func manual(seed uint64, sections int) (titles []string, paras [][]string) {
	r := rand.New(rand.NewPCG(seed, 11))
	word := func() string { return twinVocabulary[r.IntN(len(twinVocabulary))] }
	for s := range sections {
		titles = append(titles, fmt.Sprintf("%d %s %s", s+1, strings.ToUpper(word()[:1])+word()[1:], word()))
		var ps []string
		for range 4 {
			var b strings.Builder
			for i := range 70 + r.IntN(40) {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(word())
				if i%13 == 12 {
					b.WriteString(".")
				}
			}
			ps = append(ps, b.String()+".")
		}
		paras = append(paras, ps)
	}
	return titles, paras
}

// manualHTML writes the manual as one page, as Texinfo does: a table of
// contents, and above every section a line of navigation links; a link
// to the portal in the text.
func manualHTML(titles []string, paras [][]string) []byte {
	var b bytes.Buffer
	b.WriteString(`<html><head><title>Working remotely</title></head><body><h1>Working remotely</h1><h2>Table of Contents</h2><ul>`)
	for _, t := range titles {
		fmt.Fprintf(&b, "<li><a href=\"#s\">%s</a></li>", t)
	}
	b.WriteString("</ul>")
	for i, t := range titles {
		fmt.Fprintf(&b, `<div class="header"><p>Next: <a href="s%d.html" rel="next">%s</a>, Previous: <a href="s%d.html" rel="prev">%s</a>, Up: <a href="top.html" rel="up">Working remotely</a> [<a href="toc.html" rel="contents">Contents</a>]</p></div>`,
			i+1, titles[(i+1)%len(titles)], i, titles[(i+len(titles)-1)%len(titles)])
		fmt.Fprintf(&b, "<h3>%s</h3>", t)
		for j, p := range paras[i] {
			if j == 1 {
				p = `See <a href="https://portal.example/vpn">the portal</a> first. ` + p
			}
			fmt.Fprintf(&b, "<p>%s</p>", p)
		}
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

// manualPDF lays the manual out as a PDF of pages of 40 lines of at most
// 90 characters: a table of contents with dot leaders and page numbers,
// a running header (the book and the section, the page number) and a
// footer ("Page N of M") on every page, long words hyphenated at the
// line's end, the portal link's target printed after its text, and an
// index at the end.
func manualPDF(titles []string, paras [][]string) []byte {
	var lines []string
	lines = append(lines, "Working remotely", "", "Table of Contents")
	for i, t := range titles {
		lines = append(lines, fmt.Sprintf("%s %s %d", t, strings.Repeat(". ", 30-len(t)/2), 2+i))
	}
	section := make([]int, len(lines)) // the section of each line, for its page's header
	for i, t := range titles {
		lines = append(lines, "", t)
		for j, p := range paras[i] {
			if j == 1 {
				p = "See the portal (https://portal.example/vpn) first. " + p
			}
			lines = append(lines, wrap(p, 90)...)
		}
		for len(section) < len(lines) {
			section = append(section, i)
		}
	}
	// An index: the words of the first paragraph of every section,
	// each with the section's page.
	lines = append(lines, "", "Index")
	for i := range titles {
		for _, w := range strings.Fields(paras[i][0])[:24] {
			lines = append(lines, fmt.Sprintf("%s, %d", strings.Trim(w, "."), 2+i))
		}
	}
	for len(section) < len(lines) {
		section = append(section, len(titles)-1)
	}
	const perPage = 40
	var pages [][]string
	for start := 0; start < len(lines); start += perPage {
		pages = append(pages, lines[start:min(start+perPage, len(lines))])
	}
	for i := range pages {
		s := titles[section[min(i*perPage, len(section)-1)]]
		pages[i] = append(append([]string{fmt.Sprintf("Working remotely - %s %d", s[strings.Index(s, " ")+1:], i+1)}, pages[i]...),
			fmt.Sprintf("Page %d of %d", i+1, len(pages)))
	}
	return pdfOf(pages)
}

// wrap cuts text into lines of at most width bytes, hyphenating a word
// of 8 letters or more that does not fit after its fourth letter.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		case len(w) >= 8 && len(line)+6 <= width:
			lines = append(lines, line+" "+w[:4]+"-")
			line = w[4:]
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

// pdfOf writes a PDF of the pages' lines in Helvetica, 11 points on 14.
func pdfOf(pages [][]string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`)
	for i, lines := range pages {
		var c strings.Builder
		c.WriteString("BT /F1 11 Tf 14 TL 50 770 Td\n")
		for _, l := range lines {
			fmt.Fprintf(&c, "(%s) Tj T*\n", esc.Replace(l))
		}
		c.WriteString("ET")
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// resemblance is the detector's: word 5-shingles of the texts, dates
// left out.
func resemblance(t *testing.T, a, b string) float64 {
	ext, err := features.New(dedup.Web().Terms)
	if err != nil {
		t.Fatal(err)
	}
	set := func(s string) []uint64 {
		return features.Set(features.Shingles(ext.FilterTokens(features.Tokens(s)), 5))
	}
	return features.Resemblance(set(a), set(b))
}

// TestPageAndItsPDF: a manual as one HTML page (navigation lines above
// each section) and as a PDF laid out from the same text (running
// headers and footers, page numbers, a table of contents with leaders,
// hyphenated line ends, printed link targets) are one cluster with the
// page as master, whichever is read first; the PDF's furniture is gone
// from its text. A PDF of the book that holds the manual's text as one
// chapter of three is not merged with the page, nor with the manual's
// PDF.
func TestPageAndItsPDF(t *testing.T) {
	titles, paras := manual(1, 8)
	html := manualHTML(titles, paras)
	pdf := manualPDF(titles, paras)
	t1, p1 := manual(2, 8)
	t3, p3 := manual(3, 8)
	book := manualPDF(append(append(append([]string{}, t1...), titles...), t3...), append(append(append([][]string{}, p1...), paras...), p3...))

	const pageURL, pdfURL, bookURL = "http://intra.example/manual.html", "http://intra.example/files/manual.pdf", "http://intra.example/files/book.pdf"
	h0, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	pp, err := h0.Parse(pageURL, header("text/html"), html)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := h0.Parse(pdfURL, header("application/pdf"), pdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, furniture := range []string{"Page 3 of", "Working remotely - ", "https://portal.example", ". . .", "Next:"} {
		if strings.Contains(pd.Text, furniture) || strings.Contains(pp.Text, furniture) {
			t.Errorf("%q left in the texts compared", furniture)
		}
	}
	r := resemblance(t, pp.Text, pd.Text)
	// With its furniture and its index left out (crawler/extract) the PDF
	// reads as the page does; containment joins what little is left.
	t.Logf("resemblance of the page and its PDF %.3f", r)
	for _, order := range [][]string{{pageURL, pdfURL, bookURL}, {pdfURL, bookURL, pageURL}, {bookURL, pdfURL, pageURL}} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			h, err := New(Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Page{}
			for _, u := range order {
				body, ctype := html, "text/html"
				switch u {
				case pdfURL:
					body, ctype = pdf, "application/pdf"
				case bookURL:
					body, ctype = book, "application/pdf"
				}
				p, err := h.Process(context.Background(), u, header(ctype), body, nil)
				if err != nil {
					t.Fatal(err)
				}
				got[u] = p
			}
			clusters := h.Detector().Clusters()
			masterOf := map[string]string{}
			for _, c := range clusters {
				for _, m := range c.Members {
					masterOf[m.ID] = c.Master.ID
				}
			}
			if masterOf[pdfURL] != pageURL || masterOf[pageURL] != pageURL {
				t.Errorf("masters: the PDF's %q, the page's %q; want the page", masterOf[pdfURL], masterOf[pageURL])
			}
			if masterOf[bookURL] != bookURL {
				t.Errorf("the book is in the cluster of %q, want its own", masterOf[bookURL])
			}
			if len(clusters) != 2 {
				t.Errorf("%d clusters, want 2", len(clusters))
			}
		})
	}
}

package extract

import (
	"errors"
	"flag"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var large = flag.Bool("large", false, "TestDeterministic: read R's reference manual (6.5 MB, 2000 pages; /usr/share/R/doc/manual/refman.pdf) instead of the small test PDF")

// TestStripFurniture: running headers and footers (numbers aside, the
// same line at the same edge of two pages) and bare page numbers leave;
// lines that repeat elsewhere, or only once at an edge, stay; table of
// contents entries lose their leaders and page numbers.
func TestStripFurniture(t *testing.T) {
	for _, c := range []struct {
		name  string
		pages [][]string
		want  [][]string
	}{{
		name: "running header with page number, chapter start with bare number",
		pages: [][]string{
			{"8", "2 Spreadsheet-like data", "In this section we consider importing such files."},
			{"Chapter 2: Spreadsheet-like data 9", "If a separator character is specified, quotes can be escaped."},
			{"Chapter 2: Spreadsheet-like data 10", "Many OSes have conventions for escapes."},
		},
		want: [][]string{
			{"2 Spreadsheet-like data", "In this section we consider importing such files."},
			{"If a separator character is specified, quotes can be escaped."},
			{"Many OSes have conventions for escapes."},
		},
	}, {
		name: "footer of two lines, the inner one repeats only behind the outer",
		pages: [][]string{
			{"Body one.", "More.", "", "Annual report 2024", "Page 1 of 3"},
			{"Body two.", "More.", "Annual report 2024", "Page 2 of 3"},
			{"Body three.", "More.", "Annual report 2024", "- 3 -"},
		},
		want: [][]string{{"Body one.", "More.", ""}, {"Body two.", "More."}, {"Body three.", "More."}},
	}, {
		name: "an edge line that does not repeat stays, and so does what is behind it",
		pages: [][]string{
			{"Introduction", "Body one."},
			{"Methods", "Body two."},
		},
		want: [][]string{{"Introduction", "Body one."}, {"Methods", "Body two."}},
	}, {
		name: "a repeated line in the middle of pages stays",
		pages: [][]string{
			{"Top one", "x <- 1", "a", "b", "c", "d", "Bottom one"},
			{"Top two", "x <- 1", "e", "f", "g", "h", "Bottom two"},
		},
		want: [][]string{
			{"Top one", "x <- 1", "a", "b", "c", "d", "Bottom one"},
			{"Top two", "x <- 1", "e", "f", "g", "h", "Bottom two"},
		},
	}, {
		name: "headers that end with the page's number, chapters of one page",
		pages: [][]string{
			{"Chapter 1: Introduction 5", "Body one.", "Ends one."},
			{"Chapter 1: Introduction 6", "Body two.", "Ends two."},
			{"Chapter 2: Methods 7", "Body three.", "Ends three."},
			{"8 Chapter 3: Results", "Body four.", "Ends four."},
		},
		want: [][]string{{"Body one.", "Ends one."}, {"Body two.", "Ends two."}, {"Body three.", "Ends three."}, {"Body four.", "Ends four."}},
	}, {
		name: "numbers at the edges that do not follow the pages stay",
		pages: [][]string{
			{"Revenue rose 12", "Body one.", "Ends one."},
			{"Costs fell by 40", "Body two.", "Ends two."},
			{"Margins were 3", "Body three.", "Ends three."},
			{"Staff grew by 9", "Body four.", "Ends four."},
		},
		want: [][]string{
			{"Revenue rose 12", "Body one.", "Ends one."},
			{"Costs fell by 40", "Body two.", "Ends two."},
			{"Margins were 3", "Body three.", "Ends three."},
			{"Staff grew by 9", "Body four.", "Ends four."},
		},
	}, {
		name:  "one page keeps its edges but its number, 1",
		pages: [][]string{{"Memo", "Text of the memo.", "Page 1 of 1", ""}},
		want:  [][]string{{"Memo", "Text of the memo.", ""}},
	}, {
		name:  "one page keeps another number at its edge",
		pages: [][]string{{"Memo", "Text of the memo.", "7"}},
		want:  [][]string{{"Memo", "Text of the memo.", "7"}},
	}, {
		name: "roman page numbers of the front matter, table of contents",
		pages: [][]string{
			{"Table of Contents", "Acknowledgements . . . . . . . . . 1", "1 Introduction . . . . . . 3", "i"},
			{"1.1 Imports. . . . . . . . 3", "Appendix A References ……… 35", "ii"},
		},
		want: [][]string{
			{"Table of Contents", "Acknowledgements", "1 Introduction"},
			{"1.1 Imports", "Appendix A References"},
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			got := stripFurniture(c.pages, "")
			if !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Errorf("stripFurniture:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestPageNumberAndTOC(t *testing.T) {
	for _, c := range []struct {
		line string
		page bool
	}{
		{"7", true}, {"- 7 -", true}, {"[12]", true}, {"iv", true}, {"XII", true}, {"Page 7 of 20", true},
		{"page 3", true}, {"7 / 20", true}, {"Seite 4", true},
		{"Introduction", false}, {"I think so.", false}, {"2024 results", false}, {"civil", false}, {"Mix", false}, {"", false},
	} {
		if got := isPageNumber(c.line); got != c.page {
			t.Errorf("isPageNumber(%q) = %v, want %v", c.line, got, c.page)
		}
	}
	for _, c := range []struct{ line, entry string }{
		{"2.3 Data Interchange Format (DIF). . . . . . . . 11", "2.3 Data Interchange Format (DIF)"},
		{"Preface ..........  vii", "Preface"},
		{"see section 3 ... 4", "see section 3"},
		{"Wait... and see", ""},
		{"Total . . . . amount", ""},
		{"1 Introduction", ""},
	} {
		got, ok := tocEntry(c.line)
		if got != c.entry || ok != (c.entry != "") {
			t.Errorf("tocEntry(%q) = %q %v, want %q", c.line, got, ok, c.entry)
		}
	}
}

// TestPageLines: PDFium's mark of a hyphen it took out at a line's end
// (U+0002) breaks the line again after a hyphen, and the laid-out text
// joins the word (a lowercase word without the hyphen, a compound with a
// capital with it); the lines stay as wide as printed, so the paragraph
// around such a line stays one block. Form feeds and CR LF break lines.
func TestPageLines(t *testing.T) {
	got := pageLines("small re\x02usable tools\r\n  indented \fnext page\rlast")
	want := []string{"small re-", "usable tools", "indented", "next page", "last"}
	if !slices.Equal(got, want) {
		t.Errorf("pageLines = %q, want %q", got, want)
	}
	for _, c := range []struct{ name, text, want string }{
		{"a word", "Unter Debian sind Umstände, die eine komplette Neu\x02installation notwendig machen, äußerst selten; ein\r\nmechanisches Versagen der Festplatte wäre vielleicht\r\nder häufigste Grund.",
			"Unter Debian sind Umstände, die eine komplette Neuinstallation notwendig machen, äußerst selten; ein mechanisches Versagen der Festplatte wäre vielleicht der häufigste Grund."},
		{"a compound", "3. Die Installations-Software und spezielle Treiber- oder Firmware\x02Dateien, die unter Umständen von Ihrer Hardware\r\nbenötigt werden, als ersten Schritt zu installieren,\r\ndann den Rest.",
			"3. Die Installations-Software und spezielle Treiber- oder Firmware-Dateien, die unter Umständen von Ihrer Hardware benötigt werden, als ersten Schritt zu installieren, dann den Rest."},
	} {
		r := newRun(PDF, *(&Limits{}).EnsureDefaults())
		layOut(r, [][]string{pageLines(c.text)})
		if got := strings.Join(r.doc.Blocks, "|"); got != c.want {
			t.Errorf("%s: blocks %q, want %q", c.name, got, c.want)
		}
	}
}

// TestBlockSoftHyphens: a soft hyphen (U+00AD) leaves the word whole,
// a form feed is white space.
func TestBlockSoftHyphens(t *testing.T) {
	r := newRun(DOCX, *(&Limits{}).EnsureDefaults())
	r.block("re\u00adusable\fparts")
	if want := []string{"reusable parts"}; !slices.Equal(r.doc.Blocks, want) {
		t.Errorf("blocks %q, want %q", r.doc.Blocks, want)
	}
}

// TestPrintedLinks: a link target printed in parentheses after the
// link's text leaves; a URL in the text stays.
func TestPrintedLinks(t *testing.T) {
	r := newRun(PDF, *(&Limits{}).EnsureDefaults())
	layOut(r, [][]string{{
		"The RODBC (https://CRAN.R-project.org/package=RODBC) package provides an interface,",
		"and so does the package called DBI (https://CRAN.R-",
		"project.org/package=DBI). See https://www.r-project.org/ for more.",
	}})
	got := strings.Join(r.doc.Blocks, "|")
	want := "The RODBC package provides an interface, and so does the package called DBI. See https://www.r-project.org/ for more."
	if got != want {
		t.Errorf("blocks %q, want %q", got, want)
	}
}

// TestDeterministic: a document's text depends on its bytes and the
// limits alone. The same PDF read twice with four goroutines burning
// every core beside it gives the same text; with a time limit too short
// to read it, the reading fails with "too slow" rather than giving the
// pages read so far. -large reads R's reference manual (cut at 2000
// pages, about 25 s a reading on an idle machine).
func TestDeterministic(t *testing.T) {
	path := "testdata/docs/apa.en.pdf"
	if *large {
		path = "/usr/share/R/doc/manual/refman.pdf"
	}
	body, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no PDF to read: %v", err)
	}
	stop := make(chan struct{})
	var burners sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		burners.Go(func() {
			x := uint64(1)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for range 1 << 16 {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
		})
	}
	var docs [2]*Document
	for i := range docs {
		if docs[i], err = Read(PDF, body, Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	burners.Wait()
	if !slices.Equal(docs[0].Blocks, docs[1].Blocks) || docs[0].Pages != docs[1].Pages || docs[0].Cut != docs[1].Cut {
		t.Fatalf("two readings differ: %d blocks of %d pages (cut %v), then %d of %d (cut %v)",
			len(docs[0].Blocks), docs[0].Pages, docs[0].Cut, len(docs[1].Blocks), docs[1].Pages, docs[1].Cut)
	}
	if len(docs[0].Blocks) == 0 {
		t.Fatal("no text read")
	}
	_, err = Read(PDF, body, Limits{Timeout: time.Nanosecond})
	var e *Error
	if !errors.As(err, &e) || !strings.HasPrefix(e.Reason, "too slow: ") {
		t.Fatalf("a time limit of 1 ns: %v, want a \"too slow\" error", err)
	}
}

// TestIndexLeftOut: a back-of-the-book index — its heading, its entries
// with their page numbers and its letter headings, over a page break —
// is left out; the text before it, a line after it that is no entry, and
// lines that merely end in a number elsewhere stay.
func TestIndexLeftOut(t *testing.T) {
	for _, c := range []struct {
		name  string
		pages [][]string
		want  [][]string
	}{
		{"an index over two pages",
			[][]string{
				{"Reading data takes 3 steps", "in version 2", "", "Concept Index", "A", "attach, 34", "as.vector . . . . 12"},
				{"options 5, 17–19", "read.table, iv", "", "Colophon: set in Times"},
			},
			[][]string{
				{"Reading data takes 3 steps", "in version 2", ""},
				{"Colophon: set in Times"},
			}},
		{"no index heading",
			[][]string{{"attach, 34", "Version 2"}},
			[][]string{{"attach, 34", "Version 2"}}},
		{"the word index in a sentence",
			[][]string{{"Build the index", "then query it 3"}},
			[][]string{{"Build the index", "then query it 3"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stripFurniture(c.pages, ""); !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Errorf("stripFurniture:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestCJKWrappedLines: a line of Chinese or Japanese that ends in a
// letter goes on in the next line beginning with one, however short it
// is against the page's longest (Latin) line — in a paragraph or a
// table's narrow cell — so no bigram is lost across the break; a heading
// much narrower than its paragraph, a line ending in a stop (。) and
// Latin lines keep the page's rule.
func TestCJKWrappedLines(t *testing.T) {
	long := "Despite my warnings above, I know many readers of this document may wish."
	for _, c := range []struct {
		name  string
		lines []string
		want  []string
	}{{
		name:  "paragraph wrapped in a full line",
		lines: []string{long, "", "システム管理者による手動の設定は尊重されます。言い換えれば、パッケージ設", "定システムは利便性のために勝手な設定をしません。"},
		want:  []string{long, "システム管理者による手動の設定は尊重されます。言い換えれば、パッケージ設定システムは利便性のために勝手な設定をしません。"},
	}, {
		name:  "narrow cell",
		lines: []string{long, "", "自動インストー", "ルを可能にする", "first of the next paragraph"},
		want:  []string{long, "自動インストールを可能にする", "first of the next paragraph"},
	}, {
		name:  "heading before its paragraph",
		lines: []string{long, "", "[警告] 警告", "ランダムな混合のスイーツからパッケージをインストールしてはいけません"},
		want:  []string{long, "[警告] 警告", "ランダムな混合のスイーツからパッケージをインストールしてはいけません"},
	}, {
		name:  "a stop ends the sentence",
		lines: []string{long, "", "破壊されます。", "初心者の Debian システム管理者"},
		want:  []string{long, "破壊されます。", "初心者の Debian システム管理者"},
	}, {
		name:  "Latin lines keep the page's rule",
		lines: []string{long, "", "a short line", "another one"},
		want:  []string{long, "a short line", "another one"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			r := newRun(PDF, *(&Limits{}).EnsureDefaults())
			layOut(r, [][]string{c.lines})
			if !slices.Equal(r.doc.Blocks, c.want) {
				t.Errorf("blocks\n %q\nwant\n %q", r.doc.Blocks, c.want)
			}
		})
	}
}

// TestTitleAndStamp: the blocks that only repeat a document's title at
// its start (a title block, the heading, a heading wrapped over two
// lines) and a last-updated stamp at its end leave; the text stays,
// and so does a document that is only its title.
func TestTitleAndStamp(t *testing.T) {
	const title = "Everyday Git With 20 Commands Or So"
	body := "This document has been moved to giteveryday(7)."
	for _, c := range []struct {
		name   string
		title  string
		blocks []string
		want   []string
	}{
		{"title block and heading", title, []string{title, title, body, "Last updated 2024-05-31 00:35:55 UTC"}, []string{body}},
		{"heading wrapped", title, []string{title, "Everyday Git With 20 Commands", "Or So", title, body}, []string{body}},
		{"a text naming the title stays", title, []string{body, title + " is a tutorial.", "Last modified: 31/05/2024"}, []string{body, title + " is a tutorial."}},
		{"a stamp inside the text stays", title, []string{"Updated 2024-05-31", body}, []string{"Updated 2024-05-31", body}},
		{"a sentence about updates stays", title, []string{body, "Last updated when the server restarts"}, []string{body, "Last updated when the server restarts"}},
		{"only the title", title, []string{title, title}, []string{title}},
		{"no title metadata: the first block is the title and stays", "", []string{"Minutes of the meeting", body}, []string{"Minutes of the meeting", body}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRun(DOCX, *(&Limits{}).EnsureDefaults())
			r.title(c.title)
			for _, b := range c.blocks {
				r.block(b)
			}
			r.finish()
			if !slices.Equal(r.doc.Blocks, c.want) {
				t.Errorf("blocks %q, want %q", r.doc.Blocks, c.want)
			}
		})
	}
}

// TestBrowserPrintFurniture: a browser's "Save as PDF" header and footer
// (the date and time, the title, the URL, the page counter), which
// Chromium's text puts at the end of each page, leave on a document of
// one page, of a few lines and of many; a line that holds a date or a URL
// and anything but the title stays, and so does a URL inside the text.
func TestBrowserPrintFurniture(t *testing.T) {
	const title = "Installation of Requests — Requests 2.28.1 documentation"
	const url = "http://127.0.0.1:18750/requests/user/install.html"
	head := func(p string) string { return "11/28/26, 11:30 AM " + p }
	for _, c := range []struct {
		name  string
		title string
		pages [][]string
		want  [][]string
	}{{
		name:  "one page: header and footer after the text",
		title: title,
		pages: [][]string{{"Install it with pip.", "$ python -m pip install requests", head(title), url + " 1/1"}},
		want:  [][]string{{"Install it with pip.", "$ python -m pip install requests"}},
	}, {
		name:  "a page of few lines among many: the header is among its top lines",
		title: title,
		pages: [][]string{
			{"One.", "Two.", "Three.", "Four.", head(title), url + " 1/2"},
			{"Further examples can be found.", head(title), url + " 2/2"},
		},
		want: [][]string{{"One.", "Two.", "Three.", "Four."}, {"Further examples can be found."}},
	}, {
		name:  "header first, title cut with an ellipsis, other locales",
		title: title,
		pages: [][]string{{"28.11.26, 11:30 Installation of Requests — Req…", "Body.", "Page 1 of 1 28/11/2026, 11:30", url}},
		want:  [][]string{{"Body."}},
	}, {
		name:  "a running text line behind the printed footer leaves as a repeated edge",
		title: title,
		pages: [][]string{
			{"Body one.", "More.", "Annual report 2024", head(title), url + " 1/2"},
			{"Body two.", "More.", "Annual report 2024", head(title), url + " 2/2"},
		},
		want: [][]string{{"Body one.", "More."}, {"Body two.", "More."}},
	}, {
		name:  "a date and other words stay",
		title: title,
		pages: [][]string{{"Body.", "11/28/26, 11:30 AM the server was restarted"}},
		want:  [][]string{{"Body.", "11/28/26, 11:30 AM the server was restarted"}},
	}, {
		name:  "a URL in the text, and a URL with words, stay",
		title: title,
		pages: [][]string{{"See the guide at", url, "Body.", "Download it from " + url}},
		want:  [][]string{{"See the guide at", url, "Body.", "Download it from " + url}},
	}, {
		name:  "no title metadata: a header with a title stays, a URL footer leaves",
		title: "",
		pages: [][]string{{"Body.", head("Some page"), url + " 1/1"}},
		want:  [][]string{{"Body.", head("Some page")}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			if got := stripFurniture(c.pages, c.title); !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Errorf("stripFurniture:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// An archive is a zip document (Office Open XML, OpenDocument) whose
// parts are read within the run's MaxUnpacked, together.
type archive struct {
	r        *run
	zr       *zip.Reader
	unpacked int64
}

func openArchive(r *run, body []byte) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, fail(r.doc.Type, "malformed: not a zip archive: %v", err)
	}
	return &archive{r: r, zr: zr}, nil
}

// part returns the file name's bytes, nil if the archive has none. The
// bytes of every part read count against MaxUnpacked.
func (a *archive) part(name string) ([]byte, error) {
	f := a.file(name)
	if f == nil {
		return nil, nil
	}
	if f.Flags&0x1 != 0 {
		return nil, fail(a.r.doc.Type, "encrypted")
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fail(a.r.doc.Type, "malformed: %s: %v", name, err)
	}
	defer rc.Close()
	left := a.r.lim.MaxUnpacked - a.unpacked
	data, err := io.ReadAll(io.LimitReader(rc, left+1))
	a.unpacked += int64(len(data))
	switch {
	case int64(len(data)) > left:
		return nil, fail(a.r.doc.Type, "zip bomb: the parts expand beyond %d bytes", a.r.lim.MaxUnpacked)
	case err != nil:
		return nil, fail(a.r.doc.Type, "malformed: %s: %v", name, err)
	}
	return data, nil
}

func (a *archive) file(name string) *zip.File {
	for _, f := range a.zr.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// numbered returns the names of the parts prefix + N + suffix, by N.
func (a *archive) numbered(prefix, suffix string) []string {
	type part struct {
		n    int
		name string
	}
	var ps []part
	for _, f := range a.zr.File {
		num, ok := strings.CutPrefix(f.Name, prefix)
		if num, ok2 := strings.CutSuffix(num, suffix); ok && ok2 {
			if n, err := strconv.Atoi(num); err == nil {
				ps = append(ps, part{n, f.Name})
			}
		}
	}
	slices.SortFunc(ps, func(a, b part) int { return a.n - b.n })
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return names
}

// A grammar names, by local name, the XML elements that make blocks of
// text in one format.
type grammar struct {
	para  map[string]bool // elements that are a block (w:p, a:p, text:p, text:h)
	text  map[string]bool // elements whose character data is text (w:t, a:t); nil: all inside a block
	space map[string]bool // empty elements that stand for white space (w:tab, w:br, text:s, text:tab)
	// page is the element that starts a page (draw:page, table:table),
	// counted with run.page; "" if none.
	page string
}

// blocks streams the XML part data and adds its blocks to the run; false
// when the run is full. A malformed part (undefined entities included:
// the decoder expands none, so entity bombs fail here) is an error.
func (g grammar) blocks(r *run, data []byte) (bool, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var b strings.Builder
	depth, inText := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, fail(r.doc.Type, "malformed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			switch {
			case name == g.page && g.page != "":
				if !r.page() {
					return false, nil
				}
			case g.para[name]:
				depth++
			case g.text[name]:
				inText++
			case g.space[name] && depth > 0:
				b.WriteByte(' ')
			}
		case xml.EndElement:
			name := t.Name.Local
			switch {
			case g.para[name] && depth > 0:
				if depth--; depth == 0 {
					if !r.block(b.String()) {
						return false, nil
					}
					b.Reset()
				}
			case g.text[name] && inText > 0:
				inText--
			}
		case xml.CharData:
			if depth > 0 && (g.text == nil || inText > 0) {
				b.Write(t)
			}
		}
	}
}

// coreProps reads a title and a modification date from a metadata part
// (docProps/core.xml: dc:title, dcterms:modified; meta.xml: dc:title,
// dc:date).
func coreProps(r *run, data []byte) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var cur string
	for {
		tok, err := d.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			cur = t.Name.Local
		case xml.EndElement:
			cur = ""
		case xml.CharData:
			switch cur {
			case "title":
				r.title(string(t))
			case "modified", "date":
				if tm, err := time.Parse(time.RFC3339, strings.TrimSpace(string(t))); err == nil {
					r.doc.Modified = tm.UTC()
				} else if tm, err := time.Parse("2006-01-02T15:04:05", strings.TrimSpace(string(t))); err == nil {
					r.doc.Modified = tm.UTC()
				}
			}
		}
	}
}

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

var (
	wordGrammar  = grammar{para: set("p"), text: set("t"), space: set("tab", "br", "cr")}
	slideGrammar = grammar{para: set("p"), text: set("t"), space: set("br")}
	odfText      = grammar{para: set("p", "h"), space: set("s", "tab", "line-break")}
	odfSlides    = grammar{para: set("p", "h"), space: set("s", "tab", "line-break"), page: "page"}
	odfSheets    = grammar{para: set("table-row"), space: set("s", "tab", "line-break", "p"), page: "table"}
)

// readOOXML reads DOCX (word/document.xml), PPTX (ppt/slides/slideN.xml,
// a page each) and XLSX (a row of each sheet a block), with the title and
// date of docProps/core.xml.
func readOOXML(r *run, body []byte) error {
	a, err := openArchive(r, body)
	if err != nil {
		return err
	}
	if a.file("EncryptedPackage") != nil {
		return fail(r.doc.Type, "encrypted")
	}
	if core, err := a.part("docProps/core.xml"); err != nil {
		return err
	} else if core != nil {
		coreProps(r, core)
	}
	switch r.doc.Type {
	case DOCX:
		err = a.read(wordGrammar, "word/document.xml")
	case PPTX:
		err = a.read(slideGrammar, a.numbered("ppt/slides/slide", ".xml")...)
	case XLSX:
		err = readSheets(a)
	}
	if err != nil {
		return err
	}
	r.finish()
	return nil
}

// read reads the parts in order with g, each a page when there are
// several (slides).
func (a *archive) read(g grammar, names ...string) error {
	if len(names) == 0 {
		return fail(a.r.doc.Type, "malformed: no content part")
	}
	for _, name := range names {
		if len(names) > 1 && !a.r.page() {
			return nil
		}
		data, err := a.part(name)
		if err != nil {
			return err
		}
		if data == nil {
			return fail(a.r.doc.Type, "malformed: no %s", name)
		}
		if more, err := g.blocks(a.r, data); err != nil || !more {
			return err
		}
	}
	return nil
}

// readODF reads ODT, ODP (draw:page a page) and ODS (table:table a page,
// a row a block) from content.xml, with the title and date of meta.xml.
func readODF(r *run, body []byte) error {
	a, err := openArchive(r, body)
	if err != nil {
		return err
	}
	if manifest, err := a.part("META-INF/manifest.xml"); err != nil {
		return err
	} else if bytes.Contains(manifest, []byte("encryption-data")) {
		return fail(r.doc.Type, "encrypted")
	}
	if meta, err := a.part("meta.xml"); err != nil {
		return err
	} else if meta != nil {
		coreProps(r, meta)
	}
	g := map[Type]grammar{ODT: odfText, ODP: odfSlides, ODS: odfSheets}[r.doc.Type]
	if err := a.read(g, "content.xml"); err != nil {
		return err
	}
	r.finish()
	return nil
}

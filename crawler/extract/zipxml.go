package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/doppel-search/doppel/internal/safexml"
)

// An archive is a zip document (Office Open XML, OpenDocument) whose
// parts are read within the run's MaxUnpacked, together.
type archive struct {
	r        *run
	zr       *zip.Reader
	byName   map[string]*zip.File // the first member of each name
	unpacked int64
}

func openArchive(r *run, body []byte) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, fail(r.doc.Type, "malformed: not a zip archive: %v", err)
	}
	a := &archive{r: r, zr: zr, byName: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		if a.byName[f.Name] == nil {
			a.byName[f.Name] = f
		}
	}
	return a, nil
}

// open returns a reader of the part name, nil if the archive has none.
// The bytes read of every part count against MaxUnpacked, and a part
// whose declared size would take them past it is refused before it is
// read (archive/zip holds a part to its declared size: a part that
// inflates past it is an error).
func (a *archive) open(name string) (io.ReadCloser, error) {
	f := a.file(name)
	if f == nil {
		return nil, nil
	}
	if f.Flags&0x1 != 0 {
		return nil, fail(a.r.doc.Type, "encrypted")
	}
	if left := a.r.lim.MaxUnpacked - a.unpacked; f.UncompressedSize64 > uint64(left) {
		return nil, a.bomb(fmt.Sprintf("%s declares %d bytes (%d compressed)", name, f.UncompressedSize64, f.CompressedSize64))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fail(a.r.doc.Type, "malformed: %s: %v", name, err)
	}
	return &partReader{a: a, name: name, rc: rc}, nil
}

// bomb is the error of parts that expand beyond MaxUnpacked.
func (a *archive) bomb(what string) *Error {
	return fail(a.r.doc.Type, "zip bomb: the parts expand beyond %d bytes: %s", a.r.lim.MaxUnpacked, what)
}

// A partReader reads a part, counting its bytes against MaxUnpacked.
type partReader struct {
	a    *archive
	name string
	rc   io.ReadCloser
}

func (p *partReader) Read(b []byte) (int, error) {
	n, err := p.rc.Read(b)
	p.a.unpacked += int64(n)
	switch {
	case p.a.unpacked > p.a.r.lim.MaxUnpacked:
		return n, p.a.bomb(p.name)
	case err != nil && !errors.Is(err, io.EOF):
		return n, fail(p.a.r.doc.Type, "malformed: %s: %v", p.name, err)
	}
	return n, err
}

func (p *partReader) Close() error { return p.rc.Close() }

// part returns the bytes of a small part (metadata, a manifest) read
// whole, at most 1 MiB of it; nil if the archive has none.
func (a *archive) part(name string) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil || rc == nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, 1<<20))
}

// xmlDecoder returns a decoder of the XML part r (internal/safexml): a
// run of text longer than maxText, a piece of markup longer than 1 MiB
// (a tag with its attributes, a comment, a CDATA section) or elements
// nested deeper than 10,000 stop it, where encoding/xml alone would hold
// the token whole or a record of every open element. It expands no
// entity but the five of XML.
func xmlDecoder(r io.Reader, maxText int) *safexml.Decoder {
	return safexml.NewDecoder(r, safexml.Limits{Text: int64(maxText), Markup: min(int64(maxText), 1<<20)})
}

// tokenErr is what a decoder's error means for a run: the end of the
// part (nil, more true), a cut at a long token (the document is Cut:
// more false), a refusal of elements nested too deep, or an error — a part's own (a zip bomb) or malformed XML.
func tokenErr(r *run, err error) (more bool, _ error) {
	var e *Error
	switch {
	case errors.Is(err, io.EOF):
		return true, nil
	case errors.Is(err, safexml.ErrLongToken):
		r.doc.Cut = true
		return false, nil
	case errors.Is(err, safexml.ErrTooDeep):
		return false, fail(r.doc.Type, "too deep: elements nested deeper than 10000")
	case errors.As(err, &e):
		return false, e
	}
	return false, fail(r.doc.Type, "malformed XML: %v", err)
}

// file returns the first member named name, nil if none: a lookup, as
// an archive may hold hundreds of thousands of members.
func (a *archive) file(name string) *zip.File { return a.byName[name] }

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
func (g grammar) blocks(r *run, data io.Reader) (bool, error) {
	d := xmlDecoder(data, r.lim.MaxText)
	s := blockState{g: g, r: r}
	for {
		tok, err := d.Token()
		if err != nil {
			return tokenErr(r, err)
		}
		more := true
		switch t := tok.(type) {
		case xml.StartElement:
			more = s.start(t.Name.Local)
		case xml.EndElement:
			more = s.end(t.Name.Local)
		case xml.CharData:
			s.text(t)
		}
		if !more {
			return false, nil
		}
	}
}

// blockState is grammar.blocks' place in a part: the block being read,
// how deep inside block elements and text elements it is.
type blockState struct {
	g      grammar
	r      *run
	b      strings.Builder // the block's text so far
	depth  int             // block elements open
	inText int             // text elements open
}

// start takes an element's start: a page, a block, text, or white space
// inside a block. False when the run is full.
func (s *blockState) start(name string) bool {
	switch {
	case name == s.g.page && s.g.page != "":
		return s.r.page()
	case s.g.para[name]:
		s.depth++
	case s.g.text[name]:
		s.inText++
	case s.g.space[name] && s.depth > 0:
		s.b.WriteByte(' ')
	}
	return true
}

// end takes an element's end: the end of the outermost block adds the
// block to the run. False when the run is full.
func (s *blockState) end(name string) bool {
	switch {
	case s.g.para[name] && s.depth > 0:
		if s.depth--; s.depth == 0 {
			if !s.r.block(s.b.String()) {
				return false
			}
			s.b.Reset()
		}
	case s.g.text[name] && s.inText > 0:
		s.inText--
	}
	return true
}

// text takes character data: text when inside a block (and a text
// element, if the grammar has them).
func (s *blockState) text(t xml.CharData) {
	if s.depth > 0 && (s.g.text == nil || s.inText > 0) && s.b.Len() <= s.r.lim.MaxText {
		s.b.Write(t) // a block past MaxText cuts the document (run.block)
	}
}

// coreProps reads a title and a modification date from a metadata part
// (docProps/core.xml: dc:title, dcterms:modified; meta.xml: dc:title,
// dc:date).
func coreProps(r *run, data []byte) {
	d := xmlDecoder(bytes.NewReader(data), len(data))
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
		rc, err := a.open(name)
		if err != nil {
			return err
		}
		if rc == nil {
			return fail(a.r.doc.Type, "malformed: no %s", name)
		}
		more, err := g.blocks(a.r, rc)
		rc.Close()
		if err != nil || !more {
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

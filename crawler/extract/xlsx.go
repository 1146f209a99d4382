package extract

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// readSheets reads an XLSX workbook: each sheet (xl/worksheets/sheetN.xml)
// a page, each row a block of its cells' values — shared strings
// (xl/sharedStrings.xml) resolved, inline strings and numbers as written.
func readSheets(a *archive) error {
	shared, err := sharedStrings(a)
	if err != nil {
		return err
	}
	sheets := a.numbered("xl/worksheets/sheet", ".xml")
	if len(sheets) == 0 {
		return fail(XLSX, "malformed: no sheet")
	}
	for _, name := range sheets {
		if !a.r.page() {
			return nil
		}
		rc, err := a.open(name)
		if err != nil || rc == nil {
			return err
		}
		more, err := sheetRows(a.r, rc, shared)
		rc.Close()
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// sharedStrings reads the workbook's shared strings, in order: at most
// MaxText bytes of them (the later ones are left empty, and the document
// is Cut).
func sharedStrings(a *archive) ([]string, error) {
	rc, err := a.open("xl/sharedStrings.xml")
	if err != nil || rc == nil {
		return nil, err
	}
	defer rc.Close()
	var out []string
	var b strings.Builder
	in, inT := false, false
	kept := 0
	d := xmlDecoder(rc, a.r.lim.MaxText)
	for {
		tok, err := d.Token()
		if err != nil {
			_, err = tokenErr(a.r, err)
			return out, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				in = true
				b.Reset()
			case "t":
				inT = in
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				in = false
				if kept += b.Len(); kept > a.r.lim.MaxText {
					a.r.doc.Cut = true
					out = append(out, "")
					continue
				}
				out = append(out, b.String())
			case "t":
				inT = false
			}
		case xml.CharData:
			if inT && b.Len() <= a.r.lim.MaxText {
				b.Write(t)
			}
		}
	}
}

// sheetRows adds a sheet's rows to the run as blocks; false when the run
// is full.
// A row is cut at MaxText bytes: cells that name one long shared string
// many times would otherwise make a row of terabytes.
func sheetRows(r *run, data io.Reader, shared []string) (bool, error) {
	d := xmlDecoder(data, r.lim.MaxText)
	var row []string
	var cellType string
	var val strings.Builder
	inV := false
	rowBytes := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return tokenErr(r, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row, rowBytes = row[:0], 0
			case "c":
				cellType = ""
				for _, at := range t.Attr {
					if at.Name.Local == "t" {
						cellType = at.Value
					}
				}
				val.Reset()
			case "v", "t":
				inV = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v", "t":
				inV = false
			case "c":
				if v := cellValue(cellType, val.String(), shared); rowBytes <= r.lim.MaxText {
					row = append(row, v)
					rowBytes += len(v) + 1
				}
			case "row":
				if !r.block(strings.Join(row, " ")) {
					return false, nil
				}
			}
		case xml.CharData:
			if inV && val.Len() <= r.lim.MaxText {
				val.Write(t)
			}
		}
	}
}

// cellValue is what a cell shows: its shared string, or its value.
func cellValue(typ, v string, shared []string) string {
	if typ == "s" {
		if i, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && i >= 0 && i < len(shared) {
			return shared[i]
		}
		return ""
	}
	return v
}

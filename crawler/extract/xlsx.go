package extract

import (
	"bytes"
	"encoding/xml"
	"errors"
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
		data, err := a.part(name)
		if err != nil {
			return err
		}
		if more, err := sheetRows(a.r, data, shared); err != nil || !more {
			return err
		}
	}
	return nil
}

// sharedStrings reads the workbook's shared strings, in order.
func sharedStrings(a *archive) ([]string, error) {
	data, err := a.part("xl/sharedStrings.xml")
	if err != nil || data == nil {
		return nil, err
	}
	var out []string
	var b strings.Builder
	in, inT := false, false
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fail(XLSX, "malformed XML: %v", err)
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
				out = append(out, b.String())
			case "t":
				inT = false
			}
		case xml.CharData:
			if inT {
				b.Write(t)
			}
		}
	}
}

// sheetRows adds a sheet's rows to the run as blocks; false when the run
// is full.
func sheetRows(r *run, data []byte, shared []string) (bool, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var row []string
	var cellType string
	var val strings.Builder
	inV := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, fail(XLSX, "malformed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row = row[:0]
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
				row = append(row, cellValue(cellType, val.String(), shared))
			case "row":
				if !r.block(strings.Join(row, " ")) {
					return false, nil
				}
			}
		case xml.CharData:
			if inV {
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

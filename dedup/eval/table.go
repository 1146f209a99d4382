package eval

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Table is rows of results under a header, rendered with
// [Table.Markdown]. Rows may be shorter than the header (missing cells are
// empty) or longer (extra columns get empty headings).
type Table struct {
	Header []string
	Rows   [][]string
}

// Markdown renders t as a GitHub-Flavored-Markdown table with padded
// columns, one line per row, each ending in a newline. Columns whose cells
// are all numbers (or empty) are right-aligned. "|" in a cell is escaped
// and line breaks become spaces. A table without columns renders as "".
// Cost: O(total cell length).
func (t Table) Markdown() string {
	cols := len(t.Header)
	for _, r := range t.Rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return ""
	}
	cell := func(row []string, c int) string {
		if c >= len(row) {
			return ""
		}
		return cellEscaper.Replace(row[c])
	}
	width := make([]int, cols)
	numeric := make([]bool, cols)
	for c := range cols {
		width[c] = max(utf8.RuneCountInString(cell(t.Header, c)), 3)
		numeric[c] = len(t.Rows) > 0
		for _, r := range t.Rows {
			v := cell(r, c)
			width[c] = max(width[c], utf8.RuneCountInString(v))
			if v != "" && !isNumber(v) {
				numeric[c] = false
			}
		}
	}
	var b strings.Builder
	line := func(row []string) {
		for c := range cols {
			v := cell(row, c)
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(v))
			b.WriteString("| ")
			if numeric[c] {
				b.WriteString(pad + v)
			} else {
				b.WriteString(v + pad)
			}
			b.WriteString(" ")
		}
		b.WriteString("|\n")
	}
	line(t.Header)
	for c := range cols {
		if numeric[c] {
			b.WriteString("| " + strings.Repeat("-", width[c]-1) + ": ")
		} else {
			b.WriteString("| " + strings.Repeat("-", width[c]) + " ")
		}
	}
	b.WriteString("|\n")
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}

var cellEscaper = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

// isNumber reports whether s reads as a number, allowing thousands
// separators and a trailing percent sign ("12,345", "0.93", "87%").
func isNumber(s string) bool {
	s = strings.TrimSuffix(strings.ReplaceAll(s, ",", ""), "%")
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

package extract

import (
	"slices"
	"testing"
)

// line returns a text line of height 10 whose top is top and which spans
// left to right (points, y up).
func line(text string, left, right, top float64) textLine {
	return textLine{text: text, left: left, right: right, top: top, bottom: top - 10, placed: true}
}

// TestReadingOrder: a line drawn after the lines below it in its column
// goes back to its place (Chromium's code examples, a footer drawn
// first); lines side by side (two columns, a table's cells), lines in
// order, a superscript on its line and an empty line keep the order they
// were drawn in; a running header drawn after the text goes first though
// no column holds it, and two lines side by side at the top stay as drawn.
func TestReadingOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []textLine
		want  []string
	}{
		{"in order", []textLine{line("a", 50, 500, 700), line("b", 50, 500, 686), line("c", 50, 300, 672)},
			[]string{"a", "b", "c"}},
		{"code drawn after the paragraph below it", []textLine{
			line("Sorting is easy:", 50, 500, 700),
			line("The key function is called once.", 50, 500, 640), line("It returns a key.", 50, 400, 626),
			line(">>> sorted([5, 2, 3])", 60, 300, 680), line("[2, 3, 5]", 60, 150, 666)},
			[]string{"Sorting is easy:", ">>> sorted([5, 2, 3])", "[2, 3, 5]", "The key function is called once.", "It returns a key."}},
		{"two code blocks drawn last", []textLine{
			line("p1", 50, 500, 700), line("p2", 50, 500, 640), line("p3", 50, 500, 580),
			line("code1", 60, 300, 670), line("code2", 60, 300, 610)},
			[]string{"p1", "code1", "p2", "code2", "p3"}},
		{"a footer drawn first", []textLine{
			line("Page 1 of 3", 250, 350, 40), line("first line", 50, 500, 700), line("second line", 50, 500, 686)},
			[]string{"first line", "second line", "Page 1 of 3"}},
		{"two columns", []textLine{
			line("left 1", 50, 290, 700), line("left 2", 50, 290, 686), line("left 3", 50, 290, 672),
			line("right 1", 310, 550, 700), line("right 2", 310, 550, 686)},
			[]string{"left 1", "left 2", "left 3", "right 1", "right 2"}},
		{"a table read cell by cell", []textLine{
			line("cell one,", 50, 200, 700), line("wrapped", 50, 200, 686), line("cell two", 220, 500, 700)},
			[]string{"cell one,", "wrapped", "cell two"}},
		{"a superscript on its line", []textLine{
			line("E = mc", 50, 120, 700), line("2", 120, 126, 704), line("next line", 50, 500, 686)},
			[]string{"E = mc", "2", "next line"}},
		{"an empty line stops a move", []textLine{
			line("above", 50, 500, 700), line("below", 50, 500, 640), {text: ""}, line("between", 50, 500, 670)},
			[]string{"above", "below", "", "between"}},
		{"a header drawn last, beside the heading", []textLine{
			line("Logo", 20, 100, 740), line("FAQ", 460, 500, 730), line("Main Menu", 20, 120, 700), line("1. Troubles", 200, 560, 700),
			line("11/28/26, 11:17 PM FAQ", 20, 330, 780)},
			[]string{"11/28/26, 11:17 PM FAQ", "Logo", "FAQ", "Main Menu", "1. Troubles"}},
		{"two lines side by side at the top stay", []textLine{
			line("left", 20, 200, 700), line("right", 300, 500, 700), line("text", 20, 500, 680)},
			[]string{"left", "right", "text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, l := range readingOrder(tc.lines) {
				got = append(got, l.text)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("readingOrder = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestComposeAccents: a spacing accent drawn before a letter goes on it;
// a backtick opening a command in code stays one.
func TestComposeAccents(t *testing.T) {
	for in, want := range map[string]string{
		"M\u00A8oller":                "Möller",
		"cr`eme":                      "crème",
		"CFLAGS=`xslt-config --libs`": "CFLAGS=`xslt-config --libs`",
		"`ls` lists":                  "`ls` lists",
	} {
		if got := composeAccents(in); got != want {
			t.Errorf("composeAccents(%q) = %q, want %q", in, got, want)
		}
	}
}

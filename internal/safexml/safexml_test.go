package safexml

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLimits: each kind of token past its limit stops the decoder with
// its error; the same document within the limits is read to its end.
func TestLimits(t *testing.T) {
	lim := Limits{Text: 100, Markup: 50, Depth: 5}
	for _, tc := range []struct {
		name, doc string
		want      error // nil: read to io.EOF
	}{
		{"small", "<a><b x=\"1\">text</b><!-- c --></a>", nil},
		{"text at the limit", "<a>" + strings.Repeat("t", 100) + "</a>", nil},
		{"long text", "<a>" + strings.Repeat("t", 101) + "</a>", ErrLongToken},
		{"long text of '>'", "<a>" + strings.Repeat(">", 200) + "</a>", ErrLongToken},
		{"many attributes", "<a" + strings.Repeat(` a=""`, 20) + "/>", ErrLongToken},
		{"long comment of '<'", "<a><!--" + strings.Repeat("<", 100) + "--></a>", ErrLongToken},
		{"long CDATA", "<a><![CDATA[" + strings.Repeat("<", 100) + "]]></a>", ErrLongToken},
		{"long DOCTYPE", "<!DOCTYPE a [" + strings.Repeat(`<!ENTITY x "y">`, 10) + "]><a/>", ErrLongToken},
		{"depth at the limit", strings.Repeat("<a>", 5) + strings.Repeat("</a>", 5), nil},
		{"too deep", strings.Repeat("<a>", 6) + strings.Repeat("</a>", 6), ErrTooDeep},
		{"deep then shallow, often", strings.Repeat(strings.Repeat("<a>", 5)+strings.Repeat("</a>", 5), 100), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader("<r>"+tc.doc+"</r>"), Limits{Text: lim.Text, Markup: lim.Markup, Depth: lim.Depth + 1})
			var err error
			n := 0
			for err == nil {
				var tok xml.Token
				tok, err = d.Token()
				if tok != nil {
					n++
				}
			}
			switch {
			case tc.want == nil && !errors.Is(err, io.EOF):
				t.Errorf("stopped after %d tokens: %v", n, err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("got %v after %d tokens, want %v", err, n, tc.want)
			}
		})
	}
}

package placer

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"a b", "a b"},
		{[]any{"one", 2, "three"}, "one\nthree"},
		{42, ""},
		{nil, ""},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNewEngine(t *testing.T) {
	for _, bad := range []string{"", "ftp://x/", "http://", "::"} {
		if _, err := NewEngine("esbulk", bad, nil); err == nil || !strings.HasPrefix(err.Error(), "esbulk: ") {
			t.Errorf("NewEngine(%q): %v, want an error naming esbulk", bad, err)
		}
	}
	e, err := NewEngine("esbulk", "http://127.0.0.1:9200/base/", nil)
	if err != nil || e.HC == nil || e.Pass == nil || e.URL.Path != "/base/" {
		t.Errorf("NewEngine: %+v, %v", e, err)
	}
	title, text := "", "body"
	Defaults(map[*string]string{&title: "title", &text: "content"})
	if title != "title" || text != "body" {
		t.Errorf("Defaults: %q, %q; want the default for the empty one only", title, text)
	}
}

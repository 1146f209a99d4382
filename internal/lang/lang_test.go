package lang

import (
	"slices"
	"testing"
)

func TestPrimary(t *testing.T) {
	for in, want := range map[string]string{"en": "en", "en-US": "en", "zh_CN": "zh-hans", "ZH-hant": "zh-hant", "zh-TW": "zh-hant", "zh": "zh-hans", "": "", "*": "", "und": "",
		"not a tag": "", "da": "da", " pt-BR ": "pt"} {
		if got := Primary(in); got != want {
			t.Errorf("Primary(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFromURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://x/manual/da/mod/core.html":  "da",
		"http://x/manual/en/":               "en",
		"http://x/docs/pt-br/index.html":    "pt",
		"http://x/zh_CN/a.html":             "zh-hans",
		"http://x/manual/index.html.de":     "de",
		"http://x/manual/index.html":        "",
		"http://x/std/io/struct.Error.html": "", // io is a module, not Ido
		"http://x/js/os/db.html":            "",
		"http://x/en/fr/page":               "fr", // the last wins
		"http://x/english/":                 "",
		"http://x/de-facto/":                "",
		"::":                                "",
	} {
		if got := FromURL(in); got != want {
			t.Errorf("FromURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		url      string
		declared []string
		want     string
	}{
		{"http://x/manual/da/", []string{"de", "en"}, "da"}, // the section first
		{"http://x/manual/", []string{"de", "en"}, "de"},    // then what the page declares, in order
		{"http://x/manual/", []string{"", "en"}, "en"},
		{"http://x/manual/", []string{"x-klingon!", "en"}, "en"},
		{"http://x/manual/", nil, ""},
	} {
		if got := Of(tc.url, tc.declared...); got != tc.want {
			t.Errorf("Of(%q, %q) = %q, want %q", tc.url, tc.declared, got, tc.want)
		}
	}
}

func TestAccepted(t *testing.T) {
	for in, want := range map[string][]string{
		"da, en-GB;q=0.8, en;q=0.7": {"da", "en"},
		"en-US,en;q=0.9,ja;q=0.8":   {"en", "ja"},
		"zh-TW,zh;q=0.8,en;q=0.5":   {"zh-hant", "zh-hans", "en"},
		"fr;q=0.1, de":              {"de", "fr"},
		"":                          nil,
		"*":                         nil,
		"en;q=zz":                   nil,
	} {
		if got := Accepted(in); !slices.Equal(got, want) {
			t.Errorf("Accepted(%q) = %q, want %q", in, got, want)
		}
	}
}

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

func TestParallel(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"http://x/manual/da/mod/core.html", "http://x/manual/en/mod/core.html", true},
		{"http://x/manual/da/mod/core.html", "http://x/manual/da/mod/core.html", true},
		{"http://x/ref/ch01.ja.html", "http://x/ref/ch01.en.html", true},
		{"http://x/index.html.de", "http://x/index.html.fr", true},
		{"http://x/manual/da/mod/core.html", "http://x/manual/en/mod/http.html", false},
		{"http://x/manual/da/mod/core.html", "http://y/manual/en/mod/core.html", false},
		{"http://x/mirror/it/manual/vpn.html", "http://x/manual/vpn.html", false}, // a section in one only
		{"http://x/manual/vpn.html", "http://x/manual/vpn.html", false},           // no section
		{"http://x/da/manual/a.html", "http://x/manual/da/a.html", false},         // in different places
		{"http://x/ref/ch01.ja.html", "http://x/ja/ref/ch01.html", false},
	} {
		if got := Parallel(tc.a, tc.b); got != tc.want {
			t.Errorf("Parallel(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestOf(t *testing.T) {
	const (
		english = "This page explains how the server is configured to listen on the addresses and ports that you choose, and what happens when it is restarted. It is one of the pages of the manual that you should read first."
		danish  = "Denne side forklarer, hvordan serveren sættes op til at lytte på de adresser og porte, som du vælger, og hvad der sker, når den bliver genstartet. Det er en af de sider i manualen, som du bør læse først."
		croat   = "Ova stranica objašnjava kako se poslužitelj podešava da sluša na adresama i vratima koje odaberete, i što se događa kada se ponovno pokrene. To je jedna od stranica priručnika koje biste trebali pročitati prvo."
	)
	for _, tc := range []struct {
		name, url, text string
		declared        []string
		want            string
	}{
		// What the page declares comes first, in order, whatever its URL
		// and text say.
		{"markup beats URL", "http://x/mirror/it/manual/vpn.html", english, []string{"", "en"}, "en"},
		{"markup beats URL and text", "http://x/manual/da/", english, []string{"", "da"}, "da"},
		{"hreflang before markup", "http://x/manual/", "", []string{"de", "en"}, "de"},
		{"Content-Language", "http://x/hr/relocation.html", croat, []string{"", "", "en-GB"}, "en"},
		{"not a tag", "http://x/manual/", "", []string{"x-klingon!", "en"}, "en"},
		// Else the text.
		{"text beats URL", "http://x/hr/relocation.html", english, nil, "en"},
		{"text beats another section", "http://x/manual/da/", english + " " + english, nil, "en"},
		{"text in its section", "http://x/manual/en/", english, nil, "en"},
		{"Chinese in a Traditional section", "http://x/zh-tw/a.html", "本頁說明如何設定伺服器。", nil, "zh-hant"},
		{"Chinese in a Simplified section", "http://x/zh-cn/a.html", "本页说明如何配置服务器。", nil, "zh-hans"},
		// Else the URL's section, where the text, too short or too mixed
		// for Detect, agrees with it.
		{"Danish, or Norwegian, in /da/", "http://x/manual/da/", danish, nil, "da"},
		{"Danish, or Norwegian, nowhere", "http://x/manual/", danish, nil, ""},
		{"German heading and sentence in /de/", "http://x/manual/de/", "Willkommen. Hier finden Sie das Handbuch für den Server.", nil, "de"},
		{"English in /hr/", "http://x/hr/", "Welcome to the pages of human resources.", nil, ""},
		{"undetermined Croatian in /hr/", "http://x/hr/", croat, nil, ""}, // its stop words lean to Polish
		{"undetermined text in /hr/", "http://x/hr/", "VPN · SSO · HR-42 · 2026", nil, ""},
		{"empty text", "http://x/manual/da/", "", nil, ""},
		{"nothing", "http://x/manual/", "", nil, ""},
	} {
		if got := Of(tc.url, tc.text, tc.declared...); got != tc.want {
			t.Errorf("%s: Of(%q, %.20q…, %q) = %q, want %q", tc.name, tc.url, tc.text, tc.declared, got, tc.want)
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

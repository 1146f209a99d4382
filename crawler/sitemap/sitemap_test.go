package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	base, _ := url.Parse("http://intra.example/sitemap.xml")
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://intra.example/a</loc><lastmod>2026-03-02T10:04:05Z</lastmod><changefreq>daily</changefreq></url>
<url><loc>/p/7</loc><lastmod>2026-03-02</lastmod></url>
<url><loc> http://intra.example/c </loc><lastmod>2026-03-02T10:04+01:00</lastmod><changefreq>always</changefreq></url>
<url><loc>mailto:x@example.com</loc></url>
<url><loc>http://intra.example/d</loc><lastmod>yesterday</lastmod></url>
</urlset>`
	for name, body := range map[string][]byte{"plain": []byte(doc), "gzip": gz(doc)} {
		s, err := Parse(bytes.NewReader(body), base, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := []Entry{
			{"http://intra.example/a", time.Date(2026, 3, 2, 10, 4, 5, 0, time.UTC), 24 * time.Hour},
			{"http://intra.example/p/7", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), 0},
			{"http://intra.example/c", time.Date(2026, 3, 2, 9, 4, 0, 0, time.UTC), 0},
			{"http://intra.example/d", time.Time{}, 0},
		}
		if len(s.URLs) != len(want) {
			t.Fatalf("%s: %+v", name, s.URLs)
		}
		for i := range want {
			if s.URLs[i] != want[i] {
				t.Errorf("%s: entry %d = %+v, want %+v", name, i, s.URLs[i], want[i])
			}
		}
	}
	idx := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>/s1.xml</loc></sitemap></sitemapindex>`
	if s, err := Parse(strings.NewReader(idx), base, 1<<20); err != nil || len(s.Sitemaps) != 1 || s.Sitemaps[0].URL != "http://intra.example/s1.xml" {
		t.Errorf("index: %+v, %v", s, err)
	}
	if _, err := Parse(strings.NewReader("<html><body>not a sitemap</body></html>"), base, 1<<20); !errors.Is(err, ErrNotSitemap) {
		t.Errorf("an HTML page: %v", err)
	}
	if _, err := Parse(strings.NewReader(doc), base, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if _, err := Parse(strings.NewReader("<urlset><url><loc>"), base, 1<<20); err == nil {
		t.Error("truncated XML parsed")
	}
}

func gz(s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`<urlset><url><loc>/a</loc><lastmod>2026</lastmod></url></urlset>`))
	f.Add([]byte(`<sitemapindex><sitemap><loc>http://x/s.xml</loc></sitemap></sitemapindex>`))
	base, _ := url.Parse("http://x/sitemap.xml")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(bytes.NewReader(data), base, 1<<16)
		if err != nil {
			return
		}
		for _, e := range append(s.URLs, s.Sitemaps...) {
			if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
				t.Errorf("entry %q is not an http(s) URL", e.URL)
			}
		}
	})
}

// TestHostile: a sitemap of one huge tag, one huge comment or elements
// nested deep is an error (not a parse holding it all), and one of more
// than MaxEntries entries keeps MaxEntries.
func TestHostile(t *testing.T) {
	entries := strings.Repeat("<url><loc>/a</loc></url>", MaxEntries+100)
	for _, tc := range []struct {
		name, doc string
		urls      int // -1: an error
	}{
		{"a tag of a million attributes", "<urlset" + strings.Repeat(` a=""`, 1<<20) + "/>", -1},
		{"a comment of 1 MiB of '<'", "<urlset><!--" + strings.Repeat("<", 1<<20) + "--></urlset>", -1},
		{"nested 1,000 deep", "<urlset>" + strings.Repeat("<url>", 1000) + strings.Repeat("</url>", 1000) + "</urlset>", -1},
		{"entries past the limit", "<urlset>" + entries + "</urlset>", MaxEntries},
		{"a location of 1 MiB", "<urlset><url><loc>/" + strings.Repeat("a", 1<<20) + "</loc></url></urlset>", -1},
		{"a location of 8 KiB and 1 byte", "<urlset><url><loc>/" + strings.Repeat("a", 8<<10) + "</loc></url></urlset>", 0},
		{"a location of 8 KiB", "<urlset><url><loc>/" + strings.Repeat("a", 8<<10-1) + "</loc></url></urlset>", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := url.Parse("http://intra/")
			s, err := Parse(strings.NewReader(tc.doc), base, 50<<20)
			switch {
			case tc.urls < 0 && err == nil:
				t.Errorf("read %d URLs, want an error", len(s.URLs))
			case tc.urls >= 0 && err != nil:
				t.Errorf("got %v, want %d URLs", err, tc.urls)
			case tc.urls >= 0 && len(s.URLs) != tc.urls:
				t.Errorf("%d URLs, want %d", len(s.URLs), tc.urls)
			}
		})
	}
}

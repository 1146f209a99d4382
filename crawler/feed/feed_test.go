package feed

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestParse reads RSS 2.0 and Atom: each item's link, resolved, with its
// date (Atom's updated before published; RSS's pubDate); items without a
// link or with a link that is not http(s) are dropped; a body that is
// not a feed, or is over the limit, is an error.
func TestParse(t *testing.T) {
	base, _ := url.Parse("http://intra.example/news/feed.xml")
	rss := `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
<item><title>A</title><link>http://intra.example/news/a</link><pubDate>Mon, 02 Mar 2026 10:00:00 +0100</pubDate></item>
<item><title>B</title><link>b.html#top</link></item>
<item><title>no link</title><pubDate>Mon, 02 Mar 2026 10:00:00 GMT</pubDate></item>
<item><title>mail</title><link>mailto:x@intra.example</link></item>
</channel></rss>`
	atom := `<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Notices</title>
<entry><title>C</title><link href="/notices/c"/><published>2026-03-01T08:00:00Z</published><updated>2026-03-04T09:30:00Z</updated></entry>
<entry><title>D</title><link rel="alternate" href="http://intra.example/notices/d"/><published>2026-02-01T08:00:00Z</published></entry>
</feed>`
	for _, tc := range []struct {
		name, body string
		want       []string // URL and date
	}{
		{"rss", rss, []string{"http://intra.example/news/a 2026-03-02T09:00:00Z", "http://intra.example/news/b.html 0001-01-01T00:00:00Z"}},
		{"atom", atom, []string{"http://intra.example/notices/c 2026-03-04T09:30:00Z", "http://intra.example/notices/d 2026-02-01T08:00:00Z"}},
	} {
		got, err := Parse(strings.NewReader(tc.body), base, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var s []string
		for _, e := range got {
			s = append(s, e.URL+" "+e.LastMod.Format(time.RFC3339))
		}
		if strings.Join(s, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, strings.Join(s, "\n"), strings.Join(tc.want, "\n"))
		}
	}
	if _, err := Parse(strings.NewReader("<html><body>not a feed</body></html>"), base, 1<<20); err == nil {
		t.Error("an HTML page parsed as a feed")
	}
	if _, err := Parse(strings.NewReader(rss), base, 100); err != ErrTooLarge {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}
}

// TestBound: a feed nested deeper than MaxDepth is refused, one of more
// than MaxItems items is cut before the next (its first MaxItems read),
// an entity bomb is not expanded, and what real feeds hold that is not
// well-formed XML (an HTML entity, a stray &, ISO-8859-1) is read.
func TestBound(t *testing.T) {
	base, _ := url.Parse("http://intra.example/feed.xml")
	var many strings.Builder
	many.WriteString(`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>News</title></channel>`)
	for i := range 12 {
		fmt.Fprintf(&many, `<item><title>Item %d</title><link>/items/%d</link></item>`, i, i)
	}
	many.WriteString(`</rdf:RDF>`)
	laughs := `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` +
		`<rss version="2.0"><channel><title>News</title><item><title>&b;</title><link>/laughs</link></item></channel></rss>`
	for _, tc := range []struct {
		name, body string
		items      int    // entries read
		err        string // a part of the error, if refused
	}{
		{"nested deeper than MaxDepth", `<rss><channel><item><link>/a</link>` + strings.Repeat("<a>", MaxDepth) + `</item></channel></rss>`, 0, "nested deeper than the limit"},
		{"nested to MaxDepth", `<rss version="2.0"><channel><item><link>/a</link>` + strings.Repeat("<a>", MaxDepth-4) + strings.Repeat("</a>", MaxDepth-4) + `</item></channel></rss>`, 1, ""},
		{"entities", laughs, 1, ""},
		{"HTML entity and a stray &", `<rss version="2.0"><channel><title>A&nbsp;B & C</title><item><title>&eacute;t&eacute;</title><link>/x</link></item></channel></rss>`, 1, ""},
		{"ISO-8859-1", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>\xe9t\xe9</title><item><link>/x</link></item></channel></rss>", 1, ""},
		{"a markup piece over 1 MiB", `<rss version="2.0"><channel><item><link>/x</link><description><![CDATA[` + strings.Repeat("<", 2<<20) + `]]></description></item></channel></rss>`, 0, "longer than its limit"},
	} {
		got, err := Parse(strings.NewReader(tc.body), base, 50<<20)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case len(got) != tc.items:
			t.Errorf("%s: %d entries, want %d", tc.name, len(got), tc.items)
		}
	}
	// More items than the bound (RSS 1.0, cut inside rdf:RDF): the first
	// ones read, the feed closed after them.
	cut, err := bound([]byte(many.String()), 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(bytes.NewReader(cut), base, 50<<20)
	if err != nil || len(got) != 10 || got[9].URL != "http://intra.example/items/9" || !bytes.HasSuffix(cut, []byte("</rdf:RDF>")) {
		t.Errorf("cut after 10 of 12 items: %d entries (%v), ends %q", len(got), err, cut[max(len(cut)-40, 0):])
	}
}

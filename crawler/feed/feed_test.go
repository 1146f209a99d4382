package feed

import (
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

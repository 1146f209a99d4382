package clean

import (
	"bytes"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var testBase = mustURL("http://intra.example/docs/page.html")

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func parse(t testing.TB, doc string) *Page {
	t.Helper()
	p, err := Parse(strings.NewReader(doc), testBase, Options{})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestParseFields(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		check func(*Page) any // returns the value compared with want
		want  any
	}{
		{"title", `<title>  Hello
			World </title><p>x</p>`, func(p *Page) any { return p.Title }, "Hello World"},
		{"no title", `<p>x</p>`, func(p *Page) any { return p.Title }, ""},
		{"headings h1-h3 in order, not h4, not in nav", `<body><nav><h2>Menu</h2></nav>
			<h1>One</h1><h4>Four</h4><div><h3>Three <em>em</em></h3></div><h2>Two</h2><h2 hidden>Hidden</h2>`,
			func(p *Page) any { return p.Headings }, []string{"One", "Three em", "Two"}},
		{"meta description keywords", `<head><meta name="Description" content=" About  us "><meta name=keywords content="a, b"></head>`,
			func(p *Page) any { return [2]string{p.Description, p.Keywords} }, [2]string{"About us", "a, b"}},
		{"og:description fallback", `<meta property="og:description" content="OG">`,
			func(p *Page) any { return p.Description }, "OG"},
		{"description wins over og", `<meta name=description content="D"><meta property="og:description" content="OG">`,
			func(p *Page) any { return p.Description }, "D"},
		{"html lang", `<html lang="de-CH"><p>x</p>`, func(p *Page) any { return p.Language }, "de-CH"},
		{"content-language", `<meta http-equiv="Content-Language" content="fr">`, func(p *Page) any { return p.Language }, "fr"},
		{"lang wins", `<html lang="en"><meta http-equiv="content-language" content="fr">`, func(p *Page) any { return p.Language }, "en"},
		{"hreflang of the link to itself", `<a href="../de/page.html" hreflang="de">de</a><a href="page.html#top" hreflang="pt-BR">pt</a>`,
			func(p *Page) any { return p.Hreflang }, "pt-BR"},
		{"hreflang of an alternate link element", `<link rel="alternate" hreflang="ja" href="http://intra.example/docs/page.html">`,
			func(p *Page) any { return p.Hreflang }, "ja"},
		{"hreflang of other pages only", `<a href="../de/page.html" hreflang="de">de</a>`, func(p *Page) any { return p.Hreflang }, ""},
		{"canonical relative", `<link rel="Canonical" href="../a?b=1">`, func(p *Page) any { return p.Canonical }, "http://intra.example/a?b=1"},
		{"canonical among rel tokens", `<link rel="stylesheet" href="s.css"><link rel="x canonical" href="/c">`, func(p *Page) any { return p.Canonical }, "http://intra.example/c"},
		{"feeds", `<link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="alternate" type="application/atom+xml; charset=utf-8" href="http://intra.example/atom"><link rel="alternate" type="text/html" href="/x"><link rel="stylesheet" type="application/rss+xml" href="/s"><link rel="alternate" type="application/rss+xml" href="/feed.xml">`, func(p *Page) any { return p.Feeds }, []string{"http://intra.example/feed.xml", "http://intra.example/atom"}},
		{"canonical not http", `<link rel=canonical href="ftp://x/y">`, func(p *Page) any { return p.Canonical }, ""},
		{"last-modified http-equiv", `<meta http-equiv="Last-Modified" content="Tue, 03 Nov 2026 10:00:00 GMT">`,
			func(p *Page) any { return p.LastModified }, time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)},
		{"article:modified_time", `<meta property="article:modified_time" content="2026-11-03T10:00:00Z">`,
			func(p *Page) any { return p.LastModified }, time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)},
		{"dcterms.modified date", `<meta name="DCTERMS.modified" content="2026-11-03">`,
			func(p *Page) any { return p.LastModified }, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)},
		{"unreadable date", `<meta name="last-modified" content="yesterday">`,
			func(p *Page) any { return p.LastModified }, time.Time{}},
		{"robots noindex", `<meta name=robots content="NOINDEX, follow">`, func(p *Page) any { return [2]bool{p.NoIndex, p.NoFollow} }, [2]bool{true, false}},
		{"robots none", `<meta name=robots content="none">`, func(p *Page) any { return [2]bool{p.NoIndex, p.NoFollow} }, [2]bool{true, true}},
		{"robots absent", `<p>x</p>`, func(p *Page) any { return [2]bool{p.NoIndex, p.NoFollow} }, [2]bool{false, false}},
		{"links", `<body><nav><a href="/home">Home</a></nav>
			<a href="b.html#sec">B  page</a>
			<a href="https://other.example/x" rel="external NoFollow">Ext</a>
			<a href="#top">Top</a><a href="javascript:void(0)">JS</a><a href="mailto:a@b">Mail</a>
			<a href="">Empty</a><a href="tel:123">Tel</a>
			<a href="/img"><img src=i.png alt="Logo"></a><a href="/t" title="Titled"></a>`,
			func(p *Page) any { return p.Links }, []Link{
				{URL: "http://intra.example/home", Text: "Home"},
				{URL: "http://intra.example/docs/b.html", Text: "B page", Main: true},
				{URL: "https://other.example/x", Text: "Ext", NoFollow: true, Main: true},
				{URL: "http://intra.example/img", Text: "Logo", Main: true},
				{URL: "http://intra.example/t", Text: "Titled", Main: true},
			}},
		{"base href", `<head><base href="http://cdn.example/root/"></head><a href="x">X</a>`,
			func(p *Page) any { return p.Links }, []Link{{URL: "http://cdn.example/root/x", Text: "X", Main: true}}},
		{"main links", `<body><div><a href="/side">Side</a> sidebar text long enough to matter</div>
			<main><p>The list of every page on this site.</p><ul><li><a href="/p/1">One</a></li><li><a href="/p/2"><span>Two</span></a></li></ul>
			<div hidden><a href="/h">Hidden</a></div><nav><a href="/n">Next</a></nav></main>
			<footer><a href="/f">Footer</a></footer></body>`,
			func(p *Page) any {
				var main []string
				for _, l := range p.Links {
					if l.Main {
						main = append(main, l.URL)
					}
				}
				return main
			}, []string{"http://intra.example/p/1", "http://intra.example/p/2"}},
		{"main preferred over body", `<body><div>Sidebar text that is long enough to matter here</div>
			<main><p>The main content is this paragraph.</p></main></body>`,
			func(p *Page) any { return p.Blocks }, []string{"The main content is this paragraph."}},
		{"article when no main", `<body><p>Chrome paragraph with plenty of letters in it</p>
			<article><p>Article body paragraph of the page.</p></article>`,
			func(p *Page) any { return p.Blocks }, []string{"Article body paragraph of the page."}},
		{"role=main", `<div>Chrome paragraph with plenty of letters</div><div role="main"><p>Role main paragraph text here.</p></div>`,
			func(p *Page) any { return p.Blocks }, []string{"Role main paragraph text here."}},
		{"#content and .content", `<div>Chrome chrome chrome chrome chrome</div><div class="x content"><p>Classed content paragraph here.</p></div>`,
			func(p *Page) any { return p.Blocks }, []string{"Classed content paragraph here."}},
		{"trivial main falls back to body", `<body><main><p>Hi</p></main><p>Body paragraph text.</p>`,
			func(p *Page) any { return p.Blocks }, []string{"Hi", "Body paragraph text."}},
		{"dropped elements", `<body><header>Site header</header><nav>Nav</nav><aside>Aside</aside>
			<p>Kept <span style="display: none">hidden span</span>text.</p>
			<script>var x = "<script>";</script><style>p{}</style><noscript>Enable JS</noscript>
			<form><label>Search</label><input></form><iframe src=x>frame</iframe><svg><text>svg</text></svg>
			<template><p>tmpl</p></template><div hidden>hidden attr</div><div aria-hidden="true">aria</div>
			<div style="VISIBILITY:hidden">vis</div><footer>Footer</footer>`,
			func(p *Page) any { return p.Blocks }, []string{"Kept text."}},
		{"blocks split at block elements", `<main><h2>Title  of section</h2><p>First <b>bold</b> para.</p>
			<ul><li>one</li><li>two<br>lines</li></ul>loose text<table><tr><td>c1</td><td>c2</td></tr></table>
			<pre>  code
			  here</pre><dl><dt>term</dt><dd>def</dd></dl><blockquote>quote</blockquote></main>`,
			func(p *Page) any { return p.Blocks }, []string{"Title of section", "First bold para.", "one", "two lines",
				"loose text", "c1", "c2", "code here", "term", "def", "quote"}},
		{"inline elements add no space", `<p>H<sub>2</sub>O and <a href="/x">link</a>s</p>`,
			func(p *Page) any { return p.Text }, "H2O and links"},
		{"text joins blocks", `<p>a</p><p>b</p>`, func(p *Page) any { return p.Text }, "a\n\nb"},
		{"tagged", `<title>T</title><h1>H</h1><aside><b>side</b></aside><main><p>Text <strong>strong words</strong> and <b>bold</b> more text here.</p></main>`,
			func(p *Page) any { return p.Tagged }, "T\nH\nstrong words\nbold"},
		{"empty input", ``, func(p *Page) any { return p.Blocks }, []string(nil)},
		{"plain text", `just some text`, func(p *Page) any { return p.Text }, "just some text"},
		{"malformed", `<p>unclosed <b>bold <div>div</p></b><td>cell`, func(p *Page) any { return p.Text }, "unclosed bold\n\ndivcell"}, // td outside a table is ignored
		{"windows-1252", "<meta charset=windows-1252><p>caf\xe9 na\xefve</p>", func(p *Page) any { return p.Text }, "café naïve"},
		{"gbk declared", "<meta charset=gbk><p>\xc4\xe3\xba\xc3</p>", func(p *Page) any { return p.Text }, "你好"},
		{"utf-16le BOM", "\xff\xfe<\x00p\x00>\x00h\x00i\x00", func(p *Page) any { return p.Text }, "hi"},
		{"utf-8 BOM", "\xef\xbb\xbf<p>hi</p>", func(p *Page) any { return p.Text }, "hi"},
		{"latin1 undeclared", "<p>gr\xfc\xdfe</p>", func(p *Page) any { return p.Text }, "grüße"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parse(t, tt.doc)
			if got := tt.check(p); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParseNilBase(t *testing.T) {
	p, err := Parse(strings.NewReader(`<a href="/rel">r</a><a href="http://h/abs">a</a><link rel=canonical href="/c">`), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Link{{URL: "http://h/abs", Text: "a", Main: true}}
	if !reflect.DeepEqual(p.Links, want) || p.Canonical != "" {
		t.Errorf("links %v canonical %q; want %v and none", p.Links, p.Canonical, want)
	}
}

func TestParseErrors(t *testing.T) {
	big := "<p>" + strings.Repeat("x", 100) + "</p>"
	tests := []struct {
		name string
		in   []byte
		opts Options
		want error
	}{
		{"too large", []byte(big), Options{MaxBytes: 50}, ErrTooLarge},
		{"exactly max", []byte(big), Options{MaxBytes: int64(len(big))}, nil},
		{"default max", bytes.Repeat([]byte("a"), DefaultMaxBytes+1), Options{}, ErrTooLarge},
		{"NUL byte", []byte("<html>\x00<p>x</p>"), Options{}, ErrNotHTML},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), Options{}, ErrNotHTML},
		{"random high bytes", bytes.Repeat([]byte{0x80, 0x81, 0xff, 0xfe}, 300), Options{}, ErrNotHTML},
		{"control bytes", bytes.Repeat([]byte("ab\x01\x02\x03\x04"), 100), Options{}, ErrNotHTML},
		{"declared legacy charset", append([]byte("<meta charset=gbk>"), bytes.Repeat([]byte{0xc4, 0xe3, 0xba, 0xc3}, 300)...), Options{}, nil},
		{"UTF-16 with BOM", []byte("\xff\xfe<\x00p\x00>\x00h\x00i\x00"), Options{}, nil},
		{"NUL after first KiB", append(bytes.Repeat([]byte("a"), 2000), 0), Options{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(bytes.NewReader(tt.in), testBase, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := Parse(iotest.ErrReader(boom), testBase, Options{}); !errors.Is(err, boom) {
			t.Errorf("err = %v, want wrapped %v", err, boom)
		}
	})
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		``, `<p>x</p>`, `<script>alert("<script>")</script><p>ok</p>`,
		`<main><a href="../x">x</a><a href="javascript:1">j</a></main>`,
		`<base href="//evil"><a href=" http://[::1]:80/x ">v6</a><a href="http://%zz">bad</a>`,
		`<table><td><b><p><li><h1>nest`, `<svg><script>x</script></svg><math><mi>m`,
		"<meta charset=utf-16><p>\xff\xfe</p>", `<noscript><script>s</script></noscript><template><script>t</script></template>`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A script and a style element after data: their text must not
		// reach Text, unless data leaves the tokenizer where they are not
		// script and style elements (checked on the parse tree).
		const marker = "zqxjmarker"
		doc := append(data[:len(data):len(data)], "<script>"+marker+"</script><style>"+marker+"</style>"...)
		onlyInScript := !bytes.Contains(data, []byte(marker)) && utf8.Valid(doc) && markerOnlyInScript(t, doc, marker)
		p, err := Parse(bytes.NewReader(doc), testBase, Options{MaxBytes: 1 << 16})
		if err != nil {
			if !errors.Is(err, ErrNotHTML) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if onlyInScript && (strings.Contains(p.Text, marker) || strings.Contains(p.Tagged, marker)) {
			t.Errorf("script content leaked into Text: %q", p.Text)
		}
		if strings.Join(p.Blocks, "\n\n") != p.Text {
			t.Errorf("Text is not Blocks joined")
		}
		for _, b := range p.Blocks {
			if b == "" || b != normalize(b) {
				t.Errorf("block %q not normalized", b)
			}
		}
		for _, l := range p.Links {
			u, err := url.Parse(l.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Fragment != "" {
				t.Errorf("link %q not absolute http(s) without fragment (%v)", l.URL, err)
			}
		}
		if p.Canonical != "" {
			if u, err := url.Parse(p.Canonical); err != nil || !u.IsAbs() {
				t.Errorf("canonical %q not absolute", p.Canonical)
			}
		}
	})
}

// markerOnlyInScript reports whether every text node of the parsed doc that
// contains marker is inside a script or style element.
func markerOnlyInScript(t *testing.T, doc []byte, marker string) bool {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	only := true
	var walk func(n *html.Node, inScript bool)
	walk = func(n *html.Node, inScript bool) {
		if n.Type == html.TextNode && !inScript && strings.Contains(n.Data, marker) {
			only = false
		}
		inScript = inScript || n.DataAtom == atom.Script || n.DataAtom == atom.Style
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inScript)
		}
	}
	walk(root, false)
	return only
}

func TestRefresh(t *testing.T) {
	base, _ := url.Parse("http://intra.example/docs/a.html")
	for _, tc := range []struct{ content, want string }{
		{"0;URL=b.html", "http://intra.example/docs/b.html"},
		{"0; url='../c.html'", "http://intra.example/c.html"},
		{` 5 ; URL="http://other.example/x" `, "http://other.example/x"},
		{"0.5;URL=b.html", "http://intra.example/docs/b.html"},
		{"0;b.html", "http://intra.example/docs/b.html"},
		{"6;URL=b.html", ""}, // reloads after being read: a page, not a redirect
		{"300", ""},
		{"0", ""},
		{"-1;URL=b.html", ""},
		{"x;URL=b.html", ""},
		{"0;URL=mailto:x@example.com", ""},
	} {
		page, err := Parse(strings.NewReader(`<html><head><meta http-equiv="Refresh" content="`+strings.ReplaceAll(tc.content, `"`, "&quot;")+`"></head><body><p>Redirecting…</p></body></html>`), base, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if page.Refresh != tc.want {
			t.Errorf("refresh %q: %q, want %q", tc.content, page.Refresh, tc.want)
		}
	}
}

// TestFileLinksOnlyFromFiles: a web page's link to a local file is never
// a link (a site cannot make the crawler read the machine's files); a
// local folder's page links to its files.
func TestFileLinksOnlyFromFiles(t *testing.T) {
	body := `<html><body><main><p>See <a href="file:///etc/passwd">this</a> and <a href="b.pdf">that</a>.</p></main></body></html>`
	for _, c := range []struct {
		base string
		want []string
	}{
		{"https://intra.example/a/", []string{"https://intra.example/a/b.pdf"}},
		{"file:///srv/share/a/", []string{"file:///etc/passwd", "file:///srv/share/a/b.pdf"}},
	} {
		base, _ := url.Parse(c.base)
		p, err := Parse(strings.NewReader(body), base, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range p.Links {
			got = append(got, l.URL)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("links of a page at %s: %q, want %q", c.base, got, c.want)
		}
	}
}

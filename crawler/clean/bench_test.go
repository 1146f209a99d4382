package clean

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
)

// syntheticPage renders an HTML page of about size bytes: head metadata,
// navigation, a main article of paragraphs, lists and links, scripts and a
// footer.
func syntheticPage(size int) []byte {
	rng := rand.New(rand.NewPCG(7, 8))
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><title>Synthetic page</title>
<meta name="description" content="A synthetic page"><link rel="canonical" href="/page">
<script>var analytics = {id: 42};</script><style>body{margin:0}</style></head><body>
<header><h1>Site</h1><nav><ul>`)
	for i := range 20 {
		fmt.Fprintf(&b, `<li><a href="/section/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav></header><main><article><h1>Synthetic article</h1>`)
	for i := 0; b.Len() < size-500; i++ {
		switch i % 4 {
		case 0, 1:
			fmt.Fprintf(&b, "<p>%s <b>%s</b> %s <a href=\"/doc/%d\">%s</a>.</p>\n", words(rng, 30), words(rng, 2), words(rng, 20), i, words(rng, 3))
		case 2:
			fmt.Fprintf(&b, "<h2>%s</h2><ul><li>%s</li><li>%s</li><li>%s</li></ul>\n", words(rng, 4), words(rng, 8), words(rng, 8), words(rng, 8))
		case 3:
			fmt.Fprintf(&b, "<div class=\"note\" style=\"display:none\">%s</div><table><tr><td>%s</td><td>%s</td></tr></table>\n", words(rng, 10), words(rng, 5), words(rng, 5))
		}
	}
	b.WriteString(`</article></main><footer><p>© 2026 Synthetic</p></footer><script>track()</script></body></html>`)
	return b.Bytes()
}

// realPage is a real page's file BenchmarkParse parses too (-args
// -page FILE), e.g. one of rustdoc's big module pages:
//
//	go test ./crawler/clean -run - -bench Parse -args -page /usr/share/doc/rust-doc/html/core/arch/x86_64/index.html
var realPage = flag.String("page", "", "BenchmarkParse: a real HTML page's file to parse as well")

// sidebarPage renders a page as rustdoc writes a module's item: a
// sidebar of links to the module's items (links of them) in nested
// lists, then the item's text, headings and code: thousands of elements,
// most of them links.
func sidebarPage(links int) []byte {
	rng := rand.New(rand.NewPCG(9, 10))
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="generator" content="rustdoc">
<title>Vec in std::vec - Rust</title><link rel="stylesheet" href="../static.files/rustdoc.css"><link rel="icon" href="../favicon.svg">
<script src="../static.files/main.js" defer></script></head><body class="rustdoc struct"><nav class="sidebar"><div class="sidebar-elems"><section><ul class="block">`)
	for i := range links {
		fmt.Fprintf(&b, `<li><a href="struct.Item%d.html" title="struct std::vec::Item%d">Item%d</a></li>`, i, i, i)
	}
	b.WriteString(`</ul></section></div></nav><main><div class="width-limiter"><section id="main-content" class="content"><div class="main-heading"><h1>Struct <span class="struct">Vec</span></h1></div>`)
	for i := range 60 {
		fmt.Fprintf(&b, `<details class="toggle method-toggle" open><summary><section id="method.m%d" class="method"><h4 class="code-header">pub fn <a href="#method.m%d" class="fn">m%d</a>(&amp;self) -&gt; <a class="enum" href="../option/enum.Option.html">Option</a>&lt;T&gt;</h4></section></summary><div class="docblock"><p>%s <code>%s</code> %s.</p></div></details>`, i, i, i, words(rng, 25), words(rng, 1), words(rng, 15))
	}
	b.WriteString(`</section></div></main></body></html>`)
	return b.Bytes()
}

// BenchmarkParse parses a synthetic 50 KB page, a page with a sidebar of
// 2,000 links (rustdoc's module items) and, with -page, a real one, each
// read from a reader (Parse) and from memory (ParseBytes, as the crawl
// does): pages/s, µs/page (CPU: one goroutine) and the bytes allocated
// a page (B/op), which the collector pays for.
func BenchmarkParse(b *testing.B) {
	base, _ := url.Parse("http://intra.example/dir/page")
	docs := map[string][]byte{"size=50KB": syntheticPage(50 << 10), "sidebar=2000": sidebarPage(2000)}
	if *realPage != "" {
		data, err := os.ReadFile(*realPage)
		if err != nil {
			b.Fatal(err)
		}
		docs[fmt.Sprintf("real/size=%dKB", len(data)>>10)] = data
	}
	parsers := map[string]func([]byte) (*Page, error){
		"reader": func(doc []byte) (*Page, error) { return Parse(bytes.NewReader(doc), base, Options{}) },
		"bytes":  func(doc []byte) (*Page, error) { return ParseBytes(doc, base, Options{}) },
	}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		doc := docs[name]
		for _, op := range slices.Sorted(maps.Keys(parsers)) {
			parse := parsers[op]
			b.Run(name+"/op="+op, func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := parse(doc); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/page")
			})
		}
	}
}

func BenchmarkTemplates(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	blocks := make([]string, 40)
	for i := range blocks {
		blocks[i] = words(rng, 20)
	}
	tp := NewTemplates(TemplateOptions{})
	for range 10 {
		tp.Observe("h", blocks)
	}
	b.Run("op=observe/blocks=40", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tp.Observe("h", blocks)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	})
	b.Run("op=strip/blocks=40", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			tp.Strip("h", blocks)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
	})
}

func TestSyntheticPage(t *testing.T) {
	doc := syntheticPage(50 << 10)
	p, err := Parse(bytes.NewReader(doc), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc) < 49<<10 || len(p.Blocks) < 100 || strings.Contains(p.Text, "analytics") || strings.Contains(p.Text, "Section 3") {
		t.Errorf("synthetic page of %d bytes gives %d blocks; text %.200q", len(doc), len(p.Blocks), p.Text)
	}
}

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

// BenchmarkParse parses a synthetic 50 KB page and, with -page, a real
// one: pages/s, and µs/page (CPU: one goroutine).
func BenchmarkParse(b *testing.B) {
	base, _ := url.Parse("http://intra.example/dir/page")
	docs := map[string][]byte{"size=50KB": syntheticPage(50 << 10)}
	if *realPage != "" {
		data, err := os.ReadFile(*realPage)
		if err != nil {
			b.Fatal(err)
		}
		docs[fmt.Sprintf("real/size=%dKB", len(data)>>10)] = data
	}
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		doc := docs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(doc), base, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/page")
		})
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

package clean_test

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/doppel-search/doppel/crawler/clean"
)

func ExampleParse() {
	doc := `<html lang="en"><head><title>VPN access</title>
<meta name="description" content="Working from home">
<link rel="canonical" href="/manual/vpn"></head>
<body><nav><a href="/">Home</a></nav>
<main><h1>VPN access</h1>
<p>Connect through the <b>VPN client</b> and sign in.</p>
<p style="display:none">Hidden text.</p>
<a href="print/vpn" rel="nofollow">Printer-friendly version</a></main>
<script>track()</script></body></html>`
	base, _ := url.Parse("http://intranet.example/manual/vpn?session=42")
	p, err := clean.Parse(strings.NewReader(doc), base, clean.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("title %q, lang %s, canonical %s\n", p.Title, p.Language, p.Canonical)
	fmt.Printf("headings %q, description %q\n", p.Headings, p.Description)
	for _, l := range p.Links {
		fmt.Printf("link %s %q nofollow=%v\n", l.URL, l.Text, l.NoFollow)
	}
	fmt.Printf("blocks %q\n", p.Blocks)
	fmt.Printf("tagged %q\n", p.Tagged)
	// Output:
	// title "VPN access", lang en, canonical http://intranet.example/manual/vpn
	// headings ["VPN access"], description "Working from home"
	// link http://intranet.example/ "Home" nofollow=false
	// link http://intranet.example/manual/print/vpn "Printer-friendly version" nofollow=true
	// blocks ["VPN access" "Connect through the VPN client and sign in." "Printer-friendly version"]
	// tagged "VPN access\nVPN access\nVPN client"
}

func ExampleTemplates() {
	tp := clean.NewTemplates(clean.TemplateOptions{MinPages: 3})
	pages := [][]string{
		{"Welcome to the canteen page.", "Contact the help desk at 1234."},
		{"The VPN manual.", "Contact the help desk at 1234."},
		{"Printer setup.", "Contact the help desk at 1234."},
	}
	for _, blocks := range pages {
		tp.Observe("intranet.example", blocks)
	}
	fmt.Println(tp.Strip("intranet.example", []string{"New page about parking.", "Contact the help desk at 1234."}))
	fmt.Println(tp.Strip("other.example", []string{"Contact the help desk at 1234."}))
	// Output:
	// [New page about parking.]
	// [Contact the help desk at 1234.]
}

func ExampleTemplates_MarshalBinary() {
	tp := clean.NewTemplates(clean.TemplateOptions{})
	tp.Observe("intranet.example", []string{"Footer"})
	data, _ := tp.MarshalBinary() // store it, for example in the crawl's data directory
	restored := clean.NewTemplates(clean.TemplateOptions{})
	if err := restored.UnmarshalBinary(data); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(restored.Pages("intranet.example"))
	// Output:
	// 1
}

package clean

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// mediaWikiPage is an article as MediaWiki 1.39's Vector skin renders
// it: "[edit]" beside each heading, the "Retrieved from" footer inside
// the content, the site name in the title.
func mediaWikiPage(title, text string, oldid int) string {
	return fmt.Sprintf(`<!DOCTYPE html><html><head><title>%s - Intranet Wiki</title></head><body>
<div id="content"><h1 id="firstHeading">%s</h1><div id="bodyContent"><div id="mw-content-text">
<p>%s</p>
<h2><span class="mw-headline" id="Usage">Usage</span><span class="mw-editsection"><span class="mw-editsection-bracket">[</span><a href="/index.php?title=%s&amp;action=edit&amp;section=1">edit</a><span class="mw-editsection-bracket">]</span></span></h2>
<p>Call it with two names and read what it answers about their differences in detail.</p>
</div><div class="printfooter">Retrieved from "<a dir="ltr" href="http://wiki.intra/index.php?title=%s&amp;oldid=%d">http://wiki.intra/index.php?title=%s&amp;oldid=%d</a>"</div>
</div></div></body></html>`, title, title, text, title, title, oldid, title, oldid)
}

// TestMediaWikiFurniture: "[edit]" is not in a heading, the "Retrieved
// from" footer is not in the text.
func TestMediaWikiFurniture(t *testing.T) {
	base, _ := url.Parse("http://wiki.intra/index.php/Filecmp")
	p, err := Parse(strings.NewReader(mediaWikiPage("Filecmp", "The filecmp module defines functions to compare files and directories.", 770)), base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range p.Headings {
		if strings.Contains(h, "edit") || strings.Contains(h, "[") {
			t.Errorf("heading %q holds the edit link", h)
		}
	}
	if len(p.Headings) != 2 || p.Headings[1] != "Usage" {
		t.Errorf("headings %q, want Filecmp and Usage", p.Headings)
	}
	if strings.Contains(p.Text, "Retrieved from") || strings.Contains(p.Text, "[edit]") {
		t.Errorf("the text holds the furniture: %q", p.Text)
	}
	if !strings.Contains(p.Text, "compare files and directories") {
		t.Errorf("the text lost the article: %q", p.Text)
	}
}

// TestTemplatesURLBlocks: blocks that differ only by the URL they name
// (a footer naming each page's own address) are one template block;
// blocks that differ by their words are not.
func TestTemplatesURLBlocks(t *testing.T) {
	tp := NewTemplates(TemplateOptions{})
	for i := range 8 {
		tp.Observe("wiki", []string{
			fmt.Sprintf(`Retrieved from "http://wiki.intra/index.php?title=Page%c&oldid=%d"`, 'A'+i, 700+i),
			fmt.Sprintf("Article %c says something of its own.", 'A'+i),
		})
	}
	footer := `Retrieved from "https://wiki.intra/index.php?title=Other&oldid=9"`
	got := tp.Strip("wiki", []string{footer, "Article Z says something of its own."})
	if len(got) != 1 || got[0] != "Article Z says something of its own." {
		t.Errorf("Strip = %q, want the article's own block only", got)
	}
}

// TestStripTitle: the site name a host ends most titles with is dropped
// once MinPages titles are known; a suffix of a few titles is kept, as
// are titles of other hosts and titles before the host is known.
func TestStripTitle(t *testing.T) {
	tp := NewTemplates(TemplateOptions{})
	if got := tp.StripTitle("wiki", "Filecmp - Intranet Wiki"); got != "Filecmp - Intranet Wiki" {
		t.Errorf("before any title: %q", got)
	}
	titles := []string{"Main Page - Intranet Wiki", "Filecmp - Intranet Wiki", "Os.path - Intranet Wiki",
		"Editing Os - Intranet Wiki", "Talk:Os - Intranet Wiki", "Copy of Filecmp - Intranet Wiki", "Pdb - Debugger - Intranet Wiki"}
	for i, title := range titles {
		tp.ObserveTitle("wiki", title)
		if i == 3 {
			if got := tp.StripTitle("wiki", "Filecmp - Intranet Wiki"); got != "Filecmp - Intranet Wiki" {
				t.Errorf("after 4 titles, fewer than MinPages: %q", got)
			}
		}
	}
	tp.ObserveTitle("docs", "Installing - Part 1")
	for _, tc := range []struct{ host, in, want string }{
		{"wiki", "Filecmp - Intranet Wiki", "Filecmp"},
		{"wiki", "Pdb - Debugger - Intranet Wiki", "Pdb - Debugger"},
		{"wiki", "Filecmp — File and Directory Comparisons - Intranet Wiki", "Filecmp — File and Directory Comparisons"},
		{"wiki", "Pdb - Debugger", "Pdb - Debugger"},
		{"wiki", "Intranet Wiki", "Intranet Wiki"},
		{"wiki", " - Intranet Wiki", " - Intranet Wiki"},
		{"docs", "Installing - Part 1", "Installing - Part 1"},
		{"other", "Filecmp - Intranet Wiki", "Filecmp - Intranet Wiki"},
	} {
		if got := tp.StripTitle(tc.host, tc.in); got != tc.want {
			t.Errorf("StripTitle(%s, %q) = %q, want %q", tc.host, tc.in, got, tc.want)
		}
	}
	// The statistics survive a round trip.
	data, err := tp.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back := NewTemplates(TemplateOptions{})
	if err := back.UnmarshalBinary(data); err != nil || back.StripTitle("wiki", "Os - Intranet Wiki") != "Os" {
		t.Errorf("after a round trip: %v, %q", err, back.StripTitle("wiki", "Os - Intranet Wiki"))
	}
}

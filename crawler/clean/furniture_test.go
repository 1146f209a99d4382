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

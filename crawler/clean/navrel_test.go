package clean

import (
	"slices"
	"testing"
)

// TestNavBlocks: a paragraph of navigation links (rel next, prev, up,
// contents, index) with their labels leaves the main content, as
// Texinfo writes one above every section of a one-page manual; its links
// are still outlinks. Pagination without rel, a paragraph with one
// navigation link among its text, or one with a link of another kind
// stays.
func TestNavBlocks(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{{
		name: "texinfo header",
		body: `<div class="header"><p>Next: <a href="Imports.html" rel="next">Imports</a>, Previous: <a href="#Top" rel="prev">R Data</a>, Up: <a href="#Top" rel="up">R Data</a> &nbsp; [<a href="#SEC_Contents" rel="contents">Contents</a>][<a href="#Index" rel="index">Index</a>]</p></div><h3>1.1 Imports</h3><p>The easiest form of data to import into R is a simple text file.</p>`,
		want: []string{"1.1 Imports", "The easiest form of data to import into R is a simple text file."},
	}, {
		name: "pagination without rel stays",
		body: `<p>Results of the survey.</p><p><a href="?p=1">1</a> <a href="?p=2">2</a> <a href="?p=2" rel="next">Next</a></p>`,
		want: []string{"Results of the survey.", "1 2 Next"},
	}, {
		name: "one navigation link in a sentence stays",
		body: `<p>Read the <a href="b.html" rel="next">next chapter</a> and <a href="c.html" rel="prev">the one before</a> when you have understood how the import of data works.</p>`,
		want: []string{"Read the next chapter and the one before when you have understood how the import of data works."},
	}, {
		name: "a link of another kind stays",
		body: `<p><a href="b.html" rel="next">Next</a> <a href="x.html">Download</a> <a href="a.html" rel="prev">Prev</a></p><p>Body text of the page.</p>`,
		want: []string{"Next Download Prev", "Body text of the page."},
	}} {
		t.Run(c.name, func(t *testing.T) {
			p := parse(t, "<html><body>"+c.body+"</body></html>")
			if !slices.Equal(p.Blocks, c.want) {
				t.Errorf("blocks %q, want %q", p.Blocks, c.want)
			}
			if len(p.Links) == 0 {
				t.Error("no outlinks")
			}
		})
	}
}

// TestHeadNavBars: DocBook's bars above and below every page — links to
// the neighbours the head names (<link rel="prev|next|up|home">) and
// those pages' titles, in the section's language around a page left in
// English — leave the main content, so that the untranslated page is
// the text of its original. A bar with a link elsewhere, with more text
// than the titles and a label, or on a page whose head names no
// neighbours stays; so does a sentence that happens to link the next
// page.
func TestHeadNavBars(t *testing.T) {
	head := `<head><title>1.4. What is the Debian Installer?</title>
<link rel="home" href="index.html" title="Debian GNU/Linux — instalační příručka">
<link rel="up" href="ch01.html" title="Kapitola 1. Vítejte v Debianu">
<link rel="prev" href="ch01s03.html" title="1.3. Co je Debian GNU/Linux?">
<link rel="next" href="ch01s05.html#top" title="1.5. Získání Debianu"></head>`
	header := `<div class="navheader"><table summary="Navigation header"><tr><th colspan="3">1.4. What is the Debian Installer?</th></tr>
<tr><td><a accesskey="p" href="ch01s03.html"><img src="images/prev.png" alt="Předcházející"></a></td><th>Kapitola 1. Vítejte v Debianu</th>
<td><a accesskey="n" href="ch01s05.html"><img src="images/next.png" alt="Další"></a></td></tr></table><hr></div>`
	footer := `<div class="navfooter"><hr><table summary="Navigation footer"><tr><td><a accesskey="p" href="ch01s03.html">Předcházející</a></td>
<td><a accesskey="u" href="ch01.html">Nahoru</a></td><td><a accesskey="n" href="ch01s05.html">Další</a></td></tr>
<tr><td>1.3. Co je Debian GNU/Linux? </td><td><a accesskey="h" href="index.html">Domů</a></td><td> 1.5. Získání Debianu</td></tr></table></div>`
	content := `<div class="sect1"><h2>1.4. What is the Debian Installer?</h2><p>Debian Installer, also known as d-i, is the software system to install a basic working Debian system.</p></div>`
	want := []string{"1.4. What is the Debian Installer?", "Debian Installer, also known as d-i, is the software system to install a basic working Debian system."}
	for _, c := range []struct {
		name, doc string
		want      []string
	}{{
		name: "header and footer of the head's neighbours",
		doc:  "<html>" + head + "<body>" + header + content + footer + "</body></html>",
		want: want,
	}, {
		name: "no neighbours in the head",
		doc:  "<html><head><title>1.4. What is the Debian Installer?</title></head><body>" + header + content + "</body></html>",
		want: append([]string{"1.4. What is the Debian Installer?", "Kapitola 1. Vítejte v Debianu"}, want...),
	}, {
		name: "a link elsewhere",
		doc:  "<html>" + head + "<body>" + content + `<div><a href="ch01s03.html">Předcházející</a> <a href="https://www.debian.org/">Debian</a> <a href="ch01s05.html">Další</a></div></body></html>`,
		want: append(want, "Předcházející Debian Další"),
	}, {
		name: "more text than titles and a label",
		doc:  "<html>" + head + "<body>" + content + `<div><a href="ch01s03.html">Back</a> to what Debian is, or <a href="ch01s05.html">on</a> to where to get the installation images for your machine.</div></body></html>`,
		want: append(want, "Back to what Debian is, or on to where to get the installation images for your machine."),
	}, {
		name: "a sentence with one link to the next page",
		doc:  "<html>" + head + "<body>" + content + `<p>Then read <a href="ch01s05.html">1.5. Získání Debianu</a>.</p></body></html>`,
		want: append(want, "Then read 1.5. Získání Debianu."),
	}} {
		t.Run(c.name, func(t *testing.T) {
			p := parse(t, c.doc)
			if !slices.Equal(p.Blocks, c.want) {
				t.Errorf("blocks %q,\nwant   %q", p.Blocks, c.want)
			}
		})
	}
}

#!/usr/bin/env bash
# heldout4-site.sh: builds a fourth documents intranet for
# scripts/docs-check.py, made the way scripts/heldout3-site.sh makes the
# third (the same document makers) but of sources and page generators
# none of the earlier sites used and no rule was tuned on, measured only
# after the rules of session 7 were final:
#
#   - chapters of the Debian New Maintainers' Guide (maint-guide, DocBook
#     XSL: navigation header and footer tables), in English, and one in
#     French and Spanish (maint-guide-fr, maint-guide-es); pages of
#     Valgrind's manual (valgrind, DocBook); of libffi's manual (libffi8,
#     texinfo: short pages with a header of Next/Previous/Up links); of
#     The Rust Programming Language (rust-doc, mdBook: the whole book's
#     table of contents in a sidebar on every page), as Debian ships
#     them, with their stylesheets and scripts;
#   - PDFs made by headless Chromium's "Save as PDF" from the served page
#     (header and footer: date, title, URL, "1/12");
#   - PDFs made by LibreOffice straight from the HTML file (writer_web);
#   - DOCX and ODT made by pandoc from the whole HTML file (navigation,
#     sidebars and footers included);
#   - printer-friendly views (print/…: the main content alone and a
#     "Retrieved from URL" line);
#   - hard negatives that must stay apart: a book (an HTML page and its
#     Chromium PDF) of three Rust chapters, each a part of it; a v2 of a
#     maint-guide chapter whose ninth class="section" element (a tenth of
#     its words; the first seven are its table of contents) is replaced by
#     another chapter's section of about its length (DOCX, PDF), beside a
#     v1 DOCX that is the page; one
#     maint-guide chapter in three languages; pages of one template.
#
# Writes DIR/site (serve it with ndd serve -port PORT) and
# DIR/manifest.jsonl in docs-check.py's format (see heldout3-site.sh).
#
# usage: scripts/heldout4-site.sh DIR [DOPPEL_BINARY]
#   PORT (default 18760): the port the site is printed from and served on
#   needs: maint-guide, maint-guide-fr, maint-guide-es, valgrind, libffi8,
#   rust-doc, chromium, pandoc, libreoffice-writer
set -euo pipefail
dir=$1
doppel=${2:-doppel}
port=${PORT:-18760}
site=$dir/site
manifest=$dir/manifest.jsonl
doc=/usr/share/doc
base=http://127.0.0.1:$port

# shellcheck source=lib/docmakers.sh
. "$(dirname "$0")/lib/docmakers.sh"
# id=content before class=chapter: mdBook's table of contents is an <ol class="chapter">.
export VIEW_MAIN="role=main id=content class=chapter class=article class=section" VIEW_BOOK=strip

maint="first start dreq modify build checkit"
maintprint="first build"
maintdocx="start modify"
maintodt="checkit"
valgrind="manual-intro quick-start faq dist.readme"
valgrindlo="manual-intro quick-start"
valgrinddocx="faq"
ffi="The-Basics The-Closure-API Primitive-Types Arrays-Unions-Enums"
ffiodt="The-Basics Primitive-Types"
rust="ch01-01-installation ch03-01-variables-and-mutability ch04-01-what-is-ownership ch08-01-vectors ch09-02-recoverable-errors-with-result"
rustdocx="ch03-01-variables-and-mutability ch08-01-vectors"
rustprint="ch04-01-what-is-ownership ch09-02-recoverable-errors-with-result"
langs="en fr es"

build() {
	rm -rf "$site" "$dir/tmp" && mkdir -p "$site/files" "$site/print" "$site/maint" "$site/valgrind" "$site/ffi" "$site/rust" "$dir/tmp"
	for l in $langs; do
		g=maint-guide
		[ "$l" = en ] || g=maint-guide-$l
		cp -L "$doc/$g/html/debian.css" "$site/maint/"
		cp -rL "$doc/$g/html/images" "$site/maint/" 2>/dev/null || true
	done
	for p in $maint; do cp -L "$doc/maint-guide/html/$p.en.html" "$site/maint/$p.en.html"; done
	for l in fr es; do cp -L "$doc/maint-guide-$l/html/modify.$l.html" "$site/maint/modify.$l.html"; done
	cp -L "$doc/valgrind/html/"*.css "$site/valgrind/" 2>/dev/null || true
	cp -rL "$doc/valgrind/html/images" "$site/valgrind/" 2>/dev/null || true
	for p in $valgrind; do cp -L "$doc/valgrind/html/$p.html" "$site/valgrind/$p.html"; done
	for p in $ffi; do cp -L "$doc/libffi8/html/$p.html" "$site/ffi/$p.html"; done
	(cd "$doc/rust-doc/html/book" && cp -rL css fonts theme FontAwesome ./*.js ./*.css favicon.* "$site/rust/" 2>/dev/null || true)
	for p in $rust; do cp -L "$doc/rust-doc/html/book/$p.html" "$site/rust/$p.html"; done
	# Derived pages: printer-friendly views, the book, the v2.
	for p in $maintprint; do
		views print "$site/maint/$p.en.html" "$base/maint/$p.en.html" "$site/print/maint-$p.html"
	done
	for p in $rustprint; do
		views print "$site/rust/$p.html" "$base/rust/$p.html" "$site/print/rust-$p.html"
	done
	views book "The Rust book: three chapters" "$site/rust/book.html" \
		"$site/rust/ch03-01-variables-and-mutability.html" "$site/rust/ch04-01-what-is-ownership.html" "$site/rust/ch08-01-vectors.html"
	views revise "$site/maint/build.en.html" "$dir/tmp/build-v2.html" "$site/maint/checkit.en.html" 9=11
	# DOCX and ODT by pandoc from the whole page file.
	for p in $maintdocx; do pandoc -f html -t docx "$site/maint/$p.en.html" -o "$site/files/maint-$p.docx" 2>/dev/null; done
	for p in $maintodt; do pandoc -f html -t odt "$site/maint/$p.en.html" -o "$site/files/maint-$p.odt" 2>/dev/null; done
	for p in $valgrinddocx; do pandoc -f html -t docx "$site/valgrind/$p.html" -o "$site/files/valgrind-$p.docx" 2>/dev/null; done
	for p in $ffiodt; do pandoc -f html -t odt "$site/ffi/$p.html" -o "$site/files/ffi-$p.odt" 2>/dev/null; done
	for p in $rustdocx; do pandoc -f html -t docx "$site/rust/$p.html" -o "$site/files/rust-$p.docx" 2>/dev/null; done
	pandoc -f html -t docx "$site/maint/build.en.html" -o "$site/files/maint-build-v1.docx" 2>/dev/null
	pandoc -f html -t docx "$dir/tmp/build-v2.html" -o "$site/files/maint-build-v2.docx" 2>/dev/null
	cp "$site/files/maint-build-v2.docx" "$dir/tmp/"
	# LibreOffice: the v2 from its DOCX; Valgrind's pages straight from HTML.
	(cd "$dir/tmp" && soffice --headless --convert-to pdf --outdir "$site/files" maint-build-v2.docx >/dev/null 2>&1)
	for p in $valgrindlo; do cp "$site/valgrind/$p.html" "$dir/tmp/valgrind-$p.html"; done
	(cd "$dir/tmp" && soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$site/files" valgrind-*.html >/dev/null 2>&1)
	for p in $valgrindlo; do mv "$site/files/valgrind-$p.pdf" "$site/files/valgrind-$p.lo.pdf"; done
	# Chromium, from the served pages.
	serve_site
	for p in $maint; do chrome "$base/maint/$p.en.html" "$site/files/maint-$p.pdf"; done
	chrome "$base/maint/modify.fr.html" "$site/files/maint-modify.fr.pdf"
	for p in $valgrind; do chrome "$base/valgrind/$p.html" "$site/files/valgrind-$p.pdf"; done
	for p in $ffi; do chrome "$base/ffi/$p.html" "$site/files/ffi-$p.pdf"; done
	for p in $rust; do chrome "$base/rust/$p.html" "$site/files/rust-$p.pdf"; done
	chrome "$base/rust/book.html" "$site/files/rust-book.pdf"
	stop_site
	rm -rf "$dir/tmp"
}


[ "${MANIFEST_ONLY:-}" ] || build
: >"$manifest"
echo '<html><head><title>Fourth documents intranet</title></head><body><main><h1>Documents</h1><ul>' >"$site/index.html"
for p in $maint; do
	add "maint/$p.en.html" "maint/$p.en.html" ""
	version "maint/$p.en.html" "files/maint-$p.pdf"
	case " $maintprint " in *" $p "*) version "maint/$p.en.html" "print/maint-$p.html" ;; esac
	case " $maintdocx " in *" $p "*) version "maint/$p.en.html" "files/maint-$p.docx" ;; esac
	case " $maintodt " in *" $p "*) version "maint/$p.en.html" "files/maint-$p.odt" ;; esac
done
version maint/build.en.html files/maint-build-v1.docx
for f in docx pdf; do add "files/maint-build-v2.$f" files/maint-build-v2 ""; done
for l in fr es; do add "maint/modify.$l.html" "maint/modify.$l.html" ""; done
version maint/modify.fr.html files/maint-modify.fr.pdf
for p in $valgrind; do
	add "valgrind/$p.html" "valgrind/$p.html" ""
	version "valgrind/$p.html" "files/valgrind-$p.pdf"
	case " $valgrindlo " in *" $p "*) version "valgrind/$p.html" "files/valgrind-$p.lo.pdf" ;; esac
	case " $valgrinddocx " in *" $p "*) version "valgrind/$p.html" "files/valgrind-$p.docx" ;; esac
done
for p in $ffi; do
	add "ffi/$p.html" "ffi/$p.html" ""
	version "ffi/$p.html" "files/ffi-$p.pdf"
	case " $ffiodt " in *" $p "*) version "ffi/$p.html" "files/ffi-$p.odt" ;; esac
done
for p in $rust; do
	add "rust/$p.html" "rust/$p.html" ""
	version "rust/$p.html" "files/rust-$p.pdf"
	case " $rustdocx " in *" $p "*) version "rust/$p.html" "files/rust-$p.docx" ;; esac
	case " $rustprint " in *" $p "*) version "rust/$p.html" "print/rust-$p.html" ;; esac
done
add rust/book.html rust/book.html ""
version rust/book.html files/rust-book.pdf
echo '</ul></main></body></html>' >>"$site/index.html"
echo "$(wc -l <"$manifest") pages and documents in $site" >&2

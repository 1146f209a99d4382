#!/usr/bin/env bash
# heldout5-site.sh: builds a fifth documents intranet for
# scripts/docs-check.py, made with the document makers of
# scripts/lib/docmakers.sh (as the third and fourth sites) from sources
# and page generators none of the earlier sites used and no rule was
# tuned on, measured only after the rules of session 8 were final:
#
#   - pages of the Python 3.11 tutorial and HOWTOs (python3.11-doc:
#     Sphinx with python-docs-theme, a related-pages bar above and below,
#     a sidebar of the page's sections and of the previous and next
#     pages); of libxslt's home pages (libxslt1-dev: XHTML of tables, a
#     menu column beside the text, ISO-8859-1); of the Java 17 API
#     (openjdk-17-doc: javadoc, a navigation bar and a search box);
#   - PDFs made by headless Chromium's "Save as PDF" from the served page;
#   - PDFs made by LibreOffice straight from the HTML file (writer_web);
#   - DOCX and ODT made by pandoc from the whole HTML file;
#   - printer-friendly views (print/…);
#   - hard negatives that must stay apart: a book (an HTML page and its
#     Chromium PDF) of three tutorial chapters; a v2 of the tutorial's
#     Modules chapter whose section "The dir() Function" (about a tenth
#     of its words) is replaced by the Errors chapter's "Exception
#     Chaining" (DOCX, PDF), beside a v1 DOCX that is the page; pages of
#     one template.
#
# Writes DIR/site (serve it with ndd serve -port PORT) and
# DIR/manifest.jsonl in docs-check.py's format (see lib/docmakers.sh).
#
# usage: scripts/heldout5-site.sh DIR [DOPPEL_BINARY]
#   PORT (default 18770): the port the site is printed from and served on
#   needs: python3.11-doc, libxslt1-dev, openjdk-17-doc, chromium, pandoc,
#   libreoffice-writer
set -euo pipefail
dir=$1
doppel=${2:-doppel}
port=${PORT:-18770}
site=$dir/site
manifest=$dir/manifest.jsonl
doc=/usr/share/doc
base=http://127.0.0.1:$port

# shellcheck source=lib/docmakers.sh
. "$(dirname "$0")/lib/docmakers.sh"
export VIEW_MAIN="role=main id=content"

py="tutorial/appetite tutorial/interpreter tutorial/introduction tutorial/controlflow tutorial/datastructures tutorial/modules tutorial/errors tutorial/venv howto/sorting howto/ipaddress howto/annotations"
pyprint="tutorial/datastructures tutorial/errors"
pydocx="tutorial/introduction tutorial/controlflow"
pyodt="tutorial/venv howto/sorting"
pylo="tutorial/appetite tutorial/interpreter"
xslt="intro FAQ docbook internals contribs"
xsltdocx="FAQ internals"
xsltlo="intro"
jdk="Base64 StringJoiner UUID Timer"
jdkdocx="StringJoiner"
jdkprint="UUID"
jdir=jdk/api/java.base/java/util

build() {
	rm -rf "$site" "$dir/tmp" && mkdir -p "$site/files" "$site/print" "$site/python/tutorial" "$site/python/howto" "$site/xslt" "$site/$jdir" "$dir/tmp"
	cp -rL "$doc/python3.11/html/_static" "$site/python/"
	for p in $py; do cp -L "$doc/python3.11/html/$p.html" "$site/python/$p.html"; done
	for p in $xslt; do cp -L "$doc/libxslt1-dev/html/$p.html" "$site/xslt/$p.html"; done
	cp -L "$doc/libxslt1-dev/html/"*.gif "$doc/libxslt1-dev/html/"*.png "$site/xslt/" 2>/dev/null || true
	(cd "$doc/openjdk-17-doc/api" && cp -rL script-dir resources ./*.css script.js "$site/jdk/api/")
	for p in $jdk; do cp -L "$doc/openjdk-17-doc/api/java.base/java/util/$p.html" "$site/$jdir/$p.html"; done
	# Derived pages: printer-friendly views, the book, the v2.
	for p in $pyprint; do views print "$site/python/$p.html" "$base/python/$p.html" "$site/print/python-$(basename "$p").html"; done
	for p in $jdkprint; do views print "$site/$jdir/$p.html" "$base/$jdir/$p.html" "$site/print/jdk-$p.html"; done
	views book "The Python tutorial: three chapters" "$site/python/book.html" \
		"$site/python/tutorial/appetite.html" "$site/python/tutorial/interpreter.html" "$site/python/tutorial/venv.html"
	views revise "$site/python/tutorial/modules.html" "$dir/tmp/modules-v2.html" \
		"$site/python/tutorial/errors.html" the-dir-function=exception-chaining
	# DOCX and ODT by pandoc from the whole page file (libxslt's in UTF-8 first).
	for p in $pydocx; do pandoc -f html -t docx "$site/python/$p.html" -o "$site/files/python-$(basename "$p").docx" 2>/dev/null; done
	for p in $pyodt; do pandoc -f html -t odt "$site/python/$p.html" -o "$site/files/python-$(basename "$p").odt" 2>/dev/null; done
	for p in $xsltdocx; do
		iconv -f ISO-8859-1 -t UTF-8 "$site/xslt/$p.html" >"$dir/tmp/xslt-$p.html"
		pandoc -f html -t docx "$dir/tmp/xslt-$p.html" -o "$site/files/xslt-$p.docx" 2>/dev/null
	done
	for p in $jdkdocx; do pandoc -f html -t docx "$site/$jdir/$p.html" -o "$site/files/jdk-$p.docx" 2>/dev/null; done
	pandoc -f html -t docx "$site/python/tutorial/modules.html" -o "$site/files/python-modules-v1.docx" 2>/dev/null
	pandoc -f html -t docx "$dir/tmp/modules-v2.html" -o "$site/files/python-modules-v2.docx" 2>/dev/null
	cp "$site/files/python-modules-v2.docx" "$dir/tmp/"
	# LibreOffice: the v2 from its DOCX; tutorial and libxslt pages straight from HTML.
	(cd "$dir/tmp" && soffice --headless --convert-to pdf --outdir "$site/files" python-modules-v2.docx >/dev/null 2>&1)
	for p in $pylo; do cp "$site/python/$p.html" "$dir/tmp/python-$(basename "$p").html"; done
	for p in $xsltlo; do cp "$site/xslt/$p.html" "$dir/tmp/xslt-$p.lo.html"; done
	(cd "$dir/tmp" && soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$dir/tmp/lo" python-*.html xslt-*.lo.html >/dev/null 2>&1)
	for p in $pylo; do mv "$dir/tmp/lo/python-$(basename "$p").pdf" "$site/files/python-$(basename "$p").lo.pdf"; done
	for p in $xsltlo; do mv "$dir/tmp/lo/xslt-$p.lo.pdf" "$site/files/xslt-$p.lo.pdf"; done
	# Chromium, from the served pages.
	serve_site
	for p in $py; do chrome "$base/python/$p.html" "$site/files/python-$(basename "$p").pdf"; done
	for p in $xslt; do chrome "$base/xslt/$p.html" "$site/files/xslt-$p.pdf"; done
	for p in $jdk; do chrome "$base/$jdir/$p.html" "$site/files/jdk-$p.pdf"; done
	chrome "$base/python/book.html" "$site/files/python-book.pdf"
	stop_site
	rm -rf "$dir/tmp"
}

[ "${MANIFEST_ONLY:-}" ] || build
: >"$manifest"
echo '<html><head><title>Fifth documents intranet</title></head><body><main><h1>Documents</h1><ul>' >"$site/index.html"
for p in $py; do
	n=$(basename "$p")
	add "python/$p.html" "python/$p.html" ""
	version "python/$p.html" "files/python-$n.pdf"
	case " $pyprint " in *" $p "*) version "python/$p.html" "print/python-$n.html" ;; esac
	case " $pydocx " in *" $p "*) version "python/$p.html" "files/python-$n.docx" ;; esac
	case " $pyodt " in *" $p "*) version "python/$p.html" "files/python-$n.odt" ;; esac
	case " $pylo " in *" $p "*) version "python/$p.html" "files/python-$n.lo.pdf" ;; esac
done
version python/tutorial/modules.html files/python-modules-v1.docx
for f in docx pdf; do add "files/python-modules-v2.$f" files/python-modules-v2 ""; done
add python/book.html python/book.html ""
version python/book.html files/python-book.pdf
for p in $xslt; do
	add "xslt/$p.html" "xslt/$p.html" ""
	version "xslt/$p.html" "files/xslt-$p.pdf"
	case " $xsltdocx " in *" $p "*) version "xslt/$p.html" "files/xslt-$p.docx" ;; esac
	case " $xsltlo " in *" $p "*) version "xslt/$p.html" "files/xslt-$p.lo.pdf" ;; esac
done
for p in $jdk; do
	add "$jdir/$p.html" "$jdir/$p.html" ""
	version "$jdir/$p.html" "files/jdk-$p.pdf"
	case " $jdkdocx " in *" $p "*) version "$jdir/$p.html" "files/jdk-$p.docx" ;; esac
	case " $jdkprint " in *" $p "*) version "$jdir/$p.html" "print/jdk-$p.html" ;; esac
done
echo '</ul></main></body></html>' >>"$site/index.html"
echo "$(wc -l <"$manifest") pages and documents in $site" >&2

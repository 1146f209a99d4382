#!/usr/bin/env bash
# heldout3-site.sh: builds a third documents intranet for
# scripts/docs-check.py, of sources and document makers that neither
# scripts/docs-site.sh (the Debian Reference; pandoc and LibreOffice from
# ODT) nor scripts/heldout-site.sh (PostgreSQL, git, Apache httpd) used,
# and that no extraction or detector rule was tuned on:
#
#   - pages of Sphinx's manual (sphinx-doc), of Requests' user guide
#     (python-requests-doc), of the Node.js API reference (nodejs-doc), of
#     Docutils' user docs (docutils-doc) and one section of the Debian
#     installation guide in English, French and German
#     (installation-guide-amd64), as Debian ships them, with their
#     stylesheets;
#   - PDFs made by headless Chromium's "Save as PDF" (--print-to-pdf) from
#     the served page, with its header and footer: the date and the title
#     at the top, the page's URL and "1/12" at the bottom of every page;
#   - PDFs made by LibreOffice straight from the HTML file (writer_web);
#   - DOCX and ODT made by pandoc from the whole HTML file (navigation,
#     sidebars and footers included, as a user's "save as Word" has them);
#   - a page's printer-friendly view (print/…: the page's main content
#     alone, with a "Retrieved from URL" line, as a wiki's printable view);
#   - hard negatives that must stay apart: a book (an HTML page and its
#     Chromium PDF) made of three Requests pages, each a part of it; a v2
#     of the Sphinx installation page whose Docker section (a seventh of
#     it) is replaced by another page's section (DOCX, PDF), beside a v1
#     that is the page (DOCX); one
#     installation-guide section in three languages; pages of one
#     template (Node.js, Sphinx).
#
# The pages are served (python3 -m http.server on 127.0.0.1:PORT) while
# Chromium prints them, so each PDF's footer holds the URL the crawl will
# fetch the page from when the site is served on the same port.
#
# Writes DIR/site (serve it with ndd serve -port PORT) and
# DIR/manifest.jsonl in docs-check.py's format: path, title as Doppel
# reads it, group (the twin group: the page a version is of, or its own
# path) and twin (the page of a version, "" otherwise).
#
# usage: scripts/heldout3-site.sh DIR [DOPPEL_BINARY]
#   PORT (default 18750): the port the site is printed from and served on
#   needs: sphinx-doc, python-requests-doc, nodejs-doc, docutils-doc,
#   installation-guide-amd64, chromium, pandoc, libreoffice-writer
set -euo pipefail
dir=$1
doppel=${2:-doppel}
port=${PORT:-18750}
site=$dir/site
manifest=$dir/manifest.jsonl
doc=/usr/share/doc
base=http://127.0.0.1:$port

# shellcheck source=lib/docmakers.sh
. "$(dirname "$0")/lib/docmakers.sh"
export VIEW_MAIN="role=main id=apicontent class=document id=content"

sphinx="tutorial/getting-started tutorial/first-steps tutorial/narrative-documentation tutorial/describing-code tutorial/automatic-doc-generation tutorial/more-sphinx-customization usage/quickstart usage/theming usage/installation"
sphinxprint="tutorial/first-steps tutorial/describing-code usage/quickstart usage/theming"
sphinxdocx="tutorial/getting-started tutorial/narrative-documentation usage/quickstart"
requests="user/quickstart user/advanced user/authentication user/install community/faq"
requestslo="user/quickstart user/authentication community/faq"
node="path os querystring timers string_decoder punycode readline"
nodeodt="path querystring timers"
docutils="html links smartquotes manpage"
langs="en fr de"

build() {
	rm -rf "$site" "$dir/tmp" && mkdir -p "$site/files" "$site/print" "$dir/tmp"
	mkdir -p "$site/sphinx/tutorial" "$site/sphinx/usage" "$site/requests/user" "$site/requests/community" "$site/node/api" "$site/docutils/user"
	cp -rL "$doc/sphinx-doc/html/_static" "$site/sphinx/"
	cp -rL "$doc/python-requests-doc/html/_static" "$site/requests/"
	cp -rL "$doc/nodejs/api/assets" "$site/node/api/"
	cp -L "$doc/docutils-doc/docs/"*.css "$site/docutils/" 2>/dev/null || true
	for p in $sphinx; do cp -L "$doc/sphinx-doc/html/$p.html" "$site/sphinx/$p.html"; done
	for p in $requests; do cp -L "$doc/python-requests-doc/html/$p.html" "$site/requests/$p.html"; done
	for p in $node; do cp -L "$doc/nodejs/api/$p.html" "$site/node/api/$p.html"; done
	for p in $docutils; do cp -L "$doc/docutils-doc/docs/user/$p.html" "$site/docutils/user/$p.html"; done
	for l in $langs; do
		mkdir -p "$site/install/$l"
		cp -L "$doc/installation-guide-amd64/$l/ch03s01.html" "$site/install/$l/ch03s01.html"
		cp -L "$doc/installation-guide-amd64/$l/install.css" "$site/install/$l/" 2>/dev/null || true
	done
	# Derived pages: printer-friendly views, the book, the v2.
	for p in $sphinxprint; do
		views print "$site/sphinx/$p.html" "$base/sphinx/$p.html" "$site/print/sphinx-$(basename "$p").html"
	done
	views book "Requests: the user guide" "$site/requests/book.html" \
		"$site/requests/user/quickstart.html" "$site/requests/user/authentication.html" "$site/requests/user/install.html"
	views revise "$site/sphinx/usage/installation.html" "$dir/tmp/install-v2.html" \
		"$site/sphinx/usage/theming.html" docker=third-party-themes
	# DOCX and ODT by pandoc from the whole page file.
	for p in $sphinxdocx; do pandoc -f html -t docx "$site/sphinx/$p.html" -o "$site/files/sphinx-$(basename "$p").docx" 2>/dev/null; done
	for p in $nodeodt; do pandoc -f html -t odt "$site/node/api/$p.html" -o "$site/files/node-$p.odt" 2>/dev/null; done
	pandoc -f html -t docx "$site/sphinx/usage/installation.html" -o "$site/files/install-sphinx-v1.docx" 2>/dev/null
	pandoc -f html -t docx "$dir/tmp/install-v2.html" -o "$site/files/install-sphinx-v2.docx" 2>/dev/null
	cp "$site/files/install-sphinx-v2.docx" "$dir/tmp/"
	# LibreOffice: the v2 from its DOCX; Requests' pages straight from HTML.
	(cd "$dir/tmp" && soffice --headless --convert-to pdf --outdir "$site/files" install-sphinx-v2.docx >/dev/null 2>&1)
	for p in $requestslo; do cp "$site/requests/$p.html" "$dir/tmp/requests-$(basename "$p").html"; done
	(cd "$dir/tmp" && soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$site/files" requests-*.html >/dev/null 2>&1)
	for p in $requestslo; do mv "$site/files/requests-$(basename "$p").pdf" "$site/files/requests-$(basename "$p").lo.pdf"; done
	# Chromium, from the served pages.
	serve_site
	for p in $sphinx; do chrome "$base/sphinx/$p.html" "$site/files/sphinx-$(basename "$p").pdf"; done
	for p in $requests; do chrome "$base/requests/$p.html" "$site/files/requests-$(basename "$p").pdf"; done
	for p in $node; do chrome "$base/node/api/$p.html" "$site/files/node-$p.pdf"; done
	for p in $docutils; do chrome "$base/docutils/user/$p.html" "$site/files/docutils-$p.pdf"; done
	for l in fr de; do chrome "$base/install/$l/ch03s01.html" "$site/files/install-ch03s01.$l.pdf"; done
	chrome "$base/requests/book.html" "$site/files/requests-book.pdf"
	stop_site
	rm -rf "$dir/tmp"
}


[ "${MANIFEST_ONLY:-}" ] || build
: >"$manifest"
echo '<html><head><title>Third documents intranet</title></head><body><main><h1>Documents</h1><ul>' >"$site/index.html"
for p in $sphinx; do
	n=$(basename "$p")
	add "sphinx/$p.html" "sphinx/$p.html" ""
	version "sphinx/$p.html" "files/sphinx-$n.pdf"
	case " $sphinxprint " in *" $p "*) version "sphinx/$p.html" "print/sphinx-$n.html" ;; esac
	case " $sphinxdocx " in *" $p "*) version "sphinx/$p.html" "files/sphinx-$n.docx" ;; esac
done
version sphinx/usage/installation.html files/install-sphinx-v1.docx
for f in docx pdf; do add "files/install-sphinx-v2.$f" files/install-sphinx-v2 ""; done
for p in $requests; do
	n=$(basename "$p")
	add "requests/$p.html" "requests/$p.html" ""
	version "requests/$p.html" "files/requests-$n.pdf"
	case " $requestslo " in *" $p "*) version "requests/$p.html" "files/requests-$n.lo.pdf" ;; esac
done
add requests/book.html requests/book.html ""
version requests/book.html files/requests-book.pdf
for p in $node; do
	add "node/api/$p.html" "node/api/$p.html" ""
	version "node/api/$p.html" "files/node-$p.pdf"
	case " $nodeodt " in *" $p "*) version "node/api/$p.html" "files/node-$p.odt" ;; esac
done
for p in $docutils; do
	add "docutils/user/$p.html" "docutils/user/$p.html" ""
	version "docutils/user/$p.html" "files/docutils-$p.pdf"
done
for l in $langs; do add "install/$l/ch03s01.html" "install/$l/ch03s01.html" ""; done
for l in fr de; do version "install/$l/ch03s01.html" "files/install-ch03s01.$l.pdf"; done
echo '</ul></main></body></html>' >>"$site/index.html"
echo "$(wc -l <"$manifest") pages and documents in $site" >&2

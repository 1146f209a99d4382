#!/usr/bin/env bash
# heldout7-site.sh: builds a seventh documents intranet for
# scripts/docs-check.py, made with the document makers of
# scripts/lib/docmakers.sh from a source and page generator no earlier
# site used, built after the rules of session 10 were final and measured
# once with them, never tuned on:
#
#   - section pages of the Debian Administrator's Handbook
#     (debian-handbook: Publican's DocBook XHTML, a print stylesheet
#     linked with media=print, navigation bars above and below, index
#     terms as empty anchors), in English, and one of them (inetd) in
#     French and German (a language triple: three groups that must stay
#     apart);
#     the pages' canonical links to debian-handbook.info are left out
#     (the site is served on loopback);
#   - PDFs made by headless Chromium's "Save as PDF" from the served page;
#   - PDFs made by LibreOffice straight from the HTML file (writer_web);
#   - DOCX and ODT made by pandoc from the whole HTML file;
#   - printer-friendly views (print/…);
#   - hard negatives: a book (an HTML page and its Chromium PDF) of three
#     sections; a v2 of the apt-get section whose second subsection is
#     replaced by one of the package meta-information section (DOCX, and
#     a PDF of it by LibreOffice), beside a v1 DOCX that is the page.
#
# Writes DIR/site (serve it with ndd serve -port PORT) and
# DIR/manifest.jsonl in docs-check.py's format (see lib/docmakers.sh).
#
# usage: scripts/heldout7-site.sh DIR [DOPPEL_BINARY]
#   PORT (default 18790): the port the site is printed from and served on
#   needs: debian-handbook, chromium, pandoc, libreoffice-writer
set -euo pipefail
dir=$1
doppel=${2:-doppel}
port=${PORT:-18790}
site=$dir/site
manifest=$dir/manifest.jsonl
src=/usr/share/doc/debian-handbook/html
base=http://127.0.0.1:$port

# shellcheck source=lib/docmakers.sh
. "$(dirname "$0")/lib/docmakers.sh"
export VIEW_MAIN="class=section"
export VIEW_BOOK=strip

en="sect.apt-get sect.package-meta-information sect.apt-cache sect.backup sect.dhcp sect.creating-accounts sect.hotplug sect.inetd sect.config-printing sect.filesystem-hierarchy"
endocx="sect.apt-cache sect.backup sect.inetd"
enodt="sect.dhcp sect.hotplug"
enlo="sect.creating-accounts sect.config-printing"
enprint="sect.filesystem-hierarchy sect.backup"
langs="fr-FR de-DE"
triple=sect.inetd # translated in both (French leaves apt-file in English)

# copy LANG PAGE: a page into the site, without its canonical link.
copy() {
	sed -e 's|<link[^>]*rel="canonical"[^>]*/>||' "$src/$1/$2.html" >"$site/$1/$2.html"
}

build() {
	rm -rf "$site" "$dir/tmp" && mkdir -p "$site/files" "$site/print" "$dir/tmp"
	for l in en-US $langs; do
		mkdir -p "$site/$l"
		cp -rL "$src/$l/Common_Content" "$site/$l/"
	done
	for p in $en; do copy en-US "$p"; done
	for l in $langs; do copy "$l" $triple; done
	# Derived pages: printer-friendly views, the book, the v2.
	for p in $enprint; do views print "$site/en-US/$p.html" "$base/en-US/$p.html" "$site/print/$p.html"; done
	views book "Package tools: three sections" "$site/en-US/book.html" \
		"$site/en-US/sect.apt-cache.html" "$site/en-US/sect.dhcp.html" "$site/en-US/sect.inetd.html"
	views revise "$site/en-US/sect.apt-get.html" "$dir/tmp/apt-get-v2.html" \
		"$site/en-US/sect.package-meta-information.html" 2=2
	# DOCX and ODT by pandoc from the whole page file.
	for p in $endocx; do pandoc -f html -t docx "$site/en-US/$p.html" -o "$site/files/$p.docx" 2>/dev/null; done
	for p in $enodt; do pandoc -f html -t odt "$site/en-US/$p.html" -o "$site/files/$p.odt" 2>/dev/null; done
	pandoc -f html -t docx "$site/en-US/sect.apt-get.html" -o "$site/files/apt-get-v1.docx" 2>/dev/null
	pandoc -f html -t docx "$dir/tmp/apt-get-v2.html" -o "$site/files/apt-get-v2.docx" 2>/dev/null
	cp "$site/files/apt-get-v2.docx" "$dir/tmp/"
	# LibreOffice: the v2 from its DOCX; two sections straight from HTML.
	(cd "$dir/tmp" && soffice --headless --convert-to pdf --outdir "$site/files" apt-get-v2.docx >/dev/null 2>&1)
	for p in $enlo; do cp "$site/en-US/$p.html" "$dir/tmp/$p.lo.html"; done
	(cd "$dir/tmp" && soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$dir/tmp/lo" ./*.lo.html >/dev/null 2>&1)
	for p in $enlo; do mv "$dir/tmp/lo/$p.lo.pdf" "$site/files/$p.lo.pdf"; done
	# Chromium, from the served pages.
	serve_site
	for p in $en; do chrome "$base/en-US/$p.html" "$site/files/$p.pdf"; done
	for l in $langs; do chrome "$base/$l/$triple.html" "$site/files/$triple.$l.pdf"; done
	chrome "$base/en-US/book.html" "$site/files/book.pdf"
	stop_site
	rm -rf "$dir/tmp"
}

[ "${MANIFEST_ONLY:-}" ] || build
: >"$manifest"
echo '<html><head><title>Seventh documents intranet</title></head><body><main><h1>Documents</h1><ul>' >"$site/index.html"
for p in $en; do
	page=en-US/$p.html
	add "$page" "$page" ""
	version "$page" "files/$p.pdf"
	case " $endocx " in *" $p "*) version "$page" "files/$p.docx" ;; esac
	case " $enodt " in *" $p "*) version "$page" "files/$p.odt" ;; esac
	case " $enlo " in *" $p "*) version "$page" "files/$p.lo.pdf" ;; esac
	case " $enprint " in *" $p "*) version "$page" "print/$p.html" ;; esac
done
version en-US/sect.apt-get.html files/apt-get-v1.docx
for f in docx pdf; do add "files/apt-get-v2.$f" files/apt-get-v2 ""; done
add en-US/book.html en-US/book.html ""
version en-US/book.html files/book.pdf
for l in $langs; do
	add "$l/$triple.html" "$l/$triple.html" ""
	version "$l/$triple.html" "files/$triple.$l.pdf"
done
echo '</ul></main></body></html>' >>"$site/index.html"
echo "$(wc -l <"$manifest") pages and documents in $site" >&2

#!/usr/bin/env bash
# heldout6-site.sh: builds a sixth documents intranet for
# scripts/docs-check.py, made with the document makers of
# scripts/lib/docmakers.sh from page generators none of the earlier
# twin sites used, built by the lead while the rules of session 9 were
# being written and measured only after they were final:
#
#   - git's manual pages and guides (git-doc: AsciiDoc, a header with the
#     page's name, a table of contents written by script, footnotes);
#   - the PostgreSQL 15 manual's DDL and index chapters (postgresql-doc-15:
#     DocBook, a navigation table above and below each section);
#   - the Apache HTTP Server manual in English (apache2-doc: a page header,
#     a breadcrumb path, a language bar, a quick-reference box, a
#     comments section and a footer);
#   - PDFs made by headless Chromium's "Save as PDF" from the served page;
#   - PDFs made by LibreOffice straight from the HTML file (writer_web);
#   - DOCX and ODT made by pandoc from the whole HTML file;
#   - printer-friendly views (print/…);
#   - hard negatives that must stay apart: a book (an HTML page and its
#     Chromium PDF) of three PostgreSQL sections; a v2 of the constraints
#     section whose "Primary Keys" is replaced by the schemas section's
#     "The Schema Search Path" (DOCX, PDF), beside a v1 DOCX that is the
#     page; pages of one template.
#
# Writes DIR/site (serve it with ndd serve -port PORT) and
# DIR/manifest.jsonl in docs-check.py's format (see lib/docmakers.sh).
#
# usage: scripts/heldout6-site.sh DIR [DOPPEL_BINARY]
#   PORT (default 18495): the port the site is printed from
#   needs: git-doc, postgresql-doc-15, apache2-doc, chromium, pandoc,
#   libreoffice-writer
set -euo pipefail
dir=$1
doppel=${2:-doppel}
port=${PORT:-18495}
site=$dir/site
manifest=$dir/manifest.jsonl
doc=/usr/share/doc
base=http://127.0.0.1:$port

# shellcheck source=lib/docmakers.sh
. "$(dirname "$0")/lib/docmakers.sh"

git="gittutorial gitworkflows gitfaq git-stash git-bisect git-cherry-pick"
gitprint="gitworkflows"
gitdocx="gittutorial git-stash"
gitodt="gitfaq"
gitlo="git-bisect"
pg="ddl-default ddl-constraints ddl-schemas ddl-priv indexes-intro indexes-expressional"
pgprint="ddl-schemas"
pgdocx="ddl-default indexes-intro"
pgodt="ddl-priv"
pglo="indexes-expressional"
ap="caching content-negotiation custom-error dns-caveats env"
apprint="caching"
apdocx="dns-caveats"
apodt="env"
pgdir=$doc/postgresql-doc-15/html

build() {
	rm -rf "$site" "$dir/tmp" && mkdir -p "$site/files" "$site/print" "$site/git" "$site/pg" "$site/apache/en" "$dir/tmp"
	for p in $git; do cp -L "$doc/git-doc/$p.html" "$site/git/$p.html"; done
	for p in $pg; do cp -L "$pgdir/$p.html" "$site/pg/$p.html"; done
	cp -L "$pgdir/stylesheet.css" "$site/pg/" 2>/dev/null || true
	for p in $ap; do cp -L "$doc/apache2-doc/manual/en/$p.html" "$site/apache/en/$p.html"; done
	cp -rL "$doc/apache2-doc/manual/style" "$doc/apache2-doc/manual/images" "$site/apache/"
	# Derived pages: printer-friendly views, the book, the v2.
	for p in $gitprint; do VIEW_MAIN="id=content" views print "$site/git/$p.html" "$base/git/$p.html" "$site/print/git-$p.html"; done
	for p in $pgprint; do VIEW_MAIN="class=sect1" views print "$site/pg/$p.html" "$base/pg/$p.html" "$site/print/pg-$p.html"; done
	for p in $apprint; do VIEW_MAIN="id=page-content" views print "$site/apache/en/$p.html" "$base/apache/en/$p.html" "$site/print/apache-$p.html"; done
	VIEW_MAIN="class=sect1" views book "PostgreSQL: defaults, privileges and indexes" "$site/pg/book.html" \
		"$site/pg/ddl-default.html" "$site/pg/ddl-priv.html" "$site/pg/indexes-intro.html"
	views revise "$site/pg/ddl-constraints.html" "$dir/tmp/constraints-v2.html" \
		"$site/pg/ddl-schemas.html" DDL-CONSTRAINTS-PRIMARY-KEYS=DDL-SCHEMAS-PATH
	# DOCX and ODT by pandoc from the whole page file.
	for p in $gitdocx; do pandoc -f html -t docx "$site/git/$p.html" -o "$site/files/git-$p.docx" 2>/dev/null; done
	for p in $gitodt; do pandoc -f html -t odt "$site/git/$p.html" -o "$site/files/git-$p.odt" 2>/dev/null; done
	for p in $pgdocx; do pandoc -f html -t docx "$site/pg/$p.html" -o "$site/files/pg-$p.docx" 2>/dev/null; done
	for p in $pgodt; do pandoc -f html -t odt "$site/pg/$p.html" -o "$site/files/pg-$p.odt" 2>/dev/null; done
	for p in $apdocx; do pandoc -f html -t docx "$site/apache/en/$p.html" -o "$site/files/apache-$p.docx" 2>/dev/null; done
	for p in $apodt; do pandoc -f html -t odt "$site/apache/en/$p.html" -o "$site/files/apache-$p.odt" 2>/dev/null; done
	pandoc -f html -t docx "$site/pg/ddl-constraints.html" -o "$site/files/pg-constraints-v1.docx" 2>/dev/null
	pandoc -f html -t docx "$dir/tmp/constraints-v2.html" -o "$site/files/pg-constraints-v2.docx" 2>/dev/null
	cp "$site/files/pg-constraints-v2.docx" "$dir/tmp/"
	# LibreOffice: the v2 from its DOCX; pages straight from HTML.
	(cd "$dir/tmp" && soffice --headless --convert-to pdf --outdir "$site/files" pg-constraints-v2.docx >/dev/null 2>&1)
	for p in $gitlo; do cp "$site/git/$p.html" "$dir/tmp/git-$p.html"; done
	for p in $pglo; do cp "$site/pg/$p.html" "$dir/tmp/pg-$p.html"; done
	(cd "$dir/tmp" && soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$dir/tmp/lo" git-*.html pg-*.html >/dev/null 2>&1)
	for p in $gitlo; do mv "$dir/tmp/lo/git-$p.pdf" "$site/files/git-$p.lo.pdf"; done
	for p in $pglo; do mv "$dir/tmp/lo/pg-$p.pdf" "$site/files/pg-$p.lo.pdf"; done
	# Chromium, from the served pages.
	serve_site
	for p in $git; do chrome "$base/git/$p.html" "$site/files/git-$p.pdf"; done
	for p in $pg; do chrome "$base/pg/$p.html" "$site/files/pg-$p.pdf"; done
	for p in $ap; do chrome "$base/apache/en/$p.html" "$site/files/apache-$p.pdf"; done
	chrome "$base/pg/book.html" "$site/files/pg-book.pdf"
	stop_site
	rm -rf "$dir/tmp"
}

[ "${MANIFEST_ONLY:-}" ] || build
: >"$manifest"
echo '<html><head><title>Sixth documents intranet</title></head><body><main><h1>Documents</h1><ul>' >"$site/index.html"
for p in $git; do
	add "git/$p.html" "git/$p.html" ""
	version "git/$p.html" "files/git-$p.pdf"
	case " $gitprint " in *" $p "*) version "git/$p.html" "print/git-$p.html" ;; esac
	case " $gitdocx " in *" $p "*) version "git/$p.html" "files/git-$p.docx" ;; esac
	case " $gitodt " in *" $p "*) version "git/$p.html" "files/git-$p.odt" ;; esac
	case " $gitlo " in *" $p "*) version "git/$p.html" "files/git-$p.lo.pdf" ;; esac
done
for p in $pg; do
	add "pg/$p.html" "pg/$p.html" ""
	version "pg/$p.html" "files/pg-$p.pdf"
	case " $pgprint " in *" $p "*) version "pg/$p.html" "print/pg-$p.html" ;; esac
	case " $pgdocx " in *" $p "*) version "pg/$p.html" "files/pg-$p.docx" ;; esac
	case " $pgodt " in *" $p "*) version "pg/$p.html" "files/pg-$p.odt" ;; esac
	case " $pglo " in *" $p "*) version "pg/$p.html" "files/pg-$p.lo.pdf" ;; esac
done
version pg/ddl-constraints.html files/pg-constraints-v1.docx
for f in docx pdf; do add "files/pg-constraints-v2.$f" files/pg-constraints-v2 ""; done
add pg/book.html pg/book.html ""
version pg/book.html files/pg-book.pdf
for p in $ap; do
	add "apache/en/$p.html" "apache/en/$p.html" ""
	version "apache/en/$p.html" "files/apache-$p.pdf"
	case " $apprint " in *" $p "*) version "apache/en/$p.html" "print/apache-$p.html" ;; esac
	case " $apdocx " in *" $p "*) version "apache/en/$p.html" "files/apache-$p.docx" ;; esac
	case " $apodt " in *" $p "*) version "apache/en/$p.html" "files/apache-$p.odt" ;; esac
done
echo '</ul></main></body></html>' >>"$site/index.html"
echo "$(wc -l <"$manifest") pages and documents in $site" >&2

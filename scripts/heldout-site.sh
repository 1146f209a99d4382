#!/usr/bin/env bash
# heldout-site.sh: builds a second documents intranet, held out from the
# tuning of scripts/docs-site.sh (which uses the Debian Reference): the
# PostgreSQL 15 manual's pages (postgresql-doc-15), git's manual pages
# (git-doc) and Apache httpd's how-tos in four languages (apache2-doc), as
# the HTML pages Debian ships; DOCX, ODT and PDF versions of many of them
# (pandoc, LibreOffice); and hard negatives that must stay apart:
#
#   - a book made of three PostgreSQL pages (book-sql.docx, .pdf): it
#     holds each of them, and each page is a part of it, not a copy;
#   - a book made of one long page and a short one (vacuum-logs.docx,
#     .pdf): the long page is most of it, still a part;
#   - pages of one manual and one template (sql-select, sql-createtable,
#     sql-altertable; git-commit, git-rebase, …);
#   - one how-to in English, French, German and Japanese, and the PDF
#     of the French and the Japanese one (Debian has no German how-tos:
#     its German pages are links to the English ones, copies in the
#     ground truth).
#
# Writes DIR/site (serve it with ndd serve) and DIR/manifest.jsonl: one
# line per page and document — path, title as Doppel reads it, group (the
# twin group: the page a document is a version of, or its own path; the
# book's DOCX and PDF are one group of their own) and twin (the page of a
# version, "" otherwise, as docs-site.sh writes it).
#
# usage: scripts/heldout-site.sh DIR [DOPPEL_BINARY]
#   MANIFEST_ONLY=1: keep DIR/site's files, rewrite the manifest and index
#   needs: postgresql-doc-15, git-doc, apache2-doc; pandoc; libreoffice-writer
set -euo pipefail
dir=$1
doppel=${2:-doppel}
pg=/usr/share/doc/postgresql-doc-15/html
gitdoc=/usr/share/doc/git-doc
ap=/usr/share/doc/apache2-doc/manual
site=$dir/site
manifest=$dir/manifest.jsonl
add() { # add PATH GROUP TWIN: a page or document, its twin group, and the page it is a version of ("" if none)
	echo "<li><a href=\"$1\">$(basename "$1")</a></li>" >>"$site/index.html"
	case $1 in
	*.html) python3 -c 'import html, json, re, sys; print(json.dumps({"title": html.unescape(re.sub(r"\s+", " ", (re.search(r"<title[^>]*>(.*?)</title>", open(sys.argv[1], encoding="utf-8", errors="replace").read(), re.S | re.I) or [0, ""])[1])).strip()}))' "$site/$1" ;;
	*) "$doppel" extract --json "$site/$1" ;;
	esac | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(json.dumps({"path": sys.argv[1], "group": sys.argv[2], "twin": sys.argv[3], "title": d.get("title", ""), "error": d.get("error", "")}, ensure_ascii=False))' "$1" "$2" "$3" >>"$manifest"
}
pgpages="sql-select sql-createtable sql-altertable functions-matching datatype-datetime routine-vacuuming ddl-partitioning continuous-archiving plpgsql-control-structures queries-table-expressions"
gitpages="git-commit git-rebase git-bisect git-branch everyday"
build() { # copies the pages and makes their versions (LibreOffice: minutes)
rm -rf "$site" "$dir/tmp" && mkdir -p "$site/pg" "$site/git" "$site/files" "$dir/tmp"
twins=() # page paths (under site) that get DOCX, ODT and PDF versions
for p in $pgpages; do cp "$pg/$p.html" "$site/pg/"; twins+=("pg/$p.html"); done
for p in $gitpages; do cp "$gitdoc/$p.html" "$site/git/"; twins+=("git/$p.html"); done
for l in en fr de ja; do
	for h in htaccess cgi ssi auth; do
		mkdir -p "$site/httpd/$l"
		cp "$ap/$l/howto/$h.html" "$site/httpd/$l/$h.html"
	done
done
# Versions: DOCX and ODT by pandoc from the page, PDF by LibreOffice from
# the ODT (one LibreOffice run for all of them).
for t in "${twins[@]}"; do
	n=$(basename "$t" .html)
	pandoc -f html -t docx "$site/$t" -o "$site/files/$n.docx" 2>/dev/null
	pandoc -f html -t odt "$site/$t" -o "$dir/tmp/$n.odt" 2>/dev/null
	cp "$dir/tmp/$n.odt" "$site/files/$n.odt"
done
for l in fr ja; do
	for h in htaccess cgi; do
		pandoc -f html -t odt "$site/httpd/$l/$h.html" -o "$dir/tmp/$h.$l.odt" 2>/dev/null
		pandoc -f html -t docx "$site/httpd/$l/$h.html" -o "$site/files/$h.$l.docx" 2>/dev/null
	done
done
# Books: the concatenation of whole pages.
pandoc -f html -t odt "$pg/sql-select.html" "$pg/functions-matching.html" "$pg/datatype-datetime.html" -o "$dir/tmp/book-sql.odt" 2>/dev/null
pandoc -f html -t docx "$pg/sql-select.html" "$pg/functions-matching.html" "$pg/datatype-datetime.html" -o "$site/files/book-sql.docx" 2>/dev/null
pandoc -f html -t odt "$pg/routine-vacuuming.html" "$pg/logfile-maintenance.html" -o "$dir/tmp/vacuum-logs.odt" 2>/dev/null
pandoc -f html -t docx "$pg/routine-vacuuming.html" "$pg/logfile-maintenance.html" -o "$site/files/vacuum-logs.docx" 2>/dev/null
(cd "$dir/tmp" && soffice --headless --convert-to pdf --outdir "$site/files" ./*.odt >/dev/null 2>&1)
rm -rf "$dir/tmp"
}
[ "${MANIFEST_ONLY:-}" ] || build
: >"$manifest"
echo '<html><head><title>Held-out documents</title></head><body><main><h1>Documents</h1><ul>' >"$site/index.html"
for t in $(for p in $pgpages; do echo "pg/$p.html"; done; for p in $gitpages; do echo "git/$p.html"; done); do
	add "$t" "$t" ""
	n=$(basename "$t" .html)
	for f in docx odt pdf; do add "files/$n.$f" "$t" "$t"; done
done
for l in en fr de ja; do
	for h in htaccess cgi ssi auth; do
		# A translation Debian lacks is a link to the English page: a copy.
		g=httpd/$l/$h.html
		[ -L "$ap/$l/howto/$h.html" ] && g=httpd/en/$h.html
		add "httpd/$l/$h.html" "$g" ""
	done
done
for l in fr ja; do
	for h in htaccess cgi; do
		for f in docx pdf; do add "files/$h.$l.$f" "httpd/$l/$h.html" "httpd/$l/$h.html"; done
	done
done
for b in book-sql vacuum-logs; do
	for f in docx pdf; do add "files/$b.$f" "files/$b" ""; done
done
echo '</ul></main></body></html>' >>"$site/index.html"
echo "$(wc -l <"$manifest") pages and documents in $site" >&2

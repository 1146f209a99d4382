#!/usr/bin/env bash
# docs-site.sh: builds a documents intranet from Debian packages, for
# scripts/docs-check.py: the Debian Reference's chapters as HTML pages in
# English, Japanese and Chinese; PDF, DOCX and ODT versions of some of
# them (LibreOffice and pandoc, from the pages themselves); two versions
# of one report (report-v3.docx, report-final.pdf); and the PDF manuals
# that Debian packages ship (bzip2, fontconfig, nettle, valgrind, …).
# Writes DIR/site (serve it with ndd serve) and DIR/manifest.jsonl (one
# line per document: path, title as Doppel reads it, and the page it is a
# version of).
#
# usage: scripts/docs-site.sh DIR [DOPPEL_BINARY]
#   needs: debian-reference-en, -ja, -zh-cn; pandoc; libreoffice-writer
set -euo pipefail
dir=$1
doppel=${2:-doppel}
src=/usr/share/debian-reference
site=$dir/site
rm -rf "$site" && mkdir -p "$site/html" "$site/files" "$dir/tmp"
chapters="apa ch01 ch02 ch03 ch04 ch05 ch06 ch07 ch08 ch09 ch10 ch11 ch12 pr01"
{
	echo '<html><head><title>Documents intranet</title></head><body><main><h1>Documents</h1><ul>'
	for l in en ja zh-cn; do
		for c in $chapters; do
			cp "$src/$c.$l.html" "$site/html/$c.$l.html"
			echo "<li><a href=\"html/$c.$l.html\">$c ($l)</a></li>"
		done
	done
} >"$site/index.html"
manifest=$dir/manifest.jsonl
: >"$manifest"
add() { # add PATH TWIN: a document, and the page it is a version of ("" if none)
	local path=$1 twin=$2
	echo "<li><a href=\"$path\">$(basename "$path")</a></li>" >>"$site/index.html"
	"$doppel" extract --json "$site/$path" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(json.dumps({"path": sys.argv[1], "twin": sys.argv[2], "title": d.get("title", ""), "error": d.get("error", "")}, ensure_ascii=False))' "$path" "$twin" >>"$manifest"
}
for c in apa ch01 ch02 ch03 ch05 ch09; do
	pandoc -f html -t docx "$src/$c.en.html" -o "$site/files/$c.en.docx" 2>/dev/null
	pandoc -f html -t odt "$src/$c.en.html" -o "$site/files/$c.en.odt" 2>/dev/null
	(cd "$dir/tmp" && soffice --headless --convert-to pdf "$site/files/$c.en.odt" >/dev/null 2>&1 && mv "$c.en.pdf" "$site/files/")
	for f in docx odt pdf; do add "files/$c.en.$f" "html/$c.en.html"; done
done
for l in ja zh-cn; do
	for c in apa ch01 ch02; do
		pandoc -f html -t docx "$src/$c.$l.html" -o "$site/files/$c.$l.docx" 2>/dev/null
		(cd "$dir/tmp" && soffice --headless --convert-to pdf "$site/files/$c.$l.docx" >/dev/null 2>&1 && mv "$c.$l.pdf" "$site/files/")
		for f in docx pdf; do add "files/$c.$l.$f" "html/$c.$l.html"; done
	done
done
pandoc -f html -t docx "$src/ch04.en.html" -o "$site/files/report-v3.docx" 2>/dev/null
cp "$site/files/report-v3.docx" "$dir/tmp/report-final.docx"
(cd "$dir/tmp" && soffice --headless --convert-to pdf report-final.docx >/dev/null 2>&1 && mv report-final.pdf "$site/files/")
add files/report-v3.docx html/ch04.en.html
add files/report-final.pdf html/ch04.en.html
for f in /usr/share/doc/*/*.pdf /usr/share/doc/*/*.pdf.gz; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .gz)
	case $f in *.gz) zcat "$f" >"$site/files/$name" ;; *) cp "$f" "$site/files/$name" ;; esac
	add "files/$name" ""
done
echo '</ul></main></body></html>' >>"$site/index.html"
rm -rf "$dir/tmp"
echo "$(wc -l <"$manifest") documents, $(ls "$site/html" | wc -l) pages in $site" >&2

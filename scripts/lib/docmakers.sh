# docmakers.sh: the document makers the held-out documents intranets
# share (scripts/heldout3-site.sh, heldout4-site.sh, heldout5-site.sh,
# heldout6-site.sh, heldout7-site.sh).
# Source it after setting dir, doppel, port, site, manifest and base;
# it defines:
#
#   views CMD ARGS...  the derived HTML pages, made from a page's main
#                      content (the first element with one of the
#                      attributes in $VIEW_MAIN, "name=value ...", in order):
#     print SRC URL OUT            the printer-friendly view of SRC, served
#                                  at URL (main content and a "Retrieved
#                                  from URL" line)
#     book TITLE OUT SRC...        one page of the sources' main contents,
#                                  with one main element ($VIEW_BOOK=strip
#                                  also takes the chapters' own <main>,
#                                  role=main and id=content out, else only
#                                  the first role=main of each)
#     revise SRC OUT OTHER A=B...  SRC with its section A replaced by
#                                  OTHER's section B: a section is the
#                                  element of that id, or for a number N
#                                  the Nth element of class="section"
#   chrome URL OUT     headless Chromium's "Save as PDF" of URL, with its
#                      header and footer (date, title, URL, "1/12")
#   serve_site         serves $site on 127.0.0.1:$port while Chromium
#                      prints (stop_site stops it)
#   add PATH GROUP TWIN  a page or document into $site/index.html and the
#                      manifest: its twin group and the page it is a
#                      version of ("" if none), its title as Doppel reads it
#   version PAGE PATH  PATH is a version of PAGE
#
# The manifest is docs-check.py's format: path, title, group, twin, error.

_views=$(
	cat <<'EOF'
import html, os, re, sys
from html.parser import HTMLParser

class Main(HTMLParser):
    """Finds the nth (default first) element with attribute name=value; keeps its outer HTML."""
    def __init__(self, text, name, value, nth=1):
        super().__init__(convert_charrefs=False)
        self.text, self.name, self.value, self.skip = text, name, value, nth - 1
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.tag, self.depth, self.start, self.end = None, 0, None, None
    def at(self):
        line, col = self.getpos()
        return self.lines[line - 1] + col
    def handle_starttag(self, tag, attrs):
        if self.end is not None:
            return
        if self.tag is None and (self.name, self.value) in attrs:
            if self.skip:
                self.skip -= 1
                return
            self.tag, self.depth, self.start = tag, 1, self.at()
        elif tag == self.tag:
            self.depth += 1
    def handle_endtag(self, tag):
        if self.end is None and tag == self.tag:
            self.depth -= 1
            if self.depth == 0:
                self.end = self.text.index('>', self.at()) + 1

def main(path):
    text = open(path, encoding='utf-8').read()
    for attr in os.environ.get('VIEW_MAIN', 'role=main id=content').split():
        name, value = attr.split('=', 1)
        p = Main(text, name, value)
        p.feed(text)
        if p.end:
            return text[p.start:p.end]
    sys.exit(f'no main content in {path}')

def title(path):
    m = re.search(r'<title[^>]*>(.*?)</title>', open(path, encoding='utf-8').read(), re.S | re.I)
    return m[1].strip() if m else ''

def page(title, body):
    return f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{title}</title></head><body>\n{body}\n</body></html>\n'

def section(text, sid):
    p = Main(text, 'class', 'section', int(sid)) if sid.isdigit() else Main(text, 'id', sid)
    p.feed(text)
    return p.start, p.end

def chapter(src):
    if os.environ.get('VIEW_BOOK') == 'strip':
        return re.sub(r'</?main>', '', main(src)).replace(' role="main"', '').replace(' id="content"', '')
    return main(src).replace(' role="main"', '', 1)

cmd = sys.argv[1]
if cmd == 'print':
    src, url, out = sys.argv[2:5]
    body = main(src) + f'\n<p>Retrieved from <a href="{url}">{url}</a></p>'
    open(out, 'w', encoding='utf-8').write(page(title(src), body))
elif cmd == 'book':
    t, out = sys.argv[2:4]
    # One main element, as a page has: the chapters' own become sections.
    chapters = (chapter(s) for s in sys.argv[4:])
    body = f'<main><h1>{html.escape(t)}</h1>\n' + '\n'.join(f'<section>{c}</section>' for c in chapters) + '</main>'
    open(out, 'w', encoding='utf-8').write(page(html.escape(t), body))
elif cmd == 'revise':
    src, out, other = sys.argv[2:5]
    text, otext = open(src, encoding='utf-8').read(), open(other, encoding='utf-8').read()
    for pair in sys.argv[5:]:
        sid, oid = pair.split('=')
        a, b = section(text, sid)
        c, d = section(otext, oid)
        text = text[:a] + otext[c:d] + text[b:]
    open(out, 'w', encoding='utf-8').write(text)
EOF
)

views() { python3 -c "$_views" "$@"; }

chrome() { # chrome URL OUT: headless Chromium's "Save as PDF", with header and footer
	timeout 300 chromium --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$profile" \
		--print-to-pdf="$2" "$1" >/dev/null 2>&1
	[ -s "$2" ] || { echo "chromium made no $2" >&2; exit 1; }
}

serve_site() { # serves $site on $port for Chromium; stop_site (or the exit) stops it
	python3 -m http.server --bind 127.0.0.1 --directory "$site" "$port" >/dev/null 2>&1 &
	server=$!
	profile=$(mktemp -d)
	trap 'kill $server 2>/dev/null; rm -rf "$profile"' EXIT
	sleep 1
}

stop_site() {
	kill "$server" 2>/dev/null || true # it may have ended already
	rm -rf "$profile"
	trap - EXIT
}

add() { # add PATH GROUP TWIN: a page or document, its twin group, and the page it is a version of ("" if none)
	echo "<li><a href=\"$1\">$1</a></li>" >>"$site/index.html"
	case $1 in
	*.html) python3 -c 'import html, json, re, sys; print(json.dumps({"title": html.unescape(re.sub(r"\s+", " ", (re.search(r"<title[^>]*>(.*?)</title>", open(sys.argv[1], encoding="utf-8", errors="replace").read(), re.S | re.I) or [0, ""])[1])).strip()}))' "$site/$1" ;;
	*) "$doppel" extract --json "$site/$1" ;;
	esac | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(json.dumps({"path": sys.argv[1], "group": sys.argv[2], "twin": sys.argv[3], "title": d.get("title", ""), "error": d.get("error", "")}, ensure_ascii=False))' "$1" "$2" "$3" >>"$manifest"
}

version() { add "$2" "$1" "$1"; } # version PAGE PATH: PATH is a version of PAGE

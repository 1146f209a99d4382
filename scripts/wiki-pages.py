#!/usr/bin/env python3
"""wiki-pages.py: the content of scripts/wiki-site.sh's MediaWiki, from real
documentation nobody here wrote: the Python manual (Debian's python3-doc,
one article per HTML page of the tutorial, library, language reference,
HOWTOs, FAQ, C API, extending, using, installing and What's New, the
changelog aside) and the Debian Reference (debian-reference-en, one article
per chapter — its introduction and a list of its sections — and one per
section), converted with pandoc to MediaWiki markup. Links between the
pages become wiki links; links to pages not imported are left as text.

On top of the articles: a second revision of every 9th article (the first
revision lacks the article's last section, as if it was added later), a
talk page for every 14th (a question quoting a README.Debian of
/usr/share/doc), 30 redirects (a module's or section's short name), 10
copies ("Copy of X", X's text verbatim), an "Index of pages" article
listing the articles the Main Page does not reach by links, and the Main
Page.

usage: scripts/wiki-pages.py DIR
  writes DIR/dump.xml (MediaWiki export format 0.11, for
  maintenance/importDump.php), DIR/mainpage.txt (the Main Page, for
  maintenance/edit.php) and DIR/truth.json (the ground truth, see
  scripts/wiki-check.py). Converted pages are cached in DIR/wikitext/.
"""
import concurrent.futures
import glob
import hashlib
import html
import json
import os
import posixpath
import re
import subprocess
import sys
import urllib.parse
from xml.sax.saxutils import escape

PYDOC = '/usr/share/doc/python3-doc/html'
PYDIRS = ['tutorial', 'library', 'reference', 'howto', 'faq', 'using', 'extending',
          'installing', 'whatsnew', 'c-api']
PYGROUP = {'tutorial': 'tutorial', 'library': 'library', 'reference': 'language reference',
           'howto': 'HOWTO', 'faq': 'FAQ', 'using': 'Python setup', 'extending': 'extending',
           'installing': 'installing', 'whatsnew': "What's New", 'c-api': 'C API'}
DEBREF = '/usr/share/debian-reference'
SITE_NAME = 'Intranet Wiki'


def mw_title(t):
    """The title as MediaWiki stores it: underscores are spaces, runs of
    spaces one, trimmed, the first letter upper case; characters a title
    may not hold replaced."""
    t = t.replace('_', ' ')
    t = re.sub(r'[\[{<]', '(', t)
    t = re.sub(r'[\]}>]', ')', t)
    t = t.replace('|', '-').replace('#', 'No.')
    t = re.sub(r'\s+', ' ', t).strip(' .:')
    return t[:1].upper() + t[1:]


def mw_path(title):
    """The article's path, as MediaWiki links it (wfUrlencode)."""
    return '/index.php/' + urllib.parse.quote(title.replace(' ', '_'), safe=";@$!*(),/~:")


def text_of(fragment):
    return re.sub(r'\s+', ' ', html.unescape(re.sub(r'<[^>]+>', '', fragment))).replace('¶', '').strip()


class Source:
    """One article to be: its title, its HTML and where it came from."""

    def __init__(self, key, title, body, group, anchors=()):
        self.key, self.title, self.body, self.group = key, title, body, group
        self.anchors = set(anchors)


def python_sources():
    out = []
    for d in PYDIRS:
        for f in sorted(glob.glob(f'{PYDOC}/{d}/*.html')):
            rel = os.path.relpath(f, PYDOC)
            if rel == 'whatsnew/changelog.html':
                continue  # 2 MB of release notes
            page = open(f, encoding='utf-8').read()
            start = page.find('<div class="body" role="main">')
            end = page.find('<div class="sphinxsidebar"', start)
            m = re.search(r'<h1>(.*?)</h1>', page, re.S)
            if start < 0 or end < 0 or not m:
                continue
            body = page[start:end]
            body = re.sub(r'<h1>.*?</h1>', '', body, count=1, flags=re.S)
            out.append(Source(rel, text_of(m.group(1)), body, PYGROUP[d]))
    return out


def debref_sources():
    out = []
    files = sorted(glob.glob(f'{DEBREF}/ch*.en.html')) + [f'{DEBREF}/apa.en.html']
    for f in files:
        rel = 'debian-reference/' + os.path.basename(f)
        page = open(f, encoding='utf-8').read()
        h = re.search(r'<h[12] class="title"[^>]*>(.*?)</h[12]>', page, re.S)
        chapter = re.sub(r'^(Chapter|Appendix) [0-9A-Z]+\. ', '', text_of(h.group(1)))
        starts = [m.start() for m in re.finditer(
            r'<div class="section">\s*<div class="titlepage">\s*<div>\s*<div>\s*<h2 class="title"', page)]
        end = page.find('<div class="navfooter"')
        end = end if end > 0 else len(page)
        sections = []
        for i, s in enumerate(starts):
            chunk = page[s:starts[i + 1] if i + 1 < len(starts) else end]
            t = re.search(r'<h2 class="title"[^>]*>(.*?)</h2>', chunk, re.S)
            title = re.sub(r'^[0-9A-Z]+(\.[0-9]+)*\. ', '', text_of(t.group(1)))
            anchors = re.findall(r'\bid="([^"]+)"', chunk)
            chunk = chunk[:t.start()] + chunk[t.end():]
            sections.append(Source(f'{rel}#{i}', title, chunk, 'Debian Reference', anchors))
        # The chapter: its introduction and table of contents, which
        # links every section.
        intro_end = starts[0] if starts else end
        intro = page[h.end():intro_end]
        out.append(Source(rel, chapter, intro, 'Debian Reference', re.findall(r'\bid="([^"]+)"', page[:intro_end])))
        out.extend(sections)
    return out


def assign_titles(sources):
    seen = {}
    for s in sources:
        t = mw_title(s.title)
        if t.lower() in seen:
            t = mw_title(f'{s.title} ({s.group})')
        n = 2
        base = t
        while t.lower() in seen:
            t, n = f'{base} {n}', n + 1
        seen[t.lower()] = s
        s.title = t


def link_targets(sources):
    """Maps a file (python3-doc's relative path, debian-reference's file)
    and an anchor to the article that holds it."""
    byfile, byanchor = {}, {}
    for s in sources:
        f = s.key.split('#')[0]
        if '#' not in s.key:
            byfile[f] = s
        for a in s.anchors:
            byanchor[(f, a)] = s
    return byfile, byanchor


def rewrite_links(s, byfile, byanchor, links):
    """Rewrites s.body's links: to an article → wikilink:N (resolved after
    pandoc), to anything else of the documentation → text only; drops
    images and Sphinx's permalink marks."""
    base = s.key.split('#')[0]
    body = re.sub(r'<a class="headerlink"[^>]*>.*?</a>', '', s.body, flags=re.S)
    body = re.sub(r'<img[^>]*>', '', body)
    body = re.sub(r'<a\b[^>]*/>', '', body)  # XHTML's empty anchors
    # Sphinx's signatures (a span per name and bracket) as one line of code.
    body = re.sub(r'<dt\b[^>]*>(.*?)</dt>',
                  lambda m: '<dt><code>' + html.escape(text_of(m.group(1))) + '</code></dt>', body, flags=re.S)

    def link(m):
        attrs, inner = m.group(1), m.group(2)
        h = re.search(r'href="([^"]*)"', attrs)
        if not h:
            return inner
        href = html.unescape(h.group(1))
        if re.match(r'[a-z]+:', href):
            return m.group(0)
        path, _, frag = href.partition('#')
        target_file = posixpath.normpath(posixpath.join(posixpath.dirname(base), path)) if path else base
        target = None
        if frag and (target_file, frag) in byanchor:
            target = byanchor[(target_file, frag)]
        elif target_file in byfile:
            target = byfile[target_file]
        if target is None or target is s:
            return inner
        links.add(target.title)
        return f'<a href="wikilink:{target.title.replace(" ", "_")}">{inner}</a>'

    return re.sub(r'<a\b([^>]*)>(.*?)</a>', link, body, flags=re.S)


def pandoc(body, cache):
    if os.path.exists(cache):
        return open(cache, encoding='utf-8').read()
    r = subprocess.run(['nice', '-n', '10', 'pandoc', '-f', 'html-native_divs-native_spans', '-t', 'mediawiki', '--wrap=none'],
                       input=body, capture_output=True, text=True, check=True)
    out = r.stdout
    # pandoc writes a link to "wikilink:T" as [[wikilink:T|text]]: it is
    # a wiki link to the article T.
    out = re.sub(r'\[\[wikilink:([^|\]]*)',
                 lambda m: '[[' + urllib.parse.unquote(m.group(1)).replace('_', ' '), out)
    with open(cache + '.tmp', 'w', encoding='utf-8') as f:
        f.write(out)
    os.rename(cache + '.tmp', cache)
    return out


def readmes(n):
    out = []
    for f in sorted(glob.glob('/usr/share/doc/*/README.Debian')):
        try:
            t = open(f, encoding='utf-8').read()
        except (UnicodeDecodeError, OSError):
            continue
        t = re.sub(r'\n?\s*-- .*<.*>.*$', '', t.strip(), flags=re.S)  # the signature line
        if 600 <= len(t) <= 4000:
            out.append((f.split('/')[4], t))
    return out[:n]


def reachable(start, links):
    seen, todo = {start}, [start]
    while todo:
        for t in links.get(todo.pop(), ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def xml_page(title, revisions, ns=0):
    out = [f'<page><title>{escape(title)}</title><ns>{ns}</ns>']
    for ts, text in revisions:
        out.append(f'<revision><timestamp>{ts}</timestamp><contributor><username>Admin</username></contributor>'
                   f'<model>wikitext</model><format>text/x-wiki</format>'
                   f'<text xml:space="preserve">{escape(text)}</text></revision>')
    out.append('</page>')
    return ''.join(out)


def first_revision(text):
    """The text before its last section was added (or its last paragraph)."""
    i = text.rfind('\n== ')
    if i > len(text) // 3:
        return text[:i].rstrip() + '\n'
    paras = text.rstrip().split('\n\n')
    return '\n\n'.join(paras[:-1]) + '\n' if len(paras) > 1 else text[: len(text) * 2 // 3]


def main():
    d = sys.argv[1]
    os.makedirs(f'{d}/wikitext', exist_ok=True)
    sources = python_sources() + debref_sources()
    assign_titles(sources)
    byfile, byanchor = link_targets(sources)
    links = {}
    bodies = []
    for s in sources:
        ls = set()
        bodies.append(rewrite_links(s, byfile, byanchor, ls))
        links[s.title] = ls

    def convert(i):
        body = bodies[i]
        key = hashlib.sha1(body.encode()).hexdigest()[:16]
        return pandoc(body, f'{d}/wikitext/{key}.txt')

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        texts = list(ex.map(convert, range(len(sources))))
    text = {s.title: t for s, t in zip(sources, texts)}
    articles = [s.title for s in sources]

    revised = articles[4::9]
    talk_of = articles[6::14]
    notes = readmes(len(talk_of))
    talk = {}
    for (title, (pkg, readme)) in zip(talk_of, notes):
        talk['Talk:' + title] = (f'== A question about {title} ==\n\nWhile setting up {pkg} beside this, '
                                 f'the notes from its README.Debian were:\n\n<pre>\n{readme}\n</pre>\n\n'
                                 f'Is that still how we do it here? — Admin\n')
    # Redirects: a module's short name (the part before " — "), else a
    # Debian Reference section's first words.
    redirects = {}
    for t in articles[3::19]:
        short = mw_title(t.split(' — ')[0]) if ' — ' in t else mw_title(' '.join(t.split()[:2]) + ' (short)')
        if short.lower() not in {a.lower() for a in articles} and short not in redirects:
            redirects[short] = t
        if len(redirects) == 30:
            break
    # Copies: articles of middling length, spread over the site.
    mid = sorted((a for a in articles if 3000 <= len(text[a]) <= 20000), key=lambda a: hashlib.sha1(a.encode()).hexdigest())
    copies = {'Copy of ' + a: a for a in mid[:10]}

    main_links = [s.title for s in sources if s.key.endswith('/index.html') and s.key.split('/')[0] in PYDIRS]
    main_links += [s.title for s in sources if s.key.startswith('debian-reference/') and '#' not in s.key]
    src_of = {s.title: s for s in sources}
    links['Main Page'] = set(main_links) | set(copies)
    seen = reachable('Main Page', links)
    orphans = [a for a in articles if a not in seen]
    index_title = 'Index of pages'
    index_text = ('Pages of the documentation that no other page links to.\n\n' +
                  ''.join(f'* [[{a}]]\n' for a in orphans))
    main = ["Welcome to the '''Intranet Wiki''', where the teams keep the documentation they work from.", '',
            '== Python ==']
    main += [f'* [[{t}]]' for t in main_links if src_of[t].group != 'Debian Reference']
    main += ['', '== Debian Reference ==']
    main += [f'* [[{t}]]' for t in main_links if src_of[t].group == 'Debian Reference']
    main += ['', '== Shortcuts ==']
    main += [f'* [[{r}]]' for r in sorted(redirects)[:15]]
    main += ['', '== Working copies ==', 'Copies the teams keep of pages they are editing.']
    main += [f'* [[{c}]]' for c in sorted(copies)]
    main += ['', f'See also the [[{index_title}]].', '']
    # The other redirects are linked from the talk pages.
    extra = sorted(redirects)[15:]
    for i, t in enumerate(sorted(talk)):
        if i < len(extra):
            talk[t] += f'\nSee also [[{extra[i]}]].\n'

    pages = []
    for a in articles:
        if a in revised:
            pages.append(xml_page(a, [('2026-03-02T09:00:00Z', first_revision(text[a])),
                                      ('2026-06-15T14:30:00Z', text[a])]))
        else:
            pages.append(xml_page(a, [('2026-03-02T09:00:00Z', text[a])]))
    pages.append(xml_page(index_title, [('2026-03-02T09:00:00Z', index_text)]))
    for t, body in talk.items():
        pages.append(xml_page(t, [('2026-04-10T11:00:00Z', body)], ns=1))
    for r, t in redirects.items():
        pages.append(xml_page(r, [('2026-03-03T09:00:00Z', f'#REDIRECT [[{t}]]\n')]))
    for c, a in copies.items():
        pages.append(xml_page(c, [('2026-05-20T16:00:00Z', text[a])]))
    with open(f'{d}/dump.xml', 'w', encoding='utf-8') as f:
        f.write('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" version="0.11" xml:lang="en">\n')
        f.write('\n'.join(pages))
        f.write('\n</mediawiki>\n')
    with open(f'{d}/mainpage.txt', 'w', encoding='utf-8') as f:
        f.write('\n'.join(main))

    entries = [{'title': 'Main Page', 'path': mw_path('Main Page'), 'kind': 'main'},
               {'title': index_title, 'path': mw_path(index_title), 'kind': 'index'}]
    entries += [{'title': a, 'path': mw_path(a), 'kind': 'article', 'source': src_of[a].key,
                 'revisions': 2 if a in revised else 1} for a in articles]
    entries += [{'title': t, 'path': mw_path(t), 'kind': 'talk'} for t in talk]
    entries += [{'title': c, 'path': mw_path(c), 'kind': 'copy', 'original': a} for c, a in copies.items()]
    truth = {'site_name': SITE_NAME, 'pages': entries,
             'copies': {mw_path(c): mw_path(a) for c, a in copies.items()},
             'redirects': {mw_path(r): mw_path(t) for r, t in redirects.items()}}
    with open(f'{d}/truth.json', 'w', encoding='utf-8') as f:
        json.dump(truth, f, ensure_ascii=False, indent=1)
    print(f'{len(articles)} articles ({len(revised)} with a second revision), {len(talk)} talk pages, '
          f'{len(redirects)} redirects, {len(copies)} copies, {len(orphans)} reached only by the index page')


if __name__ == '__main__':
    main()

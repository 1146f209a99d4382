#!/usr/bin/env python3
"""wiki-check.py: after a crawl of scripts/wiki-site.sh's MediaWiki, the
figures of issue 37's acceptance, from the server's access log, the
crawl's export and the ground truth (DIR/truth.json), and the search API:

- requests: what the crawler asked of the wiki (its User-Agent's lines of
  DIR/access.log, less robots.txt, /sitemap.xml and the soft-404 probe),
  by kind (article, edit, section edit, history, ...);
- pages kept (fetched in the export), how many of them the crawl had
  requested within 2x as many requests as pages kept, the request by
  which it had 90 % of them, and the request of the last (≤ 4x wanted);
- the truth's pages (Main Page, articles, talk pages, copies) kept, and
  what became of each redirect;
- search: 30 random article titles (seed 37), each wanted first; no top 10
  with two views of one article (an article, its copy, a redirect to it,
  an old revision or another view of it);
- copies: each in its original's cluster, and behind its original (or
  folded into it) when searching the original's title;
- noindex: no indexed URL whose page says noindex (each fetched again);
  nofollow: every request is the seed, a redirect's target or a link on a
  page that does not say nofollow (every page the crawl had answered 200
  fetched again, with this script's User-Agent, which the counts leave out).

usage: scripts/wiki-check.py DIR EXPORT.jsonl SEARCH_URL SITE_URL [--log-start N] [--budget N] [--requests-only]
  --log-start N: the log's first N lines are an earlier crawl's;
  --budget N: fail unless the crawl made at most N requests;
  --requests-only: the request figures alone (a budget run).
Exit status 1 when a figure misses the acceptance.
"""
import argparse
import collections
import concurrent.futures
import html
import json
import random
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

UA = 'wiki-check.py'


def key(u):
    """A request URI compared by what it names: escapes decoded, the
    query's parameters in order (the crawler sorts them; MediaWiki
    links title first)."""
    path, _, query = u.partition('?')
    path = urllib.parse.unquote(path)
    if not query:
        return path
    return path + '?' + '&'.join(f'{k}={v}' for k, v in sorted(urllib.parse.parse_qsl(query, keep_blank_values=True)))


def uri_of(url):
    p = urllib.parse.urlsplit(url)
    return p.path + ('?' + p.query if p.query else '')


def kind(uri):
    p = urllib.parse.urlsplit(uri)
    q = urllib.parse.parse_qs(p.query)
    title = q.get('title', [urllib.parse.unquote(p.path[len('/index.php/'):]) if p.path.startswith('/index.php/') else ''])[0]
    if 'redlink' in q:
        return 'red link (edit)'
    if 'section' in q:
        return 'section edit'
    if 'action' in q:
        return 'action=' + q['action'][0]
    if 'oldid' in q or 'diff' in q:
        return 'old revision or diff'
    if 'printable' in q:
        return 'printable'
    if title.startswith('Special:'):
        return 'Special:' + re.split(r'[/&]', title[len('Special:'):])[0]
    if title.startswith('Talk:'):
        return 'talk page'
    if p.path.startswith('/index.php/') and not p.query:
        return 'article'
    if p.path.startswith(('/load.php', '/resources/', '/skins/', '/images/')):
        return 'style, script or image'
    return 'other'


def read_log(path, start):
    """The crawler's requests: (URI, status, Location) in the log's order."""
    out = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for i, line in enumerate(f):
            if i < start:
                continue
            parts = line.rstrip('\n').split('\t')
            if len(parts) < 5 or 'DoppelBot' not in parts[4]:
                continue
            req = parts[1].split(' ')
            if len(req) < 2:
                continue
            uri = req[1]
            if uri in ('/robots.txt', '/sitemap.xml') or uri.startswith('/doppel-probe-'):
                continue
            out.append((uri, parts[2], parts[3]))
    return out


def get(url):
    req = urllib.request.Request(url, headers={'User-Agent': UA})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.read().decode('utf-8', 'replace')
    except urllib.error.HTTPError as e:
        return e.read().decode('utf-8', 'replace')


def robots(page):
    m = re.search(r'<meta\s+name="robots"\s+content="([^"]*)"', page)
    return m.group(1).lower() if m else ''


def links(page, base):
    out = set()
    for m in re.finditer(r'<(?:a|link)\b[^>]*?\bhref="([^"]*)"', page):
        u = urllib.parse.urljoin(base, html.unescape(m.group(1)))
        out.add(key(uri_of(u.split('#')[0])))
    return out


def search(base, q):
    u = f'{base}/api/search?' + urllib.parse.urlencode({'q': q, 'size': 10})
    return json.load(urllib.request.urlopen(u)).get('hits') or []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('export')
    ap.add_argument('search')
    ap.add_argument('site')
    ap.add_argument('--log-start', type=int, default=0)
    ap.add_argument('--budget', type=int, default=0)
    ap.add_argument('--requests-only', action='store_true')
    a = ap.parse_args()
    site = a.site.rstrip('/')
    truth = json.load(open(f'{a.dir}/truth.json', encoding='utf-8'))
    log = read_log(f'{a.dir}/access.log', a.log_start)
    failed = []

    first = {}
    for i, (uri, _, _) in enumerate(log):
        first.setdefault(key(uri), i + 1)
    kinds = collections.Counter(kind(u) for u, _, _ in log)
    print(f'requests: {len(log)}')
    for k, n in kinds.most_common():
        print(f'  {n:6d}  {k}')
    if a.budget and len(log) > a.budget:
        failed.append(f'{len(log)} requests with a budget of {a.budget}')

    entries = [json.loads(line) for line in open(a.export, encoding='utf-8')]
    entries = [e for e in entries if e['url'].startswith(site + '/')]
    kept = [e for e in entries if e['status'] == 'fetched']
    at = sorted(first.get(key(uri_of(e['url'])), 10**9) for e in kept)
    never = sum(1 for x in at if x == 10**9)
    k = len(kept)
    within2 = sum(1 for x in at if x <= 2 * k)
    r90 = at[(9 * k + 9) // 10 - 1] if k else 0
    last = at[-1] if k else 0
    print(f'pages kept: {k}; requests per page kept {len(log) / max(k, 1):.2f}; kept within 2x ({2 * k} requests): '
          f'{within2} ({within2 / max(k, 1):.3f}); 90 % kept by request {r90}; the last kept at request {last} '
          f'({last / max(k, 1):.2f}x)' + (f'; {never} kept pages not in the log' if never else ''))
    if 10 * within2 < 9 * k:
        failed.append(f'{within2} of {k} kept within 2x')
    if last > 4 * k:
        failed.append(f'the last page kept at request {last} > 4x {k}')
    if a.requests_only:
        return finish(failed)

    byuri = {key(uri_of(e['url'])): e for e in entries}
    want = [p for p in truth['pages']]
    missing = [p['title'] for p in want if byuri.get(key(p['path']), {}).get('status') != 'fetched']
    kinds_kept = collections.Counter(p['kind'] for p in want if p['title'] not in missing)
    print(f"truth pages kept: {len(want) - len(missing)} of {len(want)} ({dict(kinds_kept)})")
    for t in missing[:20]:
        e = byuri.get(key(next(p['path'] for p in want if p['title'] == t)), {})
        print(f"  not kept: {t}: {e.get('status', 'never seen')} {e.get('reason', '')}")
    if missing:
        failed.append(f'{len(missing)} truth pages not kept')
    fates = collections.Counter()
    for r, target in truth['redirects'].items():
        e = byuri.get(key(r))
        t = byuri.get(key(target), {})
        if not e:
            fates['never seen'] += 1
        elif e['status'] == 'fetched':
            fates['kept, in its target\'s cluster' if e.get('cluster') == t.get('cluster') else 'kept apart from its target'] += 1
        elif key(uri_of(e.get('reason', '').partition(' is ')[2])) == key(target):
            fates[f"{e['status']}: its canonical URL is its target"] += 1
        else:
            fates[f"{e['status']}: {e.get('reason', '')}"] += 1
    print(f'redirects ({len(truth["redirects"])}): {dict(fates)}')
    if fates['kept apart from its target']:
        failed.append('a redirect kept apart from its target')

    # Search.
    articles = [p for p in want if p['kind'] == 'article']
    sample = random.Random(37).sample(articles, 30)
    redirect_of = {key(r): key(t) for r, t in truth['redirects'].items()}
    copy_of = {key(c): key(o) for c, o in truth['copies'].items()}

    def article_of(url):
        p = urllib.parse.urlsplit(url)
        q = urllib.parse.parse_qs(p.query)
        if p.path.startswith('/index.php/'):
            u = key(p.path)
        elif 'title' in q:
            u = '/index.php/' + q['title'][0].replace(' ', '_')
        else:
            u = key(p.path)
        u = redirect_of.get(u, u)
        return copy_of.get(u, u)

    firsts, doubled = 0, []
    for p in sample:
        hits = search(a.search, p['title'])
        if hits and key(uri_of(hits[0]['url'])) == key(p['path']):
            firsts += 1
        else:
            print(f"  not first: {p['title']!r}: {[uri_of(h['url']) for h in hits[:3]]}")
        arts = collections.Counter(article_of(h['url']) for h in hits[:10])
        if any(n > 1 for n in arts.values()):
            doubled.append(p['title'])
    print(f'search: {firsts} of 30 article titles first; {len(doubled)} top 10s with two views of one article')
    for t in doubled:
        print(f'  two views in the top 10 of {t!r}')
    if firsts < 30 or doubled:
        failed.append(f'search: {firsts}/30 first, {len(doubled)} doubled')

    joined = behind = 0
    for p in want:
        if p['kind'] != 'copy':
            continue
        c = byuri.get(key(p['path']), {})
        o = byuri.get(key(truth['copies'][p['path']]), {})
        if c.get('cluster') and c.get('cluster') == o.get('cluster'):
            joined += 1
        else:
            print(f"  copy not in its original's cluster: {p['title']}")
        hits = [key(uri_of(h['url'])) for h in search(a.search, p['original'])]
        ro = hits.index(key(truth['copies'][p['path']])) if key(truth['copies'][p['path']]) in hits else 99
        rc = hits.index(key(p['path'])) if key(p['path']) in hits else 100
        if ro < rc:
            behind += 1
        else:
            print(f"  copy not behind its original on {p['original']!r}: original at {ro}, copy at {rc}")
    n = len(truth['copies'])
    print(f'copies: {joined} of {n} in their original\'s cluster; {behind} of {n} behind the original on its title')
    if joined < n or behind < n:
        failed.append('copies')

    # noindex and nofollow, from the pages themselves.
    indexed = [e['url'] for e in entries if e.get('indexed')]
    answered = sorted({u for u, status, _ in log if status == '200'})
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        pages = dict(zip(answered, ex.map(lambda u: get(site + u), answered)))
        for u in indexed:
            if uri_of(u) not in pages:
                pages[uri_of(u)] = get(u)
    noindexed = [u for u in indexed if 'noindex' in robots(pages[uri_of(u)])]
    followed = set()
    nofollow_pages = 0
    for u, page in pages.items():
        if 'nofollow' in robots(page):
            nofollow_pages += 1
            continue
        followed |= links(page, site + u)
    for _, status, loc in log:
        if status.startswith('3') and loc not in ('', '-'):
            followed.add(key(uri_of(urllib.parse.urljoin(site + '/', loc))))
    unlinked = [u for u, _, _ in log[1:] if key(u) not in followed]
    print(f'noindex: {len(noindexed)} of {len(indexed)} indexed pages say noindex; nofollow: {len(unlinked)} '
          f'requests not linked from a page that may be followed ({nofollow_pages} of {len(pages)} pages say nofollow)')
    for u in noindexed[:10]:
        print(f'  indexed, says noindex: {u}')
    for u in unlinked[:10]:
        print(f'  requested, linked only where nofollow: {u}')
    if noindexed or unlinked:
        failed.append('noindex/nofollow')
    return finish(failed)


def finish(failed):
    print('acceptance: ' + ('met' if not failed else 'missed: ' + '; '.join(failed)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

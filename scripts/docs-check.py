#!/usr/bin/env python3
"""docs-check.py: after a crawl of a documents intranet
(scripts/docs-site.sh, scripts/heldout-site.sh), checks every document of
its manifest: fetched and read (its status in the export), found by its
own title (the query is its title; found when one of the first 10 hits is
the document or stands for its cluster), and, for a version of a page, in
the page's cluster (joined), and of those how many have the page as
their cluster's master (page_master). Then the precision of the crawl's
member→master links: every fetched page or document of the manifest
whose master is another URL is a link, right when both are in one twin group — the
manifest's "group" (heldout-site.sh), else its "twin", else the URL's
own path (a page, or a document that is a version of nothing).

usage: scripts/docs-check.py DIR EXPORT.jsonl SEARCH_URL SITE_URL
  DIR: the site script's directory (manifest.jsonl); EXPORT: doppel
  export; SEARCH_URL: doppel serve's base URL; SITE_URL: the served
  site's root.
"""
import json, sys, urllib.parse, urllib.request

d, export, search, site = sys.argv[1:5]
site = site.rstrip('/') + '/'
rec = {}
for line in open(export, encoding='utf-8'):
    e = json.loads(line)
    rec[e['url']] = e
docs = [json.loads(l) for l in open(d + '/manifest.jsonl', encoding='utf-8')]
group = {}
for doc in docs:
    group[doc['path']] = doc.get('group') or doc['twin'] or doc['path']


def group_of(url):
    path = url[len(site):] if url.startswith(site) else url
    return group.get(path, path)


fetched = found = twins = joined = page_master = 0
misses = []
for doc in docs:
    url = site + doc['path']
    e = rec.get(url, {})
    if e.get('status') != 'fetched':
        misses.append(f"not fetched: {doc['path']} {e.get('status')} {e.get('reason', '')}")
        continue
    fetched += 1
    q = urllib.parse.urlencode({'q': doc['title'], 'size': 10})
    res = json.load(urllib.request.urlopen(f'{search}/api/search?{q}'))
    hits = res.get('hits') or []
    if any(h['url'] == url or h['cluster'] == e.get('cluster') for h in hits):
        found += 1
    else:
        misses.append(f"not found by its title {doc['title']!r}: {doc['path']}")
    if doc['twin']:
        twins += 1
        t = rec.get(site + doc['twin'], {})
        if t.get('cluster') and t.get('cluster') == e.get('cluster'):
            joined += 1
            if e.get('master') == site + doc['twin']:
                page_master += 1
            else:
                misses.append(f"joined, master not the page {doc['twin']}: {doc['path']} -> {e.get('master', '')[len(site):]}")
        else:
            misses.append(f"not joined to {doc['twin']}: {doc['path']}")
links = right = 0
for url, e in rec.items():
    if url[len(site):] not in group or e.get('status') != 'fetched' or not e.get('master') or e['master'] == url:
        continue  # only the manifest's pages and documents are judged
    links += 1
    if group_of(url) == group_of(e['master']):
        right += 1
    else:
        misses.append(f"wrong link: {url[len(site):]} -> {e['master'][len(site):]}")
n = len(docs)
print(f'documents={n} fetched={fetched / n:.3f} found_by_title={found / n:.3f} versions={twins} '
      f'joined={joined / max(twins, 1):.3f} page_master={page_master / max(joined, 1):.3f} links={links} link_precision={right / max(links, 1):.3f}')
for m in misses:
    print('  ' + m)

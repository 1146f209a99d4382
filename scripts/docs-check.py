#!/usr/bin/env python3
"""docs-check.py: after a crawl of the documents intranet of
scripts/docs-site.sh, checks every document: fetched and read (its status
in the export), found by its own title (the query is its title; found when
one of the first 10 hits is the document or stands for its cluster), and,
for a version of a page, in the page's cluster.

usage: scripts/docs-check.py DIR EXPORT.jsonl SEARCH_URL SITE_URL
  DIR: docs-site.sh's directory (manifest.jsonl); EXPORT: doppel export;
  SEARCH_URL: doppel serve's base URL; SITE_URL: the served site's root.
"""
import json, sys, urllib.parse, urllib.request

d, export, search, site = sys.argv[1:5]
site = site.rstrip('/') + '/'
rec = {}
for line in open(export, encoding='utf-8'):
    e = json.loads(line)
    rec[e['url']] = e
docs = [json.loads(l) for l in open(d + '/manifest.jsonl', encoding='utf-8')]
fetched = found = twins = joined = 0
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
        else:
            misses.append(f"not joined to {doc['twin']}: {doc['path']}")
n = len(docs)
print(f'documents={n} fetched={fetched / n:.3f} found_by_title={found / n:.3f} versions={twins} joined={joined / max(twins, 1):.3f}')
for m in misses:
    print('  ' + m)

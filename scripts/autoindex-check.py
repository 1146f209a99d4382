#!/usr/bin/env python3
"""autoindex-check.py: after a crawl of scripts/autoindex-site.sh's Apache
listings, what the crawl asked of the server (its User-Agent's lines of
DIR/access.log, less robots.txt, /sitemap.xml and the soft-404 probe):
requests by kind, the listings (paths ending in /) and the requests for
each beyond the listing itself (issue 37 wants at most 1: a listing's sort
orders, "?C=N;O=D", are the same files), sort orders requested with their
";" encoded (%3B: Apache answers the default order), and from the export
the pages kept and the sort orders recorded without a request.

usage: scripts/autoindex-check.py DIR EXPORT.jsonl [--log-start N] [--budget N]
Exit status 1 when a listing cost more than 1 request beyond itself, a ";"
was encoded, or (--budget) the crawl made more requests than N.
"""
import argparse
import collections
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('export')
    ap.add_argument('--log-start', type=int, default=0)
    ap.add_argument('--budget', type=int, default=0)
    a = ap.parse_args()
    log = []
    with open(f'{a.dir}/access.log', encoding='utf-8', errors='replace') as f:
        for i, line in enumerate(f):
            parts = line.rstrip('\n').split('\t')
            if i < a.log_start or len(parts) < 5 or 'DoppelBot' not in parts[4]:
                continue
            uri = parts[1].split(' ')[1]
            if uri in ('/robots.txt', '/sitemap.xml') or uri.startswith('/doppel-probe-'):
                continue
            log.append((uri, parts[2]))
    per_listing = collections.Counter()
    kinds = collections.Counter()
    encoded = 0
    for uri, status in log:
        path, _, query = uri.partition('?')
        if '%3b' in query.lower():
            encoded += 1
        if path.endswith('/'):
            per_listing[path] += 1
            kinds['listing, sort order' if query else 'listing'] += 1
        elif status.startswith('3'):
            kinds['redirect (a folder without its /)'] += 1
        else:
            ext = os.path.splitext(path)[1].lower() or '(none)'
            kinds[f'file {ext}'] += 1
    listings = len(per_listing)
    extra = sum(n - 1 for n in per_listing.values())
    worst = per_listing.most_common(1)[0] if per_listing else ('', 0)
    print(f'requests: {len(log)}')
    for k, n in kinds.most_common(12):
        print(f'  {n:6d}  {k}')
    rest = sum(n for _, n in kinds.most_common()[12:])
    if rest:
        print(f'  {rest:6d}  other kinds of file')
    print(f'listings: {listings} requested {sum(per_listing.values())} times: {extra} requests beyond the listings '
          f'({extra / max(listings, 1):.3f} per listing); the most for one listing: {worst[1]} ({worst[0]})')
    print(f'sort orders requested with ";" encoded (%3B): {encoded}')
    entries = [json.loads(line) for line in open(a.export, encoding='utf-8')]
    status = collections.Counter(e['status'] for e in entries)
    sorts = sum(1 for e in entries if e['status'] == 'skipped' and 'sort order' in e.get('reason', ''))
    print(f'export: {dict(status)}; sort orders recorded without a request: {sorts}')
    failed = []
    if worst[1] > 2:
        failed.append(f'{worst[0]} requested {worst[1]} times')
    if encoded:
        failed.append(f'{encoded} requests with %3B')
    if a.budget and len(log) > a.budget:
        failed.append(f'{len(log)} requests with a budget of {a.budget}')
    print('acceptance: ' + ('met' if not failed else 'missed: ' + '; '.join(failed)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

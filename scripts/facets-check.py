#!/usr/bin/env python3
"""Checks a running Doppel search server's facets against a brute-force
count over every page of the same collapsed results.

usage: facets-check.py BASE_URL [--user NAME | --groups G1,G2 [--header X-Doppel-Groups]] QUERY...

For each query, asks BASE_URL/api/search?q=QUERY&size=100 page after page
(as the demo user NAME, or with the groups in the header), counts the
hits' host, section (the URL path's first segment), type ("html" when
none), language and modified range (week, month, year, older, undated),
and compares with the first page's facets (each facet's values, at most
20, must have exactly the brute-force counts). Prints one line per query:
query, clusters, exact, facets_equal (and the first difference if not).
"""
import datetime
import json
import sys
import urllib.parse
import urllib.request


def section(u):
    path = urllib.parse.urlparse(u).path.lstrip("/")
    first, sep, _ = path.partition("/")
    return "/" + first + "/" if sep and first else "/"


def modified(s, now):
    if not s:
        return "undated"
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    age = now - t
    for name, days in (("week", 7), ("month", 30), ("year", 365)):
        if age <= datetime.timedelta(days=days):
            return name
    return "older"


def main():
    args = sys.argv[1:]
    base = args.pop(0).rstrip("/")
    params, headers, header = {}, {}, "X-Doppel-Groups"
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--user":
            params["user"] = args.pop(0)
        elif opt == "--groups":
            headers["groups"] = args.pop(0)
        elif opt == "--header":
            header = args.pop(0)
    if "groups" in headers:
        headers = {header: headers["groups"]}
    now = datetime.datetime.now(datetime.timezone.utc)
    ok_all = True
    for q in args:
        counts = {f: {} for f in ("host", "section", "type", "lang", "modified")}
        facets, total, exact, page = None, 0, True, 1
        while True:
            p = dict(params, q=q, size=100, page=page)
            req = urllib.request.Request(base + "/api/search?" + urllib.parse.urlencode(p), headers=headers)
            res = json.load(urllib.request.urlopen(req, timeout=30))
            if facets is None:
                facets, total, exact = res.get("facets", {}), res["total"], res["exact"]
            for h in res["hits"]:
                for f, v in (("host", h["host"]), ("section", section(h["url"])), ("type", h.get("type") or "html"),
                             ("lang", h.get("lang", "")), ("modified", modified(h.get("last_modified", ""), now))):
                    if v:
                        counts[f][v] = counts[f].get(v, 0) + 1
            if len(res["hits"]) < 100 or page >= 100:
                break
            page += 1
        diff = ""
        for f, vals in facets.items():
            for v in vals:
                if counts[f].get(v["value"]) != v["count"]:
                    diff = diff or f"{f}={v['value']}: facet {v['count']}, brute force {counts[f].get(v['value'])}"
            if len(vals) < 20 and len(vals) != len(counts[f]):
                diff = diff or f"{f}: {len(vals)} values, brute force {len(counts[f])}"
        ok_all &= not diff
        print(f"q={q!r} clusters={total} exact={exact} facets_equal={not diff}" + (f" ({diff})" if diff else ""))
    sys.exit(0 if ok_all else 1)


if __name__ == "__main__":
    main()

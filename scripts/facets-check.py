#!/usr/bin/env python3
"""Checks that a running Doppel search server's counts add up (issue 39's
acceptance): for each query and user, the total is the same at page sizes
10 and 100 and equals the results walked page by page (the same clusters in
the same order at both sizes), each facet value's count equals the brute-force
count over those results, and clicking the value (its filter) gives exactly
that many results, walked at sizes 10 and 100, each with that value.

usage: facets-check.py BASE_URL [--user NAME]... [--groups G1,G2 [--header X-Doppel-Groups]]
                       [--queries-from SITE.jsonl N SEED] [--jobs J] [QUERY...]

--user NAME (repeatable) asks as the demo user NAME (doppel serve --demo-users,
doppel demo); without it the requests are anonymous, or carry --groups in the
header. --queries-from draws N queries (seeded) from the titles of SITE.jsonl
(the kit's format): a title's first word of four letters or more, every other
query with the word after it too. A result of more than 1,000 clusters is
walked at size 100 only (page numbers stop at 100), a facet value of more
than 1,000 too; a result not counted exactly (exact false) is reported and
skipped. Prints one line per query and user, then a summary; exits 1 on any
mismatch.
"""
import concurrent.futures
import datetime
import json
import random
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

FACETS = ("host", "section", "type", "lang", "modified")


def section(u):
    path = urllib.parse.urlparse(u).path.lstrip("/")
    first, sep, _ = path.partition("/")
    return "/" + first + "/" if sep and first else "/"


def modified(s, now):
    if not s:
        return "undated"
    t = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    if t.year <= 1:
        return "undated"
    age = now - t
    for name, days in (("week", 7), ("month", 30), ("year", 365)):
        if age <= datetime.timedelta(days=days):
            return name
    return "older"


def value(h, facet, now):
    if facet == "host":
        return h["host"]
    if facet == "section":
        return section(h["url"])
    if facet == "type":
        return h.get("type") or "html"
    if facet == "lang":
        return h.get("lang", "")
    return modified(h.get("last_modified", ""), now)


class Checker:
    def __init__(self, base, headers):
        self.base, self.headers, self.requests, self.retries = base, headers, 0, 0

    def get(self, params):
        """Asks /api/search; a 429 or 503 (a busy server) is asked again after its Retry-After, up to 30 times (a loaded machine: the server's searches stop at 2 s), as is a dropped connection."""
        req = urllib.request.Request(self.base + "/api/search?" + urllib.parse.urlencode(params), headers=self.headers)
        for attempt in range(31):
            self.requests += 1
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    return json.load(r)
            except (urllib.error.HTTPError, ConnectionError) as e:
                if isinstance(e, urllib.error.HTTPError) and e.code not in (429, 503) or attempt == 30:
                    raise
                self.retries += 1
                time.sleep(float(getattr(e, "headers", None) and e.headers.get("Retry-After") or 1))

    def walk(self, params, size):
        """Pages through a search; returns (first page, hits, problem)."""
        first, hits = None, []
        for page in range(1, 102):
            res = self.get(dict(params, size=size, page=page))
            if first is None:
                first = res
            if res["total"] != first["total"] or res["exact"] != first["exact"]:
                return first, hits, f"size {size} page {page}: total {res['total']}, page 1 said {first['total']}"
            more = res.get("more", False)
            if more and len(res["hits"]) != size:
                return first, hits, f"size {size} page {page}: {len(res['hits'])} hits and a next page"
            hits += res["hits"]
            if not more:
                return first, hits, ""
        return first, hits, f"size {size}: more than 100 pages"

    def check(self, params):
        """Returns (line, problems, exact)."""
        now = datetime.datetime.now(datetime.timezone.utc)
        probe = self.get(dict(params, size=10))
        if not probe["exact"]:
            return f"not exact (about {probe.get('at_least')}-{probe['total']}): skipped", [], False
        small = 100 if probe["total"] > 1000 else 10
        problems = []
        walks = {}
        for size in sorted({small, 100}):
            first, hits, p = self.walk(params, size)
            problems += [p] if p else []
            walks[size] = (first, [h["id"] for h in hits], hits)
        first, ids, hits = walks[100]
        if len(ids) != len(set(ids)):
            problems.append("a cluster listed twice at size 100")
        for size, (f, got, _) in walks.items():
            if f["total"] != len(got):
                problems.append(f"size {size}: total {f['total']}, {len(got)} results walked")
            if got != ids:
                problems.append(f"size {size} walks other results than size 100")
        counts = {f: {} for f in FACETS}
        for h in hits:
            for f in FACETS:
                v = value(h, f, now)
                if v:
                    counts[f][v] = counts[f].get(v, 0) + 1
        facets = first.get("facets", {})
        values = 0
        for f, vals in facets.items():
            listed = {v["value"] for v in vals}
            if len(vals) < 20 and not set(counts[f]) <= listed:
                problems.append(f"{f}: values {sorted(set(counts[f]) - listed)[:3]} shown on results, not in the facet")
            for v in vals:
                values += 1
                if counts[f].get(v["value"], 0) > v["count"]:
                    problems.append(f"{f}={v['value']}: facet {v['count']}, {counts[f][v['value']]} results shown with it")
                for size in sorted({100 if v["count"] > 1000 else 10, 100}):
                    ff, fh, p = self.walk(dict(params, **{f: v["value"]}), size)
                    problems += [f"{f}={v['value']} {p}"] if p else []
                    if ff["total"] != v["count"] or len(fh) != v["count"] or not ff["exact"]:
                        problems.append(f"{f}={v['value']}: counted {v['count']}, clicking gives total {ff['total']} "
                                        f"(exact {ff['exact']}), {len(fh)} walked at size {size}")
                    wrong = [h["url"] for h in fh if value(h, f, now) != v["value"]]
                    if wrong:
                        problems.append(f"{f}={v['value']}: {len(wrong)} results without it, e.g. {wrong[0]}")
        return f"clusters={first['total']} facet_values={values}", problems, True


def draw(site, n, seed):
    rnd = random.Random(seed)
    titles = []
    for line in open(site, encoding="utf-8"):
        t = json.loads(line).get("title", "")
        if t:
            titles.append(t)
    out = []
    for t in rnd.sample(titles, len(titles)):
        ws = re.findall(r"[^\W\d_]+", t)
        for i, w in enumerate(ws):
            if len(w) >= 4:
                q = w.lower()
                if len(out) % 2 and i + 1 < len(ws):
                    q += " " + ws[i + 1].lower()
                if q not in out:
                    out.append(q)
                break
        if len(out) >= n:
            break
    return out


def main():
    args = sys.argv[1:]
    base = args.pop(0).rstrip("/")
    users, groups, header, queries, jobs = [], None, "X-Doppel-Groups", [], 1
    while args:
        opt = args.pop(0)
        if opt == "--user":
            users.append(args.pop(0))
        elif opt == "--groups":
            groups = args.pop(0)
        elif opt == "--header":
            header = args.pop(0)
        elif opt == "--jobs":
            jobs = int(args.pop(0))
        elif opt == "--queries-from":
            site, n, seed = args.pop(0), int(args.pop(0)), int(args.pop(0))
            queries += draw(site, n, seed)
        else:
            queries.append(opt)
    headers = {header: groups} if groups is not None else {}
    start = time.time()
    checkers = []

    def one(q, u):
        c = Checker(base, headers)
        checkers.append(c)
        params = {"q": q, "user": u} if u else {"q": q}
        return q, u, c.check(params)

    todo = [(q, u) for q in queries for u in (users or [""])]
    bad = skipped = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        for q, u, (line, problems, exact) in ex.map(lambda a: one(*a), todo):
            bad += bool(problems)
            skipped += not exact
            print(f"q={q!r} user={u or '-'} {line} add_up={not problems}" + (f" ({'; '.join(problems[:3])})" if problems else ""),
                  flush=True)
    print(f"queries={len(queries)} users={len(users) or 1} checked={len(todo) - skipped} not_exact={skipped} mismatched={bad} "
          f"requests={sum(c.requests for c in checkers)} retried={sum(c.retries for c in checkers)} seconds={time.time() - start:.0f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

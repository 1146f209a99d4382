#!/usr/bin/env python3
"""deletions.py: how soon a crawl saw each deletion on the kit's living site.

usage: scripts/deletions.py LOG SECONDS [SEEN_BY]

LOG is a living-site log (ndd living -log LOG; its drawn history is
LOG.history.json beside it); SECONDS the end of the window. For the pages
deleted before the end it prints how many the crawl saw (a 404/410 answer
after the deletion, as ndd freshness counts them) by SEEN_BY seconds
(default SECONDS), the median and largest delay from deletion to that
answer, and for each one not seen how long before the end of the window
it was deleted, the listing page that named it then (the site lists its
live pages in order, PER_LISTING a page; /list?k=0 is the home page) —
and whether the crawl had ever fetched it.
"""
import json
import statistics
import sys

PER_LISTING = 100  # ndd living's links per listing page (PerIndex)


def listing(pages, p):
    """The listing page (k of /list?k=) that named page p just before its deletion."""
    d = p["deleted"]
    alive = [q["id"] for q in pages
             if q["id"] == p["id"] or q.get("born", 0) <= d and not (q.get("deleted") and q["deleted"] <= d)]
    return alive.index(p["id"]) // PER_LISTING


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2])
    log, end = sys.argv[1], float(sys.argv[2])
    by = float(sys.argv[3]) if len(sys.argv) == 4 else end
    with open(log + ".history.json") as f:
        hist = json.load(f)
    pages = hist["pages"] if isinstance(hist, dict) else hist
    answers = {}
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            if e["page"] >= 0 and e["t"] <= by:
                answers.setdefault(e["page"], []).append((e["t"], e["status"]))
    delays, missed = [], []
    deleted = 0
    for p in pages:
        if not p.get("deleted") or p["deleted"] >= end:
            continue
        deleted += 1
        got = answers.get(p["id"], [])
        gone = [t for t, s in got if s in (404, 410) and t >= p["deleted"]]
        if gone:
            delays.append(gone[0] - p["deleted"])
        else:
            known = any(t < p["deleted"] for t, _ in got)  # fetched while it lived
            missed.append((end - p["deleted"], known, listing(pages, p)))
    line = f"deleted={deleted} seen={len(delays)}"
    if delays:
        line += f" median_delay_s={statistics.median(delays):.0f} max_delay_s={max(delays):.0f}"
    if missed:
        line += " missed=" + ",".join(
            f"{before:.0f}s_before_end(listing_{k}{'' if known else ',never_fetched'})" for before, known, k in sorted(missed))
    print(line)


if __name__ == "__main__":
    main()

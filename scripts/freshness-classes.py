#!/usr/bin/env python3
"""freshness-classes.py: where a crawl of the kit's living site loses against the optimum.

usage: scripts/freshness-classes.py LOG [RATE] [FROM] [TO]

LOG is an `ndd living` request log (its drawn history is LOG.history.json
beside it). The script rebuilds `ndd optimum`'s known-rates schedule at RATE
requests/s (default 5) on the same history — the Cho & Garcia-Molina
allocation, discovery in id order, revisits at a random phase (its own random
phases, so its total may differ from ndd's by a few thousandths) — and prints,
per class of page (by its true mean time between changes; pages born and
deleted apart), the freshness over [FROM, TO] seconds (default 600-1200) of
the crawl and of the optimum, the points of the whole site's freshness the
class loses, and the fetches each made of the class's pages in the window.
Then the same per minute for the whole site, with the fetches of the pages
that change every 1-5 minutes and of the static ones.
"""
import bisect
import json
import math
import random
import sys


def frequencies(pages, rate):
    """The optimum's fetches/s per page: 1 - (1+x)e^-x = mu*lambda, x = lambda/f."""
    lam = [1 / p["mean"] if p["mean"] > 0 else 0 for p in pages]

    def g(x):
        return 1 - (1 + x) * math.exp(-x)

    def freq(mu):
        f = [0.0] * len(lam)
        for i, l in enumerate(lam):
            if l == 0 or mu * l >= 1:
                continue
            lo, hi = 0.0, 1.0
            while g(hi) < mu * l:
                hi *= 2
            for _ in range(50):
                m = (lo + hi) / 2
                lo, hi = (m, hi) if g(m) < mu * l else (lo, m)
            f[i] = l / ((lo + hi) / 2)
        return f

    lo, hi = 1e-9, 1e9
    for _ in range(80):
        m = math.sqrt(lo * hi)
        lo, hi = (m, hi) if sum(freq(m)) > rate else (lo, m)
    return freq(hi)


def alive(p, t):
    return t >= p["born"] and (p["deleted"] == 0 or t < p["deleted"])


def version(p, t):
    return bisect.bisect_right(p["changes"], t + 1e-9)


def answer(p, t):
    return (t, version(p, t) if alive(p, t) else -1)


def fresh_at(p, hist, t):
    """Whether the copy (the last answer at or before t) is current at t."""
    have = -2
    for tt, v in hist:
        if tt > t:
            break
        have = v
    want = version(p, t) if alive(p, t) else -1
    return have == want and have != -2


def optimum_log(pages, rate, to):
    r = random.Random(1)
    f = frequencies(pages, rate)
    first, k = [], 0
    for p in pages:
        if p["born"] == 0:
            first.append(k / rate)
            k += 1
        else:
            first.append(p["born"])
    hist = [[answer(p, first[i])] for i, p in enumerate(pages)]
    for i, p in enumerate(pages):
        if f[i] == 0:
            continue
        iv = 1 / f[i]
        t = max(first[i], k / rate) + r.random() * iv
        while t < to:
            hist[i].append(answer(p, t))
            t += iv
    return hist


def crawl_log(path, n, to):
    hist = [[] for _ in range(n)]
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if 0 <= e["page"] < n and e["t"] <= to:
                hist[e["page"]].append((e["t"], -1 if e["status"] == 410 else e["version"]))
    return [sorted(h) for h in hist]


def classify(p, to):
    if p["born"] >= to:
        return None
    if p["born"] > 0:
        return "born late"
    if p["deleted"] and p["deleted"] < to:
        return "deleted"
    m = p["mean"]
    for bound, name in ((0, "static"), (300, "1-5 min"), (1800, "5-30 min"), (7200, "30 min-2 h")):
        if m == bound == 0 or 0 < m < bound:
            return name
    return "2-4 h"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    log = sys.argv[1]
    rate = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
    lo = float(sys.argv[3]) if len(sys.argv) > 3 else 600.0
    hi = float(sys.argv[4]) if len(sys.argv) > 4 else 1200.0
    with open(log + ".history.json") as f:
        pages = json.load(f)
    pages = pages["pages"] if isinstance(pages, dict) else pages
    for p in pages:
        p["changes"] = p["changes"] or []
    crawl, opt = crawl_log(log, len(pages), hi), optimum_log(pages, rate, hi)
    rows, span = {}, 0
    for i, p in enumerate(pages):
        c = classify(p, hi)
        if c is None:
            continue
        r = rows.setdefault(c, [0, 0, 0, 0, 0, 0])
        r[0] += 1
        for t in range(int(lo), int(hi)):
            if t >= p["born"]:
                r[1] += 1
                r[2] += fresh_at(p, crawl[i], t)
                r[3] += fresh_at(p, opt[i], t)
        r[4] += sum(lo <= t < hi for t, _ in crawl[i])
        r[5] += sum(lo <= t < hi for t, _ in opt[i])
    span = sum(r[1] for r in rows.values())
    print(f"{'class':12} {'pages':>5} {'crawl':>6} {'optimum':>7} {'points lost':>11} {'fetches crawl / optimum':>24}")
    order = ["1-5 min", "5-30 min", "30 min-2 h", "2-4 h", "static", "born late", "deleted"]
    for c in order:
        if c in rows:
            r = rows[c]
            print(f"{c:12} {r[0]:5d} {r[2] / r[1]:6.3f} {r[3] / r[1]:7.3f} {100 * (r[3] - r[2]) / span:11.2f} {r[4]:12d} / {r[5]:<9d}")
    tc, to_ = sum(r[2] for r in rows.values()), sum(r[3] for r in rows.values())
    print(f"{'all':12} {sum(r[0] for r in rows.values()):5d} {tc / span:6.3f} {to_ / span:7.3f} {100 * (to_ - tc) / span:11.2f}"
          f" {sum(r[4] for r in rows.values()):12d} / {sum(r[5] for r in rows.values()):<9d}")
    print("\nminute  crawl optimum  fetches of 1-5 min pages (crawl/optimum)  of static pages")
    fast = [i for i, p in enumerate(pages) if classify(p, hi) == "1-5 min"]
    static = [i for i, p in enumerate(pages) if classify(p, hi) == "static"]
    for m in range(int(hi // 60)):
        a, b, n = 0, 0, 0
        for i, p in enumerate(pages):
            for t in range(m * 60, m * 60 + 60, 5):
                if t >= p["born"]:
                    n += 1
                    a += fresh_at(p, crawl[i], t)
                    b += fresh_at(p, opt[i], t)

        def count(idx, h):
            return sum(m * 60 <= t < m * 60 + 60 for i in idx for t, _ in h[i])
        print(f"{m:6d} {a / n:6.3f} {b / n:7.3f} {count(fast, crawl):22d} / {count(fast, opt):<4d} {count(static, crawl):14d} / {count(static, opt)}")


if __name__ == "__main__":
    main()

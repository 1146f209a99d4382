#!/usr/bin/env python3
"""freshness-table.py: one Markdown row per schedule of a freshness-bench.sh run.

usage: scripts/freshness-table.py NDD OUT SEED [MINUTES] [RATE] [LIVING...]

OUT is the -out directory of scripts/freshness-bench.sh (a subdirectory per
schedule, each with the site's living.log). For each schedule it prints the
freshness over the second half (ndd freshness), the page requests per second
achieved over the whole run and over the second half, the share of unchanged
revisits answered 304 (scripts/notmodified.py), the share of deletions seen by
the end (ndd freshness), and the share of the distance from round-robin to the
optimum closed (ndd optimum on the same history, at RATE and at the rate the
schedule achieved over the whole run). LIVING are the ndd living flags the
run's sites were given beyond the seed (-pages, -min-mean, -max-mean), for
ndd optimum. The crawl's own requests per second (pages and listings, first
fetches and revisits: its summary.txt, robots.txt and sitemaps aside) are
given beside the page requests the site logged."""
import json
import os
import re
import subprocess
import sys


def ndd(exe, *args):
    out = subprocess.run([exe, *args], capture_output=True, text=True, check=True).stdout
    return out


def field(text, name, key):
    m = re.search(name + r": freshness=([0-9.]+)" if key == "opt" else key + r"=([0-9.]+)", text)
    return float(m.group(1))


def optimum(exe, seed, rate, half, end, living=()):
    out = ndd(exe, "optimum", *living, "-seed", str(seed), "-rate", f"{rate:.3f}", "-from", str(half), "-to", str(end))
    return field(out, "optimal", "opt"), field(out, "round-robin", "opt")


def notmodified(log, end):
    last, unchanged, nm = {}, 0, 0
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            if e["t"] > end or e.get("page", -1) < 0 or e["status"] not in (200, 304):
                continue
            p, v = e["page"], e["version"]
            if p in last and last[p] == v:
                unchanged += 1
                nm += e["status"] == 304
            last[p] = v
    return nm / unchanged if unchanged else float("nan")


def requests(log, lo, hi):
    n = 0
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            n += e.get("page", -1) >= 0 and lo <= e["t"] < hi
    return n


def crawled(summary, seconds):
    # The crawl's requests per second: its summary's requests and revisits.
    try:
        with open(summary) as f:
            text = f.read()
        n = sum(int(re.search(r"^" + k + r":\s+([0-9]+)", text, re.M).group(1)) for k in ("requests", "revisits"))
    except (OSError, AttributeError):
        return float("nan")
    return n / seconds


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2])
    exe, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    end = 60 * int(sys.argv[4]) if len(sys.argv) > 4 else 1200
    rate = float(sys.argv[5]) if len(sys.argv) > 5 else 5.0
    living = sys.argv[6:]
    half = end // 2
    o5, r5 = optimum(exe, seed, rate, half, end, living)
    print(f"seed {seed}: ndd optimum at {rate}/s {o5:.3f}, round-robin {r5:.3f} (minutes {half // 60}-{end // 60})")
    print("| schedule | freshness | page requests/s (run / second half) | all requests/s (crawl) | 304 share | deletions seen | distance closed at %g/s / achieved |" % rate)
    print("|---|---|---|---|---|---|---|")
    for name in ("adaptive", "uniform", "nutch", "adaptive+sitemap"):
        log = os.path.join(out, name, "living.log")
        if not os.path.exists(log):
            continue
        res = ndd(exe, "freshness", "-log", log, "-from", str(half), "-to", str(end))
        f, dels = field(res, "", "freshness"), field(res, "", "deletions_seen")
        whole, second = requests(log, 0, end) / end, requests(log, half, end) / (end - half)
        oa, ra = optimum(exe, seed, whole, half, end, living)
        made = crawled(os.path.join(out, name, "summary.txt"), end)
        c5, ca = (f - r5) / (o5 - r5), (f - ra) / (oa - ra)
        print(f"| {name} | {f:.3f} | {whole:.2f} / {second:.2f} | {made:.2f} | {notmodified(log, end):.3f} | {dels:.2f} "
              f"| {100 * c5:.0f} % / {100 * ca:.0f} % (optimum {oa:.3f}, round-robin {ra:.3f} at {whole:.2f}/s) |")


if __name__ == "__main__":
    main()

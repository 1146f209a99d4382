#!/usr/bin/env python3
"""Asks a running Doppel search server for misspelled title words and for
completions, and scores the answers.

usage: suggest-check.py [--pid PID] BASE_URL SITE.jsonl [N] [SEED]

Draws N words (default 200, seed 1) of five letters or more from the
titles of SITE.jsonl, misspells each by one edit (a letter deleted,
replaced, inserted or two swapped, never the first), asks
BASE_URL/api/search?q=MISSPELLING, and counts the answers whose
"suggestion" is the word; prints the misses (misspelling->suggestion
(word), the first 40). A title word is a whole word as Doppel cuts text
(a maximal run of letters and digits) of the letters a-z only: not the
ASCII pieces of "échelle" or "şifrelemesi", nor "cvtepu" of "cvtepu8",
which no index holds. A misspelling that is a word of the site (title or
text: "boom" for bloom, "expire" for expires, the site's own "witdh") is
drawn again: spelling help must leave it alone. An answer whose
suggestion could not be made in time ("suggestion_unavailable", a loaded
machine) is asked again, up to 30 times. Then asks
BASE_URL/api/suggest?q= with the first three letters of each word and
times it. Prints one line of key=value: suggested, completion_p50_ms,
completion_p99_ms, completion_has_word (the word among the completions).

With --pid PID (the server's process id, on this machine) it also prints
completion_cpu_ms: the server's CPU time over the completions, per
completion (the reference requests below not counted), which the machine's
load changes less than the elapsed times, and completion_cpu_p50_ms and
completion_cpu_p99_ms: the server's CPU time during each completion (its
threads' run time, /proc/PID/task/*/schedstat, in nanoseconds), whose 99th
percentile says whether a slow completion was work or waiting for a core.
Beside each completion it asks /api/suggest?q=x (one letter: answered
empty, without reading the index) and prints its elapsed p50 and p99 as
reference_p50_ms and reference_p99_ms: on a loaded machine, what the queue
for a core alone adds. A 429 or 503 (a busy server) is asked again after
its Retry-After, up to 30 times.
"""
import json
import os
import random
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def get(url):
    """The JSON answer of url, asked again after a 429 or 503 (up to 30 times)."""
    for attempt in range(31):
        try:
            with urllib.request.urlopen(url, timeout=120) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            if e.code not in (429, 503) or attempt == 30:
                raise
            time.sleep(float(e.headers.get("Retry-After") or 1))


def suggestion(base, q):
    """The suggestion for q ("" if none), asked again while it could not be made in time (up to 30 times)."""
    for attempt in range(31):
        res = get(base.rstrip("/") + "/api/search?" + urllib.parse.urlencode({"q": q, "facets": 0}))
        if not res.get("suggestion_unavailable") or attempt == 30:
            return res.get("suggestion", "")
        time.sleep(1)


def run_ns(pid):
    """The run time of process pid's threads so far, in nanoseconds."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended
    return total


def percentile(xs, q):
    """The q-th quantile of xs (sorted here), -1 if empty."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))] if xs else -1


def main():
    args = sys.argv[1:]
    pid = None
    if args[0] == "--pid":
        pid = int(args[1])
        args = args[2:]
    base, site = args[:2]
    n = int(args[2]) if len(args) > 2 else 200
    rnd = random.Random(int(args[3]) if len(args) > 3 else 1)
    titles, words = set(), set()
    for line in open(site, encoding="utf-8"):
        page = json.loads(line)
        title = page.get("title", "").lower()
        titles.update(re.findall(r"[^\W_]+", title))  # whole words, as Doppel cuts them
        words.update(re.findall(r"[^\W_]+", title + " " + page.get("text", "").lower()))
    pool = sorted(w for w in titles if len(w) >= 5 and re.fullmatch(r"[a-z]+", w))
    letters = "abcdefghijklmnopqrstuvwxyz"
    asked = ok = 0
    lat, has, words_asked, misses = [], 0, [], []
    for w in rnd.sample(pool, min(n * 3, len(pool))):
        if asked >= n:
            break
        i = rnd.randrange(1, len(w))
        kind = rnd.choice("drit")
        if kind == "d":
            m = w[:i] + w[i + 1:]
        elif kind == "r":
            m = w[:i] + rnd.choice(letters.replace(w[i], "")) + w[i + 1:]
        elif kind == "i":
            m = w[:i] + rnd.choice(letters) + w[i:]
        else:
            if i + 1 >= len(w) or w[i] == w[i + 1]:
                continue
            m = w[:i] + w[i + 1] + w[i] + w[i + 2:]
        if m in words or m == w:
            continue
        asked += 1
        got = suggestion(base, m)
        ok += got == w
        if got != w:
            misses.append(f"{m}->{got or '-'} ({w})")
        words_asked.append(w)
    runs, ref = [], []
    for w in words_asked:
        t = time.perf_counter()
        get(base.rstrip("/") + "/api/suggest?q=x")
        ref.append(time.perf_counter() - t)
        r, t = run_ns(pid) if pid else 0, time.perf_counter()
        comp = get(base.rstrip("/") + "/api/suggest?" + urllib.parse.urlencode({"q": w[:3]}))
        lat.append(time.perf_counter() - t)
        if pid:
            runs.append((run_ns(pid) - r) / 1e9)
        has += any(c["text"] == w for c in comp.get("completions", []))
    cpu_ms = sum(runs) * 1000 / max(len(runs), 1) if pid else -1
    p = lambda xs, q: percentile(xs, q) * 1000 if xs else -1
    out = (f"asked={asked} suggested={ok / max(asked, 1):.3f} completion_p50_ms={p(lat, 0.5):.1f} "
           f"completion_p99_ms={p(lat, 0.99):.1f} completion_cpu_ms={cpu_ms:.2f} ")
    if pid:
        out += f"completion_cpu_p50_ms={p(runs, 0.5):.2f} completion_cpu_p99_ms={p(runs, 0.99):.2f} "
    out += (f"reference_p50_ms={p(ref, 0.5):.1f} reference_p99_ms={p(ref, 0.99):.1f} "
            f"completion_has_word={has / max(asked, 1):.3f} load={os.getloadavg()[0]:.1f}")
    print(out)
    print("misses: " + "; ".join(misses[:40]))


if __name__ == "__main__":
    main()

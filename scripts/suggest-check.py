#!/usr/bin/env python3
"""Asks a running Doppel search server for misspelled title words and for
completions, and scores the answers.

usage: suggest-check.py BASE_URL SITE.jsonl [N] [SEED]

Draws N words (default 200, seed 1) of five letters or more from the
titles of SITE.jsonl, misspells each by one edit (a letter deleted,
replaced, inserted or two swapped, never the first; the misspelling is
no title word itself), asks BASE_URL/api/search?q=MISSPELLING, and counts
the answers whose "suggestion" is the word. Then asks
BASE_URL/api/suggest?q= with the first three letters of each word and
times it. Prints one line of key=value: suggested, completion_p50_ms,
completion_p99_ms, completion_has_word (the word among the completions).
"""
import json
import random
import re
import sys
import time
import urllib.parse
import urllib.request


def main():
    base, site = sys.argv[1:3]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    rnd = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    words = set()
    for line in open(site):
        for w in re.findall(r"[A-Za-z]+", json.loads(line).get("title", "")):
            words.add(w.lower())
    pool = sorted(w for w in words if len(w) >= 5)
    letters = "abcdefghijklmnopqrstuvwxyz"
    asked = ok = 0
    lat, has = [], 0
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
        res = json.load(urllib.request.urlopen(base.rstrip("/") + "/api/search?" + urllib.parse.urlencode({"q": m}), timeout=10))
        ok += res.get("suggestion", "") == w
        t = time.perf_counter()
        comp = json.load(urllib.request.urlopen(base.rstrip("/") + "/api/suggest?" + urllib.parse.urlencode({"q": w[:3]}), timeout=10))
        lat.append(time.perf_counter() - t)
        has += any(c["text"] == w for c in comp.get("completions", []))
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(len(lat) * q))] * 1000 if lat else -1
    print(f"asked={asked} suggested={ok / max(asked, 1):.3f} completion_p50_ms={p(0.5):.1f} "
          f"completion_p99_ms={p(0.99):.1f} completion_has_word={has / max(asked, 1):.3f}")


if __name__ == "__main__":
    main()

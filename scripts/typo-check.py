#!/usr/bin/env python3
"""Asks a running Doppel search server for real-life misspellings and scores
its "Did you mean" suggestions.

usage: typo-check.py BASE_URL SITE.jsonl DICTIONARY [N] [SEED]

DICTIONARY is a list of misspellings people make, one "typo->word" per
line: codespell's (Debian package codespell:
/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt, 37k
pairs collected from real code and prose), not made for Doppel. Keeps the
pairs whose word is a single word of four letters or more that the site's
pages hold (title or text of SITE.jsonl, the kit's format) and whose typo
they do not hold; draws N of them (default 300, seed 1), asks
BASE_URL/api/search?q=TYPO and counts the answers whose "suggestion" is the
word, by Damerau edit distance between typo and word. Then asks N correctly
spelled words of the site, each alone, and counts those that got a
suggestion (there should be none). Prints key=value lines.
"""
import json
import random
import re
import sys
import urllib.parse
import urllib.request


def damerau(a, b):
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def ask(base, q):
    url = base.rstrip("/") + "/api/search?" + urllib.parse.urlencode({"q": q, "facets": 0})
    return json.load(urllib.request.urlopen(url, timeout=30)).get("suggestion", "")


def main():
    base, site, dictionary = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    rnd = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    words = {}
    for line in open(site):
        page = json.loads(line)
        for w in re.findall(r"[a-z]+", (page.get("title", "") + " " + page.get("text", "")).lower()):
            words[w] = words.get(w, 0) + 1
    pairs = []
    for line in open(dictionary, encoding="utf-8"):
        typo, _, fixes = line.strip().partition("->")
        fix = fixes.split(",")[0].strip()
        if "," in fixes or not re.fullmatch(r"[a-z]{4,}", fix) or not re.fullmatch(r"[a-z]+", typo):
            continue  # several candidate words: the list does not know which
        if fix in words and typo not in words:
            pairs.append((typo, fix))
    print(f"pairs_usable={len(pairs)} (of the dictionary's, word on the site, typo not)")
    sample = rnd.sample(pairs, min(n, len(pairs)))
    by, misses = {}, []
    for typo, fix in sample:
        k = min(damerau(typo, fix), 3)
        asked, ok = by.get(k, (0, 0))
        got = ask(base, typo)
        by[k] = (asked + 1, ok + (got == fix))
        if got != fix:
            misses.append(f"{typo}->{got or '-'} (want {fix}, {words[fix]} pages' words)")
    for k in sorted(by):
        asked, ok = by[k]
        label = f"{k}" if k < 3 else "3+"
        print(f"edits={label} asked={asked} corrected={ok / asked:.3f}")
    asked = sum(a for a, _ in by.values())
    print(f"all asked={asked} corrected={sum(o for _, o in by.values()) / max(asked, 1):.3f}")
    print("misses: " + "; ".join(misses[:40]))
    common = sorted(w for w, c in words.items() if c >= 3 and len(w) >= 4)
    clean = rnd.sample(common, min(n, len(common)))
    false = [w for w in clean if ask(base, w)]
    print(f"correct_words={len(clean)} no_suggestion={1 - len(false) / max(len(clean), 1):.3f} false={false[:10]}")


if __name__ == "__main__":
    main()

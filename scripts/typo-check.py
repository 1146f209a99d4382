#!/usr/bin/env python3
"""Asks a running Doppel search server for real-life misspellings and scores
its "Did you mean" suggestions.

usage: typo-check.py [--lang LANGS] [--edits K] [--disjoint] BASE_URL SITE.jsonl DICTIONARY|generated [N] [SEED]
       typo-check.py [--lang LANGS] [--edits K] [--disjoint] --in-process DATA_DIR SITE.jsonl DICTIONARY|generated [N] [SEED]

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
suggestion (there should be none; a word counts as the site's only where it
stands whole, not as the letters of an identifier). Prints key=value lines.

With "generated" instead of a dictionary, the misspellings are made from
the site's distinct title words (whole words, as Doppel cuts text into
maximal runs of letters and digits, of the letters a-z only: not "avx"
of "avx512", which no index holds) as ranking's
TestSpellingOnDemo makes them from the demo's: one slip per edit (a letter
left out, a keyboard neighbour of a letter added after it, a letter
replaced by a keyboard neighbour, two neighbouring letters swapped), one
slip on words of four letters or more and two on words of six or more, a
misspelling that is a word of the site skipped; N of each (seeded), then
the N correctly spelled words as above.

With --in-process DATA_DIR instead of a server, each word is asked of
ranking.Searcher.Suggest in a process of its own over the crawl DATA_DIR
(scripts/spellrun, go run from the repository this script is in, with a
5-minute deadline; $SPELLRUN names a build of it to run instead): on a machine too loaded for the server's 2 s limit.
SEED may name several seeds ("1-5", "1,3"): the site is read once, each
seed's figures are printed as one run's, then pooled.
It also prints the CPU time of one suggestion (mean, median, 99th
percentile), which the load changes less than its elapsed time.

--lang LANGS asks as a user whose browser sends "Accept-Language: LANGS"
(spellrun's -lang in process): codespell's typos are English, so "en" is
what their writers' browsers would say. --edits K draws the N pairs among
those K edits from their word only (3: three or more). --disjoint draws
seed S's pairs as the S-th N of one fixed shuffle (seed 0) of the usable
pairs, so that seeds 1, 2, ... never ask the same pair twice and their
figures can be pooled. Each figure is printed with its count and a 95 %
Wilson score interval.
"""
import math
import os
import subprocess
import json
import random
import re
import sys
import time
import urllib.error
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


QWERTY = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm")


def key(c):
    for r, line in enumerate(QWERTY):
        if c in line:
            return r, line.index(c)
    return None


def neighbours(a, b):
    ka, kb = key(a), key(b)
    if ka is None or kb is None or a == b:
        return False
    dr, dc = ka[0] - kb[0], ka[1] - kb[1]
    if dr == 0:
        return abs(dc) == 1
    if dr == 1:
        return dc in (0, -1)
    if dr == -1:
        return dc in (0, 1)
    return False


def misspell(w, rnd):
    """One slip, as ranking's misspell makes it."""
    i = rnd.randrange(len(w))

    def near(c):
        ns = [k for line in QWERTY for k in line if k >= "a" and neighbours(c, k)]
        return rnd.choice(ns) if ns else c
    kind = rnd.randrange(4)
    if kind == 0:
        return w[:i] + w[i + 1:]
    if kind == 1:
        return w[:i + 1] + near(w[i]) + w[i + 1:]
    if kind == 2:
        return w[:i] + near(w[i]) + w[i + 1:]
    if i == len(w) - 1:
        i -= 1
    return w[:i] + w[i + 1] + w[i] + w[i + 2:]


def generated(site, words, n, rnd):
    """(typo, word, slips) triples: n of one slip, n of two."""
    titles = set()
    for line in open(site, encoding="utf-8"):
        titles.update(re.findall(r"[^\W_]+", json.loads(line).get("title", "").lower()))  # whole words, as Doppel cuts them
    pool = sorted(w for w in titles if re.fullmatch(r"[a-z]+", w))  # not the ASCII parts of "général", nor "avx" of "avx512"
    out = []
    for slips, shortest in ((1, 4), (2, 6)):
        cands = [w for w in pool if len(w) >= shortest]
        got = 0
        for w in rnd.sample(cands, len(cands)):
            typo = w
            for _ in range(slips):
                typo = misspell(typo, rnd)
            if typo in words or typo == w:
                continue
            out.append((typo, w, slips))
            got += 1
            if got >= n:
                break
    return out


UNAVAILABLE = []  # queries whose suggestion could not be made, however often asked


CPU_MS = []  # in process: the CPU time of each suggestion
SPELLRUN = {}  # in process: the spellrun process, by data directory


def ask_in_process(data, q):
    """The suggestion for q from scripts/spellrun over the crawl data."""
    p = SPELLRUN.get(data)
    if p is None:
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        cmd = [os.environ["SPELLRUN"]] if os.environ.get("SPELLRUN") else ["go", "run", "./scripts/spellrun"]
        if OPTS["lang"]:
            cmd += ["-lang", OPTS["lang"]]
        p = subprocess.Popen(cmd + [data], cwd=repo, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        SPELLRUN[data] = p
    p.stdin.write(q.replace("\n", " ") + "\n")
    p.stdin.flush()
    line = p.stdout.readline()
    if not line:
        raise RuntimeError(f"spellrun stopped at {q!r}")
    got, cpu_us, _ = line.rstrip("\n").split("\t")
    CPU_MS.append(int(cpu_us) / 1000)
    return got


def ask(base, q):
    """The suggestion for q; a 429 or 503 (a busy server) is asked again after its Retry-After, up to 30 times (a loaded
    machine: the server's searches stop at 2 s), as are a dropped connection and an answer whose suggestion could not be
    made in time ("suggestion_unavailable")."""
    if base.startswith("in-process:"):
        return ask_in_process(base[len("in-process:"):], q)
    url = base.rstrip("/") + "/api/search?" + urllib.parse.urlencode({"q": q, "facets": 0})
    headers = {"Accept-Language": OPTS["lang"]} if OPTS["lang"] else {}
    for attempt in range(31):
        try:
            res = json.load(urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=120))
            if res.get("suggestion_unavailable") and attempt < 30:
                time.sleep(1)
                continue
            if res.get("suggestion_unavailable"):
                UNAVAILABLE.append(q)
            return res.get("suggestion", "")
        except (urllib.error.HTTPError, ConnectionError) as e:
            if isinstance(e, urllib.error.HTTPError) and e.code not in (429, 503) or attempt == 30:
                raise
            time.sleep(float(getattr(e, "headers", None) and e.headers.get("Retry-After") or 1))


OPTS = {"lang": "", "edits": None, "disjoint": False}  # the command line's options


def wilson(ok, n, z=1.96):
    """The 95 % Wilson score interval of ok successes in n trials."""
    if n == 0:
        return 0.0, 1.0
    p = ok / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


def figure(ok, n):
    """ok of n as printed: the share, the counts and the interval."""
    lo, hi = wilson(ok, n)
    return f"{ok / max(n, 1):.3f} ({ok} of {n}, 95% CI {lo:.3f}-{hi:.3f})"


def draw(pairs, n, seed, rnd):
    """N pairs: by the seed, or the seed-th N of one fixed shuffle (--disjoint)."""
    if OPTS["edits"] is not None:
        pairs = [p for p in pairs if min(damerau(*p), 3) == OPTS["edits"]]
    if not OPTS["disjoint"]:
        return rnd.sample(pairs, min(n, len(pairs)))
    order = random.Random(0).sample(pairs, len(pairs))
    return order[(seed - 1) * n:seed * n]


def main():
    args = sys.argv[1:]
    while args and args[0] in ("--lang", "--edits", "--disjoint"):
        if args[0] == "--disjoint":
            OPTS["disjoint"], args = True, args[1:]
            continue
        OPTS[args[0][2:]] = args[1] if args[0] == "--lang" else int(args[1])
        args = args[2:]
    if args[0] == "--in-process":
        args = ["in-process:" + args[1]] + args[2:]
    base, site, dictionary = args[:3]
    n = int(args[3]) if len(args) > 3 else 300
    seeds = parse_seeds(args[4] if len(args) > 4 else "1")
    seed = seeds[0]
    rnd = random.Random(seed)
    words, whole = {}, {}
    for line in open(site):
        page = json.loads(line)
        text = (page.get("title", "") + " " + page.get("text", "")).lower()
        for w in re.findall(r"[a-z]+", text):
            words[w] = words.get(w, 0) + 1
        for w in re.findall(r"[^\W_]+", text):  # whole words: not "ddcca" of the identifier "2ddcca3"
            if re.fullmatch(r"[a-z]+", w):
                whole[w] = whole.get(w, 0) + 1
    if dictionary == "generated":
        by, misses = {}, []
        for typo, fix, slips in generated(site, words, n, rnd):
            asked, ok = by.get(slips, (0, 0))
            got = ask(base, typo)
            by[slips] = (asked + 1, ok + (got == fix))
            if got != fix:
                misses.append(f"{typo}->{got or '-'} (want {fix})")
        for k in sorted(by):
            print(f"generated slips={k} asked={by[k][0]} corrected={figure(by[k][1], by[k][0])}")
        print("misses: " + "; ".join(misses[:40]))
        correct_words(base, whole, n, rnd)
        return
    pairs = []
    for line in open(dictionary, encoding="utf-8"):
        typo, _, fixes = line.strip().partition("->")
        fix = fixes.split(",")[0].strip()
        if "," in fixes or not re.fullmatch(r"[a-z]{4,}", fix) or not re.fullmatch(r"[a-z]+", typo):
            continue  # several candidate words: the list does not know which
        if fix in words and typo not in words:
            pairs.append((typo, fix))
    print(f"pairs_usable={len(pairs)} (of the dictionary's, word on the site, typo not)")
    pooled, clean = {}, [0, 0]
    for seed in seeds:
        by = real_typos(base, pairs, words, whole, n, seed)
        for k, (asked, ok) in by.items():
            a, o = pooled.get(k, (0, 0))
            pooled[k] = (a + asked, o + ok)
        clean = [c + d for c, d in zip(clean, correct_words(base, whole, n, random.Random(seed), seed))]
    if len(seeds) > 1:
        for k in sorted(pooled):
            label = f"{k}" if k < 3 else "3+"
            print(f"pooled seeds={args[4]} edits={label} asked={pooled[k][0]} corrected={figure(pooled[k][1], pooled[k][0])}")
        print(f"pooled seeds={args[4]} correct_words={clean[0]} no_suggestion={figure(clean[1], clean[0])}")


def real_typos(base, pairs, words, whole, n, seed):
    """Asks seed's N pairs and prints what was corrected, by edits."""
    rnd = random.Random(seed)
    sample = draw(pairs, n, seed, rnd)
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
        print(f"seed={seed} edits={label} asked={asked} corrected={figure(ok, asked)}")
    asked = sum(a for a, _ in by.values())
    print(f"seed={seed} all asked={asked} corrected={figure(sum(o for _, o in by.values()), asked)}")
    print(f"seed={seed} misses: " + "; ".join(misses[:40]))
    return by


def parse_seeds(arg):
    """The seeds of SEED: "3", "1-5" or "1,2,4"."""
    out = []
    for part in arg.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def correct_words(base, words, n, rnd, seed=None):
    """Asks N correctly spelled words; returns how many were asked and got no suggestion."""
    common = sorted(w for w, c in words.items() if c >= 3 and len(w) >= 4)
    clean = rnd.sample(common, min(n, len(common)))
    false = [w for w in clean if ask(base, w)]
    tag = f"seed={seed} " if seed is not None else ""
    print(f"{tag}correct_words={len(clean)} no_suggestion={figure(len(clean) - len(false), len(clean))} false={false[:10]}")
    print(f"suggestion_unavailable={len(UNAVAILABLE)} {UNAVAILABLE[:10]}")
    if CPU_MS:
        cpu = sorted(CPU_MS)
        print(f"suggest_cpu_ms mean={sum(cpu) / len(cpu):.1f} p50={cpu[len(cpu) // 2]:.1f} "
              f"p99={cpu[min(len(cpu) - 1, len(cpu) * 99 // 100)]:.1f} calls={len(cpu)}")
    return len(clean), len(clean) - len(false)


if __name__ == "__main__":
    main()

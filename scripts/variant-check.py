#!/usr/bin/env python3
"""Asks a running Doppel search server for pages by their title with one
word in another form, as people type it (a plural for a singular, another
case ending), and scores the answers per language.

usage: variant-check.py BASE_URL SITE.jsonl SITE.pairs.jsonl -langs "de fr ..." [-prefix /apache/] [-n 100] [-seed 1]

A page of language L is one whose id starts with PREFIX + L + "/" and
whose title is not the title of the same path under PREFIX + "en/" (a
page not translated yet). For each such page (N at most, drawn with
SEED), the first title word w (4 letters or more) that has another form
v — w with one of L's common inflection endings added, removed or
swapped — such that v occurs in at least two other pages of L and not
in the page itself, is replaced by v; the page is found when it, or a
copy (resemblance >= 0.9), is in the top 10. The endings are a short
list per language (below), not a stemmer: the forms are real words of
the site. Prints one line per language: its translated pages, the
queries asked and the share found. To compare two builds, serve each
crawl in turn and run it against each (docs/measurements.md).
"""
import argparse
import json
import random
import re
import urllib.parse
import urllib.request

ENDINGS = {
    "de": ["e", "en", "er", "ern", "n", "s", "es"],
    "fr": ["s", "x", "e", "es"],
    "es": ["s", "es"],
    "pt": ["s", "es"],
    "pt-br": ["s", "es"],
    "it": ["i", "e", "o", "a"],
    "ru": ["а", "ы", "ов", "ам", "ами", "ах", "у", "ом", "е", "и"],
    "tr": ["ler", "lar", "i", "ı", "u", "ü", "e", "a", "in", "ın", "de", "da"],
    "da": ["e", "er", "en", "et", "erne"],
    "en": ["s", "es", "ed", "ing"],
}
WORD = re.compile(r"\w+", re.UNICODE)


def path(u):
    return "/" + u.split("://", 1)[1].split("/", 1)[1] if "://" in u else u


def words(s):
    return [w.lower() for w in WORD.findall(s) if not w.isdigit()]


def forms(w, ends):
    out = []
    for e in ends:
        out.append(w + e)
        if w.endswith(e) and len(w) - len(e) >= 3:
            out.append(w[: -len(e)])
            for e2 in ends:
                if e2 != e:
                    out.append(w[: -len(e)] + e2)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("site")
    ap.add_argument("pairs")
    ap.add_argument("-langs", required=True)
    ap.add_argument("-prefix", default="/")
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("-seed", type=int, default=1)
    a = ap.parse_args()
    docs = [json.loads(l) for l in open(a.site)]
    near = {}
    for line in open(a.pairs):
        d = json.loads(line)
        if d["jaccard"] >= 0.9:
            near.setdefault(d["a"], set()).add(d["b"])
            near.setdefault(d["b"], set()).add(d["a"])
    by_id = {d["id"]: d for d in docs}
    for lang in a.langs.split():
        pre = a.prefix + lang + "/"
        pages = [d for d in docs if d["id"].startswith(pre) and d.get("title")]
        pages = [d for d in pages if by_id.get(a.prefix + "en/" + d["id"][len(pre):], {}).get("title") != d["title"]]
        vocab = {}
        for d in pages:
            for w in set(words(d["text"])):
                vocab[w] = vocab.get(w, 0) + 1
        rnd = random.Random(a.seed)
        rnd.shuffle(pages)
        asked = found = 0
        for d in pages:
            if asked >= a.n:
                break
            own = set(words(d["text"] + " " + d["title"]))
            query = None
            for w in WORD.findall(d["title"]):
                lw = w.lower()
                if len(lw) < 4 or lw.isdigit():
                    continue
                vs = [v for v in forms(lw, ENDINGS.get(lang, ENDINGS["en"])) if vocab.get(v, 0) >= 2 and v not in own]
                if vs:
                    query = d["title"].replace(w, vs[0], 1)
                    break
            if query is None:
                continue
            asked += 1
            url = a.base.rstrip("/") + "/api/search?" + urllib.parse.urlencode({"q": query, "size": 10})
            req = urllib.request.Request(url, headers={"Accept-Language": lang})
            try:
                hits = [path(h["url"]) for h in json.load(urllib.request.urlopen(req, timeout=10)).get("hits", [])]
            except Exception:
                continue
            found += d["id"] in hits or bool(near.get(d["id"], set()) & set(hits))
        print(f"lang={lang} pages={len(pages)} queries={asked} found={found / max(asked, 1):.3f}")


if __name__ == "__main__":
    main()

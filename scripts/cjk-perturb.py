#!/usr/bin/env python3
"""cjk-perturb.py: the kit's perturbation protocol (ndd perturb: bases and
edited variants) for text written without spaces between words, where the
unit of an edit is a character, not a word.

usage: scripts/cjk-perturb.py SITE.jsonl OUT.jsonl [-bases 30] [-seed 1] [-min-chars 400]

Takes as bases the documents of SITE.jsonl (ndd extract's format: id,
text, ...) whose letters are mostly Chinese, Japanese or Korean, at least
-min-chars of them; writes each base (group = its id) and 7 variants:
CJK characters replaced at random with another character of the same
document at rates 0.2 %, 0.5 %, 1 %, 2 % and 4 %, one sentence replaced
by another of the document, one sentence deleted. Score with the kit:
ndd oracle -in OUT.jsonl -t 0.5 (bigram resemblance, the corpus
definition), doppel dedup, ndd score.
"""
import json, random, re, sys, unicodedata

def is_cjk(ch):
    o = ord(ch)
    return (0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or
            0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF or o == 0x3005)

def cjk_share(text):
    letters = [c for c in text if unicodedata.category(c).startswith('L')]
    return (sum(is_cjk(c) for c in letters) / len(letters), len(letters)) if letters else (0, 0)

def sentences(text):
    return [s for s in re.split(r'(?<=[。！？!?\n])', text) if s.strip()]

def main():
    args = sys.argv[1:]
    opts = {'-bases': 30, '-seed': 1, '-min-chars': 400}
    pos = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = int(args.pop(0))
        else:
            pos.append(a)
    src, out = pos
    rng = random.Random(opts['-seed'])
    docs = []
    seen_text = set()
    for line in open(src, encoding='utf-8'):
        d = json.loads(line)
        share, n = cjk_share(d['text'])
        if share >= 0.5 and n >= opts['-min-chars'] and d['text'] not in seen_text:
            seen_text.add(d['text'])
            docs.append(d)
    rng.shuffle(docs)
    bases = docs[:opts['-bases']]
    with open(out, 'w', encoding='utf-8') as w:
        for b in bases:
            text, gid = b['text'], b['id']
            w.write(json.dumps({'id': gid, 'text': text, 'group': gid}, ensure_ascii=False) + '\n')
            chars = [c for c in text if is_cjk(c)]
            for rate in (0.002, 0.005, 0.01, 0.02, 0.04):
                v = ''.join(rng.choice(chars) if is_cjk(c) and rng.random() < rate else c for c in text)
                w.write(json.dumps({'id': f'{gid}~chars{rate}', 'text': v, 'group': gid}, ensure_ascii=False) + '\n')
            ss = sentences(text)
            if len(ss) >= 3:
                i, j = rng.sample(range(len(ss)), 2)
                rep = ss[:i] + [ss[j]] + ss[i + 1:]
                w.write(json.dumps({'id': f'{gid}~replaced', 'text': ''.join(rep), 'group': gid}, ensure_ascii=False) + '\n')
                k = rng.randrange(len(ss))
                w.write(json.dumps({'id': f'{gid}~deleted', 'text': ''.join(ss[:k] + ss[k + 1:]), 'group': gid}, ensure_ascii=False) + '\n')
    print(f'{len(bases)} bases of {len(docs)} CJK documents', file=sys.stderr)

main()

#!/usr/bin/env python3
"""extract-check.py: how closely Doppel's text of each PDF agrees with
poppler's pdftotext, run on the same files in the same run.

usage: scripts/extract-check.py DOPPEL_BINARY FILE.pdf...

For each file: the agreement of the two texts' word multisets (words:
runs of \\w, lowercased; |A ∩ B| / |A ∪ B| counted with multiplicity), the
word counts, and each tool's seconds for the file.
"""
import collections, re, subprocess, sys, time

def words(text):
    return collections.Counter(re.findall(r'\w+', text.lower()))

def timed(cmd):
    t = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, check=True).stdout.decode('utf-8', 'replace')
    return out, time.monotonic() - t

doppel, files = sys.argv[1], sys.argv[2:]
for f in files:
    a, ta = timed([doppel, 'extract', f])
    b, tb = timed(['pdftotext', f, '-'])
    wa, wb = words(a), words(b)
    agree = sum((wa & wb).values()) / max(1, sum((wa | wb).values()))
    print(f'{f}: agreement={agree:.3f} words doppel={sum(wa.values())} pdftotext={sum(wb.values())} '
          f'seconds doppel={ta:.3f} pdftotext={tb:.3f}')

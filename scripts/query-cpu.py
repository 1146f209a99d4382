#!/usr/bin/env python3
"""query-cpu.py: what each pasted title costs a running doppel serve, in CPU time.

usage: scripts/query-cpu.py BASE_URL SERVER_PID SITE.jsonl SITE.pairs.jsonl N SEED [OUT.tsv]

Asks the titles the kit's search-check.py asks (the same draw: N pages whose title names them,
random.Random(SEED)), one at a time, and for each measures the server process's CPU time (the
sum of its threads' /proc/PID/task/*/schedstat, in ns) and the elapsed time. On a machine others
share, the CPU time says what a query costs and compares two binaries asked the same titles in
turn; the elapsed time says how long it waited too. With EXPORT=doppel-export.jsonl in the
environment it also asks the hidden pages' titles and own lines, as search-check.py does with
its export. Prints mean, p50 and p99 of both and the ten dearest queries; OUT.tsv gets one line a
query (cpu ms, elapsed ms, query, kind). PREFIX as in search-check.py.
"""
import json, os, random, sys, time, urllib.parse, urllib.request

def cpu_ns(pid):
    tot = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                tot += int(f.read().split()[0])
        except OSError:
            pass
    return tot

base, pid, site_f, pairs_f = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
n, seed = int(sys.argv[5]), int(sys.argv[6])
out = open(sys.argv[7], "w") if len(sys.argv) > 7 else None
docs = [json.loads(l) for l in open(site_f)]
near = {}
for line in open(pairs_f):
    d = json.loads(line)
    if d["jaccard"] >= 0.9:
        near.setdefault(d["a"], set()).add(d["b"]); near.setdefault(d["b"], set()).add(d["a"])
by_title = {}
for d in docs:
    if d.get("title"):
        by_title.setdefault(d["title"], []).append(d["id"])
prefix = os.environ.get("PREFIX", "")
named = [d for d in docs if d.get("title") and d["id"].startswith(prefix)
         and all(o == d["id"] or o in near.get(d["id"], ()) for o in by_title[d["title"]])]
rnd = random.Random(seed)
qs = rnd.sample(named, min(n, len(named)))
qs = [(d["title"], "title") for d in qs]
if os.environ.get("EXPORT"):  # the hidden pages' titles and own lines, drawn as search-check.py draws them
    exp = [json.loads(l) for l in open(os.environ["EXPORT"])]
    path = lambda u: "/" + u.split("://", 1)[1].split("/", 1)[1] if "://" in u else u
    by_id = {d["id"]: d for d in named}
    hidden = [by_id[path(r["url"])] for r in exp if r.get("status") == "fetched" and not r.get("indexed") and path(r["url"]) in by_id]
    asked = rnd.sample(hidden, min(n, len(hidden)))
    qs += [(d["title"], "hidden") for d in asked]
    text = {d["id"]: d["text"] for d in docs}
    master = {path(r["url"]): path(r.get("master") or r["url"]) for r in exp}
    for d in asked:
        mt = set(l.strip() for l in text.get(master.get(d["id"], ""), "").split("\n"))
        own = [l.strip() for l in d["text"].split("\n") if l.strip() and l.strip() not in mt and len(l.split()) >= 6]
        if own:
            qs.append((" ".join(max(own, key=len).split()[:12]), "diff"))
rows = []
for q, _ in qs[:20]:  # warm
    urllib.request.urlopen(base + "/api/search?" + urllib.parse.urlencode({"q": q, "size": 10}), timeout=30).read()
for q, kind in qs:
    url = base + "/api/search?" + urllib.parse.urlencode({"q": q, "size": 10})
    c0, t0 = cpu_ns(pid), time.perf_counter()
    urllib.request.urlopen(url, timeout=30).read()
    t1, c1 = time.perf_counter(), cpu_ns(pid)
    rows.append(((c1 - c0) / 1e6, (t1 - t0) * 1000, q, kind))
    if out:
        out.write(f"{(c1-c0)/1e6:.2f}\t{(t1-t0)*1000:.2f}\t{q}\t{kind}\n")
cpu = sorted(r[0] for r in rows); el = sorted(r[1] for r in rows)
p = lambda xs, q: xs[min(len(xs) - 1, int(len(xs) * q))]
print(f"queries={len(rows)} cpu_mean={sum(cpu)/len(cpu):.1f} cpu_p50={p(cpu,.5):.1f} cpu_p99={p(cpu,.99):.1f} "
      f"el_p50={p(el,.5):.1f} el_p99={p(el,.99):.1f} load={open('/proc/loadavg').read().split()[0]}")
for r in sorted(rows, reverse=True)[:10]:
    print(f"  cpu {r[0]:7.1f} ms  elapsed {r[1]:7.1f} ms  {r[3]:6s} {r[2]}")

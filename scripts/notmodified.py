#!/usr/bin/env python3
"""notmodified.py LOG [TO]: of the revisits in an `ndd living` request log
(up to TO seconds) that found the page unchanged (the version the crawler
last received), the share answered 304 Not Modified.

A revisit is any answer for a page after its first; it is unchanged when
the page's version is the one of the answer before."""
import json
import sys


def main():
    log = sys.argv[1]
    to = float(sys.argv[2]) if len(sys.argv) > 2 else float("inf")
    last = {}
    unchanged = not_modified = revisits = 0
    with open(log) as f:
        for line in f:
            e = json.loads(line)
            if e["t"] > to or e.get("page", -1) < 0 or e["status"] not in (200, 304):
                continue
            p, v = e["page"], e["version"]
            if p in last:
                revisits += 1
                if last[p] == v:
                    unchanged += 1
                    if e["status"] == 304:
                        not_modified += 1
            last[p] = v
    share = not_modified / unchanged if unchanged else 0
    print(f"revisits={revisits} unchanged={unchanged} answered_304={not_modified} share={share:.3f}")


if __name__ == "__main__":
    main()

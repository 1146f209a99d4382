#!/usr/bin/env bash
# scale-crawl.sh: a crawl at scale, in the same run as the plain
# colly+goquery+bleve reference (../shared/peers crawl-index), then the
# crawl's restart with its detector's snapshot and without it.
#
# usage: scripts/scale-crawl.sh -corpus SYNTH.jsonl -port P [-doppel BIN] [-out DIR]
#   SYNTH.jsonl is an ndd synth corpus (../shared/kit: ndd synth -from
#   SITE.jsonl -n N -lines 30); every document becomes a page of a
#   generated intranet (its first line the title, its lines paragraphs,
#   five links to random pages), listed 100 to an index page, the index
#   pages chained. The site is written under DIR/site and served on
#   127.0.0.1:P. Prints one line per crawl (pages/s, peak RSS) and per
#   restart (seconds to open, pages replayed, peak RSS).
#   NDD=path/to/ndd (default: ndd on PATH, else /tmp/tuning/ndd);
#   PEERS=path/to/peers binary (default: built from ../shared/peers).
set -euo pipefail
corpus="" port="" doppel="" out=${TMPDIR:-/tmp}/doppel-scale-crawl
while [ $# -gt 0 ]; do
	case $1 in
	-corpus) corpus=$2; shift 2 ;;
	-port) port=$2; shift 2 ;;
	-doppel) doppel=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$corpus" ] && [ -n "$port" ] || { echo "usage: $0 -corpus SYNTH.jsonl -port P [...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
if [ -z "$doppel" ]; then
	doppel=$out/doppel
	(cd "$here" && go build -o "$doppel" ./cmd/doppel)
fi
ndd=${NDD:-$(command -v ndd || echo /tmp/tuning/ndd)}
peers=${PEERS:-$out/peers}
if [ ! -x "$peers" ]; then
	[ -d "$here/../shared/peers" ] || { echo "skipped: ../shared/peers (the plain reference) is absent" >&2; exit 0; }
	(cd "$here/../shared/peers" && go build -o "$peers" .)
fi
site=$out/site
if [ ! -f "$site/.from" ] || [ "$(cat "$site/.from")" != "$corpus" ]; then
	rm -rf "$site"
	python3 - "$corpus" "$site" <<'EOF'
import html, json, os, random, sys
corpus, out = sys.argv[1], sys.argv[2]
random.seed(1)
with open(corpus) as f:
    docs = [json.loads(line) for line in f if line.strip()]
n = len(docs)
os.makedirs(out + "/doc"); os.makedirs(out + "/index")
page = ('<!DOCTYPE html><html><head><title>%s</title></head><body><header><a href="/">Intranet</a> '
        '<a href="/index/0.html">All pages</a></header><main>%s</main><footer>Intranet documentation.</footer></body></html>')
for i, d in enumerate(docs):
    lines = d["text"].split("\n")
    title = html.escape(lines[0][:80]) or d["id"]
    body = "<h1>%s</h1>" % title + "".join("<p>%s</p>" % html.escape(l) for l in lines[1:])
    body += "<p>See also: " + " ".join('<a href="/doc/%d.html">page %d</a>' % (j, j) for j in random.sample(range(n), 5)) + "</p>"
    with open("%s/doc/%d.html" % (out, i), "w") as f:
        f.write(page % (title, body))
per = 100
for k in range((n + per - 1) // per):
    body = "<ul>" + "".join('<li><a href="/doc/%d.html">document %d</a></li>' % (j, j) for j in range(k * per, min((k + 1) * per, n))) + "</ul>"
    if (k + 1) * per < n:
        body += '<a href="/index/%d.html">Next</a>' % (k + 1)
    with open("%s/index/%d.html" % (out, k), "w") as f:
        f.write(page % ("All pages %d" % k, body))
with open(out + "/index.html", "w") as f:
    f.write(page % ("Intranet", '<a href="/index/0.html">All pages</a>'))
EOF
	echo "$corpus" >"$site/.from"
fi
pages=$(find "$site" -name '*.html' | wc -l)
"$ndd" serve -dir "$site" -port "$port" >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null' EXIT
sleep 1
url=http://127.0.0.1:$port/
rss() { awk '/Maximum resident/ {printf "%.2f", $6 / 1048576}' "$1"; }
/usr/bin/time -v -o "$out/plain.time" "$peers" crawl-index --site "$url" --max $((2 * pages)) --parallelism 4 >"$out/plain.json" 2>/dev/null
echo "plain reference: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("pages=%s pages_per_s=%s index_mb=%s" % (d["indexed_docs"], d["pages_per_s"], d["index_size_mb"]))' "$out/plain.json") peak_rss_gb=$(rss "$out/plain.time")"
data=$out/crawl
rm -rf "$data"
start=$(date +%s.%N)
/usr/bin/time -v -o "$out/crawl.time" "$doppel" crawl --once --seed "$url" --data "$data" --max-pages $((2 * pages)) --max-depth $((pages / 50 + 100)) --delay 0 --parallelism 4 >"$out/crawl.log" 2>&1
secs=$(python3 -c "import time; print(round(time.time() - $start, 2))")
fetched=$(awk '/^pages fetched:/ {print $3}' "$out/crawl.log")
echo "doppel: pages=$fetched pages_per_s=$(python3 -c "print(round($fetched / $secs, 1))") seconds=$secs index_mb=$(du -sb "$data/index" | python3 -c 'import sys; print(round(int(sys.stdin.read().split()[0]) / 1e6, 2))') peak_rss_gb=$(rss "$out/crawl.time")"
kill $srv 2>/dev/null # the restarts fetch nothing: no revisit is due yet
for how in snapshot replay; do
	rm -rf "$data.copy"
	cp -r "$data" "$data.copy"
	[ $how = replay ] && rm "$data.copy/detector.snap"
	/usr/bin/time -v -o "$out/restart.time" "$doppel" crawl --once --data "$data.copy" >"$out/restart.log" 2>&1 || true
	echo "restart ($how): $(grep '^resumed:' "$out/restart.log" | sed 's/^resumed: *//') peak_rss_gb=$(rss "$out/restart.time")"
done
rm -rf "$data.copy"

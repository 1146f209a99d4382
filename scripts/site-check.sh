#!/usr/bin/env bash
# site-check.sh: crawls a kit site with Doppel and with the plain
# colly+goquery+bleve reference (../shared/peers) in the same run, then
# scores the crawl (crawl-check.py) and its search (search-check.py, with
# the export: hidden_self, hidden_diff), per language section if asked.
#
# usage: scripts/site-check.sh -site DIR -port P [-doppel BIN] [-seeds "1 2 3"] [-langs "en da …" -prefix /apache/] [-out DIR]
#   DIR holds site/, site.jsonl and site.pairs.jsonl (../shared/kit:
#   tuning-site.sh, or ndd site/extract/oracle with a manifest from
#   scripts/sites/); it is served on 127.0.0.1:P, the search on P+10.
#   NDD=path/to/ndd (default: DIR/../tuning/ndd, else ndd on PATH);
#   PEERS=path/to/peers binary (default: built from ../shared/peers).
set -euo pipefail
site="" port="" doppel="" seeds="1 2 3" langs="" prefix="" out=${TMPDIR:-/tmp}/doppel-site-check
while [ $# -gt 0 ]; do
	case $1 in
	-site) site=$2; shift 2 ;;
	-port) port=$2; shift 2 ;;
	-doppel) doppel=$2; shift 2 ;;
	-seeds) seeds=$2; shift 2 ;;
	-langs) langs=$2; shift 2 ;;
	-prefix) prefix=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$site" ] && [ -n "$port" ] || { echo "usage: $0 -site DIR -port P [...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
kit=$here/../shared/kit
mkdir -p "$out"
if [ -z "$doppel" ]; then
	doppel=$out/doppel
	(cd "$here" && go build -o "$doppel" ./cmd/doppel)
fi
ndd=${NDD:-$(command -v ndd || echo /tmp/tuning/ndd)}
peers=${PEERS:-$out/peers}
[ -x "$peers" ] || (cd "$here/../shared/peers" && go build -o "$peers" .)
"$ndd" serve -dir "$site/site" -port "$port" >/dev/null 2>&1 &
srv=$!
trap 'kill $srv ${search:-} 2>/dev/null' EXIT
sleep 1
url=http://127.0.0.1:$port/
echo "plain reference: $("$peers" crawl-index --site "$url" --max 100000 --parallelism 4 2>/dev/null |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print("pages_per_s=%s index_mb=%s docs=%s" % (d["pages_per_s"], d["index_size_mb"], d["indexed_docs"]))')"
data=$out/crawl
rm -rf "$data"
start=$(date +%s.%N)
"$doppel" crawl --once --seed "$url" --data "$data" --max-pages 100000 --max-depth 100 --delay 0 --parallelism 4 >"$out/crawl.log" 2>&1
secs=$(python3 -c "import time; print(round(time.time() - $start, 2))")
"$doppel" export --data "$data" >"$out/export.jsonl"
echo "doppel: seconds=$secs index_mb=$(du -sb "$data/index" | python3 -c 'import sys; print(round(int(sys.stdin.read().split()[0]) / 1e6, 2))')"
python3 "$kit/scripts/crawl-check.py" "$site/site.jsonl" "$site/site.pairs.jsonl" "$out/export.jsonl" "$secs"
"$doppel" serve --data "$data" --addr 127.0.0.1:$((port + 10)) >"$out/serve.log" 2>&1 &
search=$!
sleep 2
for s in $seeds; do
	python3 "$kit/scripts/search-check.py" http://127.0.0.1:$((port + 10)) "$site/site.jsonl" "$site/site.pairs.jsonl" 300 "$s" "$out/export.jsonl"
done
for l in $langs; do
	printf '%-6s ' "$l"
	PREFIX=$prefix$l/ ACCEPT_LANGUAGE=$l python3 "$kit/scripts/search-check.py" http://127.0.0.1:$((port + 10)) "$site/site.jsonl" "$site/site.pairs.jsonl" 300 1
done

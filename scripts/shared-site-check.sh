#!/usr/bin/env bash
# shared-site-check.sh: crawls a kit site with WORKERS doppel worker
# processes sharing a Redis Cluster of three masters (started here on
# loopback, removed at exit) while doppel serve --redis --data keeps the
# records and index, then scores the crawl (crawl-check.py) and its search
# (search-check.py, with the export) as scripts/site-check.sh does for a
# one-machine crawl.
#
# usage: scripts/shared-site-check.sh -site DIR -port P [-workers 2] [-redis-port 7301] [-seeds "1 2 3"] [-out DIR]
#   DIR holds site/, site.jsonl and site.pairs.jsonl (../shared/kit);
#   it is served on 127.0.0.1:P, the search on P+10, its status on P+11.
#   NDD=path/to/ndd (default: ndd on PATH, else /tmp/tuning/ndd).
set -euo pipefail
site="" port="" workers=2 rport=7301 seeds="1 2 3" out=${TMPDIR:-/tmp}/doppel-shared-site-check
while [ $# -gt 0 ]; do
	case $1 in
	-site) site=$2; shift 2 ;;
	-port) port=$2; shift 2 ;;
	-workers) workers=$2; shift 2 ;;
	-redis-port) rport=$2; shift 2 ;;
	-seeds) seeds=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$site" ] && [ -n "$port" ] || { echo "usage: $0 -site DIR -port P [...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
kit=$here/../shared/kit
rm -rf "$out"
mkdir -p "$out"
doppel=$out/doppel
(cd "$here" && go build -o "$doppel" ./cmd/doppel)
ndd=${NDD:-$(command -v ndd || echo /tmp/tuning/ndd)}
pids=()
# shellcheck source=scripts/redis-cluster.sh
source "$here/scripts/redis-cluster.sh"
cleanup() {
	kill "${pids[@]}" 2>/dev/null || true
	redis_cluster_stop "$rport"
}
trap cleanup EXIT
redis_cluster_start "$rport" "$out"
"$ndd" serve -dir "$site/site" -port "$port" >/dev/null 2>&1 &
pids+=($!)
sleep 1
url=http://127.0.0.1:$port/
redis=127.0.0.1:$rport
"$doppel" serve --redis "$redis" --crawl check --data "$out/search" --addr 127.0.0.1:$((port + 10)) --admin-addr 127.0.0.1:$((port + 11)) >"$out/serve.log" 2>&1 &
serve=$!
pids+=($serve)
start=$(date +%s.%N)
wpids=()
for w in $(seq 1 "$workers"); do
	"$doppel" worker --redis "$redis" --crawl check --data "$out/w$w" --id "w$w" --once --seed "$url" \
		--max-pages 100000 --max-depth 100 --delay 0 --parallelism 4 >"$out/w$w.log" 2>&1 &
	wpids+=($!)
	sleep 1 # the first has queued links: a worker facing an empty frontier ends
done
for p in "${wpids[@]}"; do wait "$p"; done
crawled=$(python3 -c "import time; print(round(time.time() - $start, 2))")
fetched=$(cat "$out"/w*.log | sed -n 's/^pages fetched: *\([0-9]*\).*/\1/p' | python3 -c 'import sys; print(sum(int(x) for x in sys.stdin.read().split()))')
# The follower has applied the crawl when it has recorded every page the workers fetched.
until [ "$(curl -s http://127.0.0.1:$((port + 11))/api/stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["documents"])')" = "$fetched" ]; do sleep 0.5; done
secs=$(python3 -c "import time; print(round(time.time() - $start, 2))")
# The log has paused: the follower re-clusters once it has waited a refresh interval (10 s) for an entry.
sleep 25
kill -INT "$serve"
wait "$serve" || true
echo "doppel shared: workers=$workers pages=$fetched crawl_seconds=$crawled followed_seconds=$secs $(grep -h '^pages fetched' "$out"/w*.log | tr -s ' ' | paste -sd';')"
"$doppel" export --data "$out/search" >"$out/export.jsonl"
python3 "$kit/scripts/crawl-check.py" "$site/site.jsonl" "$site/site.pairs.jsonl" "$out/export.jsonl" "$secs"
"$doppel" serve --data "$out/search" --addr 127.0.0.1:$((port + 10)) >"$out/serve2.log" 2>&1 &
pids+=($!)
sleep 2
for s in $seeds; do
	python3 "$kit/scripts/search-check.py" http://127.0.0.1:$((port + 10)) "$site/site.jsonl" "$site/site.pairs.jsonl" 300 "$s" "$out/export.jsonl"
done

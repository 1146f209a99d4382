#!/usr/bin/env bash
# shared-freshness.sh: the adaptive schedule of scripts/freshness-bench.sh
# on a crawl shared by WORKERS doppel worker processes on a Redis Cluster
# of three masters (started here on loopback, removed at exit), with
# doppel serve --redis … --data keeping the records and the revisit
# schedule: the kit's living site at the same request budget (the host's
# delay holds across the workers), scored by ndd freshness.
#
# Each worker runs PAR fetch goroutines (-parallelism, default 2, as
# scripts/freshness-bench.sh's one-machine crawls: a page is processed and
# committed while the next request runs); the host's one request at a
# time, 1/R s apart, holds across them all.
#
# usage: scripts/shared-freshness.sh [-pages N] [-seed S] [-minutes M] [-rate R] [-workers W] [-parallelism PAR] [-out DIR] [-port P] [-redis-port RP]
#   NDD=path/to/ndd (default: ndd on PATH, else /tmp/tuning/ndd)
set -euo pipefail
pages=2000 seed=1 minutes=20 rate=5 workers=2 par=2 out=${TMPDIR:-/tmp}/doppel-shared-freshness port=18310 rport=7321
while [ $# -gt 0 ]; do
	case $1 in
	-pages) pages=$2; shift 2 ;;
	-seed) seed=$2; shift 2 ;;
	-minutes) minutes=$2; shift 2 ;;
	-rate) rate=$2; shift 2 ;;
	-workers) workers=$2; shift 2 ;;
	-parallelism) par=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	-port) port=$2; shift 2 ;;
	-redis-port) rport=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$out"
mkdir -p "$out"
ndd=${NDD:-$(command -v ndd || echo /tmp/tuning/ndd)}
(cd "$here" && go build -o "$out/doppel" ./cmd/doppel)
seconds=$((minutes * 60))
delay=$(awk -v r="$rate" 'BEGIN { printf "%dms", 1000 / r }')
pids=()
# shellcheck source=scripts/redis-cluster.sh
source "$here/scripts/redis-cluster.sh"
cleanup() {
	kill "${pids[@]}" 2>/dev/null || true
	redis_cluster_stop "$rport"
}
trap cleanup EXIT
redis_cluster_start "$rport" "$out"
"$ndd" living -pages "$pages" -seed "$seed" -port "$port" -log "$out/living.log" -no-sitemap >"$out/living.out" 2>&1 &
pids+=($!)
cat >"$out/crawl.json" <<JSON
{"seeds": ["http://127.0.0.1:$port/"], "max_pages": 1000000, "max_depth": 1000,
 "delay": "$delay", "parallelism": $par, "host_parallelism": 1,
 "revisit": {"policy": "adaptive", "budget": $rate, "min_interval": "1m", "max_interval": "24h", "sitemaps": "-1s"}}
JSON
sleep 1
redis=127.0.0.1:$rport
"$out/doppel" serve --redis "$redis" --crawl fresh --data "$out/search" --addr 127.0.0.1:$((port + 10)) >"$out/serve.log" 2>&1 &
pids+=($!)
wpids=()
for w in $(seq 1 "$workers"); do
	timeout -s INT "$seconds" "$out/doppel" worker --redis "$redis" --crawl fresh --data "$out/w$w" --id "w$w" --config "$out/crawl.json" \
		>"$out/w$w.log" 2>"$out/w$w.progress" &
	wpids+=($!)
	[ "$w" = 1 ] && sleep 2 # the first has queued links
done
wait "${wpids[@]}" || true
printf '%-18s %s\n' schedule "result (ndd freshness over the whole run; then its second half)"
printf '%-18s %s\n%-18s %s\n' "adaptive shared" "$("$ndd" freshness -log "$out/living.log" -from 0 -to "$seconds")" \
	"" "$("$ndd" freshness -log "$out/living.log" -from $((seconds / 2)) -to "$seconds")"
cat "$out"/w*.log

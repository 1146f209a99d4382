#!/usr/bin/env bash
# freshness-bench.sh: Doppel's recrawl schedule against uniform revisits and
# Nutch's AdaptiveFetchSchedule, side by side, each crawling its own copy
# of the kit's living site (../shared/kit: ndd living, ndd freshness) at
# the same request budget, for the same time. A fourth crawl runs Doppel's
# schedule on a copy of the site that serves a sitemap with lastmod.
#
# Each crawl makes one request at a time to its site, 1/R s apart at the
# least (host_parallelism 1, delay 1000/R ms), with two fetch goroutines
# (parallelism 2): a page is processed and committed while the next
# request runs, since the site's slot covers the request only, so the
# crawl can spend the whole budget of R requests/s.
#
# usage: scripts/freshness-bench.sh [-pages N] [-min-mean D] [-max-mean D] [-seed S] [-minutes M] [-rate R] [-out DIR] [-port P] [-grace G] [-runs LIST]
#   -pages, -min-mean, -max-mean: ndd living's (a living site not handed
#   out: another size, other change rates); give ndd optimum the same
#   (scripts/freshness-table.py's LIVING arguments)
#   the four sites listen on 127.0.0.1 ports P..P+3 (default 18300)
#   -runs LIST: the crawls to run, comma-separated, of adaptive, uniform,
#   nutch and adaptive+sitemap (default all four); each keeps its port
#   -grace G: the crawls go on G more minutes (default 0), which the scores
#   of the first M minutes do not see; scripts/deletions.py then also says
#   which of the deletions in the M minutes were seen by the end.
#   NDD=path/to/ndd (default: ndd on PATH, else ../shared/kit built into the out dir)
set -euo pipefail
pages=2000 minmean=1m maxmean=4h seed=1 minutes=20 rate=5 out=${TMPDIR:-/tmp}/doppel-freshness port=18300 grace=0 runs=adaptive,uniform,nutch,adaptive+sitemap
while [ $# -gt 0 ]; do
	case $1 in
	-pages) pages=$2; shift 2 ;;
	-min-mean) minmean=$2; shift 2 ;;
	-max-mean) maxmean=$2; shift 2 ;;
	-seed) seed=$2; shift 2 ;;
	-minutes) minutes=$2; shift 2 ;;
	-rate) rate=$2; shift 2 ;;
	-out) out=$2; shift 2 ;;
	-port) port=$2; shift 2 ;;
	-grace) grace=$2; shift 2 ;;
	-runs) runs=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
ndd=${NDD:-$(command -v ndd || true)}
if [ -z "$ndd" ]; then
	kit=$here/../shared/kit
	[ -d "$kit" ] || { echo "no ndd on PATH and no $kit: set NDD" >&2; exit 1; }
	(cd "$kit" && go build -o "$out/ndd" ./cmd/ndd)
	ndd=$out/ndd
fi
(cd "$here" && go build -o "$out/doppel" ./cmd/doppel)

seconds=$((minutes * 60))
delay=$(awk -v r="$rate" 'BEGIN { printf "%dms", 1000 / r }')
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; }
trap cleanup EXIT

all=(adaptive uniform nutch adaptive+sitemap)
run=()
for name in "${all[@]}"; do
	if [[ ,$runs, == *,$name,* ]]; then run+=("$name"); fi
done
[ ${#run[@]} -gt 0 ] || { echo "-runs $runs: none of ${all[*]}" >&2; exit 2; }
portOf() { for i in "${!all[@]}"; do if [ "${all[$i]}" = "$1" ]; then echo $((port + i)); fi; done; }
for i in "${!run[@]}"; do
	name=${run[$i]}
	policy=${name%%+*}
	p=$(portOf "$name")
	flags=(-no-sitemap)
	sitemaps='"-1s"'
	if [[ $name == *sitemap ]]; then
		flags=()
		sitemaps='"1m"'
	fi
	rm -rf "$out/$name"
	mkdir -p "$out/$name"
	"$ndd" living -pages "$pages" -min-mean "$minmean" -max-mean "$maxmean" -seed "$seed" -port "$p" -log "$out/$name/living.log" "${flags[@]}" >"$out/$name/living.out" 2>&1 &
	pids+=($!)
	cat >"$out/$name/crawl.json" <<JSON
{"seeds": ["http://127.0.0.1:$p/"], "max_pages": 1000000, "max_depth": 1000,
 "delay": "$delay", "parallelism": 2, "host_parallelism": 1,
 "revisit": {"policy": "$policy", "budget": $rate, "min_interval": "1m", "max_interval": "24h", "sitemaps": $sitemaps}}
JSON
done
sleep 1
for i in "${!run[@]}"; do
	name=${run[$i]}
	timeout -s INT "$((seconds + grace * 60))" "$out/doppel" crawl --data "$out/$name/data" --config "$out/$name/crawl.json" \
		>"$out/$name/summary.txt" 2>"$out/$name/progress.log" &
	pids+=($!)
done
wait "${pids[@]:${#run[@]}}" || true

printf '%-18s %s\n' schedule "result (ndd freshness over the whole run; then its second half)"
for name in "${run[@]}"; do
	whole=$("$ndd" freshness -log "$out/$name/living.log" -from 0 -to "$seconds")
	half=$("$ndd" freshness -log "$out/$name/living.log" -from $((seconds / 2)) -to "$seconds")
	printf '%-18s %s\n%-18s %s\n' "$name" "$whole" "" "$half"
done
if command -v python3 >/dev/null; then
	printf '\n%-18s %s\n' schedule "deletions in the first $minutes minutes: seen by then; by the end ($((minutes + grace)) minutes)"
	for name in "${run[@]}"; do
		printf '%-18s %s\n%-18s %s\n' "$name" "$(python3 "$here/scripts/deletions.py" "$out/$name/living.log" "$seconds")" \
			"" "$(python3 "$here/scripts/deletions.py" "$out/$name/living.log" "$seconds" $((seconds + grace * 60)))"
	done
fi

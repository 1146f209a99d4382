#!/usr/bin/env bash
# peers-compare.sh: doppel dedup beside complete near-duplicate pipelines
# built from the peer Go libraries (bench/peers: ekzhu/minhash-lsh with
# dgryski/go-minhash or its own Minhash; mfonda/simhash with the
# go-dedup/simhash/sho BK-tree) and the tokenize-and-hash floor, in one
# run on one corpus, one system after the other; every pair file is
# scored against the exact oracle with the kit's ndd score.
#
# usage: scripts/peers-compare.sh CORPUS.jsonl ORACLE_PAIRS.jsonl [OUTDIR]
#   CORPUS: {"id", "text"} lines; ORACLE_PAIRS: ndd oracle's output for it
#   OUTDIR (default ${TMPDIR:-/tmp}/doppel-peers): binaries, pair files,
#   /usr/bin/time -v output, the pipelines' JSON reports, summary.md
# environment:
#   NDD=path/to/ndd (default /tmp/tuning/ndd, else ndd on PATH)
#   DEF=jaccard T=0.9: the truth ndd score counts (doppel dedup's default
#   similarity is resemblance, i.e. jaccard, at 0.9)
#   DOPPEL_FLAGS: more flags for doppel dedup (default: none, the defaults)
#   REPS=1: rounds of every system, one system after the other in each
#   round; wall (so docs/s, MB/s) is the median over the rounds, peak RSS
#   the largest
#   REPORT_ONLY=1: run nothing, print the table of the runs in OUTDIR
#   again (REPS as they were run)
#
# One line per system: docs/s and MB/s of text over the whole process
# (reading the corpus and writing the pairs included; wall time and peak
# RSS from /usr/bin/time -v), pairs, precision, recall, F1, and the
# 1-minute load average when the system started. The floor lines are
# tokenize + hash only, text already in memory (median of 3), on 1
# goroutine (per core) and on 2. A pipeline that finds more pairs
# than peers -max-pairs (5M) writes no pair file (ndd score would hold
# them all in memory); the simhash pipelines then give their own exact
# precision and recall (peers -truth; marked †), which the script checks
# against ndd score whenever a pair file exists. Without ndd the script
# stops with a message; when bench/peers does not build (its modules
# neither in the module cache nor on the proxy), doppel alone is
# measured.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	sed -n '2,/^set -e/p' "$0" | sed -e '/^set -e/d' -e 's/^# \{0,1\}//' >&2
	exit 2
fi
corpus=$(realpath "$1") oracle=$(realpath "$2")
out=${3:-${TMPDIR:-/tmp}/doppel-peers}
def=${DEF:-jaccard} t=${T:-0.9}
here=$(cd "$(dirname "$0")/.." && pwd)
ndd=${NDD:-/tmp/tuning/ndd}
if [ ! -x "$ndd" ]; then ndd=$(command -v ndd || true); fi
if [ -z "$ndd" ]; then
	echo "peers-compare: no ndd (set NDD=path/to/ndd; ../shared/kit: go build -o ndd ./cmd/ndd): skipped" >&2
	exit 0
fi
mkdir -p "$out"
out=$(realpath "$out")

peers=""
if [ -n "${REPORT_ONLY:-}" ]; then
	[ -e "$out/peers" ] && peers="$out/peers"
else
	echo "== building doppel and bench/peers into $out" >&2
	(cd "$here" && go build -o "$out/doppel" ./cmd/doppel)
fi
if [ -n "${REPORT_ONLY:-}" ]; then
	:
elif (cd "$here/bench/peers" && go build -o "$out/peers" .) 2>"$out/peers-build.log"; then
	peers="$out/peers"
else
	echo "peers-compare: bench/peers does not build (its modules are not in the module cache and the proxy did not give them?), peers skipped:" >&2
	tail -5 "$out/peers-build.log" >&2
fi

reps=${REPS:-1}

# measure NAME CMD...: runs CMD under /usr/bin/time -v, round $round:
# stdout to NAME.$round.report.json, stderr to NAME.stderr, wall seconds
# and peak RSS to NAME.$round.time, the 1-minute load average at its
# start to NAME.$round.load (other work on the machine slows every
# figure).
measure() {
	local name=$1 base="$out/$1.$round"
	shift
	echo "== $name (round $round of $reps): $*" >&2
	cut -d' ' -f1 /proc/loadavg 2>/dev/null >"$base.load" || echo 0 >"$base.load"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v -o "$base.time" "$@" >"$base.report.json" 2>"$out/$name.stderr"
	else
		local s e
		s=$(date +%s.%N)
		"$@" >"$base.report.json" 2>"$out/$name.stderr"
		e=$(date +%s.%N)
		echo "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:$(echo "$e - $s" | bc)" >"$base.time"
	fi
}

# run_system NAME: runs system NAME once, writing NAME.pairs.jsonl.
run_system() {
	local p="$out/$1.pairs.jsonl"
	case $1 in
	doppel-hybrid)
		# shellcheck disable=SC2086 # DOPPEL_FLAGS is a list of flags
		measure "$1" "$out/doppel" dedup --in "$corpus" --out "$out/$1.clusters.jsonl" --pairs "$p" --quiet ${DOPPEL_FLAGS:-} ;;
	minhash-dgryski-lsh) measure "$1" "$peers" minhash-lsh -minhash dgryski -in "$corpus" -pairs "$p" ;;
	minhash-ekzhu-lsh) measure "$1" "$peers" minhash-lsh -minhash ekzhu -in "$corpus" -pairs "$p" ;;
	minhash-dgryski-lsh0.7) measure "$1" "$peers" minhash-lsh -minhash dgryski -lsh-threshold 0.7 -in "$corpus" -pairs "$p" ;;
	simhash-*-bktree)
		local f=${1#simhash-}
		measure "$1" "$peers" simhash-bktree -features "${f%-bktree}" -k 3 -in "$corpus" -pairs "$p" -truth "$oracle" -def "$def" -t "$t" ;;
	floor-*) measure "$1" "$peers" floor -workers "${1#floor-}" -in "$corpus" ;;
	esac
}

# median: the median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# wall NAME: median seconds over the rounds; cpu NAME: median CPU
# seconds (user + system); rss NAME: largest, in MB (10^6 bytes); load NAME: mean load
# average at the starts.
wall() {
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out/$1".*.time | median
}
cpu() {
	awk -F': ' '/User time|System time/ { s += $2 } /Elapsed/ { print s; s = 0 }' "$out/$1".*.time | median
}
rss() {
	awk -F': ' '/Maximum resident set size/ { if ($2 > m) m = $2 } END { printf "%.0f", m * 1024 / 1e6 }' "$out/$1".*.time
}
load() { cat "$out/$1".*.load | awk '{ s += $1 } END { printf "%.1f", s / NR }'; }
# field NAME KEY: a number from a pipeline's JSON report of the last
# round ("" if none); mfield NAME KEY: its median over the rounds.
field() {
	{ grep -o "\"$2\":[0-9.e+-]*" "$out/$1.$reps.report.json" || true; } | head -1 | cut -d: -f2
}
mfield() {
	for r in $(seq 1 "$reps"); do grep -o "\"$2\":[0-9.e+-]*" "$out/$1.$r.report.json" | head -1 | cut -d: -f2; done | median
}

systems=(doppel-hybrid)
floors=()
if [ -n "$peers" ]; then
	systems+=(minhash-dgryski-lsh minhash-ekzhu-lsh minhash-dgryski-lsh0.7 simhash-words-bktree simhash-shingles-bktree)
	floors=(floor-1 floor-2)
fi
# Rounds of every system one after the other, so that other work on the
# machine falls on all of them alike.
if [ -z "${REPORT_ONLY:-}" ]; then
	rm -f "$out"/*.time "$out"/*.load "$out"/*.report.json
fi
for round in $(seq 1 "$([ -n "${REPORT_ONLY:-}" ] && echo 0 || echo "$reps")"); do
	for s in "${systems[@]}" "${floors[@]}"; do
		run_system "$s"
	done
done
if [ -n "$peers" ]; then
	docs=$(field floor-1 docs) mb=$(field floor-1 text_mb)
else
	read -r docs mb < <(python3 -c 'import json, sys
n = b = 0
for l in open(sys.argv[1], encoding="utf-8"):
    if l.strip():
        n += 1; b += len(json.loads(l)["text"].encode("utf-8", "surrogatepass"))
print(n, b / 1e6)' "$corpus")
fi

{
	echo "corpus $corpus: $docs documents, $mb MB of text; oracle $oracle, truth $def >= $t; $(date -u +%Y-%m-%d) $(go version | cut -d' ' -f3) $(nproc) cores; $reps round(s), median wall"
	echo
	echo "| system | docs/s | MB/s | wall s | CPU s | peak RSS MB | pairs | P | R | F1 | load |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for s in "${systems[@]}"; do
		mark=""
		if grep -q '"over_limit":true' "$out/$s.$reps.report.json"; then
			# No pair file (more pairs than peers -max-pairs): the
			# pipeline's own exact count of every pair it found (-truth).
			mark=" †"
			printf 'truth_pairs=%s predicted_pairs=%s true_positives=%s\nprecision=%s recall=%s f1=%s\n' \
				"$(field "$s" truth_pairs)" "$(field "$s" predicted_pairs)" "$(field "$s" true_positives)" \
				"$(field "$s" precision)" "$(field "$s" recall)" "$(field "$s" f1)" >"$out/$s.score"
		else
			"$ndd" score -corpus "$corpus" -oracle "$oracle" -system "$out/$s.pairs.jsonl" -def "$def" -t "$t" >"$out/$s.score"
			own=$(field "$s" true_positives)
			ndd_tp=$(grep -o 'true_positives=[0-9]*' "$out/$s.score" | cut -d= -f2)
			if [ -n "$own" ] && [ "$own" != "$ndd_tp" ]; then
				echo "peers-compare: $s: ndd score counts $ndd_tp true positives, the pipeline $own" >&2
			fi
		fi
		w=$(wall "$s")
		awk -v s="$s$mark" -v w="$w" -v c="$(cpu "$s")" -v r="$(rss "$s")" -v d="$docs" -v m="$mb" -v l="$(load "$s")" '
			/truth_pairs=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
			/precision=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
			function f(x) { return (x > 0 && x < 0.001) ? sprintf("%.2g", x) : sprintf("%.4f", x) }
			END { printf "| %s | %.0f | %.1f | %.1f | %.1f | %s | %d | %s | %s | %s | %s |\n", s, d / w, m / w, w, c, r, v["predicted_pairs"], f(v["precision"]), f(v["recall"]), f(v["f1"]), l }' "$out/$s.score"
	done
	if [ -n "$peers" ]; then
		for f in "${floors[@]}"; do
			printf "| %s (tokenize + FNV-1a only, %s goroutine(s), in memory) | %.0f | %.1f | %.2f | - | %s | - | - | - | - | %s |\n" \
				"$f" "${f#floor-}" "$(mfield "$f" docs_per_s)" "$(mfield "$f" mb_per_s)" "$(mfield "$f" wall_s)" "$(rss "$f")" "$(load "$f")"
		done
		echo
		echo "truth pairs: $(grep -o 'truth_pairs=[0-9]*' "$out/doppel-hybrid.score" | cut -d= -f2)"
		if grep -q '"over_limit":true' "$out"/*."$reps".report.json; then
			echo "†: more pairs than peers -max-pairs, so no pair file; P, R, F1 are the pipeline's own exact count of all its pairs against the oracle (peers -truth; where a pair file exists the script checks that count against ndd score)"
		fi
		awk -v w="$(wall doppel-hybrid)" -v m="$mb" -v f1="$(mfield floor-1 mb_per_s)" -v f2="$(mfield floor-2 mb_per_s)" 'BEGIN {
			printf "doppel-hybrid MB/s = %.3f of the floor on 1 goroutine (per core), %.3f of the floor on 2\n", m / w / f1, m / w / f2 }'
	fi
} | tee "$out/summary.md"

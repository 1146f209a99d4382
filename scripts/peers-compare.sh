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
#
# One line per system: docs/s and MB/s of text over the whole process
# (reading the corpus and writing the pairs included; wall time and peak
# RSS from /usr/bin/time -v), pairs, precision, recall, F1, and the
# 1-minute load average when the system started. The floor
# lines are tokenize + hash only, text already in memory (median of 3),
# on 1 goroutine (per core) and on 2. Without ndd the script stops with a
# message; when bench/peers does not build (its modules neither in the
# module cache nor on the proxy), doppel alone is measured.
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

echo "== building doppel and bench/peers into $out" >&2
(cd "$here" && go build -o "$out/doppel" ./cmd/doppel)
peers=""
if (cd "$here/bench/peers" && go build -o "$out/peers" .) 2>"$out/peers-build.log"; then
	peers="$out/peers"
else
	echo "peers-compare: bench/peers does not build (its modules are not in the module cache and the proxy did not give them?), peers skipped:" >&2
	tail -5 "$out/peers-build.log" >&2
fi

# measure NAME CMD...: runs CMD under /usr/bin/time -v (stdout to
# NAME.report.json, stderr to NAME.stderr) and leaves wall seconds and
# peak RSS in NAME.time, the 1-minute load average at its start in
# NAME.load (other work on the machine slows every figure).
measure() {
	local name=$1
	shift
	echo "== $name: $*" >&2
	cut -d' ' -f1 /proc/loadavg 2>/dev/null >"$out/$name.load" || echo - >"$out/$name.load"
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v -o "$out/$name.time" "$@" >"$out/$name.report.json" 2>"$out/$name.stderr"
	else
		local s e
		s=$(date +%s.%N)
		"$@" >"$out/$name.report.json" 2>"$out/$name.stderr"
		e=$(date +%s.%N)
		echo "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:$(echo "$e - $s" | bc)" >"$out/$name.time"
	fi
}

# wall NAME: seconds; rss NAME: MB.
wall() {
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$out/$1.time"
}
rss() {
	awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$out/$1.time"
}
# field NAME KEY: a number from a pipeline's JSON report.
field() {
	grep -o "\"$2\":[0-9.e+-]*" "$out/$1.report.json" | head -1 | cut -d: -f2
}

systems=()
pairfiles=()
add() { systems+=("$1"); pairfiles+=("$out/$1.pairs.jsonl"); }

# shellcheck disable=SC2086 # DOPPEL_FLAGS is a list of flags
measure doppel-hybrid "$out/doppel" dedup --in "$corpus" --out "$out/doppel-hybrid.clusters.jsonl" \
	--pairs "$out/doppel-hybrid.pairs.jsonl" --quiet ${DOPPEL_FLAGS:-}
add doppel-hybrid
if [ -n "$peers" ]; then
	measure minhash-dgryski-lsh "$peers" minhash-lsh -minhash dgryski -in "$corpus" -pairs "$out/minhash-dgryski-lsh.pairs.jsonl"
	add minhash-dgryski-lsh
	measure minhash-ekzhu-lsh "$peers" minhash-lsh -minhash ekzhu -in "$corpus" -pairs "$out/minhash-ekzhu-lsh.pairs.jsonl"
	add minhash-ekzhu-lsh
	measure minhash-dgryski-lsh0.7 "$peers" minhash-lsh -minhash dgryski -lsh-threshold 0.7 -in "$corpus" -pairs "$out/minhash-dgryski-lsh0.7.pairs.jsonl"
	add minhash-dgryski-lsh0.7
	measure simhash-words-bktree "$peers" simhash-bktree -features words -k 3 -in "$corpus" -pairs "$out/simhash-words-bktree.pairs.jsonl"
	add simhash-words-bktree
	measure simhash-shingles-bktree "$peers" simhash-bktree -features shingles -k 3 -in "$corpus" -pairs "$out/simhash-shingles-bktree.pairs.jsonl"
	add simhash-shingles-bktree
	measure floor-1 "$peers" floor -workers 1 -in "$corpus"
	measure floor-2 "$peers" floor -workers 2 -in "$corpus"
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
	echo "corpus $corpus: $docs documents, $mb MB of text; oracle $oracle, truth $def >= $t; $(date -u +%Y-%m-%d) $(go version | cut -d' ' -f3) $(nproc) cores"
	echo
	echo "| system | docs/s | MB/s | wall s | peak RSS MB | pairs | P | R | F1 | load |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for i in "${!systems[@]}"; do
		s=${systems[$i]}
		"$ndd" score -corpus "$corpus" -oracle "$oracle" -system "${pairfiles[$i]}" -def "$def" -t "$t" >"$out/$s.score"
		w=$(wall "$s")
		awk -v s="$s" -v w="$w" -v r="$(rss "$s")" -v d="$docs" -v m="$mb" -v l="$(cat "$out/$s.load")" '
			/truth_pairs=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
			/precision=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
			END { printf "| %s | %.0f | %.1f | %.1f | %s | %d | %.4f | %.4f | %.4f | %s |\n", s, d / w, m / w, w, r, v["predicted_pairs"], v["precision"], v["recall"], v["f1"], l }' "$out/$s.score"
	done
	if [ -n "$peers" ]; then
		for f in floor-1 floor-2; do
			printf "| %s (tokenize + FNV-1a only, %s goroutine(s), in memory) | %.0f | %.1f | %.2f | %s | - | - | - | - | %s |\n" \
				"$f" "${f#floor-}" "$(field $f docs_per_s)" "$(field $f mb_per_s)" "$(field $f wall_s)" "$(rss $f)" "$(cat "$out/$f.load")"
		done
		echo
		echo "truth pairs: $(grep -o 'truth_pairs=[0-9]*' "$out/doppel-hybrid.score" | cut -d= -f2)"
		awk -v w="$(wall doppel-hybrid)" -v m="$mb" -v f1="$(field floor-1 mb_per_s)" -v f2="$(field floor-2 mb_per_s)" 'BEGIN {
			printf "doppel-hybrid MB/s = %.3f of the floor on 1 goroutine (per core), %.3f of the floor on 2\n", m / w / f1, m / w / f2 }'
	fi
} | tee "$out/summary.md"

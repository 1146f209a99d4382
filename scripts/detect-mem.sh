#!/bin/bash
# detect-mem.sh BINARY PORT [FLAGS...]: the peak resident size (VmHWM) of `doppel detect FLAGS`
# on a new directory while 12 clients at once each POST 1,000 documents of
# 4,500 words (26 MB; half of them the same ids again). Loopback only;
# scratch in ${TMPDIR:-/tmp}/detect-mem-PORT, removed at the end.
set -eu
BIN=$1; PORT=$2; shift 2; D=${TMPDIR:-/tmp}/detect-mem-$PORT
rm -rf "$D"; mkdir -p "$D"
python3 - "$D" <<'PY'
import json, random, sys
random.seed(1)
words = ["w%d" % i for i in range(5000)]
for k in range(2):
    docs = [{"id": "d%d-%d" % (k, i), "text": " ".join(random.choice(words) for _ in range(4500))} for i in range(1000)]
    open("%s/body%d.json" % (sys.argv[1], k), "w").write(json.dumps({"documents": docs}))
PY
"$BIN" detect "$@" --data "$D/data" --listen 127.0.0.1:"$PORT" > "$D/out" 2>&1 &
P=$!
for _ in $(seq 50); do curl -s 127.0.0.1:"$PORT"/v1/stats > /dev/null && break; sleep 0.2; done
start=$(date +%s)
pids=()
for i in $(seq 12); do
	curl -s -m 300 -H 'Expect:' -o /dev/null -w "%{http_code} " -H 'Content-Type: application/json' \
		--data-binary @"$D/body$((i % 2)).json" 127.0.0.1:"$PORT"/v1/documents &
	pids+=($!)
done
wait "${pids[@]}" || true
echo; echo "took $(( $(date +%s) - start )) s"
grep -E "VmHWM" /proc/$P/status; echo "service CPU: $(ps -o cputime= -p $P)"
kill $P; wait $P 2> /dev/null || true
rm -rf "$D"

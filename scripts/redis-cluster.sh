#!/usr/bin/env bash
# redis-cluster.sh, sourced by the scripts that crawl with doppel worker:
# a Redis Cluster of three masters on loopback ports P, P+1, P+2
# (Debian's redis-server, no persistence), its data under DIR/redis.
#
#   source scripts/redis-cluster.sh
#   redis_cluster_start P DIR   # returns once the cluster is ok
#   redis_cluster_stop P        # in the caller's EXIT trap

redis_cluster_start() {
	local port=$1 dir=$2 nodes="" p
	for p in $port $((port + 1)) $((port + 2)); do
		mkdir -p "$dir/redis/$p"
		redis-server --port "$p" --bind 127.0.0.1 --cluster-enabled yes --dir "$dir/redis/$p" --save "" --appendonly no --daemonize yes >/dev/null
		nodes="$nodes 127.0.0.1:$p"
	done
	sleep 0.5
	# shellcheck disable=SC2086
	redis-cli --cluster create $nodes --cluster-yes >/dev/null
	until redis-cli -p "$port" cluster info | grep -q cluster_state:ok; do sleep 0.2; done
}

redis_cluster_stop() {
	local p
	for p in $1 $(($1 + 1)) $(($1 + 2)); do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
}

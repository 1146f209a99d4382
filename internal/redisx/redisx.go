// Package redisx holds what Doppel's stores on a Redis Cluster share
// (the frontier, the detector's signatures, the roll of workers): which
// errors a call may retry through a failover, and how a crawl's key
// prefix is checked, and how many replicas a WAIT may ask for.
package redisx

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Transient reports whether err is one a call may retry once the
// cluster has settled: the connection refused or cut (a master killed),
// the cluster down or its slots moving (a replica taking over), a server
// still loading its data.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		redis.HasErrorPrefix(err, "CLUSTERDOWN") || redis.HasErrorPrefix(err, "TRYAGAIN") ||
		redis.HasErrorPrefix(err, "MOVED") || redis.HasErrorPrefix(err, "LOADING") ||
		strings.Contains(err.Error(), "connection refused")
}

// DefaultPrefix is the key prefix of a crawl that names none.
const DefaultPrefix = "doppel"

// Prefix returns prefix, or DefaultPrefix if it is empty, and an error
// naming pkg if it holds a brace: the stores put it inside hash tags.
func Prefix(pkg, prefix string) (string, error) {
	if prefix == "" {
		return DefaultPrefix, nil
	}
	if strings.ContainsAny(prefix, "{}") {
		return "", fmt.Errorf("%s: prefix %q has a brace", pkg, prefix)
	}
	return prefix, nil
}

// OnlineReplicas returns the number of replicas of each master of cc
// that are not failed, by the master's address: how many a WAIT may ask
// for. A master left without replicas after a failover has none until one
// joins. One CLUSTER SHARDS call.
func OnlineReplicas(ctx context.Context, cc *redis.ClusterClient) (map[string]int, error) {
	shards, err := cc.ClusterShards(ctx).Result()
	if err != nil {
		return nil, err
	}
	m := map[string]int{}
	for _, sh := range shards {
		master, online := "", 0
		for _, n := range sh.Nodes {
			switch {
			case n.Role == "master" && n.Health == "online":
				master = fmt.Sprintf("%s:%d", n.IP, n.Port)
			case n.Role == "replica" && n.Health != "fail":
				// Redis 7.0 says "loading" for a replica with nothing
				// replicated yet.
				online++
			}
		}
		if master != "" {
			m[master] = online
		}
	}
	return m, nil
}

package redisfleet_test

import (
	"context"
	"fmt"
	"os"

	"github.com/doppel-search/doppel/crawler/fleet"
	"github.com/doppel-search/doppel/crawler/fleet/redisfleet"
	"github.com/redis/go-redis/v9"
)

// A worker joins the roll of the crawl "intranet" with its counters, and
// the status page of the whole reads it back.
func Example() {
	ctx := context.Background()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"}})
	roll, err := redisfleet.New(rdb, redisfleet.Options{Prefix: "intranet"})
	if err != nil {
		panic(err)
	}
	host, _ := os.Hostname()
	var fetched int64
	me, err := roll.Join(ctx, fleet.Worker{ID: host + "-1", Host: host, PID: os.Getpid()}, func() fleet.Report {
		return fleet.Report{Counters: map[string]int64{"fetched": fetched}}
	})
	if err != nil {
		fmt.Println(err) // redisfleet.ErrTaken: a worker of this id is up
		return
	}
	defer me.Leave(ctx)

	workers, _ := roll.Workers(ctx)
	for _, w := range workers {
		fmt.Println(w.ID, w.State, w.Counters["fetched"])
	}
	fmt.Println("fetched in all:", fleet.Total(workers).Counters["fetched"])
}

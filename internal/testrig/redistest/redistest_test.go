package redistest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestCluster starts three masters with a replica each, writes keys over
// every slot range, kills a master and reads every key back from the
// replica that took over.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts six redis-server processes")
	}
	c := Start(t, 3, 1)
	masters := c.Masters()
	if len(masters) != 3 {
		t.Fatalf("masters = %v, want 3", masters)
	}
	ctx := context.Background()
	cl := c.Client()
	const n = 300
	for i := range n {
		if err := cl.Set(ctx, fmt.Sprintf("key%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	killed := masters[1]
	c.KillMaster(killed)
	after := c.Masters()
	if len(after) != 3 || slices.Contains(after, killed) {
		t.Fatalf("masters after killing %s = %v, want 3 others", killed, after)
	}
	// The client learns the new layout from its failed requests to the
	// killed node: a request may fail until then.
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; i < n; {
		got, err := cl.Get(ctx, fmt.Sprintf("key%d", i)).Int()
		if err != nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if err != nil || got != i {
			t.Fatalf("key%d = %d, %v after the failover", i, got, err)
		}
		i++
	}
}

func TestReplication(t *testing.T) {
	for _, tt := range []struct {
		name, info string
		offset     int64
		replicas   []int64
	}{
		{"one replica behind", "# Replication\r\nrole:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=7001,state=online,offset=1200,lag=0\r\nmaster_repl_offset:1300\r\n", 1300, []int64{1200}},
		{"two replicas", "role:master\nslave0:ip=::1,port=1,state=online,offset=5,lag=1\nslave1:ip=::1,port=2,state=wait_bgsave,offset=0,lag=0\nmaster_repl_offset:5\n", 5, []int64{5, 0}},
		{"no replica", "role:master\nconnected_slaves:0\nmaster_repl_offset:42\n", 42, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			offset, replicas := replication(tt.info)
			if offset != tt.offset || !slices.Equal(replicas, tt.replicas) {
				t.Errorf("replication = %d, %v; want %d, %v", offset, replicas, tt.offset, tt.replicas)
			}
		})
	}
}

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
	time.Sleep(500 * time.Millisecond) // replication is asynchronous
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

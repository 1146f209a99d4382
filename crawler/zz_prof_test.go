package crawler

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestZZProf(t *testing.T) {
	if os.Getenv("ZZPROF") == "" {
		t.Skip()
	}
	c, err := Open(t.TempDir(), Options{Seeds: []string{"http://127.0.0.1:18181/"}, MaxPages: 100000, MaxDepth: 100, Delay: -1, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v %+v", time.Since(start), c.Stats())
}

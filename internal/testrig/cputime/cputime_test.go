//go:build unix

package cputime

import (
	"testing"
	"time"
)

// TestProcessGrows: spinning for 50 ms of wall time adds CPU time.
func TestProcessGrows(t *testing.T) {
	before := Process()
	x := 0
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		x++
	}
	if after := Process(); after <= before || x == 0 {
		t.Fatalf("CPU time %v then %v after spinning", before, after)
	}
}

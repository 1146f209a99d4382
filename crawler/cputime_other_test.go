//go:build !unix

package crawler

import "time"

// cpuTime returns 0: the process's CPU time is not read here.
func cpuTime() time.Duration { return 0 }

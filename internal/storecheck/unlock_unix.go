//go:build unix

package storecheck

import (
	"os"
	"syscall"
)

// release unlocks and closes f, which a panic in bolt.Open left open and
// locked: its memory map holds the file, so closing alone would keep the
// lock.
func release(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

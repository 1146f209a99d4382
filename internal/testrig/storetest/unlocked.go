//go:build unix

package storetest

import (
	"os"
	"syscall"
	"testing"
)

// Unlocked fails the test if the file at path is still flock-locked by
// this process: a store a command or an Open left open after it
// refused a damaged file. A missing file passes.
func Unlocked(t testing.TB, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Errorf("%s is still locked: %v", path, err)
		return
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

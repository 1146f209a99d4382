//go:build linux || darwin

package indexer

import (
	"fmt"
	"syscall"
)

// checkSpace returns an error wrapping ErrNoSpace if the file system of
// dir has fewer than need bytes free ("" or a file system that cannot
// tell: no error, and a merge that fills the disk fails cleanly).
func checkSpace(dir string, need uint64) error {
	if dir == "" {
		return nil
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return nil
	}
	if free := uint64(fs.Bavail) * uint64(fs.Bsize); free < need {
		return fmt.Errorf("%w: %s has %d MB free, the merge may write %d MB", ErrNoSpace, dir, free>>20, need>>20)
	}
	return nil
}

//go:build !unix

package storecheck

import "os"

// release closes f, which a panic in bolt.Open left open.
func release(f *os.File) { f.Close() }

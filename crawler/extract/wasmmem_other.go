//go:build !unix

package extract

import "github.com/tetratelabs/wazero/experimental"

// reserve is nil where there is no mmap: the memory is a Go slice.
func reserve(uint64) experimental.LinearMemory { return nil }

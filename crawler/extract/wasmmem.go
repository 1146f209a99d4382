package extract

import (
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// PDFium's linear memory. A WebAssembly memory only grows, and wazero
// grows a Go slice by copying it (the old and the new one both held
// while a 1.5 GiB memory grows to 3 GiB: how one hostile PDF took 3.6
// GB). So each instance's memory is reserved once, at its limit
// (Limits.MaxMemory), as an anonymous mapping that takes physical pages
// only as PDFium touches them and is unmapped when the instance closes
// (wasmmem_unix.go); elsewhere it is a Go slice allocated at the limit
// once. A growth past the limit is refused (memory.grow fails, PDFium's
// allocation fails and it gives up) and counted (memoryHits): the
// extraction in progress is refused ("pdf: memory limit: …").

// memoryHits counts the growths refused by a limit.
var memoryHits atomic.Int64

// wasmAllocator allocates linear memories of at most limit bytes (see
// above).
type wasmAllocator struct{ limit uint64 }

var _ experimental.MemoryAllocator = wasmAllocator{}

// Allocate reserves the smaller of max (the module's declared maximum)
// and the limit.
func (a wasmAllocator) Allocate(_, max uint64) experimental.LinearMemory {
	max = min(max, a.limit)
	if m := reserve(max); m != nil {
		return m
	}
	return &sliceMemory{max: max}
}

// sliceMemory is a linear memory in a Go slice made at its maximum once.
type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		memoryHits.Add(1)
		return nil
	}
	if m.buf == nil {
		m.buf = make([]byte, m.max)
	}
	return m.buf[:size]
}

func (m *sliceMemory) Free() { m.buf = nil }

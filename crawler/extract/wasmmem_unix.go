//go:build unix

package extract

import "syscall"

// mappedMemory is a linear memory in an anonymous private mapping of its
// maximum: untouched pages take no memory, and Free gives all of it back
// to the system at once (not to Go's heap, which returns it slowly).
type mappedMemory struct {
	buf []byte
}

// reserve maps size bytes, nil if the system refuses.
func reserve(size uint64) *mappedMemory {
	if size == 0 || size > 1<<32 {
		return nil
	}
	buf, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	return &mappedMemory{buf: buf}
}

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		memoryHits.Add(1)
		return nil
	}
	return m.buf[:size:size]
}

func (m *mappedMemory) Free() {
	if m.buf != nil {
		_ = syscall.Munmap(m.buf)
		m.buf = nil
	}
}

//go:build unix

package explore

import (
	"syscall"
	"unsafe"
)

// table is the visited set's storage: keys and values in one anonymous
// memory mapping, outside the garbage-collected heap. The set is the
// search's largest allocation (96 MiB at the default bound); in the heap,
// the collector's headroom would double what the process holds for it.
// Pages are only touched as slots fill, and free returns them at once.
type table struct {
	mem  []byte
	keys []uint64
	vals []uint32
}

func newTable(size int) table {
	n := size * 12
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		// No mapping (a limit on them, say): the heap will do.
		return table{keys: make([]uint64, size), vals: make([]uint32, size)}
	}
	return table{
		mem:  mem,
		keys: unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), size),
		vals: unsafe.Slice((*uint32)(unsafe.Pointer(&mem[size*8])), size),
	}
}

func (t *table) free() {
	if t.mem != nil {
		_ = syscall.Munmap(t.mem)
	}
	*t = table{}
}

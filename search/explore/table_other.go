//go:build !unix

package explore

// table is the visited set's storage, in the heap where memory cannot be
// mapped.
type table struct {
	keys []uint64
	vals []uint32
}

func newTable(size int) table { return table{keys: make([]uint64, size), vals: make([]uint32, size)} }

func (t *table) free() { *t = table{} }

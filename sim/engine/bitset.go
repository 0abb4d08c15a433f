package engine

import (
	"iter"
	"math/bits"
)

// members returns the members of the union of the bit sets a and b (b may
// be nil) in increasing order: i is a member of a set when bit i%64 of
// its word i/64 is set. The simulator keeps its busy connections and the
// stale parts of its hash as such sets. Performance: it is small enough
// for the compiler to inline it, with the loop body, where it is ranged
// over.
func members(a, b []uint64) iter.Seq[int] {
	return func(yield func(int) bool) {
		for wi, word := range a {
			if b != nil {
				word |= b[wi]
			}
			for ; word != 0; word &= word - 1 {
				if !yield(wi<<6 | bits.TrailingZeros64(word)) {
					return
				}
			}
		}
	}
}

// hasBit reports whether bit i of set is set.
func hasBit(set []uint64, i int) bool {
	w := i >> 6
	return i >= 0 && w < len(set) && set[w]&(1<<(i&63)) != 0
}

// setBit sets bit i of set, growing it as needed.
func setBit(set []uint64, i int) []uint64 {
	for len(set) <= i>>6 {
		set = append(set, 0)
	}
	set[i>>6] |= 1 << (i & 63)
	return set
}

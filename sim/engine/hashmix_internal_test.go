package engine

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	"github.com/macemc/macemc/sim"
)

// mixNode has a field of every shape hashPure reads in its own way: runs
// of words (one and several), small numbers and bools, strings of the
// lengths hashBytes tells apart, a slice of words, a slice of flat
// structs, and a small map of number keys and pointer values (nil ones
// too).
type mixNode struct {
	sim.Base
	W     [4]uint64
	B     bool
	A     uint64
	C     int32
	D     uint16
	S     string
	T     string
	Words []uint64
	Flat  []mixPair
	M     map[sim.NodeID]*mixCell
}

type mixPair struct {
	X int32
	Y uint64
}

type mixCell struct {
	N   uint64
	Tag string
}

// mixBase is a mixNode with every field set; each call builds a new one.
func mixBase() *mixNode {
	return &mixNode{
		W: [4]uint64{1, 2, 3, 4}, B: true, A: 5, C: -6, D: 7,
		S: "seventeen bytes!!", T: "hello", Words: []uint64{8, 9, 10},
		Flat: []mixPair{{11, 12}, {13, 14}},
		M:    map[sim.NodeID]*mixCell{0: {15, "x"}, 1: {16, "twelve bytes"}, 2: nil},
	}
}

// flipBit flips bit i of the n bytes at p.
func flipBit(p unsafe.Pointer, n uintptr, i int) {
	b := unsafe.Slice((*byte)(p), n)
	b[i/8] ^= 1 << (i % 8)
}

// TestHashSingleBits: changing any one bit of any number, string byte,
// slice element or map value of a value changes its hash, and no two such
// changes hash equal (nor as the value itself).
func TestHashSingleBits(t *testing.T) {
	if p := progFor(reflect.TypeFor[mixNode]()); p == nil || !p.hashable {
		t.Fatal("mixNode has no hashable program")
	}
	s := mapSim(t, Options{})
	seen := map[uint64]string{pureMapHash(t, s, mixBase()): "the value itself"}
	// Each way to change one bit: the memory to flip, as a function of
	// a fresh value, and its size.
	type place struct {
		name string
		at   func(v *mixNode) (unsafe.Pointer, uintptr)
	}
	word := func(p *uint64) (unsafe.Pointer, uintptr) { return unsafe.Pointer(p), 8 }
	str := func(p *string) (unsafe.Pointer, uintptr) {
		b := []byte(*p) // strings are immutable: flip a copy
		*p = string(b)
		return unsafe.Pointer(unsafe.StringData(*p)), uintptr(len(*p))
	}
	places := []place{
		{"W[0]", func(v *mixNode) (unsafe.Pointer, uintptr) { return word(&v.W[0]) }},
		{"W[3]", func(v *mixNode) (unsafe.Pointer, uintptr) { return word(&v.W[3]) }},
		{"A", func(v *mixNode) (unsafe.Pointer, uintptr) { return word(&v.A) }},
		{"C", func(v *mixNode) (unsafe.Pointer, uintptr) { return unsafe.Pointer(&v.C), 4 }},
		{"D", func(v *mixNode) (unsafe.Pointer, uintptr) { return unsafe.Pointer(&v.D), 2 }},
		{"S", func(v *mixNode) (unsafe.Pointer, uintptr) { return str(&v.S) }},
		{"T", func(v *mixNode) (unsafe.Pointer, uintptr) { return str(&v.T) }},
		{"Words[1]", func(v *mixNode) (unsafe.Pointer, uintptr) { return word(&v.Words[1]) }},
		{"Flat[1].X", func(v *mixNode) (unsafe.Pointer, uintptr) { return unsafe.Pointer(&v.Flat[1].X), 4 }},
		{"Flat[0].Y", func(v *mixNode) (unsafe.Pointer, uintptr) { return word(&v.Flat[0].Y) }},
		{"M[0].N", func(v *mixNode) (unsafe.Pointer, uintptr) { return word(&v.M[0].N) }},
		{"M[1].Tag", func(v *mixNode) (unsafe.Pointer, uintptr) { return str(&v.M[1].Tag) }},
	}
	for _, pl := range places {
		_, n := pl.at(mixBase())
		for i := range int(n) * 8 {
			v := mixBase()
			p, _ := pl.at(v)
			flipBit(p, n, i)
			h := pureMapHash(t, s, v)
			what := fmt.Sprintf("bit %d of %s", i, pl.name)
			if prev, dup := seen[h]; dup {
				t.Fatalf("%s hashes like %s", what, prev)
			}
			seen[h] = what
		}
	}
	if len(seen) < 700 {
		t.Fatalf("only %d values: the places are too few to test much", len(seen))
	}
}

// TestHashNearEqualValues: many values that differ a little from each
// other, in one field or several (small numbers, a bool, strings that are
// prefixes of each other or the same bytes in another order, map entries
// more or less, a nil pointer value), hash equal exactly when their
// canonical encodings are equal.
func TestHashNearEqualValues(t *testing.T) {
	s := mapSim(t, Options{})
	strs := []string{"", "a", "b", "ab", "ba", "aaaa", "aaaaaaa", "aaaaaaaa", "aaaaaaaab", "baaaaaaaa"}
	byEnc := map[string]uint64{}
	byHash := map[uint64]string{}
	n := 0
	for w := range 3 {
		for a := range 3 {
			for _, b := range []bool{false, true} {
				for si, sv := range strs {
					for m := range 6 {
						v := &mixNode{B: b, A: uint64(a), S: sv, T: strs[len(strs)-1-si]}
						v.W[w] = 1
						v.Words = make([]uint64, a)
						if m > 0 {
							v.M = map[sim.NodeID]*mixCell{}
							for k := range m / 2 {
								v.M[sim.NodeID(k)] = &mixCell{N: uint64(m % 2), Tag: sv}
							}
							if m%2 == 1 {
								v.M[sim.NodeID(m)] = nil
							}
						}
						e := string(AppendCanonical(nil, v))
						h := pureMapHash(t, s, v)
						if prev, ok := byEnc[e]; ok && prev != h {
							t.Fatalf("equal encodings hash differently: %v", FormatValue(v))
						}
						if prev, ok := byHash[h]; ok && prev != e {
							t.Fatalf("different encodings hash equal: %v", FormatValue(v))
						}
						byEnc[e], byHash[h] = h, e
						n++
					}
				}
			}
		}
	}
	if len(byEnc) < n/2 {
		t.Fatalf("only %d distinct values of %d", len(byEnc), n)
	}
}

// TestUvarintLen: uvarintLen is the length of the uvarint encoding the
// size bound counts, around every length's bounds.
func TestUvarintLen(t *testing.T) {
	for k := range 9 {
		for _, d := range []int{-1, 0, 1} {
			x := max(0, 1<<(7*k)+d)
			if got, want := uvarintLen(x), len(binary.AppendUvarint(nil, uint64(x))); got != want {
				t.Errorf("uvarintLen(%d) = %d, want %d", x, got, want)
			}
		}
	}
}

//go:build !go1.27

package engine

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/macemc/macemc/sim"
)

type gappy struct {
	A uint8
	B uint64
	C bool
}

// smallCase checks maps of type map[K]V: small ones are read in place (or
// not, as want says; smallGroup sees them as small either way), and a
// small map and a large one of the same entries hash equal.
func smallCase[K comparable, V any](t *testing.T, s *Sim, want bool, keys []K, vals []V) {
	t.Helper()
	type node struct {
		sim.Base
		M map[K]V
	}
	mt := reflect.TypeFor[map[K]V]()
	if _, _, ok := smallLayout(mt); ok != want {
		t.Fatalf("%v: read in place %v, want %v", mt, ok, want)
	}
	small, large := &node{M: map[K]V{}}, &node{M: make(map[K]V, 64)}
	for i := range keys {
		small.M[keys[i]] = vals[i]
		large.M[keys[len(keys)-1-i]] = vals[len(keys)-1-i]
	}
	if g, _ := smallGroup(*(*unsafe.Pointer)(reflect.ValueOf(&small.M).UnsafePointer()), len(small.M)); g == nil {
		t.Fatalf("%v: a small map is not seen as one", mt)
	}
	if g, _ := smallGroup(*(*unsafe.Pointer)(reflect.ValueOf(&large.M).UnsafePointer()), len(large.M)); g != nil {
		t.Fatalf("%v: a large map is read as a small one", mt)
	}
	hs, hl := pureMapHash(t, s, small), pureMapHash(t, s, large)
	if hs != hl {
		t.Errorf("%v: a small map and a large one of the same entries hash differently", mt)
	}
	delete(small.M, keys[0])
	if pureMapHash(t, s, small) == hs {
		t.Errorf("%v: deleting an entry of a small map leaves its hash as it was", mt)
	}
}

// TestSmallMaps: the map layout this Go release has is the one smallGroup
// reads, for keys and values of many sizes and alignments; values too
// large to be stored in the slots are read by the iterator.
func TestSmallMaps(t *testing.T) {
	if !smallMapsOK {
		t.Fatal("maps are not laid out as smallGroup reads them")
	}
	s := mapSim(t, Options{})
	smallCase(t, s, true, []uint8{1, 2, 3, 4, 5, 6, 7, 8}, []uint8{8, 7, 6, 5, 4, 3, 2, 1})
	smallCase(t, s, true, []int64{-1, 0, 1}, []gappy{{1, 2, true}, {}, {A: 3}})
	smallCase(t, s, true, []string{"", "a", "bb", "ccc"}, []bool{true, false, true, false})
	smallCase(t, s, true, [][3]byte{{1}, {2}, {0, 0, 1}}, []int32{-1, 1, 0})
	smallCase(t, s, true, []gappy{{1, 2, true}, {1, 2, false}}, []struct{}{{}, {}})
	smallCase(t, s, true, []float64{0.5, -2}, []complex128{1i, 2})
	smallCase(t, s, true, []uint16{1, 2}, [][16]uint64{{1}, {15: 1}}) // 128 bytes: in the slot
	smallCase(t, s, false, []uint16{1, 2}, [][17]uint64{{1}, {16: 1}})
	smallCase(t, s, false, [][17]uint64{{1}, {16: 1}}, []uint16{1, 2})
}

//go:build !go1.27

package engine

import (
	"math/bits"
	"reflect"
	"unsafe"
)

// Small maps read in place. Performance: hashing a node with maps is
// mostly iterating them (reflect.MapIter: two random draws to start, a
// call per entry, a copy of every key and value), and the maps of a
// node are small. A Go map of at most 8 entries (Go 1.24 to 1.26's
// Swiss tables, internal/runtime/maps) is one group: a control word, a
// byte per slot whose top bit is clear when the slot is full, then 8
// slots of a key and a value side by side. hashMap reads such a group's
// full slots where they are, and uses the iterator for larger maps. The
// layout is checked, not assumed: smallMapsOK tries it on real maps once,
// smallLayout takes each map type's slot size and value offset from its
// runtime type and checks them against the same struct built by reflect,
// and hashMap checks that it found as many full slots as the map holds;
// on any mismatch the iterator is used. A Go release that changes the
// layout builds smallmap_other.go instead.

// mapHeader is the start of internal/runtime/maps.Map.
type mapHeader struct {
	used   uint64
	seed   uintptr
	dirPtr unsafe.Pointer // a small map's group
	dirLen int            // 0 for a small map
}

// abiMapType is internal/abi.MapType.
type abiMapType struct {
	size, ptrBytes                 uintptr
	hash                           uint32
	tflag, align, fieldAlign, kind uint8
	equal, gcData                  unsafe.Pointer
	str, ptrToThis                 int32
	key, elem, group, hasher       unsafe.Pointer
	groupSize, slotSize, elemOff   uintptr
	flags                          uint32
}

// groupSlots is the number of slots of a group; fullBits are the control
// word's bits that are clear in a full slot.
const (
	groupSlots = 8
	fullBits   = 0x8080808080808080
)

// smallLayout returns the slot size and the offset of the value in a slot
// of the groups of maps of type t, or false when its small maps are not
// to be read in place.
func smallLayout(t reflect.Type) (slot, elemOff uintptr, ok bool) {
	k, v := t.Key(), t.Elem()
	if !smallMapsOK || k.Size() > 128 || v.Size() > 128 { // larger keys and values are stored behind pointers
		return 0, 0, false
	}
	st := reflect.StructOf([]reflect.StructField{{Name: "K", Type: k}, {Name: "V", Type: v}})
	mt := (*abiMapType)(typeKey(t))
	if mt.size != t.Size() || mt.key != typeKey(k) || mt.elem != typeKey(v) ||
		mt.slotSize != st.Size() || mt.elemOff != st.Field(1).Offset || mt.groupSize != 8+groupSlots*mt.slotSize {
		return 0, 0, false
	}
	return mt.slotSize, mt.elemOff, true
}

// mapLen returns the number of entries of the map m (nil or what a map
// variable holds).
func mapLen(m unsafe.Pointer) (int, bool) {
	if m == nil {
		return 0, true
	}
	return int((*mapHeader)(m).used), smallMapsOK
}

// smallGroup returns the group of the map m of n entries (not 0) and its
// full slots (the top bit of each one's control byte), or nil when m is
// not small or not as expected.
func smallGroup(m unsafe.Pointer, n int) (unsafe.Pointer, uint64) {
	h := (*mapHeader)(m)
	if h.dirLen != 0 || h.used != uint64(n) || h.dirPtr == nil {
		return nil, 0
	}
	full := ^*(*uint64)(h.dirPtr) & fullBits
	if bits.OnesCount64(full) != n {
		return nil, 0
	}
	return h.dirPtr, full
}

// slotAt returns full slot number i of group g, given full's lowest bit set.
func slotAt(g unsafe.Pointer, full uint64, slot uintptr) unsafe.Pointer {
	return unsafe.Add(g, 8+uintptr(bits.TrailingZeros64(full)>>3)*slot)
}

// smallMapsOK reports whether maps are laid out as smallGroup reads them.
var smallMapsOK = checkSmallMaps()

func checkSmallMaps() bool {
	type kv struct{ k, v uint64 }
	small := map[uint64]uint64{}
	for i := range uint64(groupSlots) {
		small[i+1] = 100 + i
	}
	delete(small, 3)
	mapOf := func(m map[uint64]uint64) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&m)) }
	h := (*mapHeader)(mapOf(small))
	if h.used != groupSlots-1 || h.dirLen != 0 || h.dirPtr == nil {
		return false
	}
	g, full := h.dirPtr, ^*(*uint64)(h.dirPtr)&fullBits
	if bits.OnesCount64(full) != groupSlots-1 {
		return false
	}
	seen := map[uint64]bool{}
	for ; full != 0; full &= full - 1 {
		e := (*kv)(slotAt(g, full, 16))
		if small[e.k] != e.v || seen[e.k] {
			return false
		}
		seen[e.k] = true
	}
	large := map[uint64]uint64{}
	for i := range uint64(4 * groupSlots) {
		large[i] = i
	}
	if h := (*mapHeader)(mapOf(large)); h.used != 4*groupSlots || h.dirLen == 0 {
		return false
	}
	return len(seen) == groupSlots-1
}

package fair

// Performance: the graph's lookups, a state by key, a transition by (from,
// to, unit, time class) and a unit by its number, run once or more for
// every state an exploration records (about a million times in a search
// of a few seconds). Purpose-built tables of flat slots without pointers
// (open addressing, linear probing, at most three quarters full) cost less
// than maps for them, and nothing to the collector.

// full reports whether a table of size slots holding n cannot take one
// more.
func full(n, size int) bool { return 4*(n+1) > 3*size }

// grown returns the empty slots that replace old (twice as many, 64 at
// first) and the shift that makes a 64-bit hash an index into them.
func grown[S any](old []S, shift uint) ([]S, uint) {
	if len(old) == 0 {
		return make([]S, 64), 64 - 6
	}
	return make([]S, 2*len(old)), shift - 1
}

// idTable maps state keys (or units) to ids.
type idTable struct {
	slots []idSlot
	n     int
	shift uint
}

type idSlot struct {
	key uint64
	id1 int32 // the id + 1; 0: an empty slot
}

// slot returns the slot of key: its own, or the empty one where it goes.
func (t *idTable) slot(key uint64) *idSlot {
	mask := len(t.slots) - 1
	for i := int((key * 0x9e3779b97f4a7c15) >> t.shift); ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.id1 == 0 || s.key == key {
			return s
		}
	}
}

func (t *idTable) get(key uint64) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	s := t.slot(key)
	return s.id1 - 1, s.id1 != 0
}

// put adds key (not in t) with id.
func (t *idTable) put(key uint64, id int32) {
	if full(t.n, len(t.slots)) {
		old := t.slots
		t.slots, t.shift = grown(old, t.shift)
		for _, s := range old {
			if s.id1 != 0 {
				*t.slot(s.key) = s
			}
		}
	}
	*t.slot(key) = idSlot{key: key, id1: id + 1}
	t.n++
}

// edgeSet holds transitions by (from, to, unit, time class).
type edgeSet struct {
	slots []edgeSlot
	n     int
	shift uint
}

// edgeSlot is a transition's key. from1 is from + 1 (0: an empty slot);
// unit is the unit id (-1 for a failure; ids stay far below 2^29) times 4
// plus the time class, which keeps the slot at 12 bytes.
type edgeSlot struct {
	from1, to, unit int32
}

func (t *edgeSet) slot(k edgeSlot) *edgeSlot {
	h := (uint64(uint32(k.from1))<<32 | uint64(uint32(k.to))) * 0x9e3779b97f4a7c15
	h ^= uint64(uint32(k.unit)) * 0xc2b2ae3d27d4eb4f
	h *= 0x9e3779b97f4a7c15
	mask := len(t.slots) - 1
	for i := int(h >> t.shift); ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.from1 == 0 || *s == k {
			return s
		}
	}
}

// add adds transition (from, to, unit, time) and reports whether it is
// new.
func (t *edgeSet) add(from, to, unit int32, time Time) bool {
	if full(t.n, len(t.slots)) {
		old := t.slots
		t.slots, t.shift = grown(old, t.shift)
		for _, s := range old {
			if s.from1 != 0 {
				*t.slot(s) = s
			}
		}
	}
	k := edgeSlot{from1: from + 1, to: to, unit: unit<<2 | int32(time)}
	s := t.slot(k)
	if s.from1 != 0 {
		return false
	}
	*s = k
	t.n++
	return true
}

// push appends vs to s, doubling s's capacity when they do not fit.
// Performance: append grows a large slice by a quarter at a time, which
// copies the graph's arrays (a few megabytes each) about four times their
// final size in all; doubling copies them once.
func push[T any](s []T, vs ...T) []T {
	if n := len(s) + len(vs); n > cap(s) {
		t := make([]T, len(s), max(2*cap(s), n, 64))
		copy(t, s)
		s = t
	}
	return append(s, vs...)
}

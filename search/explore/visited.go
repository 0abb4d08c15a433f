package explore

import (
	"math/bits"
	"sync/atomic"
)

// DefaultMaxStates is the default bound of the visited-state set
// (Config.MaxStates): at most this many states are remembered, in at most
// 12 bytes × 2^⌈log2(4/3 · MaxStates)⌉ of memory (96 MiB for the default).
const DefaultMaxStates = 1 << 22

// Bits of a slot's entry: the depth within the round, and the round
// relative to the table's base round.
const (
	depthBits = 20
	roundBits = 32 - depthBits
)

// visited is the set of states the bounded search has seen: for each state
// hash, the round and the depth it was first seen at in that round (get and
// put speak round<<32 | depth). It is an open-addressing table with linear
// probing, 12 bytes a slot (the 64-bit hash; the round since the table's
// base round and the depth, in 32 bits), that grows by doubling until it
// holds max states, and never beyond:
//
//   - Below the bound it behaves like a map: nothing is forgotten.
//   - When it reaches the bound, the states recorded in earlier rounds are
//     dropped (once per round: such an entry never prunes again, since
//     pruning compares rounds). If the states of the round in progress
//     alone fill it, a new state is not recorded (unrecorded counts it).
//   - A state deeper than 2^20 steps is not recorded either; every 2^12
//     rounds the states of earlier rounds are dropped to move the base.
//
// A state that is not recorded is simply not pruned when it is reached
// again: the search does more work, never less. So a full table costs
// coverage per unit of time, not correctness; no state is ever reported
// seen that was not (beyond the 64-bit hash collisions the search always
// accepts).
//
// The coordinator alone uses it: no lock.
type visited struct {
	tab        table    // keys and vals live here (see table)
	keys       []uint64 // state hash; 0 marks an empty slot (hash 0 is stored as 1)
	vals       []uint32 // (round-base)<<depthBits | depth
	base       uint64   // the round vals count from
	shift      uint     // 64 - log2(len(keys))
	count      int      // occupied slots
	max        int      // most occupied slots
	unrecorded int64    // new states not recorded (full table, or too deep)
	purged     uint64   // the last round whose full table was purged, +1
	// forgotten counts the states of earlier rounds purge dropped (read
	// by progress reports while the coordinator runs).
	forgotten atomic.Int64
}

func newVisited(max int) *visited {
	if max <= 0 {
		max = DefaultMaxStates
	}
	v := &visited{max: max}
	v.alloc(min(1024, slotsFor(max)))
	return v
}

// slotsFor returns the table size that holds n states at a load of at most
// 3/4: a power of two.
func slotsFor(n int) int {
	size := 8
	for size*3/4 < n {
		size *= 2
	}
	return size
}

func (v *visited) alloc(size int) {
	v.tab = newTable(size)
	v.keys, v.vals = v.tab.keys, v.tab.vals
	v.shift = 64 - uint(bits.TrailingZeros(uint(size)))
}

// free releases the table; the set is empty and unusable after.
func (v *visited) free() {
	v.tab.free()
	v.keys, v.vals = nil, nil
}

// VisitedBytes returns the most memory the visited-state set of a search
// with Config.MaxStates max (0: the default) takes: its table at the bound
// and, while it grows to it, the half-size table it replaces.
func VisitedBytes(max int) int64 {
	if max <= 0 {
		max = DefaultMaxStates
	}
	return 12 * int64(slotsFor(max)) * 3 / 2
}

func key(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

// home is the first slot to probe for k: the top bits of a Fibonacci
// hash, which depend on all of k's bits.
func (v *visited) home(k uint64) uint64 {
	return (k * 0x9e3779b97f4a7c15) >> v.shift
}

func (v *visited) unpack(x uint32) uint64 {
	return (v.base+uint64(x>>depthBits))<<32 | uint64(x&(1<<depthBits-1))
}

// get returns the entry of state hash h: round<<32 | depth.
func (v *visited) get(h uint64) (uint64, bool) {
	k := key(h)
	mask := uint64(len(v.keys) - 1)
	for i := v.home(k); ; i = (i + 1) & mask {
		switch v.keys[i] {
		case k:
			return v.unpack(v.vals[i]), true
		case 0:
			return 0, false
		}
	}
}

// put records state hash h with entry val (round<<32 | depth), replacing
// its entry if it has one. It reports what it did. Rounds
// never decrease from one call to the next.
func (v *visited) put(h, val uint64) putResult {
	round, depth := val>>32, val&0xffffffff
	if depth >= 1<<depthBits {
		v.unrecorded++
		return putUnrecorded
	}
	if round-v.base >= 1<<roundBits {
		v.rebase(round)
	}
	x := uint32(round-v.base)<<depthBits | uint32(depth)
	k := key(h)
	mask := uint64(len(v.keys) - 1)
	for i := v.home(k); ; i = (i + 1) & mask {
		switch v.keys[i] {
		case k:
			v.vals[i] = x
			return putUpdated
		case 0:
			if v.count >= v.max {
				if v.purged != round+1 {
					v.purged = round + 1
					v.purge(round)
					return v.put(h, val)
				}
				v.unrecorded++
				return putUnrecorded
			}
			v.keys[i], v.vals[i] = k, x
			v.count++
			if v.count > len(v.keys)*3/4 {
				v.grow()
			}
			return putNew
		}
	}
}

// putResult says what put did.
type putResult int

const (
	putNew        putResult = iota // a state not in the set was recorded
	putUpdated                     // a recorded state's round and cost were replaced
	putUnrecorded                  // the state could not be recorded
)

// purge drops the states recorded before round, in place: the table at
// its bound is the search's largest allocation, and a second one beside
// it would double the memory. The entries kept are rehashed in probe
// order starting after a slot that was empty before the purge (a cluster
// boundary: no probe sequence crosses it), so that each lands at or
// before its slot.
func (v *visited) purge(round uint64) {
	start := -1
	for i, k := range v.keys {
		if k == 0 {
			start = i
			break
		}
	}
	if start < 0 {
		return // unreachable: the load is at most 3/4
	}
	v.count = 0
	dropped := 0
	for i, k := range v.keys {
		if k != 0 && v.base+uint64(v.vals[i]>>depthBits) < round {
			v.keys[i], v.vals[i] = 0, 0
			dropped++
		}
	}
	v.forgotten.Add(int64(dropped))
	n := len(v.keys)
	for j := 1; j < n; j++ {
		i := (start + j) % n
		if k := v.keys[i]; k != 0 {
			x := v.vals[i]
			v.keys[i], v.vals[i] = 0, 0
			v.insert(k, x)
		}
	}
}

// rebase drops the states recorded before round and counts rounds from it.
func (v *visited) rebase(round uint64) {
	v.purge(round)
	for i, k := range v.keys {
		if k != 0 {
			v.vals[i] = uint32(v.unpack(v.vals[i])>>32-round)<<depthBits | v.vals[i]&(1<<depthBits-1)
		}
	}
	v.base = round
}

// insert adds key k, known to be absent, with room to spare.
func (v *visited) insert(k uint64, x uint32) {
	mask := uint64(len(v.keys) - 1)
	i := v.home(k)
	for v.keys[i] != 0 {
		i = (i + 1) & mask
	}
	v.keys[i], v.vals[i] = k, x
	v.count++
}

// grow doubles the table, unless that would exceed what max states need.
func (v *visited) grow() {
	if len(v.keys) >= slotsFor(v.max) {
		return
	}
	old, keys, vals := v.tab, v.keys, v.vals
	v.alloc(2 * len(keys))
	v.count = 0
	for j, k := range keys {
		if k != 0 {
			v.insert(k, vals[j])
		}
	}
	old.free()
}

// len returns the number of states recorded.
func (v *visited) len() int { return v.count }

// bytes returns the table's memory.
func (v *visited) bytes() int { return 12 * len(v.keys) }

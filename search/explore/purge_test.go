package explore

import (
	"math/rand/v2"
	"testing"
)

// TestVisitedPurgeInPlace: purging a table whose clusters wrap around its
// end and mix rounds keeps exactly the later round's states, each still
// found, in the same table (no second one beside it).
func TestVisitedPurgeInPlace(t *testing.T) {
	v := newVisited(3000)
	for len(v.keys) < slotsFor(3000) {
		v.grow()
	}
	r := rand.New(rand.NewPCG(7, 8))
	mask := uint64(len(v.keys) - 1)
	round := map[uint64]uint64{}
	for len(round) < 2000 {
		k := r.Uint64() | 2
		// Crowd half the keys into the table's last slots, so that
		// their clusters wrap around to its start.
		if len(round)%2 == 0 && v.home(k) < mask-40 {
			continue
		}
		rd := uint64(1 + len(round)%3%2) // rounds 1 and 2, mixed
		if v.put(k, rd<<32|7) != putNew {
			t.Fatal("not recorded")
		}
		round[k] = rd
	}
	keys := &v.keys[0]
	v.purge(2)
	if &v.keys[0] != keys {
		t.Fatal("purge allocated a new table")
	}
	kept := 0
	for k, rd := range round {
		got, ok := v.get(k)
		if ok != (rd == 2) || ok && got != 2<<32|7 {
			t.Fatalf("state %x of round %d after the purge: %x %v", k, rd, got, ok)
		}
		if ok {
			kept++
		}
	}
	if v.len() != kept {
		t.Fatalf("len %d, %d kept", v.len(), kept)
	}
	v.free()
	if VisitedBytes(0) != 12*int64(slotsFor(DefaultMaxStates))*3/2 {
		t.Fatal("VisitedBytes of the default")
	}
}

package explore

import (
	"math/rand/v2"
	"testing"
)

// Below its bound the table is a map: every state put is found with its
// latest entry, and nothing else is.
func TestVisitedIsAMapBelowTheBound(t *testing.T) {
	v := newVisited(1 << 20)
	want := map[uint64]uint64{}
	r := rand.New(rand.NewPCG(1, 2))
	keys := []uint64{0, 1} // 0 and 1 share a slot key: 0 is stored as 1
	for range 50000 {
		keys = append(keys, r.Uint64())
	}
	for i, k := range keys {
		if k == 1 {
			continue // see above: a hash of 1 would alias 0
		}
		val := uint64(i%7)<<32 | uint64(i)
		if v.put(k, val) == putUnrecorded {
			t.Fatalf("put %d refused below the bound", i)
		}
		want[k] = val
		if i%3 == 0 { // update an earlier state
			j := keys[r.IntN(i+1)]
			if j != 1 {
				v.put(j, val+1)
				want[j] = val + 1
			}
		}
	}
	if v.len() != len(want) || v.unrecorded != 0 {
		t.Fatalf("len %d unrecorded %d, want %d 0", v.len(), v.unrecorded, len(want))
	}
	for k, val := range want {
		if got, ok := v.get(k); !ok || got != val {
			t.Fatalf("get(%x) = %x %v, want %x", k, got, ok, val)
		}
	}
	for range 1000 {
		if k := r.Uint64(); want[k] == 0 {
			if _, ok := v.get(k); ok {
				t.Fatalf("get(%x) found a state never put", k)
			}
		}
	}
	if v.bytes() > 12*slotsFor(1<<20) || len(v.keys)*3/4 < v.len() {
		t.Errorf("table of %d slots (%d bytes) for %d states", len(v.keys), v.bytes(), v.len())
	}
}

// At its bound the table records no new state of the same round, keeps
// every state it recorded, still updates them, and never grows.
func TestVisitedRespectsTheBound(t *testing.T) {
	const max = 100
	v := newVisited(max)
	r := rand.New(rand.NewPCG(3, 4))
	var keys []uint64
	var recorded []uint64
	for range 1000 {
		k := r.Uint64() | 2
		keys = append(keys, k)
		if v.put(k, 1<<32|5) != putUnrecorded {
			recorded = append(recorded, k)
		}
	}
	if v.len() != max || len(recorded) != max || v.unrecorded != 1000-max {
		t.Fatalf("len %d, %d recorded, %d unrecorded; want %d, %d, %d", v.len(), len(recorded), v.unrecorded, max, max, 1000-max)
	}
	if len(v.keys) != slotsFor(max) {
		t.Errorf("%d slots, want %d", len(v.keys), slotsFor(max))
	}
	in := map[uint64]bool{}
	for _, k := range recorded {
		in[k] = true
		if got, ok := v.get(k); !ok || got != 1<<32|5 {
			t.Fatalf("recorded state %x lost: %x %v", k, got, ok)
		}
		if v.put(k, 1<<32|3) == putUnrecorded { // a shallower occurrence in the same round
			t.Fatalf("update of %x refused", k)
		}
		if got, _ := v.get(k); got != 1<<32|3 {
			t.Fatalf("update of %x not kept", k)
		}
	}
	for _, k := range keys {
		if _, ok := v.get(k); ok != in[k] {
			t.Fatalf("get(%x) = %v, recorded %v", k, ok, in[k])
		}
	}
}

// A full table drops the states of earlier rounds (which never prune
// again) to make room for the states of the round in progress.
func TestVisitedFullTableReusesEarlierRounds(t *testing.T) {
	const max = 100
	v := newVisited(max)
	r := rand.New(rand.NewPCG(5, 6))
	for v.len() < max {
		v.put(r.Uint64()|2, 1<<32|4)
	}
	var round2 []uint64
	for range max {
		k := r.Uint64() | 2
		if v.put(k, 2<<32|4) != putUnrecorded {
			round2 = append(round2, k)
		}
	}
	if len(round2) != max || v.len() != max || v.unrecorded != 0 {
		t.Fatalf("%d of %d round-2 states recorded, len %d", len(round2), max, v.len())
	}
	for _, k := range round2 {
		if got, ok := v.get(k); !ok || got != 2<<32|4 {
			t.Fatalf("round-2 state %x: %x %v", k, got, ok)
		}
	}
}

// States too deep for a slot are not recorded; rounds far apart move the
// table's base round, dropping the states of earlier rounds.
func TestVisitedDepthAndRoundLimits(t *testing.T) {
	v := newVisited(100)
	if v.put(7, 1<<32|1<<depthBits) != putUnrecorded || v.unrecorded != 1 {
		t.Fatal("a state deeper than a slot holds was recorded")
	}
	if v.put(7, 1<<32|(1<<depthBits-1)) == putUnrecorded {
		t.Fatal("the deepest state a slot holds was not recorded")
	}
	for round := uint64(1); round < 3<<roundBits; round += 97 {
		k := round<<8 | 3
		if v.put(k, round<<32|9) == putUnrecorded {
			t.Fatalf("round %d refused", round)
		}
		if got, ok := v.get(k); !ok || got != round<<32|9 {
			t.Fatalf("round %d: got %x %v", round, got, ok)
		}
		if v.len() > 1<<roundBits/97+2 {
			t.Fatalf("round %d: %d states kept across rebases", round, v.len())
		}
	}
}

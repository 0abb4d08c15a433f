package fair

import (
	"math/rand/v2"
	"testing"
)

// TestTablesAgainstMaps checks the graph's tables against maps: keys and
// transitions drawn from small ranges (so that many repeat and collide),
// through several growths.
func TestTablesAgainstMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var ids idTable
	want := map[uint64]int32{}
	var es edgeSet
	wantE := map[[4]int32]bool{}
	for i := range 200000 {
		key := r.Uint64N(50000) << (r.IntN(2) * 40) // 0 and large keys too
		id, ok := ids.get(key)
		wid, wok := want[key]
		if ok != wok || ok && id != wid {
			t.Fatalf("step %d: get(%d) = %d, %v; want %d, %v", i, key, id, ok, wid, wok)
		}
		if !ok {
			ids.put(key, int32(i))
			want[key] = int32(i)
		}
		e := [4]int32{int32(r.IntN(300)), int32(r.IntN(300)), int32(r.IntN(4)) - 1, int32(r.IntN(3))}
		if added := es.add(e[0], e[1], e[2], Time(e[3])); added == wantE[e] {
			t.Fatalf("step %d: add(%v) = %v with the transition recorded %v", i, e, added, wantE[e])
		}
		wantE[e] = true
	}
	if ids.n != len(want) || es.n != len(wantE) {
		t.Fatalf("%d ids and %d transitions, want %d and %d", ids.n, es.n, len(want), len(wantE))
	}
}

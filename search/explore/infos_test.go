package explore

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStateInfosKeepTheFirstPut puts the infos of many states (enough that
// every shard's table grows several times, hash 0 among them) twice, the
// second time with other values, and reads each back as first put.
func TestStateInfosKeepTheFirstPut(t *testing.T) {
	var si stateInfos
	r := rand.New(rand.NewPCG(1, 2))
	hashes := []uint64{0, 1}
	for range 20000 {
		hashes = append(hashes, r.Uint64())
	}
	unitsOf := func(h uint64) []uint64 { return []uint64{h, h ^ 1}[:h%3&1+h%2] }
	for _, h := range hashes {
		si.put(h, h%2 == 0, unitsOf(h))
	}
	for _, h := range hashes {
		si.put(h, h%2 == 1, []uint64{7, 7, 7})
	}
	for _, h := range hashes {
		hot, units, ok := si.get(h, []uint64{42})
		if !ok || hot != (h%2 == 0) || !slices.Equal(units, append([]uint64{42}, unitsOf(h)...)) {
			t.Fatalf("get(%#x) = %v, %v, %v; want %v, [42 %v], true", h, hot, units, ok, h%2 == 0, unitsOf(h))
		}
	}
	if _, _, ok := si.get(3, nil); ok {
		t.Errorf("get(3) found a state never put")
	}
}

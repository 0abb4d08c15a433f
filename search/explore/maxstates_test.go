package explore_test

import (
	"testing"

	"github.com/macemc/macemc/search/explore"
)

// Bounding the visited set costs pruning, never answers: with a small bound
// the search runs more paths than with an unbounded set and fewer than
// without hashing, records at most the bound, and still finds the
// violations; with a bound above the number of states it is unchanged.
func TestMaxStatesDegradesToLessPruning(t *testing.T) {
	stats := func(c explore.Config) explore.Stats { return counterStats(t, c, 7, 7) }
	full, plain := stats(explore.Config{}), stats(explore.Config{NoHashing: true})
	small := stats(explore.Config{MaxStates: int(full.DistinctStates / 4)})
	if small.DistinctStates > full.DistinctStates/4 || small.Unrecorded == 0 {
		t.Errorf("bound %d: %d states recorded, %d unrecorded", full.DistinctStates/4, small.DistinctStates, small.Unrecorded)
	}
	if !(full.Paths < small.Paths && small.Paths < plain.Paths) {
		t.Errorf("paths: unbounded %d (%d pruned), bounded %d (%d pruned), no hashing %d", full.Paths, full.Pruned, small.Paths, small.Pruned, plain.Paths)
	}
	same := stats(explore.Config{MaxStates: int(full.DistinctStates)})
	if same.Paths != full.Paths || same.Pruned != full.Pruned || same.DistinctStates != full.DistinctStates || same.Unrecorded != 0 {
		t.Errorf("a bound that fits changed the search: %+v vs %+v", same, full)
	}

	for _, max := range []int{1, 2, 5} {
		res, err := run(explore.Config{System: diamondConfig(), DepthStep: 6, MaxDepth: 6, WalkDepth: 6, Workers: 1, MaxStates: max})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != explore.Safety || res.Violations[0].Property != "NotBroken" || res.Stats.DistinctStates > int64(max) {
			t.Errorf("MaxStates %d: %v %+v", max, res.Verdict, res.Stats)
		}
		res, err = run(explore.Config{System: stuckConfig(), WalkDepth: 300, Seed: 7, Workers: 2, MaxPaths: 2000, MaxStates: max})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != explore.Liveness || res.Violations[0].Property != "AllDone" {
			t.Errorf("MaxStates %d: %v %+v", max, res.Verdict, res.Stats)
		}
	}
}

// A full set that drops an earlier round's states to record a later
// round's says so (Forgotten): a state recorded again is counted again in
// DistinctStates, which may then pass the bound.
func TestMaxStatesForgetsEarlierRounds(t *testing.T) {
	run1 := func(c explore.Config) explore.Stats { return counterStats(t, c, 3, 9) }
	full := run1(explore.Config{})
	if full.Forgotten != 0 {
		t.Fatalf("an unbounded set forgot %d states", full.Forgotten)
	}
	max := int(full.DistinctStates / 2)
	small := run1(explore.Config{MaxStates: max})
	if small.Forgotten == 0 || small.DistinctStates <= int64(max) {
		t.Errorf("bound %d: %d forgotten, %d counted (unbounded: %d, %d rounds)", max, small.Forgotten, small.DistinctStates, full.DistinctStates, full.Rounds)
	}
}

// counterStats runs c on counterConfig(3, 3) with one worker, rounds of
// step up to depth, walks as deep as depth, and returns its statistics.
func counterStats(t *testing.T, c explore.Config, step, depth int) explore.Stats {
	t.Helper()
	c.System, c.DepthStep, c.MaxDepth, c.WalkDepth, c.Workers = counterConfig(3, 3), step, depth, depth, 1
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	return res.Stats
}

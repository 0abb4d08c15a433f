package delay_test

import (
	"context"
	"slices"
	"testing"

	"github.com/macemc/macemc/search/delay"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/internal/strattest"
	"github.com/macemc/macemc/sim"
)

func rounds(t *testing.T, params sim.Params) ([][]string, explore.Status) {
	return strattest.Rounds(t, delay.Strategy{}, explore.Setup{Params: params}, strattest.Pair(), 1000)
}

// TestRoundRobinSchedules counts by hand, on strattest.Pair (the six
// interleavings of a a and b b). Round-robin over the sources a
// and b (created in that order), one event each: with no delay a b a b.
// One delay, at step 1: b a b a (after b it is a's turn); at step 2: a a
// b b; at step 3: a b b a; at step 4 only one source is left. Two delays:
// at steps 1 and 2, b b a a; at 1 and 3, b a a b; at 2 and 3 nothing is
// left to choose. So bounds 0, 1, 2 give 1, 4 and 6 schedules, the last
// all six interleavings, and no schedule of bound 2 needs a third delay:
// the search is exhausted after three rounds.
func TestRoundRobinSchedules(t *testing.T) {
	got, st := rounds(t, sim.Params{"base": "rr"})
	want := [][]string{
		{"abab"},
		{"abab", "abba", "aabb", "baba"},
		{"abab", "abba", "aabb", "baba", "baab", "bbaa"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("schedules per round:\n got %v\nwant %v", got, want)
	}
	if st.Done != explore.StopExhausted || st.Rounds != 3 {
		t.Fatalf("status %+v, want exhausted after 3 rounds", st)
	}
}

// TestRunToCompletionSchedules counts by hand. Run to completion: a and b
// become enabled together, a on top; a source runs while it has events: a
// a b b. A delay moves the top source to the bottom. One delay: at step 1,
// b b a a; at step 2, a b b a. Two: at 1 and 2 (b, then a delayed past b
// again... b runs, then a's turn is delayed: b moves down) b a a b; at 2
// and 3, a b a b. Three: at 1, 2 and 3, b a b a. Bounds 0 to 3 give 1, 3,
// 5 and 6 schedules: run to completion needs one more delay than
// round-robin for the fully alternating schedules.
func TestRunToCompletionSchedules(t *testing.T) {
	got, st := rounds(t, sim.Params{"base": "rtc"})
	want := [][]string{
		{"aabb"},
		{"aabb", "abba", "bbaa"},
		{"aabb", "abba", "abab", "bbaa", "baab"},
		{"aabb", "abba", "abab", "bbaa", "baab", "baba"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("schedules per round:\n got %v\nwant %v", got, want)
	}
	if st.Done != explore.StopExhausted || st.Rounds != 4 {
		t.Fatalf("status %+v, want exhausted after 4 rounds", st)
	}
}

// TestMaxBound: with max 1 the search stops after bound 1 (StopDepth),
// although bound 2 would find more.
func TestMaxBound(t *testing.T) {
	got, st := rounds(t, sim.Params{"max": "1"})
	if len(got) != 2 || st.Done != explore.StopDepth {
		t.Fatalf("%d rounds, status %+v; want 2 rounds, stopped at the depth", len(got), st)
	}
}

// TestPruneByDelays runs round-robin through the executor, which prunes a
// state reached before in the round with no more delays spent (the
// state is the pair of counters, the scheduler's cursor is not part of
// it). By hand, with (i, j) the requests a and b handled:
//
//	bound 0: abab, 4 new states (1,0) (1,1) (2,1) (2,2).
//	bound 1: abab; ab·b reaches (1,2) (new, 1 delay) and then (2,2),
//	         seen with 0: pruned; a·a reaches (2,0) (new) and then (2,1),
//	         seen with 0: pruned; ·b reaches (0,1) (new) and then a's
//	         turn gives (1,1), seen with 0: pruned. 4 paths, 3 pruned.
//	bound 2: the same four, and ·b·b reaches (0,2) (new, 2 delays) and
//	         then (1,2), seen with 1: pruned. 5 paths, 4 pruned.
//
// 10 paths, 7 pruned, 8 distinct states (all but the initial one); no
// choice needed a third delay: exhausted.
func TestPruneByDelays(t *testing.T) {
	res, err := explore.Run(context.Background(), explore.Config{System: strattest.Pair(), Strategy: delay.Strategy{},
		StrategyParams: sim.Params{"base": "rr"}, WalkDepth: 100, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Paths != 10 || st.Pruned != 7 || st.DistinctStates != 8 || st.Rounds != 3 || st.Stop != explore.StopExhausted {
		t.Fatalf("stats %+v; want 10 paths, 7 pruned, 8 states, 3 rounds, exhausted", st)
	}
}

// TestOptions: bad options are errors, steps is capped by the search's
// depth.
func TestOptions(t *testing.T) {
	for _, p := range []sim.Params{{"base": "fifo"}, {"steps": "0"}, {"max": "-1"}} {
		if _, err := (delay.Strategy{}).New(explore.Setup{Params: p}); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
	ex, err := delay.Strategy{}.New(explore.Setup{MaxDepth: 7})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := ex.Next(nil); p.Depth != 7 {
		t.Fatalf("depth %d, want --depth's 7", p.Depth)
	}
}

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

func rounds(t *testing.T, cfg *sim.Config, params sim.Params) ([][]string, explore.Status) {
	return strattest.Rounds(t, delay.Strategy{}, explore.Setup{Params: params}, cfg, 1000)
}

// TestPairSchedules counts each base scheduler's schedules by hand, on
// strattest.Pair (the six interleavings of a a and b b), round by round.
//
// rr, seed 002's round-robin over the sources a and b (created in that
// order): the source whose turn it is runs until it has no event left, so
// with no delay a a b b. One delay, at step 1: b's turn, b b a a; at step
// 2: a b b a; at step 3 only b is left. Two delays: at steps 1 and 2, b a
// a b; at 2 and 3, a b a b. Three, at 1, 2 and 3: b a b a. So bounds 0 to
// 3 give 1, 3, 5 and 6 schedules, and no schedule of bound 3 needs a
// fourth delay: exhausted after four rounds.
//
// rr-event, one event per turn: with no delay a b a b. One delay, at step
// 1: b a b a (after b it is a's turn); at step 2: a a b b; at step 3: a b
// b a; at step 4 only one source is left. Two delays: at steps 1 and 2, b
// b a a; at 1 and 3, b a a b; at 2 and 3 nothing is left to choose. So
// bounds 0, 1, 2 give 1, 4 and 6 schedules: exhausted after three rounds.
//
// rtc, run to completion: a and b become enabled together, a on top; a
// source runs while it has events: a a b b. A delay moves the top source
// to the bottom. One delay: at step 1, b b a a; at step 2, a b b a. Two:
// at 1 and 2 (b runs, then a's turn is delayed: b moves down) b a a b; at
// 2 and 3, a b a b. Three: at 1, 2 and 3, b a b a. On two sources with
// nothing causal between them run to completion and round-robin agree.
func TestPairSchedules(t *testing.T) {
	rr := [][]string{
		{"aabb"},
		{"aabb", "abba", "bbaa"},
		{"aabb", "abba", "abab", "bbaa", "baab"},
		{"aabb", "abba", "abab", "bbaa", "baab", "baba"},
	}
	for base, want := range map[string][][]string{
		"rr": rr,
		"rr-event": {
			{"abab"},
			{"abab", "abba", "aabb", "baba"},
			{"abab", "abba", "aabb", "baba", "baab", "bbaa"},
		},
		"rtc": rr,
	} {
		got, st := rounds(t, strattest.Pair(), sim.Params{"base": base})
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: schedules per round:\n got %v\nwant %v", base, got, want)
		}
		if st.Done != explore.StopExhausted || st.Rounds != len(want) {
			t.Errorf("%s: status %+v, want exhausted after %d rounds", base, st, len(want))
		}
	}
}

// TestDelaysCostK: skipping k events costs k delays. Three nodes a, b, c
// of one request each (strattest.Nodes(3, 1)), every base scheduler (with
// one event per source they agree): with no delay a b c. One delay: at
// step 1 b runs, then c and a: b c a; at step 2, a c b. Two: c at step 1
// (two skipped), then a b: c a b; or one delay at step 1 and one at step
// 2: b a c. Three: c b a (two at step 1, one at step 2). Bounds 0 to 3
// give 1, 3, 5 and 6 schedules.
func TestDelaysCostK(t *testing.T) {
	want := [][]string{
		{"abc"},
		{"abc", "acb", "bca"},
		{"abc", "acb", "bca", "bac", "cab"},
		{"abc", "acb", "bca", "bac", "cab", "cba"},
	}
	for _, base := range delay.Bases {
		got, st := rounds(t, strattest.Nodes(3, 1), sim.Params{"base": base})
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: schedules per round:\n got %v\nwant %v", base, got, want)
		}
		if st.Done != explore.StopExhausted || st.Rounds != 4 {
			t.Errorf("%s: status %+v, want exhausted after 4 rounds", base, st)
		}
	}
}

// chain is one node of the Chain system: node a's request sends a message
// to b, node c's request does nothing.
type chain struct{ sim.Base }

func (chain) HandleApp(ctx *sim.Context, _ any) {
	if ctx.Self() == 0 {
		ctx.Send(1, "m")
	}
}

// TestCausalOrder: run to completion follows causal chains, round-robin
// creation order. Nodes a and c have a request each, a's sends a message
// to b. Round-robin (both kinds): a, then c's turn (created before the
// connection a→b), then b: a c b. Run to completion: a, then the
// connection its step enabled, pushed on top: a b c. One delay reaches the
// other two interleavings in which a comes before b, at step 1 (c a b) or
// at step 2 (a b c, or a c b for run to completion); no schedule needs a
// second delay.
func TestCausalOrder(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   3,
		Service: func(sim.NodeID) sim.Service { return chain{} },
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return nil
			}
			return []any{1}
		},
	}
	for base, want := range map[string][][]string{
		"rr":       {{"acb"}, {"acb", "abc", "cab"}},
		"rr-event": {{"acb"}, {"acb", "abc", "cab"}},
		"rtc":      {{"abc"}, {"abc", "acb", "cab"}},
	} {
		got, st := rounds(t, cfg, sim.Params{"base": base})
		if !slices.EqualFunc(got, want, slices.Equal) || st.Done != explore.StopExhausted {
			t.Errorf("%s: schedules per round %v, status %+v; want %v, exhausted", base, got, st, want)
		}
	}
}

// TestMaxBound: with max 1 the search stops after bound 1 (StopDepth),
// although bound 2 would find more.
func TestMaxBound(t *testing.T) {
	got, st := rounds(t, strattest.Pair(), sim.Params{"max": "1"})
	if len(got) != 2 || st.Done != explore.StopDepth {
		t.Fatalf("%d rounds, status %+v; want 2 rounds, stopped at the depth", len(got), st)
	}
}

// TestPruneByDelays runs the base schedulers through the executor, which
// prunes a state reached before in the round with no more delays spent
// (the state is the pair of counters, the scheduler's turn is not part of
// it). By hand, with (i, j) the requests a and b handled. Round-robin
// (rr), a source running until it has no event left:
//
//	bound 0: aabb, 4 new states (1,0) (2,0) (2,1) (2,2).
//	bound 1: aabb; a·b reaches (1,1) (new, 1 delay), then b's turn gives
//	         (1,2) (new) and (2,2), seen with 0: pruned; ·b reaches
//	         (0,1) (new, 1 delay) and (0,2) (new), then (1,2), seen with
//	         1: pruned. 3 paths, 2 pruned.
//	bound 2: the same three and two more: a·b·a reaches (2,1), seen
//	         with 0, and ·b·a reaches (1,1), seen with 1 ≤ 2: both
//	         pruned. 5 paths, 4 pruned.
//
// 9 paths, 6 pruned, 8 distinct states (all but the initial one); no
// choice needed a third delay: exhausted. Run to completion makes the same
// schedules on Pair (TestRunToCompletionSchedules), so the same counts.
// Round-robin with one event per turn (rr-event):
//
//	bound 0: abab, 4 new states (1,0) (1,1) (2,1) (2,2).
//	bound 1: abab; ab·b reaches (1,2) (new, 1 delay) and then (2,2),
//	         seen with 0: pruned; a·a reaches (2,0) (new) and then (2,1),
//	         seen with 0: pruned; ·b reaches (0,1) (new) and then a's
//	         turn gives (1,1), seen with 0: pruned. 4 paths, 3 pruned.
//	bound 2: the same four, and ·b·b reaches (0,2) (new, 2 delays) and
//	         then (1,2), seen with 1: pruned. 5 paths, 4 pruned.
//
// 10 paths, 7 pruned, 8 states, exhausted after 3 rounds.
func TestPruneByDelays(t *testing.T) {
	for _, c := range []struct {
		base          string
		paths, pruned int64
	}{{"rr", 9, 6}, {"rtc", 9, 6}, {"rr-event", 10, 7}} {
		res, err := explore.Run(context.Background(), explore.Config{System: strattest.Pair(), Strategy: delay.Strategy{},
			StrategyParams: sim.Params{"base": c.base}, WalkDepth: 100, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		st := res.Stats
		if st.Paths != c.paths || st.Pruned != c.pruned || st.DistinctStates != 8 || st.Rounds != 3 || st.Stop != explore.StopExhausted {
			t.Errorf("%s: stats %+v; want %d paths, %d pruned, 8 states, 3 rounds, exhausted", c.base, st, c.paths, c.pruned)
		}
	}
}

// fan is one node of the Fan system: node a's request sends a message to
// b and one to c; node d has a request of its own.
type fan struct{ sim.Base }

func (fan) HandleApp(ctx *sim.Context, _ any) {
	if ctx.Self() == 0 {
		ctx.Send(1, "m")
		ctx.Send(2, "m")
	}
}

// TestPruneByCost is where pruning by delays (explore.Coster) differs
// from seed 002's Figure 1, which never explores a cached state again.
// Fan under run to completion: sources A (a's request), D (d's), and B, C
// (a's messages to b and c, enabled by A and pushed on top, so that they
// run before D). By hand, a state being the events that ran:
//
//	bound 0: A B C D; 4 new states.
//	bound 1: A B C D; A B·D, then C: pruned (ABCD, 0); A·C D, then B:
//	         pruned; ·D A, then B: pruned (ABD, 1). 4 paths, 3 pruned.
//	bound 2: the same four and A·C·B, pruned (ABC, 0); A··D (two delays,
//	         past B and C) reaches AD with 2, then B: pruned (ABD, 1);
//	         ·D A reaches AD with 1 < 2: explored again, then B: pruned;
//	         ·D A·C: pruned (ACD, 1). 7 paths, 6 pruned.
//	bound 3: the same seven and A··D·C, pruned (ACD, 1). 8 paths, 7
//	         pruned; no choice needed a fourth delay: exhausted.
//
// 20 paths, 16 pruned, 9 states. Figure 1's rule would end ·D A at AD in
// bounds 2 and 3 (and never run ·D A·C): 18 paths, 14 pruned.
func TestPruneByCost(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   4,
		Service: func(sim.NodeID) sim.Service { return fan{} },
		App: func(id sim.NodeID) []any {
			if id == 0 || id == 3 {
				return []any{1}
			}
			return nil
		},
	}
	res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: delay.Strategy{},
		StrategyParams: sim.Params{"base": "rtc"}, WalkDepth: 100, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Paths != 20 || st.Pruned != 16 || st.DistinctStates != 9 || st.Rounds != 4 || st.Stop != explore.StopExhausted {
		t.Errorf("stats %+v; want 20 paths, 16 pruned, 9 states, 4 rounds, exhausted", st)
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

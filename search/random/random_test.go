package random_test

import (
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/internal/strattest"
	"github.com/macemc/macemc/search/random"
	"github.com/macemc/macemc/sim"
)

// TestUniform: 8,000 random schedules of strattest.Pair, counted by hand.
// Each step picks one of the enabled drivers with probability 1/2 while
// both have requests: a a b b and b b a a need two heads in a row (1/4
// each), the four schedules that switch in the middle three each (1/8
// each). Tolerance: 5 standard deviations (about 194 for 1/4, 148 for
// 1/8).
func TestUniform(t *testing.T) {
	const n = 8000
	got, st := strattest.Rounds(t, random.Strategy{}, explore.Setup{Seed: 3}, strattest.Pair(), n)
	if len(got) != 1 || len(got[0]) != n || st.Done != explore.StopNone {
		t.Fatalf("%d rounds, status %+v", len(got), st)
	}
	want := map[string]float64{"aabb": 0.25, "bbaa": 0.25, "abab": 0.125, "abba": 0.125, "baab": 0.125, "baba": 0.125}
	c := strattest.Count(got[0])
	t.Logf("%v", c)
	for s, k := range c {
		p, ok := want[s]
		if !ok {
			t.Fatalf("impossible schedule %s", s)
		}
		if d := float64(k) - p*n; d > 200 || d < -200 {
			t.Errorf("schedule %s: %d of %d, want %.0f", s, k, n, p*n)
		}
	}
	if len(c) != len(want) {
		t.Errorf("%d schedules occurred, want %d", len(c), len(want))
	}
}

// ticker is node b of TestUnweighted: a timer that fires twice.
type ticker struct {
	sim.Base
	N int
}

func (t *ticker) Start(ctx *sim.Context) { ctx.SetTimer("t") }

func (t *ticker) HandleTimer(ctx *sim.Context, _ string) {
	if t.N++; t.N < 2 {
		ctx.SetTimer("t")
	}
}

// TestUnweighted: the random strategy ignores the walks' weights. Node a
// has two driver requests (weight 40 in a walk), node b a timer that fires
// twice (weight 1): the executions are the interleavings of a a and b b,
// each step uniform between the two while both have events, so the
// probabilities of TestUniform, where a weighted choice would run a a b b
// in (40/41)² ≈ 95% of the schedules.
func TestUnweighted(t *testing.T) {
	const n = 8000
	cfg := &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 1 {
				return &ticker{}
			}
			return &sim.Base{}
		},
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{1, 2}
			}
			return nil
		},
	}
	got, _ := strattest.Rounds(t, random.Strategy{}, explore.Setup{Seed: 3}, cfg, n)
	c := strattest.Count(got[0])
	t.Logf("%v", c)
	if d := float64(c["aabb"]) - 0.25*n; d > 200 || d < -200 {
		t.Errorf("a a b b: %d of %d, want %.0f", c["aabb"], n, 0.25*n)
	}
	if d := float64(c["abab"]) - 0.125*n; d > 150 || d < -150 {
		t.Errorf("a b a b: %d of %d, want %.0f", c["abab"], n, 0.125*n)
	}
}

// TestSteps: the bounded part is the steps option, capped by the search's
// depth.
func TestSteps(t *testing.T) {
	for _, tc := range []struct {
		setup explore.Setup
		want  int
	}{
		{explore.Setup{}, random.DefaultSteps},
		{explore.Setup{Params: map[string]string{"steps": "30"}}, 30},
		{explore.Setup{Params: map[string]string{"steps": "30"}, MaxDepth: 12}, 12},
	} {
		ex, err := random.Strategy{}.New(tc.setup)
		if err != nil {
			t.Fatal(err)
		}
		if p, _ := ex.Next(nil); p.Depth != tc.want || p.Prune {
			t.Errorf("%+v: depth %d prune %v, want %d and no pruning", tc.setup, p.Depth, p.Prune, tc.want)
		}
	}
	if _, err := (random.Strategy{}).New(explore.Setup{Params: map[string]string{"steps": "-1"}}); err == nil {
		t.Error("steps -1: no error")
	}
}

package pct_test

import (
	"maps"
	"math"
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/internal/strattest"
	"github.com/macemc/macemc/search/pct"
	"github.com/macemc/macemc/sim"
)

// within checks that each schedule's count is within 5 standard
// deviations of n times its probability, and that no other schedule
// occurred.
func within(t *testing.T, got map[string]int, want map[string]float64, n int) {
	t.Helper()
	for s, c := range got {
		p, ok := want[s]
		if !ok {
			t.Errorf("schedule %s occurred %d times, probability 0", s, c)
			continue
		}
		tol := 5 * math.Sqrt(float64(n)*p*(1-p))
		if d := float64(c) - p*float64(n); d > tol || d < -tol {
			t.Errorf("schedule %s: %d of %d, want %.0f ± %.0f", s, c, n, p*float64(n), tol)
		}
	}
	for s := range want {
		if got[s] == 0 && want[s] > 0 {
			t.Errorf("schedule %s never occurred", s)
		}
	}
}

// TestDistribution: 8,000 PCT schedules of strattest.Pair (sources a and
// b, two events each) with k = 4 steps, counted by hand. Depth 1 (no change
// point): the source with the higher priority runs to the end, a a b b or
// b b a a, each with probability 1/2. Depth 2: one change point, uniform
// over steps 1-4; with a above b it demotes a after step 1 (a b b a) or
// changes nothing (steps 2-4: a a b b), so a a b b and b b a a 3/8 each,
// a b b a and b a a b 1/8 each, never a b a b or b a b a (they need two
// changes). The depth-2 bug "a b b a" is found with probability exactly
// 1/(n·k^(d-1)) = 1/8, PCT's bound. Depth 3: two change points, 16
// equally likely pairs of steps, change point i demoting to priority i.
// With a above b, a is demoted at step 1 unless neither point is there
// (9/16: a a b b); a b a b needs b demoted at step 2 below a, change point
// 1 at step 2 and change point 2 at step 1 (1/16); the other 6/16 give a
// b b a. So a a b b and b b a a 9/32 each, a b b a and b a a b 3/16 each,
// and the depth-3 bug "a b a b" 1/32 = 1/(n·k^(d-1)), PCT's bound again.
// Tolerance: 5 standard deviations.
func TestDistribution(t *testing.T) {
	const n = 8000
	for _, tc := range []struct {
		depth string
		want  map[string]float64
	}{
		{"1", map[string]float64{"aabb": 0.5, "bbaa": 0.5}},
		{"2", map[string]float64{"aabb": 3.0 / 8, "bbaa": 3.0 / 8, "abba": 1.0 / 8, "baab": 1.0 / 8}},
		{"3", map[string]float64{"aabb": 9.0 / 32, "bbaa": 9.0 / 32, "abba": 3.0 / 16, "baab": 3.0 / 16, "abab": 1.0 / 32, "baba": 1.0 / 32}},
	} {
		for _, unit := range []string{"source", "node"} {
			got, st := strattest.Rounds(t, pct.Strategy{}, explore.Setup{Seed: 7, Params: sim.Params{"depth": tc.depth, "steps": "4", "unit": unit}}, strattest.Pair(), n)
			if len(got) != 1 || len(got[0]) != n || st.Done != explore.StopNone {
				t.Fatalf("depth %s: %d rounds, status %+v", tc.depth, len(got), st)
			}
			t.Logf("depth %s, unit %s: %v", tc.depth, unit, strattest.Count(got[0]))
			within(t, strattest.Count(got[0]), tc.want, n)
		}
	}
}

// TestDeterministic: the same seed gives the same schedules, another seed
// others.
func TestDeterministic(t *testing.T) {
	run := func(seed uint64) []string {
		got, _ := strattest.Rounds(t, pct.Strategy{}, explore.Setup{Seed: seed, Params: sim.Params{"steps": "4"}}, strattest.Pair(), 200)
		return got[0]
	}
	a, b, c := run(1), run(1), run(2)
	if !maps.Equal(strattest.Count(a), strattest.Count(b)) || len(a) != len(b) {
		t.Fatal("same seed, different schedules")
	}
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Fatal("seeds 1 and 2 gave the same 200 schedules")
	}
}

// TestOptions: bad options are errors.
func TestOptions(t *testing.T) {
	for _, p := range []sim.Params{{"depth": "0"}, {"depth": "6", "steps": "4"}, {"unit": "thread"}, {"steps": "0"}} {
		if _, err := (pct.Strategy{}).New(explore.Setup{Params: p}); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
}

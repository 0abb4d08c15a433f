package randtree

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/sim"
)

// dMax is the walk length after which a walk that never reached a live
// state counts as stuck (seed 003's d_max, scaled to this small system).
const dMax = 5000

// newConfig builds the registered system's config from params.
func newConfig(t testing.TB, params map[string]string) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(SystemName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(params)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// failureBudget is the number of failures an execution of cfg may have.
func failureBudget(cfg *sim.Config) int {
	return cfg.Failures.Resets + cfg.Failures.Breaks + cfg.Failures.Drops
}

// walk runs s with its chooser for at most maxSteps more steps, checking
// the safety properties after every step, and reports whether it reached
// a state where every liveness property holds. With failures on, a state
// only counts once the failure budget is spent (or nothing is left to
// happen but failures), so that a walk is not called live before the
// failures it will suffer.
func walk(s *sim.Sim, maxSteps int, failuresLeft int) (live bool, err error) {
	cfg := s.Config()
	end := s.Steps() + maxSteps
	for s.Steps() < end {
		ok, err := s.Step()
		if err != nil {
			return false, err
		}
		if !ok {
			return s.AllHold(cfg.Liveness)
		}
		if s.LastEvent().Kind.IsFailure() {
			failuresLeft--
		}
		if i, err := s.FirstViolated(cfg.Safety); err != nil || i >= 0 {
			return false, fmt.Errorf("safety property violated at step %d (%v): %v", s.Steps(), s.LastEvent(), err)
		}
		if failuresLeft > 0 {
			continue
		}
		if live, err := s.AllHold(cfg.Liveness); err != nil || live {
			return live, err
		}
	}
	return false, nil
}

// recoveries counts how many of k random walks of dMax steps from a
// snapshot of s reach a live state (seed 003's Recovers(E, i, k)). Walks
// run without injected failures, as the original's "gusto" walks do.
func recoveries(t testing.TB, s *sim.Sim, k int, seed uint64) int {
	t.Helper()
	n := 0
	for i := range k {
		c := s.Clone(sim.NewRandom(seed + uint64(i)))
		c.SetFailures(false)
		live, err := walk(c, dMax, 0)
		if err != nil {
			t.Fatal(err)
		}
		if live {
			n++
		}
	}
	return n
}

// step runs the one ready event that matches, failing the test if none does.
func step(t testing.TB, s *sim.Sim, what string, match func(sim.Event) bool) sim.Event {
	t.Helper()
	for i, ev := range s.Ready() {
		if match(ev) {
			if err := s.StepEvent(i); err != nil {
				t.Fatalf("step %d (%s): %v", s.Steps(), what, err)
			}
			return s.LastEvent()
		}
	}
	t.Fatalf("step %d: no ready event is %s; ready: %v", s.Steps(), what, s.Ready())
	return sim.Event{}
}

// criticalStep finds the critical transition of a stuck execution given by
// its choices (seed 003 Algorithm 3): the step after which k walks from
// the state never recover, by binary search between a recovering prefix
// and a dead one. It returns the 1-based step number and the event.
func criticalStep(t testing.TB, cfg *sim.Config, choices []int32, steps, k int) (int, sim.Event) {
	t.Helper()
	at := func(i int) *sim.Sim {
		s, err := sim.Replay(cfg, choices, i, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	lo, hi := 0, steps // the state after lo steps recovers, after hi it does not
	if recoveries(t, at(lo), k, 1) == 0 {
		t.Fatal("the initial state does not recover")
	}
	if recoveries(t, at(hi), k, 1) > 0 {
		t.Fatal("the end of the execution recovers")
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if recoveries(t, at(mid), k, 1) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, at(hi).LastEvent()
}

// script answers Context.Rand from a list, then like Then; it lets a test
// pick where the root sends a Join.
type script struct {
	rand []int
	then sim.Chooser
}

func (c *script) Choose(kind sim.ChoiceKind, n int, w []float64) int {
	if kind == sim.ChooseRandom && len(c.rand) > 0 {
		v := c.rand[0]
		c.rand = c.rand[1:]
		return v
	}
	return c.then.Choose(kind, n, w)
}

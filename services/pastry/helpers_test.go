package pastry

import (
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
)

// Test helpers. services/chord has a copy; the checker's own
// walk and critical-transition code lives elsewhere, these only drive the
// simulator directly.

// testConfig builds the registered system with the given parameters.
func testConfig(t *testing.T, params map[string]string) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(systemName)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(params)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// newSim starts an execution with a seeded random chooser and failures on
// or off (Sim.SetFailures; the config bounds them).
func newSim(t *testing.T, cfg *sim.Config, seed uint64, failures bool) *sim.Sim {
	t.Helper()
	s, err := sim.New(cfg, sim.Options{Chooser: sim.NewRandom(seed)})
	if err != nil {
		t.Fatal(err)
	}
	s.SetFailures(failures)
	return s
}

func isLive(t testing.TB, s *sim.Sim) bool {
	ok, err := s.AllHold(s.Config().Liveness)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func isSafe(t testing.TB, s *sim.Sim) bool {
	ok, err := s.AllHold(s.Config().Safety)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func step(t testing.TB, s *sim.Sim) {
	ok, err := s.Step()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatalf("quiescent after %d steps", s.Steps())
	}
}

// walkResult is what one random walk saw.
type walkResult struct {
	live       int // steps taken when the walk stopped in a live state, -1 if it never did
	unsafe     int // step of the first safety violation, -1 if none
	unsafeWhat sim.Event
	resets     int
}

// walk steps s with its own chooser for at most budget steps and stops at
// the first live state at which at least wantResets resets have happened
// (so that a walk with failures on is only counted live once it has
// recovered from them). It checks safety in every state.
func walk(t testing.TB, s *sim.Sim, budget, wantResets int) walkResult {
	r := walkResult{live: -1, unsafe: -1}
	start := s.Steps()
	for {
		if r.unsafe < 0 && !isSafe(t, s) {
			r.unsafe, r.unsafeWhat = s.Steps(), s.LastEvent()
		}
		if r.resets >= wantResets && isLive(t, s) {
			r.live = s.Steps()
			return r
		}
		if s.Steps()-start >= budget {
			return r
		}
		step(t, s)
		if s.LastEvent().Kind == sim.EvReset {
			r.resets++
		}
	}
}

// recovers is Recovers(E, i, k) of seed 003 Algorithm 3: whether any of k
// random walks of at most depth steps from s, with failures off, reaches a
// live state. s is not changed.
func recovers(t testing.TB, s *sim.Sim, k, depth int) bool {
	for i := range k {
		c := s.Clone(sim.NewRandom(uint64(7919 + i)))
		c.SetFailures(false)
		if walk(t, c, depth, 0).live >= 0 {
			return true
		}
	}
	return false
}

// criticalStep returns the first dead state of an execution of n+1
// states, state(i) being the state after i steps (seed 003 Algorithm 3,
// binary search only): state(0) must recover and state(n) must not.
func criticalStep(t testing.TB, n int, state func(i int) *sim.Sim, k, depth int) int {
	lo, hi := 0, n
	if !recovers(t, state(lo), k, depth) {
		t.Fatalf("critical: state %d does not recover", lo)
	}
	if recovers(t, state(hi), k, depth) {
		t.Fatalf("critical: state %d recovers", hi)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if recovers(t, state(mid), k, depth) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// replayState returns a function giving the state after i steps of the
// execution recorded in choices (failures as in the original run).
func replayState(t testing.TB, cfg *sim.Config, choices []int32) func(i int) *sim.Sim {
	return func(i int) *sim.Sim {
		s, err := sim.Replay(cfg, choices, i, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// script drives an execution event by event, keeping a snapshot of every
// state.
type script struct {
	t      *testing.T
	s      *sim.Sim
	states []*sim.Sim
}

func newScript(t *testing.T, s *sim.Sim) *script {
	return &script{t: t, s: s, states: []*sim.Sim{s.Clone(nil)}}
}

// do executes the first ready event for which match holds.
func (sc *script) do(what string, match func(e sim.Event) bool) {
	sc.t.Helper()
	for i, e := range sc.s.Ready() {
		if match(e) {
			if err := sc.s.StepEvent(i); err != nil {
				sc.t.Fatal(err)
			}
			sc.states = append(sc.states, sc.s.Clone(nil))
			return
		}
	}
	sc.t.Fatalf("step %d: no ready event %s among %v", sc.s.Steps(), what, sc.s.Ready())
}

// app, msg, timer and reset match events by kind, node and message type.
func app(node sim.NodeID) func(sim.Event) bool {
	return func(e sim.Event) bool { return e.Kind == sim.EvApp && e.Node == node }
}

func msg(node, from sim.NodeID, typ string) func(sim.Event) bool {
	return func(e sim.Event) bool {
		return e.Kind == sim.EvMessage && e.Node == node && e.Peer == from && sim.MessageName(e.Msg) == typ
	}
}

func timer(node sim.NodeID, name string) func(sim.Event) bool {
	return func(e sim.Event) bool { return e.Kind == sim.EvTimer && e.Node == node && e.Timer == name }
}

func reset(node sim.NodeID) func(sim.Event) bool {
	return func(e sim.Event) bool { return e.Kind == sim.EvReset && e.Node == node }
}

// livePrefix returns a live state reached by a walk with failures off.
func livePrefix(t *testing.T, cfg *sim.Config, seed uint64, budget int) *sim.Sim {
	t.Helper()
	s := newSim(t, cfg, seed, false)
	if r := walk(t, s, budget, 0); r.live < 0 || r.unsafe >= 0 {
		t.Fatalf("seed %d: no safe live prefix within %d steps: %+v", seed, budget, r)
	}
	return s
}

func median(xs []int) (med, max int) {
	if len(xs) == 0 {
		return 0, 0
	}
	c := slices.Clone(xs)
	slices.Sort(c)
	return c[len(c)/2], c[len(c)-1]
}

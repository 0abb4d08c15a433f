package servicetest

import (
	"context"
	"errors"
	"testing"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Replayer returns a function giving the state after i steps of the
// execution of cfg recorded in choices (failures on, as in the original
// run). Each call replays from the initial state.
func Replayer(t testing.TB, cfg *sim.Config, choices []int32) func(i int) *engine.Sim {
	return func(i int) *engine.Sim {
		t.Helper()
		s, err := engine.Replay(cfg, choices, i, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// Judge tells dead states from transient ones and finds critical
// transitions with package critical (seed 003 Algorithm 3): Recovers for
// one state, Find for the search. The execution E is always one a test
// recorded in a simulator (an *engine.Sim and its choices); state i is E's
// state after i steps.
//
// A state is transient when one of Transient recovery walks from it turns
// live, dead when none of Dead walks does, and Find tries Search walks per
// probe. Recovery walks run until the execution has WalkDepth steps in all
// (d_max) and inject no failure (E's own failures replay, up to its last:
// critical.Config.Options.FailuresUntil, "gusto"), walk j from state i
// seeded critical.WalkSeed(Seed, i, j).
type Judge struct {
	WalkDepth               int
	Dead, Transient, Search int
	Seed                    uint64
	// IgnoreSafety leaves the safety properties out of the recovery
	// walks, for systems whose safety property is violated on the way to
	// a live state and is checked elsewhere (as Walker.RecordUnsafe does
	// for the test's own walks). Otherwise a recovery walk that violates
	// safety fails the test; a handler failure always does.
	IgnoreSafety bool
}

// Config returns the critical.Config that describes s's execution as E:
// its system, choices, length and the options that replay it (failures on
// up to its last failure event, off after it), with d_init the last step
// at which E was live (0 if none) and the Judge's d_max and seed. Walks
// is left at its default.
func (j Judge) Config(t testing.TB, s *engine.Sim) critical.Config {
	t.Helper()
	cfg := s.Config()
	choices := s.ChoiceValues()
	r, err := engine.New(cfg, engine.Options{Chooser: engine.NewRecorded(choices)})
	if err != nil {
		t.Fatal(err)
	}
	lastFailure, lastLive := 0, 0
	for r.Steps() < s.Steps() {
		ok, err := r.Step()
		if err != nil || !ok {
			t.Fatalf("replaying the execution at step %d: ok %v, %v", r.Steps(), ok, err)
		}
		if r.LastEvent().Kind.IsFailure() {
			lastFailure = r.Steps()
		}
		if holds(t, r, cfg.Liveness) {
			lastLive = r.Steps()
		}
	}
	opts := engine.Options{NoFailures: true}
	if lastFailure > 0 {
		opts = engine.Options{FailuresUntil: lastFailure}
	}
	if j.IgnoreSafety {
		c := *cfg
		c.Safety = nil
		cfg = &c
	}
	return critical.Config{Sim: cfg, Options: opts, Choices: choices, Steps: s.Steps(), DInit: lastLive, WalkDepth: j.WalkDepth, Seed: j.Seed}
}

// Recovers is critical.Recovers(E, i, k) on s's execution E: k recovery
// walks from state i. A walk that breaks safety or whose handler fails
// fails the test (see IgnoreSafety).
func (j Judge) Recovers(t testing.TB, s *engine.Sim, i, k int) critical.Probe {
	t.Helper()
	c := j.Config(t, s)
	c.Walks = k
	p, _, err := critical.Recovers(context.Background(), c, i)
	if err != nil {
		t.Fatalf("recovers from state %d: %v", i, err)
	}
	if p.Unsafe > 0 {
		t.Fatalf("a recovery walk from state %d broke %s", i, p.UnsafeProperty)
	}
	return p
}

// IsDead reports whether none of j.Dead walks from state i of s's
// execution turns live.
func (j Judge) IsDead(t testing.TB, s *engine.Sim, i int) bool {
	t.Helper()
	return !j.Recovers(t, s, i, j.Dead).Recovers
}

// IsTransient reports whether one of j.Transient walks from state i of
// s's execution turns live.
func (j Judge) IsTransient(t testing.TB, s *engine.Sim, i int) bool {
	t.Helper()
	return j.Recovers(t, s, i, j.Transient).Recovers
}

// IsCritical reports whether step i of s's execution is a critical
// transition: the state after it is dead and the one before it transient.
func (j Judge) IsCritical(t testing.TB, s *engine.Sim, i int) bool {
	t.Helper()
	return j.IsDead(t, s, i) && j.IsTransient(t, s, i-1)
}

// Find runs critical.Find on s's execution with j.Search walks per probe
// and returns its result, which must be a critical transition (C1); the
// test fails otherwise, or when a recovery walk breaks safety. An
// execution too short for d_max (a scripted scenario) is first continued
// by a random walk (seeded j.Seed, failures off) until it has WalkDepth
// steps or falls quiescent: the dead path the search would have found.
func (j Judge) Find(t testing.TB, s *engine.Sim) critical.Result {
	t.Helper()
	if 2*s.Steps() < j.WalkDepth && len(s.Ready()) > 0 {
		s = s.Clone(engine.NewRandom(j.Seed))
		s.SetFailures(false)
		for s.Steps() < j.WalkDepth {
			ok, err := s.Step()
			if err != nil {
				t.Fatalf("continuing the execution at step %d: %v", s.Steps(), err)
			}
			if !ok {
				break
			}
		}
	}
	c := j.Config(t, s)
	c.Walks = j.Search
	res, err := critical.Find(context.Background(), c)
	var nd *critical.NotDeadError
	if errors.As(err, &nd) {
		t.Fatalf("the execution is live at step %d: no dead state", nd.Step)
	}
	if err != nil {
		t.Fatalf("critical.Find: %v", err)
	}
	if res.Unsafe > 0 {
		t.Fatalf("a recovery walk broke %s", res.UnsafeProperty)
	}
	if res.Condition != critical.C1 {
		t.Fatalf("no critical transition: %s", res.Explain())
	}
	return res
}

// CheckCritical checks that step crit is the critical transition of s's
// execution: the state before it is transient, the state after it dead
// (each by its own probe, as an oracle), and critical.Find finds it. It
// reports each failure with t.Errorf.
func (j Judge) CheckCritical(t testing.TB, s *engine.Sim, crit int) {
	t.Helper()
	if !j.IsTransient(t, s, crit-1) {
		t.Errorf("state before step %d does not recover", crit)
	}
	if !j.IsDead(t, s, crit) {
		t.Errorf("state after step %d recovers", crit)
	}
	if res := j.Find(t, s); res.Step != crit {
		t.Errorf("critical.Find: step %d (%s), want %d", res.Step, res.EventText, crit)
	}
}

// Profile probes every state 0 to n of s's execution, state i with
// walks(i) recovery walks (Recovers): the exhaustive search for a critical
// transition, an oracle for critical.Find (CriticalOfProbes).
func (j Judge) Profile(t testing.TB, s *engine.Sim, n int, walks func(i int) int) []critical.Probe {
	t.Helper()
	out := make([]critical.Probe, n+1)
	for i := range out {
		out[i] = j.Recovers(t, s, i, walks(i))
	}
	return out
}

// CriticalOfProbes is the critical transition found the exhaustive way:
// the step after the last state that recovers (0 if none does).
func CriticalOfProbes(ps []critical.Probe) int {
	crit := 0
	for i, p := range ps {
		if p.Recovers {
			crit = i + 1
		}
	}
	return crit
}

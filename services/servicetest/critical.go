package servicetest

import (
	"testing"

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

// CriticalStep finds the critical transition of an execution of n steps
// by binary search (seed 003 Algorithm 3): state(i) is the state after i
// steps, recovers says whether a state can still turn live. state(0) must
// recover and state(n) must not, or the test fails. It returns the step
// into the first dead state the search meets: a step i with state(i-1)
// recovering and state(i) not.
func CriticalStep(t testing.TB, n int, state func(i int) *engine.Sim, recovers func(*engine.Sim) bool) int {
	t.Helper()
	lo, hi := 0, n // the state after lo steps recovers, after hi it does not
	if !recovers(state(lo)) {
		t.Fatalf("critical step: the state after %d steps does not recover", lo)
	}
	if recovers(state(hi)) {
		t.Fatalf("critical step: the state after %d steps recovers", hi)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if recovers(state(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// CriticalFromCounts is the critical transition found the exhaustive way:
// live[i] is how many walks from the state after i steps turned live, and
// the result is the step after the last state with one that did (0 if
// none did).
func CriticalFromCounts(live []int) int {
	crit := 0
	for i, n := range live {
		if n > 0 {
			crit = i + 1
		}
	}
	return crit
}

// Judge tells dead states from transient ones and finds critical
// transitions (seed 003 §4 and Algorithm 3), with walks of at most Budget
// steps from clones of a state, failures off, walk i seeded Seed+i
// (Walker.Recovers): a state is transient when one of Transient walks
// turns live, dead when none of Dead walks does, and the binary search
// for a critical transition tries Search walks per state.
type Judge struct {
	Walker                  Walker
	Budget                  int
	Dead, Transient, Search int
	Seed                    uint64
}

// IsDead reports whether none of j.Dead walks from s turns live.
func (j Judge) IsDead(t testing.TB, s *engine.Sim) bool {
	t.Helper()
	return !j.Walker.Recovers(t, s, j.Dead, j.Budget, j.Seed)
}

// IsTransient reports whether one of j.Transient walks from s turns live.
func (j Judge) IsTransient(t testing.TB, s *engine.Sim) bool {
	t.Helper()
	return j.Walker.Recovers(t, s, j.Transient, j.Budget, j.Seed)
}

// Critical is CriticalStep over states 0 to n with j.Search walks per
// state.
func (j Judge) Critical(t testing.TB, n int, state func(i int) *engine.Sim) int {
	t.Helper()
	return CriticalStep(t, n, state, func(s *engine.Sim) bool {
		t.Helper()
		return j.Walker.Recovers(t, s, j.Search, j.Budget, j.Seed)
	})
}

// CriticalOf is Critical over the execution s recorded, its states
// replayed from its choices (Replayer). It returns the step and the
// replayed states.
func (j Judge) CriticalOf(t testing.TB, s *engine.Sim) (int, func(i int) *engine.Sim) {
	t.Helper()
	state := Replayer(t, s.Config(), s.ChoiceValues())
	return j.Critical(t, s.Steps(), state), state
}

// IsCritical reports whether step i is a critical transition: the state
// after it is dead and the one before it transient.
func (j Judge) IsCritical(t testing.TB, i int, state func(i int) *engine.Sim) bool {
	t.Helper()
	return j.IsDead(t, state(i)) && j.IsTransient(t, state(i-1))
}

// CheckCritical checks that step crit is the critical transition of the
// execution whose states state gives: the state before it is transient,
// the state after it dead, and the binary search over steps 0 to crit
// finds it. It reports each failure with t.Errorf.
func (j Judge) CheckCritical(t testing.TB, crit int, state func(i int) *engine.Sim) {
	t.Helper()
	if !j.IsTransient(t, state(crit-1)) {
		t.Errorf("state before step %d does not recover", crit)
	}
	if !j.IsDead(t, state(crit)) {
		t.Errorf("state after step %d recovers", crit)
	}
	if got := j.Critical(t, crit, state); got != crit {
		t.Errorf("critical transition search: step %d (%s), want %d", got, state(got).LastEvent(), crit)
	}
}

package servicetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Quiescence says what a walk that runs out of events means.
type Quiescence int

// What a quiescent walk means.
const (
	// QuiescentStuck: the walk ends without reaching a live state.
	QuiescentStuck Quiescence = iota
	// QuiescentCheck: the walk ends live if the liveness properties hold
	// where it stopped, whatever its failures.
	QuiescentCheck
	// QuiescentFails: the test fails; the system should never fall quiet.
	QuiescentFails
)

// Walker runs random walks (see the package documentation). The zero
// Walker fails the test on a safety violation, ends a quiescent walk as
// stuck and checks only the states a walk steps into.
type Walker struct {
	// CheckStart checks the state a walk starts in too, so that a walk
	// from a live state takes no step.
	CheckStart bool
	// RecordUnsafe records the first safety violation in the Result and
	// walks on, instead of failing the test.
	RecordUnsafe bool
	// Quiescent says what a walk that falls quiescent means.
	Quiescent Quiescence
	// ResetsOnly counts only resets as failures, not connection breaks
	// and datagram drops.
	ResetsOnly bool
}

// Result is what one walk saw. Steps are counted from the start of the
// execution, as engine.Sim.Steps.
type Result struct {
	Start       int          // steps when the walk started
	End         int          // steps when it stopped
	Live        int          // steps when it stopped in a live state, -1 if it never did
	Unsafe      int          // steps at the first safety violation, -1 if none (RecordUnsafe)
	UnsafeEvent engine.Event // the event that led to it
	Failures    int          // failures in the walk (resets only with ResetsOnly)
}

// Taken returns the steps the walk took to turn live, or -1.
func (r Result) Taken() int {
	if r.Live < 0 {
		return -1
	}
	return r.Live - r.Start
}

// FailureBudget returns how many failures an execution of cfg may have,
// counted as w counts them.
func (w Walker) FailureBudget(cfg *sim.Config) int {
	if w.ResetsOnly {
		return cfg.Failures.Resets
	}
	return cfg.Failures.Resets + cfg.Failures.Breaks + cfg.Failures.Drops
}

func (w Walker) isFailure(k engine.EventKind) bool {
	if w.ResetsOnly {
		return k == engine.EvReset
	}
	return k.IsFailure()
}

// Walk steps s with its own chooser for at most budget steps, checking
// safety in every state, and stops in the first live state reached after
// at least failures failures.
func (w Walker) Walk(t testing.TB, s *engine.Sim, budget, failures int) (r Result) {
	t.Helper()
	cfg := s.Config()
	r = Result{Start: s.Steps(), Live: -1, Unsafe: -1}
	defer func() { r.End = s.Steps() }()
	done := func() bool {
		if (!w.RecordUnsafe || r.Unsafe < 0) && !holds(t, s, cfg.Safety) {
			if !w.RecordUnsafe {
				t.Fatalf("safety violated at step %d: %s", s.Steps(), s.LastEvent())
			}
			r.Unsafe, r.UnsafeEvent = s.Steps(), s.LastEvent()
		}
		if r.Failures >= failures && holds(t, s, cfg.Liveness) {
			r.Live = s.Steps()
			return true
		}
		return false
	}
	if w.CheckStart && done() {
		return r
	}
	for s.Steps()-r.Start < budget {
		ok, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			switch w.Quiescent {
			case QuiescentCheck:
				if holds(t, s, cfg.Liveness) {
					r.Live = s.Steps()
				}
			case QuiescentFails:
				t.Fatalf("quiescent after %d steps", s.Steps())
			}
			return r
		}
		if w.isFailure(s.LastEvent().Kind) {
			r.Failures++
		}
		if done() {
			return r
		}
	}
	return r
}

// Batch describes seeded random walks from a config's initial state.
type Batch struct {
	Walks  int // how many: seeds 0 to Walks-1
	Budget int // steps per walk
	// Failures turns failures on (the config bounds them); a live state
	// then counts only once the walk has had all the failures the config
	// allows (FailureBudget).
	Failures bool
	// Determinism replays the first Determinism walks twice and compares
	// the states after every step (engine.CheckDeterminism); a difference
	// fails the test.
	Determinism int
	// Each, when not nil, is called after every walk with its seed, the
	// walked execution and the result; returning false ends the batch.
	Each func(seed uint64, s *engine.Sim, r Result) bool
}

// Walks runs the walks b describes.
func (w Walker) Walks(t testing.TB, cfg *sim.Config, b Batch) Results {
	t.Helper()
	after := 0
	if b.Failures {
		after = w.FailureBudget(cfg)
	}
	var rs Results
	for seed := range uint64(b.Walks) {
		s := NewWith(t, cfg, engine.Options{Chooser: engine.NewRandom(seed), NoFailures: !b.Failures})
		r := w.Walk(t, s, b.Budget, after)
		rs = append(rs, r)
		if seed < uint64(b.Determinism) {
			if err := engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{NoFailures: !b.Failures}); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		if b.Each != nil && !b.Each(seed, s, r) {
			break
		}
	}
	return rs
}

// ReachLive runs the walks b describes on cfg, fails the test unless
// every walk turns live without violating safety (CheckLive), and logs a
// summary, both naming the walks what.
func (w Walker) ReachLive(t testing.TB, cfg *sim.Config, b Batch, what string) Results {
	t.Helper()
	rs := w.Walks(t, cfg, b)
	rs.CheckLive(t, what)
	t.Logf("%s: %v (budget %d)", what, rs.Summary(), b.Budget)
	return rs
}

// ReachLiveMatrix is ReachLive for each parameter set of the registered
// system, with failures off and then on (whatever b.Failures says).
func (w Walker) ReachLiveMatrix(t testing.TB, system string, params []map[string]string, b Batch) {
	t.Helper()
	for _, p := range params {
		cfg := Config(t, system, p)
		for _, failures := range []bool{false, true} {
			b.Failures = failures
			w.ReachLive(t, cfg, b, fmt.Sprintf("%v failures=%v", p, failures))
		}
	}
}

// FirstStuck runs the walks b describes until one does not turn live
// (after b.Each, if set, has seen it) and returns its seed, execution and
// result. The test fails if none of them is stuck.
func (w Walker) FirstStuck(t testing.TB, cfg *sim.Config, b Batch) (uint64, *engine.Sim, Result) {
	t.Helper()
	var (
		found bool
		seed  uint64
		stuck *engine.Sim
		res   Result
	)
	each := b.Each
	b.Each = func(sd uint64, s *engine.Sim, r Result) bool {
		if each != nil && !each(sd, s, r) {
			return false
		}
		if r.Live >= 0 {
			return true
		}
		found, seed, stuck, res = true, sd, s, r
		return false
	}
	w.Walks(t, cfg, b)
	if !found {
		t.Fatalf("no stuck walk in %d walks of %d steps", b.Walks, b.Budget)
	}
	return seed, stuck, res
}

// From runs k walks of at most budget steps from clones of s, walk i with
// a random chooser seeded with seed+i, failures off (the "gusto" walks of
// the original tool). s is not changed.
func (w Walker) From(t testing.TB, s *engine.Sim, k, budget int, seed uint64) Results {
	t.Helper()
	var rs Results
	for i := range k {
		c := s.Clone(engine.NewRandom(seed + uint64(i)))
		c.SetFailures(false)
		rs = append(rs, w.Walk(t, c, budget, 0))
	}
	return rs
}

// Recoveries returns how many of k walks of at most budget steps from s
// (as From) turn live; it runs them all. s is not changed.
func (w Walker) Recoveries(t testing.TB, s *engine.Sim, k, budget int, seed uint64) int {
	t.Helper()
	return k - len(w.From(t, s, k, budget, seed).Stuck())
}

// LivePrefix returns an execution of cfg brought to a live state by a
// walk of at most budget steps with failures off, seeded with seed; the
// test fails if the walk does not get there safely.
func (w Walker) LivePrefix(t testing.TB, cfg *sim.Config, seed uint64, budget int) *engine.Sim {
	t.Helper()
	s := NewWith(t, cfg, engine.Options{Chooser: engine.NewRandom(seed), NoFailures: true})
	if r := w.Walk(t, s, budget, 0); r.Live < 0 || r.Unsafe >= 0 {
		t.Fatalf("seed %d: no safe live prefix within %d steps: %+v", seed, budget, r)
	}
	return s
}

// Results are the results of a batch of walks, in seed order.
type Results []Result

// CheckLive fails the test if a walk violated safety (RecordUnsafe) or
// did not turn live, naming what the walks were and the first such walk's
// index (for Walks, its seed).
func (rs Results) CheckLive(t testing.TB, what string) {
	t.Helper()
	for i, r := range rs {
		if r.Unsafe >= 0 {
			t.Fatalf("%s: walk %d: safety violated at step %d (%s)", what, i, r.Unsafe, r.UnsafeEvent)
		}
		if r.Live < 0 {
			t.Fatalf("%s: walk %d: not live after %d steps", what, i, r.End-r.Start)
		}
	}
}

// Stuck returns the indices (for Walks, the seeds) of the walks that did
// not turn live.
func (rs Results) Stuck() []int {
	var out []int
	for i, r := range rs {
		if r.Live < 0 {
			out = append(out, i)
		}
	}
	return out
}

// Steps returns the steps each walk that turned live took to (Taken).
func (rs Results) Steps() []int {
	var out []int
	for _, r := range rs {
		if r.Live >= 0 {
			out = append(out, r.Taken())
		}
	}
	return out
}

// Summary summarises the steps to live of the walks.
func (rs Results) Summary() Summary {
	steps := rs.Steps()
	s := Summarize(steps)
	s.Walks, s.Stuck = len(rs), len(rs)-len(steps)
	return s
}

// Summary describes how many steps walks took to turn live.
type Summary struct {
	Walks  int // walks run
	Stuck  int // of which never turned live
	Median int // steps to live of the others: the median,
	P99    int // the 99th percentile
	Max    int // and the largest
}

// Summarize summarises steps to live, one entry a walk that turned live.
func Summarize(steps []int) Summary {
	s := Summary{Walks: len(steps)}
	if len(steps) == 0 {
		return s
	}
	c := slices.Clone(steps)
	slices.Sort(c)
	s.Median, s.P99, s.Max = c[len(c)/2], c[len(c)*99/100], c[len(c)-1]
	return s
}

// String gives the summary in one line.
func (s Summary) String() string {
	return fmt.Sprintf("%d of %d walks live, steps to live median %d, p99 %d, max %d", s.Walks-s.Stuck, s.Walks, s.Median, s.P99, s.Max)
}

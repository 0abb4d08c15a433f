package critical

import (
	"fmt"
	"time"

	"github.com/macemc/macemc/sim/engine"
)

// Condition is the verdict on a suspected liveness violation (seed 003
// §3.2).
type Condition int

// The conditions. The zero Condition is unknown.
const (
	// C1 means the execution entered a dead state and will never recover:
	// a dead-state liveness violation, with a critical transition.
	C1 Condition = iota + 1
	// C2 means there is no evidence that the execution is dead: it did not
	// reach a live state within d_max but might later. Raise d_max and
	// repeat.
	C2
)

// String returns "C1", "C2" or "unknown".
func (c Condition) String() string {
	switch c {
	case C1:
		return "C1"
	case C2:
		return "C2"
	}
	return "unknown"
}

// Result is the outcome of FindCriticalTransition.
type Result struct {
	// Step is d_crit. With C1 it is the first state believed dead, so the
	// critical transition is transition number Step: the event that took
	// E from state Step-1 (transient) to state Step (dead). With C2 it is
	// where the search stopped: DInit when even state DInit did not
	// recover (AtDInit), else the first probe beyond WalkDepth/2.
	Step      int
	Condition Condition
	// AtDInit marks the corner case of line 2 of Algorithm 3: no walk
	// recovered from state DInit, so Step = DInit with C2.
	AtDInit bool
	// Event is transition Step of E, valid when HasEvent (Step >= 1 and E
	// has that many transitions); EventText is its Event.String().
	Event     engine.Event
	EventText string
	HasEvent  bool
	// DInit, WalkDepth (d_max) and Walks (k) are the parameters used;
	// ESteps is E's length.
	DInit, WalkDepth, Walks, ESteps int
	// Probes lists every call of Recovers in order.
	Probes []Probe
	// Live is the live alternative sharing the longest prefix with E among
	// all live walks found (ties go to the later probe, the highest
	// transient state); nil when no walk was live.
	Live *Alternative
	// Premature marks a C1 answer that the live alternative contradicts:
	// it shares at least Step steps with E, so it passes through state Step
	// and still becomes live. State Step was "near dead" (seed 003 §4.4):
	// the true critical transition is later; raise Walks (k) and re-run.
	// Find keeps Algorithm 3's answer and only reports this.
	Premature bool
	// Unsafe counts deciding recovery walks that broke a safety property
	// or failed (counted as not recovering); UnsafeProperty names the first.
	Unsafe         int
	UnsafeProperty string
	// WalksRun and Transitions count the walks started and the simulator
	// steps executed (replays included). Unlike the rest of the result they
	// depend on Workers: parallel workers start walks that a lower-index
	// live walk makes unnecessary.
	WalksRun    int
	Transitions int
	Elapsed     time.Duration
}

// Find runs FindCriticalTransition (seed 003, Algorithm 3) on the
// execution E that c describes, which from state c.DInit on never reached
// a live state.
//
// Phase 1 checks Recovers(E, d_init, k): when no walk recovers it returns
// (d_init, C2). Otherwise it doubles d_curr while Recovers(E, d_curr, k)
// holds, returning (d_curr, C2) as soon as d_curr > d_max/2. Phase 2
// binary-searches between d_prev, the highest state known to recover, and
// d_curr, the lowest believed dead, and returns (d_curr, C1) when they are
// adjacent.
//
// Deviation from the paper: with d_init = 0, doubling would never leave 0,
// so each doubling step is d_curr = max(2·d_curr, 1). The probed states
// are otherwise exactly the paper's, and d_prev is always a state that was
// probed and recovered.
//
// Find first replays E once, checking that no state after DInit is live
// (ErrNotDead) and learning its length; each probe then clones the
// snapshot of the highest recoverable state and replays forward from it,
// so E is replayed about once in all, not once per walk.
func Find(c Config) (Result, error) {
	start := time.Now()
	if err := c.validate(); err != nil {
		return Result{}, err
	}
	r := newSearcher(&c)
	defer r.close()
	res := Result{DInit: c.DInit, WalkDepth: c.WalkDepth, Walks: c.Walks}
	finish := func(err error) (Result, error) {
		res.WalksRun = int(r.walksRun.Load())
		res.Transitions = int(r.transitions.Load())
		res.Elapsed = time.Since(start)
		return res, err
	}

	quiescent, err := r.checkE()
	if err != nil {
		return finish(err)
	}
	res.ESteps = r.eSteps

	base, err := engine.Replay(c.Sim, c.Choices, 0, c.Options)
	if err != nil {
		return finish(fmt.Errorf("%w: %w", ErrReplay, err))
	}
	// probe is Recovers(E, i, k); base moves to every state that recovers.
	probe := func(i, phase int) (bool, error) {
		if err := r.ctxErr(); err != nil {
			return false, err
		}
		var p Probe
		var alt *Alternative
		if i > r.eSteps {
			if !quiescent {
				return false, fmt.Errorf("%w: E has %d steps and does not end quiescent; the search needs state %d (lower WalkDepth to at most %d, or give a longer E)", ErrShort, r.eSteps, i, 2*r.eSteps)
			}
			// E stays in its last, quiescent and non-live state: dead.
			p = Probe{Step: i, Phase: phase, Witness: -1}
		} else {
			t := time.Now()
			snap := base.Clone(nil)
			if err := advance(snap, c.Choices, i); err != nil {
				return false, fmt.Errorf("%w: to state %d: %w", ErrReplay, i, err)
			}
			r.transitions.Add(int64(i - base.Steps()))
			p, alt, err = r.recovers(snap, i, phase)
			if err != nil {
				return false, err
			}
			p.Elapsed = time.Since(t) // the replay included
			if p.Recovers {
				base = snap
			}
		}
		res.Probes = append(res.Probes, p)
		if p.Unsafe > 0 && res.Unsafe == 0 {
			res.UnsafeProperty = p.UnsafeProperty
		}
		res.Unsafe += p.Unsafe
		if alt != nil && (res.Live == nil || alt.Shared >= res.Live.Shared) {
			res.Live = alt
		}
		if c.Progress != nil {
			c.Progress(p)
		}
		return p.Recovers, nil
	}
	done := func(step int, cond Condition) (Result, error) {
		res.Step, res.Condition = step, cond
		res.Premature = cond == C1 && res.Live != nil && res.Live.Shared >= step
		if step >= 1 && step <= r.eSteps {
			s := base.Clone(nil)
			if err := advance(s, c.Choices, step); err != nil {
				return finish(fmt.Errorf("%w: to state %d: %w", ErrReplay, step, err))
			}
			r.transitions.Add(int64(step - base.Steps()))
			res.Event, res.EventText, res.HasEvent = s.LastEvent(), s.LastEvent().String(), true
		}
		return finish(nil)
	}

	// Phase 1: exponential search.
	ok, err := probe(c.DInit, 1)
	if err != nil {
		return finish(err)
	}
	if !ok {
		res.AtDInit = true
		return done(c.DInit, C2)
	}
	var prev int
	curr := c.DInit
	for {
		prev = curr
		// Deviation: doubling 0 would stay at 0.
		curr = max(2*curr, 1)
		// d_curr > d_max/2, in integers.
		if 2*curr > c.WalkDepth {
			return done(curr, C2)
		}
		ok, err := probe(curr, 1)
		if err != nil {
			return finish(err)
		}
		if !ok {
			break
		}
	}
	// Phase 2: binary search. prev is the highest known recoverable
	// state, curr the lowest believed irrecoverable.
	for {
		if prev == curr-1 {
			return done(curr, C1)
		}
		mid := (prev + curr) / 2
		ok, err := probe(mid, 2)
		if err != nil {
			return finish(err)
		}
		if ok {
			prev = mid
		} else {
			curr = mid
		}
	}
}

// checkE replays E once: it fixes E's length, checks that no state after
// DInit is live, and reports whether E ends quiescent.
func (r *searcher) checkE() (quiescent bool, err error) {
	c := r.c
	rec := engine.NewRecorded(c.Choices)
	opts := c.Options
	opts.Chooser = rec
	s, err := engine.New(c.Sim, opts)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	for {
		if c.Steps > 0 && s.Steps() >= c.Steps || c.Steps == 0 && rec.Used() >= len(c.Choices) {
			break
		}
		if err := r.ctxErr(); err != nil {
			return false, err
		}
		ok, err := s.Step()
		if err != nil {
			return false, fmt.Errorf("%w: step %d: %w", ErrReplay, s.Steps(), err)
		}
		if !ok {
			if c.Steps > 0 {
				return false, fmt.Errorf("%w: quiescent after %d steps, E has %d", ErrReplay, s.Steps(), c.Steps)
			}
			break
		}
		if s.Steps() > c.DInit {
			live, err := s.AllHold(c.Sim.Liveness)
			if err != nil {
				return false, fmt.Errorf("critical: checking E at step %d: %w", s.Steps(), err)
			}
			if live {
				return false, &NotDeadError{Step: s.Steps(), DInit: c.DInit}
			}
		}
	}
	r.transitions.Add(int64(s.Steps()))
	r.eSteps = s.Steps()
	if r.eSteps < c.DInit {
		return false, fmt.Errorf("%w: d_init %d is beyond E's %d steps", ErrBadConfig, c.DInit, r.eSteps)
	}
	return len(s.Ready()) == 0, nil
}

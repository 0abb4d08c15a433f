package critical

import (
	"context"
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
	// where the search stopped: DInit when no walk recovered from state
	// DInit and no state before it recovers either (AtDInit), else the
	// first probe beyond WalkDepth/2.
	Step      int
	Condition Condition
	// AtDInit marks the corner case of line 2 of Algorithm 3: no walk
	// recovered from state DInit. Algorithm 3 answers (d_init, C2) there;
	// Find then searches below d_init (Below) and answers C2 only when no
	// earlier state recovers either, the initial state's confirmation
	// sample included. (With DInit 0 and a confirmation walk that
	// recovers, AtDInit is false and Refined starts with 0.)
	AtDInit bool
	// Below marks a C1 answer found below d_init: after AtDInit, a binary
	// search between the last state of E's prefix known to recover (its
	// last live state, or state 0 when walks recover from it) and d_init.
	Below bool
	// Event is transition Step of E, valid when HasEvent (Step >= 1 and E
	// has that many transitions); EventText is its Event.String().
	Event     engine.Event
	EventText string
	HasEvent  bool
	// DInit, WalkDepth (d_max) and Walks (k) are the parameters used;
	// ESteps is E's length.
	DInit, WalkDepth, Walks, ESteps int
	// Minimized is Config.Minimized: E is a minimized doomed path.
	Minimized bool
	// Probes lists every call of Recovers in order, confirmation samples
	// included (Phase PhaseConfirm).
	Probes []Probe
	// Refined lists the candidate critical states that confirmation showed
	// to be near dead (seed 003 §4.4): their k walks all failed, but one of
	// the confirmation walks, or a live alternative passing through them,
	// recovered; the search went on above each.
	Refined []int
	// Unchanged lists the candidate critical states that were the state
	// before them again (their transition changed nothing: a timer that
	// did nothing, say), so they recover as it does, whatever their walks
	// said (a deeper state's walks are shorter, and their samples are
	// samples); the search went on above each.
	Unchanged []int
	// NewStates, when not 0, is the number of E's last steps (its second
	// half, at least progressTail and at most maxProgressTail of them) each
	// of which reached a state E had not been in since they began, when E
	// does not end quiescent: E may be progressing slowly (a counter that
	// must reach a bound, a long backoff) rather than be stuck, and then
	// a larger d_max shows it live. The dead paths of the paper's systems
	// return to states they were in (transport's, on seed 2, to 12
	// distinct states in its last 10,000 steps; randtree's 130; pastry's
	// 253).
	NewStates int
	// Confidence is the confirmation of a C1 answer: how many of many more
	// walks recovered from states Step-1 and Step. Nil without a C1 answer
	// or with confirmation off (Config.ConfirmWalks < 0).
	Confidence *Confidence
	// Live is the live alternative sharing the longest prefix with E among
	// all live walks found (ties go to the later probe, the highest
	// transient state); nil when no walk was live.
	Live *Alternative
	// Premature marks a C1 answer that the live alternative contradicts:
	// it shares at least Step steps with E, so it passes through state Step
	// and still becomes live. State Step was "near dead" (seed 003 §4.4):
	// the true critical transition is later; raise Walks (k) and re-run.
	// Only Algorithm 3 without confirmation can answer this way: with
	// confirmation Find takes such a state as recoverable and searches on.
	Premature bool
	// Partial marks the result of a search that its context ended: Step
	// and Condition are the candidate it had reached (zero when none), not
	// confirmed.
	Partial bool
	// Unsafe counts deciding recovery walks that broke a safety property
	// or failed (counted as not recovering); UnsafeProperty names the first.
	Unsafe         int
	UnsafeProperty string
	// Failed counts those of Unsafe that ended in a failure of the
	// system's code (a handler or a property that panicked or hung):
	// bugs of their own, which the search did not meet, and walks that
	// say nothing of recovery; FailedError is the first one's error.
	Failed      int
	FailedError string
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
// a live state, and confirms its answer.
//
// Phase 1 checks Recovers(E, d_init, k), then doubles d_curr while
// Recovers(E, d_curr, k) holds, returning (d_curr, C2) as soon as d_curr >
// d_max/2. Phase 2 binary-searches between d_prev, the highest state known
// to recover, and d_curr, the lowest believed dead, and stops when they are
// adjacent.
//
// Deviations from the paper, each an addition that only ever moves the
// answer to a state the evidence supports (doc.go gives the measurements):
//
//   - With d_init = 0, doubling would never leave 0, so each doubling step
//     is d_curr = max(2·d_curr, 1).
//   - When doubling d_curr would pass d_max/2, Algorithm 3 answers C2 and
//     leaves the states between d_prev and d_max/2 unprobed; Find probes
//     state d_max/2 first (as far in as any probe of Algorithm 3), and when
//     no walk recovers from it binary-searches below it. A counter that
//     died at step 11,250 with d_max 30,000 was C2 (probes 10,240, then
//     20,480 > 15,000), now C1 at 11,250, the step of no return.
//   - When E fell quiescent without a live state at most d_max/2 steps in,
//     a d_curr past its end is dead for certain even beyond d_max/2: the
//     doubling stops there with a dead state, not with C2, and the binary
//     search below it probes states no further in than Algorithm 3 does.
//   - When no walk recovers from d_init (line 2), Algorithm 3 answers
//     (d_init, C2). Liveness was never checked inside the bounded search,
//     so the critical transition can lie there: Find searches E's own
//     prefix below d_init (Result.Below), from its last live state or, when
//     it has none, state 0 if walks recover from it, and answers C2 at
//     d_init only when neither exists. State 0 is then confirmed like a C1
//     candidate (below) first: if a confirmation walk recovers, the search
//     goes on from it, below d_init or, with d_init = 0, by doubling.
//   - A C1 candidate c is confirmed (Config.ConfirmWalks, ConfirmBudget):
//     many more walks from c, stopping at the first that recovers. If one
//     does, or a live alternative passes through c, c was near dead (seed
//     003 §4.4): it becomes the highest recoverable state and the search
//     goes on above it (Result.Refined). Once a candidate holds, a sample
//     at c-1 counts how often it recovers (Result.Confidence).
//
// Find first replays E once, checking that no state after DInit is live
// (ErrNotDead) and learning its length; each probe then clones the
// snapshot of the highest recoverable state and replays forward from it,
// so E is replayed about once in all, not once per walk. When ctx ends,
// Find returns what it had, marked Partial, with an error wrapping the
// context's.
func Find(ctx context.Context, c Config) (Result, error) {
	start := time.Now()
	if err := c.validate(); err != nil {
		return Result{}, err
	}
	r := newSearcher(ctx, &c)
	defer r.close()
	f := &finder{r: r, c: &c, res: Result{DInit: c.DInit, WalkDepth: c.WalkDepth, Walks: c.Walks, Minimized: c.Minimized}, verdict: map[int]bool{}}
	err := f.search()
	res := &f.res
	if err != nil && ctx != nil && ctx.Err() != nil {
		res.Partial = true
		res.Step, res.Condition = f.candidate, f.candCond
	}
	res.WalksRun = int(r.walksRun.Load())
	res.Transitions = int(r.transitions.Load())
	res.Elapsed = time.Since(start)
	return *res, err
}

// progressTail is the fewest, and maxProgressTail the most, steps at E's
// end that Result.NewStates looks at (at most its second half).
const progressTail, maxProgressTail = 1000, 10_000

// finder is one run of Find.
type finder struct {
	r   *searcher
	c   *Config
	res Result
	// base is the snapshot of the highest state known to recover: every
	// later probe lies above it.
	base      *engine.Sim
	quiescent bool
	// live[i] says state i (i <= DInit) is itself live.
	live []bool
	// verdict holds every probe's answer by state.
	verdict map[int]bool
	// candidate is the answer reached so far (for a Partial result).
	candidate int
	candCond  Condition
}

func (f *finder) search() error {
	c, r := f.c, f.r
	if err := f.checkE(); err != nil {
		return err
	}
	f.res.ESteps = r.eSteps
	base, err := engine.Replay(c.Sim, c.Choices, 0, c.Options)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReplay, err)
	}
	f.base = base

	// Phase 1: exponential search.
	ok, err := f.probe(c.DInit, PhaseExponential)
	if err != nil {
		return err
	}
	var prev, curr int
	if ok {
		var dead bool
		if prev, curr, dead, err = f.exponential(c.DInit); err != nil || !dead {
			if err == nil {
				err = f.done(curr, C2)
			}
			return err
		}
	} else {
		f.res.AtDInit = true
		f.candidate, f.candCond = c.DInit, C2
		// Below d_init: the last live state of the prefix, else state 0.
		lo := -1
		for i := c.DInit - 1; i >= 0; i-- {
			if f.live[i] {
				lo = i
				break
			}
		}
		if lo < 0 && c.DInit > 0 {
			ok, err := f.probe(0, PhaseBelow)
			if err != nil {
				return err
			}
			if ok {
				lo = 0
			}
		}
		if lo < 0 {
			// State 0 is the candidate "dead from the start": confirm it
			// like every C1 candidate before giving up.
			ok, err := f.confirmStart()
			if err != nil {
				return err
			}
			if !ok {
				return f.done(c.DInit, C2)
			}
			if c.DInit == 0 {
				// State 0 recovers: Algorithm 3 from a live-reaching d_init.
				f.res.AtDInit = false
				prev, curr, dead, err := f.exponential(0)
				if err != nil || !dead {
					if err == nil {
						err = f.done(curr, C2)
					}
					return err
				}
				return f.searchBetween(prev, curr)
			}
			lo = 0
		}
		f.res.Below = true
		prev, curr = lo, c.DInit
	}
	return f.searchBetween(prev, curr)
}

// unchanged reports whether E's state crit is its state crit-1 again (the
// same hash): then it recovers as state crit-1, known recoverable, does,
// and cannot be the critical state. A state past E's end, or one hashing
// cannot tell (HashErr), is not.
func (f *finder) unchanged(crit int) (bool, error) {
	if crit < 1 || crit > f.r.eSteps {
		return false, nil
	}
	before, err := f.snapshot(crit - 1)
	if err != nil {
		return false, err
	}
	hb := before.Hash()
	if err := advance(before, f.c.Choices, crit); err != nil {
		return false, fmt.Errorf("%w: to state %d: %w", ErrReplay, crit, err)
	}
	f.r.transitions.Add(1)
	ha := before.Hash()
	return before.HashErr() == nil && ha == hb, nil
}

// confirmStart confirms that the initial state, from which none of the k
// walks of its probe recovered, does not recover: a confirmation sample
// there (none with confirmation off). When a walk of it recovers, state 0
// was near dead and counts as recoverable (Result.Refined).
func (f *finder) confirmStart() (bool, error) {
	if f.c.ConfirmWalks < 0 {
		return false, nil
	}
	at, err := f.confirmAt(0)
	if err != nil || !at.Recovers {
		return false, err
	}
	f.res.Refined = append(f.res.Refined, 0)
	f.verdict[0] = true
	return true, nil
}

// searchBetween is phase 2 and the confirmation of its answer, from the
// recoverable state prev and the state curr believed dead; a candidate
// that confirmation shows to be near dead moves prev up and the search
// goes on above it.
func (f *finder) searchBetween(prev, curr int) error {
	c, r := f.c, f.r
	for {
		// Phase 2: binary search. prev is the highest known recoverable
		// state, curr the lowest believed irrecoverable.
		crit, err := f.binary(prev, curr)
		if err != nil {
			return err
		}
		f.candidate, f.candCond = crit, C1
		unchanged, err := f.unchanged(crit)
		if err != nil {
			return err
		}
		if c.ConfirmWalks < 0 && !unchanged {
			return f.done(crit, C1)
		}
		if crit > r.eSteps {
			// Past the quiescent end of E: dead for certain.
			conf := &Confidence{At: Probe{Step: crit, Phase: PhaseConfirm, Witness: -1}, Certain: true}
			if crit-1 <= r.eSteps {
				if conf.Before, err = f.sampleBefore(crit); err != nil {
					return err
				}
				conf.BeforeRate = float64(conf.Before.Recovered) / float64(max(conf.Before.Walks, 1))
				if conf.Before.Live {
					conf.BeforeRate = 1
				}
			}
			f.res.Confidence = conf
			return f.done(crit, C1)
		}
		shared := 0
		if f.res.Live != nil {
			shared = f.res.Live.Shared
		}
		if unchanged {
			f.res.Unchanged = append(f.res.Unchanged, crit)
		} else {
			at, err := f.confirmAt(crit)
			if err != nil {
				return err
			}
			if f.res.Live != nil {
				shared = f.res.Live.Shared
			}
			if !at.Recovers && shared < crit {
				before, err := f.sampleBefore(crit)
				if err != nil {
					return err
				}
				f.res.Confidence = newConfidence(before, at, false)
				return f.done(crit, C1)
			}
			// crit was near dead: search on above it.
			f.res.Refined = append(f.res.Refined, crit)
		}
		prev = max(crit, min(shared, r.eSteps))
		f.verdict[crit] = true
		f.moveBase(prev)
		curr = -1
		for i, rec := range f.verdict {
			if !rec && i > prev && (curr < 0 || i < curr) {
				curr = i
			}
		}
		if curr < 0 {
			var dead bool
			if prev, curr, dead, err = f.exponential(prev); err != nil || !dead {
				if err == nil {
					err = f.done(curr, C2)
				}
				return err
			}
		}
	}
}

// exponential doubles from the recoverable state from until a state is
// believed dead (dead true: prev recovers, curr not) or lies beyond d_max/2
// (dead false: the answer is (curr, C2)). A state past the end of an E
// that fell quiescent at most d_max/2 steps in is dead for certain, so it
// needs no walks long enough to tell: beyond d_max/2 it still counts as
// dead, and every state the binary search then probes below it lies at
// most d_max/2 in, as Algorithm 3's do.
func (f *finder) exponential(from int) (prev, curr int, dead bool, err error) {
	curr = from
	for {
		prev = curr
		// Deviation: doubling 0 would stay at 0.
		curr = max(2*curr, 1)
		// d_curr > d_max/2, in integers.
		if 2*curr > f.c.WalkDepth && !(f.quiescent && curr > f.r.eSteps && 2*f.r.eSteps <= f.c.WalkDepth) {
			// Deviation: Algorithm 3 stops here with C2, leaving the
			// states between d_prev and d_max/2 unprobed, where a dead
			// state that the doubling stepped over lies (a trial's
			// counter died at 11,250 with d_max 30,000: probes 10,240,
			// then 20,480 > 15,000). State d_max/2, whose walks have as
			// many steps as Algorithm 3 gives any probe, is probed once.
			half := f.c.WalkDepth / 2
			if half <= prev || half > f.r.eSteps {
				return prev, curr, false, nil
			}
			ok, err := f.probe(half, PhaseExponential)
			if err != nil || !ok {
				return prev, half, err == nil, err
			}
			return half, curr, false, nil
		}
		ok, err := f.probe(curr, PhaseExponential)
		if err != nil || !ok {
			return prev, curr, err == nil, err
		}
	}
}

// binary is Algorithm 3's phase 2 between the recoverable state prev and
// the dead state curr; it returns the first dead state.
func (f *finder) binary(prev, curr int) (int, error) {
	for {
		if prev == curr-1 {
			return curr, nil
		}
		mid := (prev + curr) / 2
		phase := PhaseBinary
		if mid < f.c.DInit {
			phase = PhaseBelow
		}
		ok, err := f.probe(mid, phase)
		if err != nil {
			return 0, err
		}
		if ok {
			prev = mid
		} else {
			curr = mid
		}
	}
}

// snapshot returns a copy of E's state i (i >= base's step).
func (f *finder) snapshot(i int) (*engine.Sim, error) {
	snap := f.base.Clone(nil)
	if err := advance(snap, f.c.Choices, i); err != nil {
		return nil, fmt.Errorf("%w: to state %d: %w", ErrReplay, i, err)
	}
	f.r.transitions.Add(int64(i - f.base.Steps()))
	return snap, nil
}

// moveBase moves the base snapshot up to the recoverable state i.
func (f *finder) moveBase(i int) {
	if i > f.base.Steps() && i <= f.r.eSteps {
		if snap, err := f.snapshot(i); err == nil {
			f.base = snap
		}
	}
}

// record adds a probe to the result.
func (f *finder) record(p Probe, alt *Alternative) {
	res := &f.res
	res.Probes = append(res.Probes, p)
	if p.Unsafe > 0 && res.Unsafe == 0 {
		res.UnsafeProperty = p.UnsafeProperty
	}
	res.Unsafe += p.Unsafe
	if p.Failed > 0 && res.Failed == 0 {
		res.FailedError = p.FailedError
	}
	res.Failed += p.Failed
	// Ties go to the later probe (a higher transient state), except that
	// a confirmation sample only replaces a longer-shared alternative.
	if alt != nil && (res.Live == nil || alt.Shared > res.Live.Shared || alt.Shared == res.Live.Shared && p.Phase != PhaseConfirm) {
		res.Live = alt
	}
	if f.c.Progress != nil {
		f.c.Progress(p)
	}
}

// probe is Recovers(E, i, k); the base snapshot moves to every state that
// recovers.
func (f *finder) probe(i int, phase Phase) (bool, error) {
	r := f.r
	if err := r.ctxErr(); err != nil {
		return false, err
	}
	var p Probe
	var alt *Alternative
	switch {
	case i > r.eSteps:
		if !f.quiescent {
			return false, fmt.Errorf("%w: E has %d steps and does not end quiescent; the search needs state %d (lower the walk depth, --walk-depth or Config.WalkDepth, to at most %d, or give a longer E)", ErrShort, r.eSteps, i, 2*r.eSteps)
		}
		// E stays in its last, quiescent and non-live state: dead.
		p = Probe{Step: i, Phase: phase, Witness: -1}
	case i < len(f.live) && f.live[i]:
		// A live state of the prefix is not dead; no walk needed.
		p = Probe{Step: i, Phase: phase, Witness: -1, Recovers: true, Live: true}
		f.moveBase(i)
	default:
		t := time.Now()
		snap, err := f.snapshot(i)
		if err != nil {
			return false, err
		}
		p, alt, err = r.recovers(snap, i, phase)
		if err != nil {
			return false, err // a cancelled probe decides nothing
		}
		p.Elapsed = time.Since(t) // the replay included
		if p.Recovers {
			f.base = snap
		}
	}
	f.verdict[i] = p.Recovers
	f.record(p, alt)
	return p.Recovers, nil
}

// confirmAt runs the confirmation sample at the candidate critical state
// i: up to ConfirmWalks walks numbered from k, stopping at the first that
// recovers.
func (f *finder) confirmAt(i int) (Probe, error) {
	return f.sampleAt(i, true)
}

// sampleBefore is the confirmation sample at state crit-1, the state
// before the candidate critical transition: none when that state is a live
// state of E's prefix (it is not dead, whatever walks from it do: a walk
// counts only the live states it reaches after its start).
func (f *finder) sampleBefore(crit int) (Probe, error) {
	if i := crit - 1; i >= 0 && i < len(f.live) && f.live[i] {
		return Probe{Step: i, Phase: PhaseConfirm, Witness: -1, Recovers: true, Live: true}, nil
	}
	return f.sampleAt(crit-1, false)
}

// sampleAt runs a confirmation sample at state i: walks k, k+1, ... up to
// ConfirmWalks of them and ConfirmBudget transitions, stopping at the first
// live one when stopAtLive.
func (f *finder) sampleAt(i int, stopAtLive bool) (Probe, error) {
	if err := f.r.ctxErr(); err != nil {
		return Probe{}, err
	}
	t := time.Now()
	snap, err := f.snapshot(i)
	if err != nil {
		return Probe{}, err
	}
	p, alt, err := f.r.run(snap, i, f.confirmBatch(stopAtLive))
	if err != nil {
		return p, err
	}
	p.Elapsed = time.Since(t)
	f.record(p, alt)
	return p, nil
}

func (f *finder) confirmBatch(stopAtLive bool) batch {
	return confirmBatch(f.c, stopAtLive)
}

// done fixes the answer and the critical event.
func (f *finder) done(step int, cond Condition) error {
	res := &f.res
	res.Step, res.Condition = step, cond
	f.candidate, f.candCond = step, cond
	res.Premature = cond == C1 && res.Live != nil && res.Live.Shared >= step
	if step >= 1 && step <= f.r.eSteps {
		if step <= f.base.Steps() {
			// The base moved past the answer (a live state of the prefix
			// below d_init at most at the answer): replay from the start.
			b, err := engine.Replay(f.c.Sim, f.c.Choices, 0, f.c.Options)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrReplay, err)
			}
			f.base = b
		}
		s, err := f.snapshot(step)
		if err != nil {
			return err
		}
		res.Event, res.EventText, res.HasEvent = s.LastEvent(), s.LastEvent().String(), true
	}
	return nil
}

// checkE replays E once: it fixes E's length, checks that no state after
// DInit is live, records which states up to DInit are live, and learns
// whether E ends quiescent.
func (f *finder) checkE() error {
	c, r := f.c, f.r
	rec := engine.NewRecorded(c.Choices)
	opts := c.Options
	opts.Chooser = rec
	s, err := engine.New(c.Sim, opts)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReplay, err)
	}
	f.live = make([]bool, 0, c.DInit+1)
	// The states of E's second half (its last maxProgressTail steps at
	// most), when E is long enough to tell whether it keeps reaching new
	// ones (Result.NewStates).
	var tail map[uint64]bool
	tailFrom := max(c.Steps/2, c.Steps-maxProgressTail)
	if c.Steps >= 2*progressTail {
		tail = make(map[uint64]bool, c.Steps-tailFrom)
	}
	for {
		if tail != nil && s.Steps() > tailFrom {
			tail[s.Hash()] = true
		}
		if s.Steps() <= c.DInit {
			live, err := s.AllHold(c.Sim.Liveness)
			if err != nil {
				return fmt.Errorf("critical: checking E at step %d: %w", s.Steps(), err)
			}
			f.live = append(f.live, live)
		}
		if c.Steps > 0 && s.Steps() >= c.Steps || c.Steps == 0 && rec.Used() >= len(c.Choices) {
			break
		}
		if err := r.ctxErr(); err != nil {
			return err
		}
		ok, err := s.Step()
		if err != nil {
			return fmt.Errorf("%w: step %d: %w", ErrReplay, s.Steps(), err)
		}
		if !ok {
			if c.Steps > 0 {
				return fmt.Errorf("%w: quiescent after %d steps, E has %d", ErrReplay, s.Steps(), c.Steps)
			}
			break
		}
		if s.Steps() > c.DInit {
			live, err := s.AllHold(c.Sim.Liveness)
			if err != nil {
				return fmt.Errorf("critical: checking E at step %d: %w", s.Steps(), err)
			}
			if live {
				return &NotDeadError{Step: s.Steps(), DInit: c.DInit}
			}
		}
	}
	r.transitions.Add(int64(s.Steps()))
	f.quiescent = len(s.Ready()) == 0
	// A path that fell quiescent has nothing left to run: new states on
	// the way to its end are no progress towards a live one.
	if n := s.Steps() - tailFrom; tail != nil && !f.quiescent && s.HashErr() == nil && s.HiddenState() == "" && len(tail) == n {
		f.res.NewStates = n
	}
	r.eSteps = s.Steps()
	if r.eSteps < c.DInit {
		return fmt.Errorf("%w: d_init %d is beyond E's %d steps", ErrBadConfig, c.DInit, r.eSteps)
	}
	return nil
}

package critical

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macemc/macemc/internal/recovered"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// Phase says why a probe ran.
type Phase int

// The phases of a search.
const (
	// PhaseDirect is a direct call of Recovers.
	PhaseDirect Phase = iota
	// PhaseExponential is Algorithm 3's phase 1: doubling from d_init.
	PhaseExponential
	// PhaseBinary is Algorithm 3's phase 2: binary search between the
	// highest state known to recover and the lowest believed dead.
	PhaseBinary
	// PhaseBelow searches E's prefix below d_init after no walk recovered
	// from d_init: the probe of state 0 and the binary search up to d_init.
	PhaseBelow
	// PhaseConfirm is a confirmation sample of many walks: at a candidate
	// critical state c (stopping at the first walk that recovers) or at
	// state c-1 (counting every walk). See Confirm.
	PhaseConfirm
)

var phaseNames = [...]string{"direct", "exponential", "binary", "below d_init", "confirm"}

// String returns the phase's name, e.g. "binary".
func (p Phase) String() string {
	if p >= 0 && int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", int(p))
}

// Probe is one call of Recovers(E, i, k): the walks from one state of E,
// or a confirmation sample with many more walks. Every field but Elapsed
// is the same for any Config.Workers.
type Probe struct {
	// Step is the state probed: E's state after Step transitions.
	Step int
	// Phase says why the probe ran.
	Phase Phase
	// Recovers reports whether some walk reached a live state (or state
	// Step is itself live, see Live): the state is transient. Otherwise
	// it is believed dead.
	Recovers bool
	// Live marks a state of E at or before d_init that is itself live
	// (liveness only counted after d_init): not dead, and no walk ran.
	Live bool
	// Walks is the number of walks counted: for a probe, the witness's
	// index plus one, or k when none was live; for a confirmation sample,
	// the walks run before its budget, its walk limit or (at a candidate
	// critical state) the first recovering walk ended it. It is 0 for a
	// state beyond the end of an E that fell quiescent (dead without
	// walking) and for a Live state.
	Walks int
	// Recovered is how many of the counted walks reached a live state
	// (0 or 1 for a probe, which stops at the first).
	Recovered int
	// Witness is the index of the first walk (lowest index) that reached a
	// live state, or -1. Confirmation walks are numbered on from k: walk
	// j of a sample is WalkSeed(seed, Step, j) with j >= k.
	Witness int
	// LiveAt is the witness execution's length when it became live.
	LiveAt int
	// Unsafe counts the counted walks that ended in a safety violation, a
	// handler panic or hang, or another failure; they count as not
	// recovering. UnsafeProperty names the first of them.
	Unsafe         int
	UnsafeProperty string
	// Failed counts those of Unsafe that ended in a failure of the
	// system's code (a handler or a property that panicked or hung),
	// which says nothing of whether the state recovers; FailedError is
	// the first one's error.
	Failed      int
	FailedError string
	// AtDMax counts the counted walks that reached d_max still running,
	// without a live state; the others that did not recover fell
	// quiescent (nothing left to run) or ended unsafe. A state no walk
	// recovers from with AtDMax 0 is not one that more steps would save.
	AtDMax int
	// Transitions is the number of steps the counted walks took (their
	// own steps, the replay to state Step not included).
	Transitions int64
	// Budget marks a confirmation sample that its transition budget ended
	// before its walk limit (and, at state c-1, before ConfirmRecoveries
	// walks recovered).
	Budget bool
	// Forced marks a state every walk from which is the same execution:
	// no step of the first walk had an alternative (one ready event each
	// time, no failure or Rand choice), so its seed changed nothing and
	// every other walk would repeat it. The probe then counts that one
	// walk (Walks is 1) and its answer is certain within d_max.
	Forced bool
	// Quiescent marks a Forced probe whose walk fell quiescent without a
	// live state: the state is dead for certain, beyond d_max too. A
	// Forced walk that ran to d_max only shows that no execution from the
	// state becomes live within d_max.
	Quiescent bool
	// Cycles marks a Forced probe whose walk came back to a state it had
	// passed, with no live state in between: the one execution from the
	// state goes round that cycle forever, so the state is dead for
	// certain too (up to what hashing cannot see).
	Cycles bool
	// Elapsed is the probe's wall-clock time.
	Elapsed time.Duration
}

// Alternative is a live execution that shares a prefix with the dead one:
// E's choices up to a transient state, then a recovery walk's choices up
// to its first live state. Replay it with Replay (or engine.Replay with
// Options when FailuresFrom is 0).
type Alternative struct {
	// Choices replay the whole live execution from the initial state.
	Choices []int32
	// Steps is its length: the state after Steps transitions is live.
	Steps int
	// Shared is the number of leading transitions it has in common with
	// E (at least From: a walk may by chance repeat E's next steps).
	Shared int
	// From is the state of E the recovery walk started from, Walk its
	// index in that probe and Seed its chooser's seed.
	From int
	Walk int
	Seed uint64
	// Options are the simulator options that replay Choices.
	Options engine.Options
	// FailuresFrom, when positive, is the step from which the walk ran
	// with failures switched back on (Config.WalkFailures) where Options
	// has them off; engine.Options cannot express that, so replay with
	// Alternative.Replay.
	FailuresFrom int
}

// Replay rebuilds the live alternative on cfg (E's system) and returns the
// simulator in its live state.
func (a *Alternative) Replay(cfg *sim.Config) (*engine.Sim, error) {
	if a.FailuresFrom <= 0 {
		s, err := engine.Replay(cfg, a.Choices, a.Steps, a.Options)
		if err != nil {
			return s, fmt.Errorf("%w: live alternative: %w", ErrReplay, err)
		}
		return s, nil
	}
	s, err := engine.Replay(cfg, a.Choices, a.FailuresFrom, a.Options)
	if err != nil {
		return s, fmt.Errorf("%w: live alternative: %w", ErrReplay, err)
	}
	s.SetFailures(true)
	s.SetFailuresUntil(0)
	if err := advance(s, a.Choices, a.Steps); err != nil {
		return s, fmt.Errorf("%w: live alternative: %w", ErrReplay, err)
	}
	return s, nil
}

// walkSeed is WalkSeed.
func walkSeed(seed uint64, i, j int) uint64 {
	return walks.SeedFor(walks.SeedFor(seed, uint64(i)), uint64(j))
}

// Recovers is Recovers(E, i, k) of seed 003's Algorithm 3: it replays E
// (c.Choices with c.Options) once to state i, then runs up to c.Walks
// random walks from that state, each to a total depth of c.WalkDepth, and
// reports whether any reached a live state after i. The returned
// alternative is the first live walk's execution (nil when none). Walks
// that break a safety property or whose handler panics count as not
// recovering (Probe.Unsafe).
func Recovers(ctx context.Context, c Config, i int) (Probe, *Alternative, error) {
	if err := c.validate(); err != nil {
		return Probe{}, nil, err
	}
	if i < 0 || (c.Steps > 0 && i > c.Steps) {
		return Probe{}, nil, fmt.Errorf("%w: state %d is outside E (%d steps)", ErrShort, i, c.Steps)
	}
	r := newSearcher(ctx, &c)
	defer r.close()
	snap, err := engine.Replay(c.Sim, c.Choices, i, c.Options)
	if err != nil {
		return Probe{}, nil, fmt.Errorf("%w: to state %d: %w", ErrReplay, i, err)
	}
	r.transitions.Add(int64(i))
	return r.recovers(snap, i, PhaseDirect)
}

// searcher holds what the probes of one search share.
type searcher struct {
	c         *Config
	ctx       context.Context
	eSteps    int // E's length, or math.MaxInt when unknown
	cancelled atomic.Bool
	stopWatch func() bool
	// walkErr is the first bad copy of a state a recovery walk started
	// from (engine.ErrCopy), or a panic of macemc's own code in a walk
	// (recovered.ErrInternal): no walk of the probe is evidence then, so
	// the search stops with it.
	walkErr     atomic.Pointer[error]
	walksRun    atomic.Int64
	transitions atomic.Int64
}

func newSearcher(ctx context.Context, c *Config) *searcher {
	if ctx == nil {
		ctx = context.Background()
	}
	r := &searcher{c: c, ctx: ctx, eSteps: math.MaxInt}
	if c.Steps > 0 {
		r.eSteps = c.Steps
	}
	r.stopWatch = context.AfterFunc(ctx, func() { r.cancelled.Store(true) })
	if ctx.Err() != nil {
		r.cancelled.Store(true)
	}
	return r
}

func (r *searcher) close() { r.stopWatch() }

func (r *searcher) ctxErr() error {
	if err := r.walkErr.Load(); err != nil {
		if errors.Is(*err, recovered.ErrInternal) {
			return fmt.Errorf("critical: a recovery walk failed: %w", *err)
		}
		return fmt.Errorf("critical: a recovery walk could not start from its state: %w", *err)
	}
	if err := r.ctx.Err(); err != nil {
		return fmt.Errorf("critical: %w", err)
	}
	return nil
}

// walkOut is what one recovery walk left.
type walkOut struct {
	done    bool
	outcome walks.Outcome
	steps   int64 // the walk's own steps
	prop    string
	err     string       // a failed walk's error
	alt     *Alternative // live walks only
	forced  bool         // no step had an alternative (see Probe.Forced)
	cycles  bool         // forced, and it came back to a state it passed (see Probe.Cycles)
}

// choiceCounter is a chooser that notes whether any choice it made had an
// alternative.
type choiceCounter struct {
	engine.Chooser
	free bool
}

func (c *choiceCounter) Choose(kind engine.ChoiceKind, n int, weights []float64) int {
	c.free = c.free || n > 1
	return c.Chooser.Choose(kind, n, weights)
}

// batch describes a set of walks from one state: walks from, ..., from+n-1
// (WalkSeed numbering), ended at the first live walk when stopAtLive, and
// once the counted walks took budget transitions when budget > 0.
type batch struct {
	phase      Phase
	from, n    int
	stopAtLive bool
	liveCap    int // end once this many counted walks are live (0: no cap)
	budget     int64
	depth      int // d_max of the walks (0: Config.WalkDepth)
}

// recovers runs the k walks of one probe from snap, E's state i.
func (r *searcher) recovers(snap *engine.Sim, i int, phase Phase) (Probe, *Alternative, error) {
	return r.run(snap, i, batch{phase: phase, n: r.c.Walks, stopAtLive: true})
}

// run runs a batch of walks from snap, E's state i. Walks are handed out
// in index order to c.Workers goroutines. The walks counted are a prefix
// of the batch fixed by the walks' own results, never by timing: up to
// and including the first live walk (stopAtLive) or the liveCap-th, and up
// to and including the walk with which the counted walks' transitions
// reach the budget. Workers stop starting walks once a lower-index walk is
// live, the finished walks include liveCap live ones, or their transitions
// reach the budget (each condition only ever becomes true, and implies the
// counted prefix ends before the walk not started), so every counted walk
// has run to its end and the probe does not depend on the number of
// workers; at most Workers-1 walks past the prefix are wasted.
func (r *searcher) run(snap *engine.Sim, i int, b batch) (Probe, *Alternative, error) {
	start := time.Now()
	c := r.c
	outs := make([]walkOut, b.n)
	var next, spent, lives atomic.Int64
	var forced atomic.Bool
	var minLive atomic.Int64
	minLive.Store(int64(b.n))
	var wg sync.WaitGroup
	for range min(c.Workers, b.n) {
		wg.Go(func() {
			// The worker's simulator: each walk copies snap into it
			// (engine.Sim.CloneInto). Performance: a new copy of a state
			// allocates a queue for every ordered pair of nodes.
			var w *engine.Sim
			defer func() {
				// A fault in macemc's own code (copying the state, say)
				// ends the probe with an error, not the process.
				if p := recover(); p != nil {
					err := recovered.Error(p)
					r.walkErr.CompareAndSwap(nil, &err)
					r.cancelled.Store(true)
				}
			}()
			for {
				j := int(next.Add(1) - 1)
				if j >= b.n || r.cancelled.Load() || forced.Load() ||
					b.stopAtLive && int64(j) > minLive.Load() ||
					b.liveCap > 0 && lives.Load() >= int64(b.liveCap) ||
					b.budget > 0 && spent.Load() >= b.budget {
					return
				}
				stop := func() bool {
					return r.cancelled.Load() || b.stopAtLive && minLive.Load() < int64(j) || j > 0 && forced.Load()
				}
				if j == 0 {
					// When none of the first walk's steps had an
					// alternative, every walk of the batch repeats it
					// (Probe.Forced): it is the only one counted, and the
					// others stop. Performance: a dead state that fell
					// quiescent is confirmed by one walk, not thousands
					// that each copy the state.
					outs[0] = r.walkCounted(snap, &w, i, b.from, b.depth, stop)
					if outs[0].done && outs[0].forced {
						forced.Store(true)
					}
				} else {
					outs[j] = r.walk(snap, &w, i, b.from+j, b.depth, stop)
				}
				spent.Add(outs[j].steps)
				if outs[j].outcome == walks.Live {
					lives.Add(1)
				}
				if b.stopAtLive && outs[j].outcome == walks.Live {
					for {
						cur := minLive.Load()
						if int64(j) >= cur || minLive.CompareAndSwap(cur, int64(j)) {
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if forced.Load() {
		b.n = 1
	}
	p := Probe{Step: i, Phase: b.phase, Witness: -1}
	var alt *Alternative
	for j := range b.n {
		o := &outs[j]
		if !o.done {
			break // past the counted prefix (cannot happen inside it)
		}
		p.Walks++
		p.Transitions += o.steps
		switch o.outcome {
		case walks.Live:
			p.Recovered++
			if p.Witness < 0 {
				p.Recovers, p.Witness, p.LiveAt, alt = true, b.from+j, o.alt.Steps, o.alt
			}
		case walks.Unsafe, walks.Failed:
			if p.Unsafe == 0 {
				p.UnsafeProperty = o.prop
			}
			p.Unsafe++
			if o.outcome == walks.Failed {
				if p.Failed == 0 {
					p.FailedError = o.err
				}
				p.Failed++
			}
		case walks.Dead:
			p.AtDMax++
		}
		if o.outcome == walks.Live && (b.stopAtLive || b.liveCap > 0 && p.Recovered >= b.liveCap) {
			break
		}
		if b.budget > 0 && p.Transitions >= b.budget {
			p.Budget = j+1 < b.n
			break
		}
	}
	p.Forced = forced.Load()
	p.Quiescent = p.Forced && outs[0].outcome == walks.Quiescent
	p.Cycles = p.Forced && outs[0].cycles
	p.Elapsed = time.Since(start)
	// When cancelled, p holds the walks that ran to their end before it.
	return p, alt, r.ctxErr()
}

// walkCounted is walk, noting whether any step had an alternative, and,
// while none had, whether the walk came back to a state it passed: then it
// is one execution that cycles forever (Probe.Cycles) and ends there.
// Performance: a walk hashes its states only while it has had no choice,
// which most walks have at their first step.
func (r *searcher) walkCounted(snap *engine.Sim, into **engine.Sim, i, j, depth int, stop func() bool) walkOut {
	cc := &choiceCounter{Chooser: engine.NewRandom(walkSeed(r.c.Seed, i, j))}
	var seen map[uint64]bool
	cycles := false
	repeats := func(s *engine.Sim) bool {
		if cc.free {
			return false
		}
		h := s.Hash()
		if s.HashErr() != nil {
			cc.free = true // no hash to tell states by: look no more
			return false
		}
		if seen == nil {
			seen = map[uint64]bool{}
		}
		cycles = seen[h]
		seen[h] = true
		return cycles
	}
	out := r.walkWith(snap, into, i, j, depth, cc, stop, repeats)
	out.forced = !cc.free
	out.cycles = out.forced && cycles
	return out
}

// walk runs recovery walk j from snap, E's state i, until it is live, dead
// at d_max, or stop says so, on a copy of snap it makes in *into (see
// engine.Sim.CloneInto) and leaves there.
func (r *searcher) walk(snap *engine.Sim, into **engine.Sim, i, j, depth int, stop func() bool) walkOut {
	return r.walkWith(snap, into, i, j, depth, engine.NewRandom(walkSeed(r.c.Seed, i, j)), stop, nil)
}

// walkWith is walk with the walk's chooser given, and, when repeats is not
// nil, ended dead when repeats says that its state after a step (or its
// start) is one it had before.
func (r *searcher) walkWith(snap *engine.Sim, into **engine.Sim, i, j, depth int, chooser engine.Chooser, stop func() bool, repeats func(*engine.Sim) bool) walkOut {
	c := r.c
	if depth <= 0 {
		depth = c.WalkDepth
	}
	seed := walkSeed(c.Seed, i, j)
	w := snap.CloneInto(*into, chooser)
	*into = w
	switch {
	case c.WalkFailures:
		w.SetFailures(true)
		w.SetFailuresUntil(0)
	case c.Options.FailuresUntil > 0:
		// E ran its walk without failures ("gusto"), and so does every
		// recovery walk, from a state inside E's bounded part too: there
		// E could still fail, but a walk that recovers only by a failure
		// E's window allows made the step where the window closes look
		// critical, whatever event it was.
		w.SetFailures(false)
	}
	// State i itself counts: a live state is not dead (it reaches a live
	// state in no steps). Algorithm 3 probes states E never found live,
	// except state d_init, which the search's walk did not check (§3.1
	// checks liveness after the search depth only).
	wc := walks.Config{
		MaxSteps:  depth,
		LiveAfter: i - 1,
		Liveness:  c.Sim.Liveness,
		Safety:    c.Sim.Safety,
		Observe:   walks.ObserveFunc(func(*engine.Sim) bool { return !stop() }),
	}
	cycled := false
	if repeats != nil {
		wc.Observe = walks.ObserveFunc(func(s *engine.Sim) bool {
			if stop() {
				return false
			}
			cycled = repeats(s)
			return !cycled
		})
	}
	var res walks.Result
	run := func() error { res = walks.Walk(w, &wc); return nil }
	var err error
	if c.HandlerTimeout < 0 {
		err = run()
	} else {
		err = w.Guard(c.HandlerTimeout, run)
	}
	r.walksRun.Add(1)
	if err != nil {
		// A hang: the walk's simulator is abandoned to its handler.
		var he *engine.HangError
		steps := int64(0)
		if errors.As(err, &he) {
			steps = int64(he.Step - i)
		}
		r.transitions.Add(steps)
		return walkOut{done: true, outcome: walks.Failed, steps: steps, prop: walks.HangPropertyOf(err), err: err.Error()}
	}
	r.transitions.Add(int64(res.Steps - i))
	if res.Outcome == walks.Stopped && cycled {
		// Back at a state it passed, with no live state in between (each
		// was checked) and no choice: it would go round forever.
		res.Outcome = walks.Dead
		if k, err := w.FirstViolated(c.Sim.Liveness); err == nil && k >= 0 {
			res.Property = c.Sim.Liveness[k].Name
		}
	}
	if res.Outcome == walks.Stopped {
		return walkOut{} // cut short: never counted
	}
	if res.Outcome == walks.Failed && errors.Is(res.Err, engine.ErrCopy) {
		// The copy of state i is not state i (a service that is not
		// deterministic, copied by replay): the walk says nothing about
		// state i, and no other walk from such a copy does either.
		err := res.Err
		r.walkErr.CompareAndSwap(nil, &err)
		r.cancelled.Store(true)
		return walkOut{}
	}
	out := walkOut{done: true, outcome: res.Outcome, steps: int64(res.Steps - i), prop: res.Property}
	if res.Outcome == walks.Failed && res.Err != nil {
		out.err = res.Err.Error()
		if out.prop == "" {
			out.prop = out.err
		}
	}
	if res.Outcome == walks.Live {
		opts, from := r.altOptions(i)
		out.alt = &Alternative{
			Choices:      w.ChoiceValues(),
			Steps:        res.Steps,
			Shared:       r.shared(w),
			From:         i,
			Walk:         j,
			Seed:         seed,
			Options:      opts,
			FailuresFrom: from,
		}
	}
	return out
}

// shared returns the number of leading transitions the walk's execution
// w has in common with E: the largest t whose first t transitions made
// the same choices. Equal choice prefixes make equal transitions because
// replay is deterministic; with WalkFailures the ready sets after the
// walk's start differ only by failure events, which the simulator lists
// after all others, so an equal answer still picks the same event.
func (r *searcher) shared(w *engine.Sim) int {
	alt, e := w.Choices(), r.c.Choices
	n := 0
	for n < len(alt) && n < len(e) && alt[n].Value == e[n] {
		n++
	}
	hi := min(w.Steps(), r.eSteps)
	t := 0
	for t < hi && w.StepStart(t+1) <= n {
		t++
	}
	return t
}

// altOptions returns the options that replay a live walk started at state
// i, and the step from which failures must be switched back on (0: none).
func (r *searcher) altOptions(i int) (engine.Options, int) {
	o := engine.Options{NoFailures: r.c.Options.NoFailures, FailuresUntil: r.c.Options.FailuresUntil}
	if !r.c.WalkFailures {
		if o.FailuresUntil > i {
			// Failures on in E's prefix up to state i, off in the walk.
			if o.FailuresUntil = i; i == 0 {
				o.NoFailures = true
			}
		}
		return o, 0
	}
	if !o.NoFailures && (o.FailuresUntil <= 0 || i <= o.FailuresUntil) {
		// Failures were on throughout E's prefix: simply never off.
		return engine.Options{}, 0
	}
	return o, i
}

// advance steps s with E's remaining choices (those after s's own) until
// it has steps transitions.
func advance(s *engine.Sim, choices []int32, steps int) error {
	used := len(s.Choices())
	if used > len(choices) {
		return fmt.Errorf("%w: %d choices already used, %d recorded", engine.ErrBadChoice, used, len(choices))
	}
	s.SetChooser(engine.NewRecorded(choices[used:]))
	for s.Steps() < steps {
		ok, err := s.Step()
		if err != nil {
			return fmt.Errorf("step %d: %w", s.Steps(), err)
		}
		if !ok {
			return fmt.Errorf("%w: quiescent after %d steps, %d asked", engine.ErrBadChoice, s.Steps(), steps)
		}
	}
	return nil
}

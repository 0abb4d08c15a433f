package critical

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// Probe is one call of Recovers(E, i, k): the walks from one state of E.
// Every field but Elapsed is the same for any Config.Workers.
type Probe struct {
	// Step is the state probed: E's state after Step transitions.
	Step int
	// Phase is 1 for the exponential search, 2 for the binary search and
	// 0 for a direct call of Recovers.
	Phase int
	// Recovers reports whether some walk reached a live state: the state
	// is transient. Otherwise it is believed dead.
	Recovers bool
	// Walks is the number of walks that decided the answer: the witness's
	// index plus one, or k when none was live. It is 0 for a state beyond
	// the end of an E that fell quiescent (dead without walking).
	Walks int
	// Witness is the index of the first walk (lowest index) that reached a
	// live state, or -1.
	Witness int
	// LiveAt is the witness execution's length when it became live.
	LiveAt int
	// Unsafe counts the deciding walks that ended in a safety violation, a
	// handler panic or hang, or another failure; they count as not
	// recovering. UnsafeProperty names the first of them.
	Unsafe         int
	UnsafeProperty string
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
func Recovers(c Config, i int) (Probe, *Alternative, error) {
	if err := c.validate(); err != nil {
		return Probe{}, nil, err
	}
	if i < 0 || (c.Steps > 0 && i > c.Steps) {
		return Probe{}, nil, fmt.Errorf("%w: state %d is outside E (%d steps)", ErrShort, i, c.Steps)
	}
	r := newSearcher(&c)
	defer r.close()
	snap, err := engine.Replay(c.Sim, c.Choices, i, c.Options)
	if err != nil {
		return Probe{}, nil, fmt.Errorf("%w: to state %d: %w", ErrReplay, i, err)
	}
	r.transitions.Add(int64(i))
	return r.recovers(snap, i, 0)
}

// searcher holds what the probes of one search share.
type searcher struct {
	c           *Config
	eSteps      int // E's length, or math.MaxInt when unknown
	cancelled   atomic.Bool
	stopWatch   func() bool
	walksRun    atomic.Int64
	transitions atomic.Int64
}

func newSearcher(c *Config) *searcher {
	r := &searcher{c: c, eSteps: math.MaxInt}
	if c.Steps > 0 {
		r.eSteps = c.Steps
	}
	r.stopWatch = context.AfterFunc(c.Context, func() { r.cancelled.Store(true) })
	if c.Context.Err() != nil {
		r.cancelled.Store(true)
	}
	return r
}

func (r *searcher) close() { r.stopWatch() }

func (r *searcher) ctxErr() error {
	if err := r.c.Context.Err(); err != nil {
		return fmt.Errorf("critical: %w", err)
	}
	return nil
}

// walkOut is what one recovery walk left.
type walkOut struct {
	outcome walks.Outcome
	prop    string
	alt     *Alternative // live walks only
}

// recovers runs the walks of one probe from snap, E's state i. Walks are
// handed out in index order to c.Workers goroutines; a walk stops early
// once a walk with a lower index is live, and no walk starts past the
// lowest live index, so every walk below the final witness runs to its end
// and the answer does not depend on the number of workers.
func (r *searcher) recovers(snap *engine.Sim, i, phase int) (Probe, *Alternative, error) {
	start := time.Now()
	c := r.c
	k := c.Walks
	outs := make([]walkOut, k)
	var next atomic.Int64
	var minLive atomic.Int64
	minLive.Store(int64(k))
	var wg sync.WaitGroup
	for range c.Workers {
		wg.Go(func() {
			for {
				j := int(next.Add(1) - 1)
				if j >= k || int64(j) > minLive.Load() || r.cancelled.Load() {
					return
				}
				outs[j] = r.walk(snap, i, j, &minLive)
				if outs[j].outcome == walks.Live {
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
	if err := r.ctxErr(); err != nil {
		return Probe{}, nil, err
	}
	p := Probe{Step: i, Phase: phase, Witness: -1, Walks: k}
	w := int(minLive.Load())
	var alt *Alternative
	if w < k {
		p.Recovers, p.Witness, p.Walks = true, w, w+1
		alt = outs[w].alt
		p.LiveAt = alt.Steps
	}
	for j := range p.Walks {
		if o := outs[j].outcome; o == walks.Unsafe || o == walks.Failed {
			if p.Unsafe == 0 {
				p.UnsafeProperty = outs[j].prop
			}
			p.Unsafe++
		}
	}
	p.Elapsed = time.Since(start)
	return p, alt, nil
}

// walk runs recovery walk j from snap, E's state i.
func (r *searcher) walk(snap *engine.Sim, i, j int, minLive *atomic.Int64) walkOut {
	c := r.c
	seed := walkSeed(c.Seed, i, j)
	w := snap.Clone(engine.NewRandom(seed))
	if c.WalkFailures {
		w.SetFailures(true)
		w.SetFailuresUntil(0)
	}
	wc := walks.Config{
		MaxSteps:  c.WalkDepth,
		LiveAfter: i,
		Liveness:  c.Sim.Liveness,
		Safety:    c.Sim.Safety,
		// Stop when cancelled or when a walk with a lower index is live.
		Observe: walks.ObserveFunc(func(*engine.Sim) bool { return !r.cancelled.Load() && minLive.Load() >= int64(j) }),
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
		if errors.As(err, &he) {
			r.transitions.Add(int64(he.Step - i))
		}
		return walkOut{outcome: walks.Failed, prop: "handler did not return"}
	}
	r.transitions.Add(int64(res.Steps - i))
	out := walkOut{outcome: res.Outcome, prop: res.Property}
	if res.Outcome == walks.Failed && out.prop == "" && res.Err != nil {
		out.prop = res.Err.Error()
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

package lasso

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// ErrReplay marks an execution whose recorded choices do not replay.
var ErrReplay = errors.New("lasso: replay failed")

// Analyze replays a recorded execution (choices, run with opts) and looks
// for a lasso among its states from state from on, as a detector watching
// a walk would: the first hot, fair cycle that replays o.Replays times
// (o.OnLasso and o.Temperature are ignored). It returns nil when there is
// none. The finding's Events are the execution's own events of the cycle,
// and Spun says for how many steps after the cycle the execution goes on
// repeating it (all of them, for a walk that Spin took over).
func Analyze(cfg *sim.Config, opts engine.Options, choices []int32, from int, o Options) (*Finding, error) {
	return AnalyzeContext(context.Background(), cfg, opts, choices, from, o)
}

// AnalyzeContext is Analyze, stopped with ctx's error when ctx is
// cancelled.
func AnalyzeContext(ctx context.Context, cfg *sim.Config, opts engine.Options, choices []int32, from int, o Options) (*Finding, error) {
	o.OnLasso, o.Temperature, o.NoLasso = Stop, 0, false
	opts.Chooser, opts.Logger = nil, nil
	s, err := engine.Replay(cfg, choices, from, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	rest := choices[len(s.Choices()):]
	rec := engine.NewRecorded(rest)
	s.SetChooser(rec)
	d := NewDetector(o)
	for d.Observe(s) && rec.Used() < len(rest) {
		ok, err := s.Step()
		if err != nil {
			return nil, fmt.Errorf("%w: step %d: %w", ErrReplay, s.Steps(), err)
		}
		if !ok {
			break
		}
		if s.Steps()&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	f := d.Finding()
	if f == nil {
		return nil, nil
	}
	// The execution's own events of the cycle.
	r, err := engine.Replay(cfg, choices, f.Stem, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	r.SetChooser(engine.NewRecorded(choices[len(r.Choices()):]))
	f.Events = f.Events[:0]
	for r.Steps() < f.Steps {
		if _, err := r.Step(); err != nil {
			return nil, fmt.Errorf("%w: step %d: %w", ErrReplay, r.Steps(), err)
		}
		f.Events = append(f.Events, r.LastEvent())
	}
	// How far the rest of the execution repeats the cycle's choices.
	cyc := choices[s.StepStart(f.Stem):s.StepStart(f.Steps)]
	tail := choices[s.StepStart(f.Steps):]
	m := 0
	for m < len(tail) && tail[m] == cyc[m%len(cyc)] {
		m++
	}
	// Whole rounds, then the cycle's steps that fit in the partial round.
	f.Spun = m / len(cyc) * f.CycleLen
	for t := f.Stem; t < f.Steps && s.StepStart(t+1)-s.StepStart(f.Stem) <= m%len(cyc); t++ {
		f.Spun++
	}
	return f, nil
}

// WalkConfig says where and how to look for a lasso with fresh random
// walks.
type WalkConfig struct {
	// System, Options, Choices and Steps give the execution whose last
	// state the walks start from.
	System  *sim.Config
	Options engine.Options
	Choices []int32
	Steps   int
	// Walks is how many walks to try, MaxSteps how many steps each may
	// take, Seed seeds walk j with walks.SeedFor(Seed, j).
	Walks    int
	MaxSteps int
	Seed     uint64
	// HandlerTimeout bounds one handler (0: engine.DefaultHandlerTimeout;
	// negative: no watchdog).
	HandlerTimeout time.Duration
	// Lasso configures the detectors (OnLasso and Temperature are
	// ignored).
	Lasso Options
	// Context, when set, stops the walks when it is cancelled: WalkFrom
	// then returns its error.
	Context context.Context
}

// WalkFrom runs c.Walks random walks, one after the other, from the last
// state of c's execution, each with a detector, until a walk becomes live,
// breaks a safety property or has taken c.MaxSteps steps. It returns the
// first walk's lasso (nil when no walk found one) and the number of walks
// run. Each walk is deterministic given its seed.
func WalkFrom(c WalkConfig) (*Finding, int, error) {
	o := c.Lasso
	o.OnLasso, o.Temperature, o.NoLasso = Stop, 0, false
	opts := c.Options
	opts.Chooser, opts.Logger = nil, nil
	base, err := engine.Replay(c.System, c.Choices, c.Steps, opts)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	var w *engine.Sim // each walk's copy of base, in the previous walk's simulator
	for j := 0; j < c.Walks; j++ {
		if err := ctx.Err(); err != nil {
			return nil, j, err
		}
		w = base.CloneInto(w, engine.NewRandom(walks.SeedFor(c.Seed, uint64(j))))
		d := NewDetector(o)
		var obs walks.Observer = d
		if c.Context != nil {
			obs = &cancelObserver{Observer: d, ctx: ctx}
		}
		wc := &walks.Config{MaxSteps: c.Steps + c.MaxSteps, LiveAfter: c.Steps, Liveness: c.System.Liveness, Safety: c.System.Safety, Observe: obs}
		run := func() error { walks.Walk(w, wc); return nil }
		if c.HandlerTimeout < 0 {
			run()
		} else if err := w.Guard(c.HandlerTimeout, run); err != nil {
			continue // a hang: no lasso from this walk
		}
		if err := ctx.Err(); err != nil {
			return nil, j + 1, err
		}
		if f := d.Finding(); f != nil {
			return f, j + 1, nil
		}
	}
	return nil, c.Walks, nil
}

// cancelObserver ends a walk when its context is cancelled.
type cancelObserver struct {
	walks.Observer
	ctx context.Context
}

func (o *cancelObserver) Observe(s *engine.Sim) bool {
	if s.Steps()&1023 == 0 && o.ctx.Err() != nil {
		return false
	}
	return o.Observer.Observe(s)
}

package mdb

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// DefaultSnapshotEvery is how many steps apart a path keeps snapshots of
// the global state: moving to any step replays at most this many steps.
const DefaultSnapshotEvery = 256

// snapshotHistoryBytes bounds what a path's snapshots hold of the path's
// history: each snapshot (engine.Sim.Clone) copies the choices made up to
// its step, so a path of n steps with a snapshot every k steps holds about
// n²/2k of them. A long path takes its snapshots further apart
// (snapshotEvery): a 1,100,000-step trace opened with snapshots every 256
// steps took 24 GB.
const snapshotHistoryBytes = 64 << 20

// snapshotEvery is how many steps apart a path of steps steps and choices
// choices keeps its snapshots: k, or further apart when its snapshots'
// copies of its history would pass snapshotHistoryBytes (about 12 bytes a
// choice with its setting and step start).
func snapshotEvery(k, steps, choices int) int {
	// steps/k + 1 snapshots hold about half the history each.
	half := int64(choices) * 12 / 2
	room := snapshotHistoryBytes - half
	if room <= 0 {
		return max(k, steps)
	}
	need := (int64(steps)*half + room - 1) / room
	return max(k, int(min(need, int64(max(steps, 1)))))
}

// path is one execution mdb can move along: the error path, the live path
// or a branch the user made. It knows its choices, the event of every step
// and a snapshot every k steps, and keeps a cursor simulator so that
// stepping forward costs one step.
type path struct {
	name    string
	cfg     *sim.Config
	opts    engine.Options
	k       int
	choices []int32        // every answer of the path
	starts  []int          // starts[i]: index in choices where step i+1 began
	events  []engine.Event // events[i]: the event of step i+1
	snaps   []*engine.Sim  // snaps[j]: the state after j*k steps; only ever cloned
	endErr  error          // why the last step ended the execution (a handler panic)
	hung    error          // a new step of the branch whose handler did not return
	timeout time.Duration  // the watchdog's timeout for new steps (0: the default)
	cur     *engine.Sim    // cursor: a simulator somewhere on the path
	log     *pathLog       // the replay log, made on demand

	// recovery marks a branch that runs without failures from step
	// recoveryFrom on, as the search's recovery walks do (R).
	recovery     bool
	recoveryFrom int

	tr     *trace.Trace   // the trace the path comes from; nil for branches
	file   string         // the trace file
	branch bool           // a branch: stepping past its end runs new steps
	origin string         // how the branch was made
	seed   uint64         // the seed of the branch's random chooser
	rng    engine.Chooser // chooser for the branch's new steps
	// drawn lists the branch's own steps whose choices its random chooser
	// answered (a random step's event, a handler's random numbers), with
	// the seed it had then: the seeds the branch was made with.
	drawn []seedUse
	quiet bool // nothing was ready at the end
}

// seedUse is a step of a branch whose choices its random chooser, seeded
// with seed, answered.
type seedUse struct {
	step int
	seed uint64
}

// seedText says which seeds drew the branch's steps: "seed 7", or with
// several in turn "seeds 2 (step 5) and 7 (steps 6-10)"; before any, the
// seed the next steps will be drawn with.
func (p *path) seedText() string {
	type run struct {
		seed     uint64
		from, to int
	}
	var runs []run
	for _, u := range p.drawn {
		if n := len(runs); n > 0 && runs[n-1].seed == u.seed {
			runs[n-1].to = u.step
			continue
		}
		runs = append(runs, run{u.seed, u.step, u.step})
	}
	switch len(runs) {
	case 0:
		return fmt.Sprintf("seed %d", p.seed)
	case 1:
		return fmt.Sprintf("seed %d", runs[0].seed)
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		steps := fmt.Sprintf("step %d", r.from)
		if r.to > r.from {
			steps = fmt.Sprintf("steps %d-%d", r.from, r.to)
		}
		parts[i] = fmt.Sprintf("%d (%s)", r.seed, steps)
	}
	return "seeds " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// steps returns the number of steps on the path.
func (p *path) steps() int { return len(p.events) }

// choiceAt returns the number of choices answered in the state after n steps.
func (p *path) choiceAt(n int) int {
	if n < len(p.starts) {
		return p.starts[n]
	}
	return len(p.choices)
}

// sharedSteps returns how many first steps paths a and b share: the same
// choices answered, so the same states up to there.
func sharedSteps(a, b *path) int {
	if a == b {
		return a.steps()
	}
	if x, y := a.choiceAt(0), b.choiceAt(0); x != y || !slices.Equal(a.choices[:x], b.choices[:y]) {
		return 0 // not even the boot
	}
	n := 0
	for n < a.steps() && n < b.steps() {
		a0, a1, b0, b1 := a.choiceAt(n), a.choiceAt(n+1), b.choiceAt(n), b.choiceAt(n+1)
		if !slices.Equal(a.choices[a0:a1], b.choices[b0:b1]) {
			break
		}
		n++
	}
	return n
}

// newPath replays choices for steps steps on cfg, recording every event
// and a snapshot every k steps. A handler panic on the last recorded step
// is kept as endErr (a safety trace ends that way); any other failure to
// replay means the trace does not fit the system.
func newPath(name string, cfg *sim.Config, opts engine.Options, choices []int32, steps, k int) (*path, error) {
	p := &path{name: name, cfg: cfg, opts: opts, k: snapshotEvery(k, steps, len(choices))}
	k = p.k
	opts.Chooser = engine.NewRecorded(choices)
	opts.Logger = nil
	s, err := engine.NewGuarded(cfg, opts, 0)
	switch {
	case s != nil && steps == 0 && (errors.Is(err, engine.ErrHandlerPanic) || errors.Is(err, engine.ErrHang)):
		// The path ends at boot: a handler panicked or hung in Start. The
		// state it left is all there is to see.
		p.endErr = err
		p.snaps = append(p.snaps, s)
		p.choices = s.ChoiceValues()
		p.cur = s
		return p, nil
	case err != nil:
		return nil, fmt.Errorf("replay %s path: %w", name, err)
	}
	p.snaps = append(p.snaps, s.Clone(nil))
	// Every step answers at least one choice: a trace cannot have more
	// steps than choices, whatever it declares.
	p.events = make([]engine.Event, 0, min(max(steps, 0), len(choices)))
	for s.Steps() < steps {
		before := s.Steps()
		ok, err := s.Step()
		if s.Steps() > before {
			p.events = append(p.events, s.LastEvent())
			if s.Steps()%k == 0 {
				p.snaps = append(p.snaps, s.Clone(nil))
			}
		}
		if err != nil {
			if s.Steps() > before && errors.Is(err, engine.ErrHandlerPanic) {
				p.endErr = err
				break
			}
			return nil, fmt.Errorf("%s path, step %d of %d: %w (was the trace written by another version of the system?)", name, before+1, steps, err)
		}
		if !ok {
			return nil, fmt.Errorf("%s path: nothing can run after step %d but the trace has %d steps (was the trace written by another version of the system?)", name, s.Steps(), steps)
		}
	}
	p.choices = s.ChoiceValues()
	p.starts = make([]int, p.steps())
	for i := range p.starts {
		p.starts[i] = s.StepStart(i)
	}
	p.cur = s
	return p, nil
}

// at returns a simulator in the state after n steps of the path. The
// simulator is the path's cursor: read it, do not step it, and do not keep
// it across another call of at.
func (p *path) at(n int) (*engine.Sim, error) {
	if n < 0 || n > p.steps() {
		return nil, fmt.Errorf("step %d is not on the %s path (0-%d)", n, p.name, p.steps())
	}
	if c := p.cur; c == nil || c.Steps() > n || n-c.Steps() > p.k || c.Steps() > p.steps() {
		snap := p.snaps[n/p.k]
		p.cur = snap.Clone(engine.NewRecorded(p.choices[p.choiceAt(snap.Steps()):]))
		if p.recovery && snap.Steps() <= p.recoveryFrom {
			// A snapshot from before the branch stopped its failures.
			p.stopFailures(p.cur)
		}
	}
	for p.cur.Steps() < n {
		before := p.cur.Steps()
		_, err := p.cur.Step()
		if err != nil && !(p.cur.Steps() == p.steps() && p.endErr != nil) {
			p.cur = nil
			return nil, fmt.Errorf("replay %s path at step %d: %w", p.name, before+1, err)
		}
		if p.cur.Steps() == before {
			p.cur = nil
			return nil, fmt.Errorf("replay %s path: stuck at step %d", p.name, before)
		}
	}
	return p.cur, nil
}

// guarded runs check, which evaluates the system's predicates on sm (p's
// current simulator), under the watchdog: a predicate that does not
// return is given up on (a *engine.HangError), and sm with it, which p.at
// then builds again.
func (p *path) guarded(sm *engine.Sim, check func() error) error {
	err := sm.Guard(p.timeout, check)
	if sm.Abandoned() && p.cur == sm {
		p.cur = nil
	}
	return err
}

// fork returns a branch that shares the first n steps of p.
func (p *path) fork(n int, name string, seed uint64) (*path, error) {
	s, err := p.at(n)
	if err != nil {
		return nil, err
	}
	if n == p.steps() && p.endErr != nil {
		return nil, fmt.Errorf("the %s path ends with an error at step %d; branch from an earlier step", p.name, n)
	}
	q := &path{
		name: name, cfg: p.cfg, opts: p.opts, k: p.k, timeout: p.timeout, branch: true, seed: seed, rng: engine.NewRandom(seed),
		choices: slices.Clone(p.choices[:p.choiceAt(n)]),
		starts:  slices.Clone(p.starts[:n]),
		events:  slices.Clone(p.events[:n]),
		snaps:   slices.Clone(p.snaps[:n/p.k+1]),
	}
	q.cur = s.Clone(q.rng)
	switch {
	case p.recovery && n >= p.recoveryFrom:
		q.recovery, q.recoveryFrom = true, p.recoveryFrom
	case p.recovery:
		// Forked before p stopped its failures: they are on as the
		// trace has them.
		q.cur.SetFailures(!p.opts.NoFailures)
		q.cur.SetFailuresUntil(p.opts.FailuresUntil)
	}
	return q, nil
}

// recover makes the branch run without failures from its end on, as the
// search's recovery walks do, when the trace's walks ran without them
// (its failures end at a step after the branch's end; with failures on
// everywhere, as --walk-failures runs, it changes nothing).
func (p *path) recover() {
	if p.recovery || p.opts.NoFailures || p.opts.FailuresUntil <= p.steps() {
		return
	}
	p.recovery, p.recoveryFrom = true, p.steps()
	if p.cur != nil && p.cur.Steps() == p.steps() {
		p.stopFailures(p.cur)
	} else {
		p.cur = nil
	}
}

// stopFailures turns failures off in s from the branch's recoveryFrom on.
func (p *path) stopFailures(s *engine.Sim) {
	if p.recoveryFrom == 0 {
		s.SetFailures(false)
		return
	}
	s.SetFailuresUntil(p.recoveryFrom)
}

// errQuiescent reports that nothing is ready.
var errQuiescent = errors.New("nothing can run: the system is quiescent")

// extend runs one new step at the end of a branch: ready event i, or the
// branch's chooser's pick when i < 0.
func (p *path) extend(i int) error {
	if !p.branch {
		return fmt.Errorf("the %s path is a recorded trace; branch (B) to run new steps", p.name)
	}
	if p.endErr != nil {
		return fmt.Errorf("the %s path ended at step %d: %w", p.name, p.steps(), p.endErr)
	}
	if p.hung != nil {
		return fmt.Errorf("the %s path cannot go on after step %d: %w; branch (B) from an earlier step", p.name, p.steps(), p.hung)
	}
	s, err := p.at(p.steps())
	if err != nil {
		return err
	}
	s.SetChooser(p.rng)
	before := s.Steps()
	quiet := false
	// The branch runs steps nobody ran before: under the watchdog, so
	// that a handler that does not return cannot hang the debugger.
	err = s.Guard(p.timeout, func() error {
		if i >= 0 {
			return s.StepEvent(i)
		}
		ok, err := s.Step()
		quiet = !ok && err == nil && s.Steps() == before
		return err
	})
	if errors.Is(err, engine.ErrHang) {
		// The simulator is abandoned: the next move starts again from a
		// snapshot. The state after the hung step does not exist.
		p.cur, p.hung = nil, err
		return fmt.Errorf("step %d: %w", before+1, err)
	}
	if quiet {
		p.quiet = true
		return errQuiescent
	}
	if s.Steps() > before {
		// A random step's event, and any choice after a given event's,
		// came from the chooser.
		if drew := len(s.Choices()) - len(p.choices); i < 0 || drew > 1 {
			p.drawn = append(p.drawn, seedUse{before + 1, p.seed})
		}
		p.starts = append(p.starts, s.StepStart(before))
		p.events = append(p.events, s.LastEvent())
		p.choices = append(p.choices, engine.ChoiceValues(s.Choices()[len(p.choices):])...)
		if s.Steps()%p.k == 0 {
			p.snaps = append(p.snaps, s.Clone(nil))
			p.thin()
		}
		p.log = nil
	}
	if err != nil {
		if s.Steps() > before {
			p.endErr = err
		}
		return fmt.Errorf("step %d: %w", before+1, err)
	}
	return nil
}

// thin doubles the distance between a growing branch's snapshots, keeping
// every other one (they lie at multiples of k), while their copies of its
// history would pass snapshotHistoryBytes.
func (p *path) thin() {
	for snapshotEvery(p.k, p.steps(), len(p.choices)) > p.k {
		kept := p.snaps[:0]
		for i, sn := range p.snaps {
			if i%2 == 0 {
				kept = append(kept, sn)
			}
		}
		clear(p.snaps[len(kept):])
		p.snaps, p.k = kept, 2*p.k
	}
}

// truncate drops the branch's steps after step n (n <= p.steps()).
func (p *path) truncate(n int) {
	if n >= p.steps() {
		return
	}
	p.choices = p.choices[:p.choiceAt(n)]
	p.starts, p.events = p.starts[:n], p.events[:n]
	p.drawn = slices.DeleteFunc(p.drawn, func(u seedUse) bool { return u.step > n })
	p.snaps = p.snaps[:n/p.k+1]
	p.endErr, p.hung, p.quiet = nil, nil, false
	p.cur, p.log = nil, nil
}

// shared returns the number of leading steps p and q have in common.
func shared(p, q *path) int {
	n := 0
	for n < p.steps() && n < q.steps() {
		a, b := p.choiceAt(n+1), q.choiceAt(n+1)
		if a != b || !slices.Equal(p.choices[p.choiceAt(n):a], q.choices[q.choiceAt(n):b]) {
			break
		}
		n++
	}
	return n
}

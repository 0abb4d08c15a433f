package critical

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// Defaults of MinimizeConfig.
const (
	// DefaultMinimizeTests bounds the ddmin tests (subsets replayed).
	DefaultMinimizeTests = 2000
	// DefaultMinimizeBudget bounds the transitions of all tests' walks and
	// replays: about 20-40 s on two cores.
	DefaultMinimizeBudget = 100_000_000
)

// MinimizeConfig bounds Minimize. Both bounds are deterministic; the
// context bounds wall-clock time.
type MinimizeConfig struct {
	// MaxTests bounds the subsets tested (0: DefaultMinimizeTests).
	MaxTests int
	// Budget bounds the transitions of the whole minimization (0:
	// DefaultMinimizeBudget; negative: no bound): its replays, the test of
	// E's own prefix, ddmin's tests and the check of ddmin's result with
	// fresh walks. ddmin's tests leave the check what it may need (twice
	// ConfirmBudget, one walk and a replay; at most half of Budget). Every
	// sample of walks gets at most what is left; one that the budget cuts
	// short decides nothing: ddmin stops there (Minimized.Stop "budget"),
	// and a check cut short leaves ddmin's result unchecked, so the result
	// is then E's own prefix (Minimized.Unchecked). A walk is counted to
	// its end, so the minimization may exceed Budget by the walk that
	// crosses it (at most d_max steps) and the replay of its result.
	Budget int64
}

// Minimized is a doomed path reduced by delta debugging: a subsequence of
// E's transitions 1..Step that is still a valid execution, whose last
// transition is E's critical transition and whose state after it is dead
// by the test Find used (none of k walks, nor of the confirmation sample,
// recovers), while the state before it recovers.
type Minimized struct {
	// Choices replay the minimized path from the initial state with
	// Options (engine.Replay); Steps is its length. Transition Steps is the
	// critical transition.
	Choices []int32
	Steps   int
	Options engine.Options
	// WalkDepth is d_max for walks from the minimized path: each walk from
	// its state Steps takes as many steps of its own as a walk from E's
	// critical state did.
	WalkDepth int
	// From is E's critical step, the length of the prefix reduced.
	From int
	// Kept lists the transitions of E kept, in order; the last is From.
	Kept []int
	// Events are the minimized path's transitions, in order.
	Events []engine.Event
	// Minimal says the path is 1-minimal: dropping any one of its
	// transitions but the last fails the test (the last round of ddmin
	// tried each). False when a budget or the context ended ddmin first.
	Minimal bool
	// Partial marks a result that the context ended.
	Partial bool
	// Stop says what ended ddmin before 1-minimality: "tests", "budget",
	// "cancelled", or "check" when the check after it rejected its result
	// (Rejected); empty when Minimal.
	Stop string
	// Before and After are the walks that judged the result: from its
	// state Steps-1 (recovers; not walked again, with Walks 0, when the
	// result is E's own prefix, which Find saw recover) and from state
	// Steps (k walks, none recovered; AfterConfirm is the confirmation
	// sample, when on).
	Before, After, AfterConfirm Probe
	// Check is the fresh sample that checked the result's end after ddmin
	// (with confirmation on, and unless the result is E's own prefix): up
	// to twice ConfirmWalks walks within twice ConfirmBudget transitions,
	// numbered after every walk a test used, none recovering. Rejected
	// counts the shorter paths ddmin accepted that such a sample rejected
	// (a walk recovered): the result is then the longest path ddmin
	// accepted before them, or E's own prefix, and not proved 1-minimal
	// (Stop "check").
	Check    Probe
	Rejected int
	// Unchecked, when not 0, is the length of a shorter path ddmin
	// accepted whose check the minimization budget cut short: its end
	// may be near dead (the check is what tells), so it is not the
	// result; E's own prefix is, with Stop "budget".
	Unchecked int
	// Tests counts the subsets tested, Invalid those that were no valid
	// execution (an event not enabled, a handler asking for a choice the
	// path did not record), Cached the tests answered from memory.
	Tests, Invalid, Cached int
	Transitions            int64
	Elapsed                time.Duration
}

// stepRec is one transition of E: its event's identity and the choices
// its handler made.
type stepRec struct {
	ev      engine.Event
	msgType reflect.Type
	msgHash uint64
	handler []int32
}

func (r *stepRec) matches(e *engine.Event) bool {
	if e.Kind != r.ev.Kind || e.Node != r.ev.Node || e.Peer != r.ev.Peer || e.Timer != r.ev.Timer {
		return false
	}
	if (e.Msg == nil) != (r.ev.Msg == nil) {
		return false
	}
	return e.Msg == nil || reflect.TypeOf(e.Msg) == r.msgType && engine.Hash(e.Msg) == r.msgHash
}

// outcome is a test's memorised answer.
type outcome struct {
	pass                bool
	before, after, conf Probe
}

// minimizer is one run of Minimize.
type minimizer struct {
	c        *Config
	r        *searcher
	crit     int
	boot     []int32
	steps    []stepRec // steps[t-1] is transition t of E
	depthOff int       // WalkDepth - crit: a walk's own steps
	mc       MinimizeConfig
	cache    map[string]outcome
	res      *Minimized
	spent    int64
	// reserve is what ddmin's tests leave of the budget for the check of
	// their result.
	reserve int64
	// accepted lists the subsets ddmin accepted, in order: E's own prefix
	// first, each later one a subset of the one before.
	accepted [][]int
}

// The check of a minimized path's end after ddmin (Minimized.Check) runs
// up to twice ConfirmWalks fresh walks within twice ConfirmBudget
// transitions. ddmin keeps any reduction whose test passes, and every test
// walks the same seeds, so among its many tests it finds ones whose end is
// near dead but passed (a trial's recovered in 2% of walks, on 13 of 20
// seeds); about 100 fresh walks miss a 2% recovery 13% of the time.

// errBudget ends ddmin, or the check, when the minimization's budget of
// transitions is spent, and errTests ends ddmin at its bound of tests.
var (
	errBudget = errors.New("critical: minimization budget spent")
	errTests  = errors.New("critical: minimization test bound reached")
)

// satAdd is a+b for non-negative a and b, at most math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Minimize reduces the prefix of E up to its critical transition at step
// (a C1 answer of Find) to a 1-minimal doomed path by delta debugging
// (Zeller and Hildebrandt's ddmin) over E's transitions 1..step-1: it
// drops transitions, keeps the order of the rest and transition step last,
// and keeps a reduction when it is still a valid execution (every event
// enabled when its turn comes, replayed by its identity: kind, node, peer,
// timer and message content) whose state after the critical transition is
// dead by Find's test — none of k walks recovers, nor, with confirmation
// on, any walk of a confirmation sample — while the state before it still
// recovers (k walks, then a confirmation sample). Walks from the reduced
// path take as many steps of their own as walks from E's critical state;
// walk j from its state i is seeded WalkSeed(c.Seed, i, j), so the result
// is the same for any c.Workers. Failures keep E's options, shifted so that
// recovery walks run with failures off where E's did.
//
// With confirmation on, ddmin's result is then checked with fresh walks
// (Minimized.Check): a path whose end recovers in them is not doomed, and
// the result goes back to the longest path ddmin accepted before it that
// passes the check, or E's own prefix.
//
// ddmin's last round tries dropping each remaining transition alone, so
// the result is 1-minimal (Minimized.Minimal) unless m's bounds, the
// check or ctx end it first; it then returns the shortest path found so
// far that passes the test and the check. m.Budget bounds the whole
// minimization, the check included: when it ends before E's own prefix
// was tested, or before ddmin's result was checked, the result is E's own
// prefix (Find's answer, taken on the caller's word in the first case).
// When ctx ends, the result is marked Partial and the error wraps the
// context's.
func Minimize(ctx context.Context, c Config, step int, m MinimizeConfig) (*Minimized, error) {
	start := time.Now()
	if err := c.validate(); err != nil {
		return nil, err
	}
	if step < 1 || step >= c.WalkDepth || (c.Steps > 0 && step > c.Steps) {
		return nil, fmt.Errorf("%w: critical step %d is outside E (1..%d) or not below d_max %d", ErrBadConfig, step, c.Steps, c.WalkDepth)
	}
	if m.MaxTests <= 0 {
		m.MaxTests = DefaultMinimizeTests
	}
	if m.Budget == 0 {
		m.Budget = DefaultMinimizeBudget
	}
	r := newSearcher(ctx, &c)
	defer r.close()
	mz := &minimizer{c: &c, r: r, crit: step, depthOff: c.WalkDepth - step, mc: m, cache: map[string]outcome{}, res: &Minimized{From: step}}
	if c.ConfirmWalks >= 0 && m.Budget > 0 {
		// The check's sample, the walk with which ddmin's last test may
		// cross its share, and the check's replay.
		check := int64(math.MaxInt64)
		if c.ConfirmBudget > 0 {
			check = satAdd(c.ConfirmBudget, c.ConfirmBudget)
		}
		mz.reserve = min(satAdd(check, int64(c.WalkDepth+step)), m.Budget/2)
	}
	if err := mz.record(); err != nil {
		return nil, err
	}
	// E's own prefix passes: its state step is the dead state Find
	// answered and state step-1 recovered in Find's search; the state after
	// step is tested anyway (a step that is not critical is refused).
	all := make([]int, step-1)
	for i := range all {
		all[i] = i + 1
	}
	mz.accepted = [][]int{all}
	best := all
	o, err := mz.test(all, true)
	switch {
	case errors.Is(err, errBudget):
		// Not even E's own prefix could be tested within the budget.
	case err != nil:
		return nil, err
	case !o.pass:
		return nil, fmt.Errorf("%w: E's own prefix to step %d is not dead by the walks test (is %d its critical step?)", ErrNotDead, step, step)
	default:
		best, err = mz.ddmin(all)
		if err == nil || errors.Is(err, errBudget) || errors.Is(err, errTests) {
			var cerr error
			best, cerr = mz.check(best)
			switch {
			case errors.Is(cerr, errBudget):
				err = cerr
			case cerr != nil:
				return nil, cerr
			case mz.res.Rejected > 0:
				err = errRejected
			}
		}
	}
	switch {
	case err == nil:
		mz.res.Minimal = true
	case errors.Is(err, errRejected):
		mz.res.Stop = "check"
	case errors.Is(err, errBudget):
		mz.res.Stop = "budget"
	case errors.Is(err, errTests):
		mz.res.Stop = "tests"
	case r.ctx.Err() != nil:
		mz.res.Stop, mz.res.Partial = "cancelled", true
	default:
		return nil, err
	}
	if ferr := mz.finish(best); ferr != nil {
		return nil, ferr
	}
	mz.res.Elapsed = time.Since(start)
	if mz.res.Partial {
		return mz.res, err
	}
	return mz.res, nil
}

// record replays E to the critical step and keeps each transition's event
// and handler choices.
func (mz *minimizer) record() error {
	c := mz.c
	rec := engine.NewRecorded(c.Choices)
	opts := c.Options
	opts.Chooser = rec
	s, err := engine.New(c.Sim, opts)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReplay, err)
	}
	mz.steps = make([]stepRec, 0, mz.crit)
	for s.Steps() < mz.crit {
		ok, err := s.Step()
		if err != nil || !ok {
			return fmt.Errorf("%w: to step %d: quiescent or %v", ErrReplay, mz.crit, err)
		}
		ev := s.LastEvent()
		sr := stepRec{ev: ev}
		if ev.Msg != nil {
			sr.msgType, sr.msgHash = reflect.TypeOf(ev.Msg), engine.Hash(ev.Msg)
		}
		mz.steps = append(mz.steps, sr)
	}
	mz.boot = slices.Clone(c.Choices[:s.StepStart(0)])
	for t := 1; t <= mz.crit; t++ {
		// The first choice of a step picks its event; the handler's follow.
		mz.steps[t-1].handler = slices.Clone(c.Choices[s.StepStart(t-1)+1 : s.StepStart(t)])
	}
	mz.spent += int64(mz.crit)
	return nil
}

// options returns the simulator options of a reduced path of m steps:
// E's, with failures switched off after the same number of steps past the
// critical transition as in E.
func (mz *minimizer) options(m int) engine.Options {
	o := engine.Options{NoFailures: mz.c.Options.NoFailures, FailuresUntil: mz.c.Options.FailuresUntil}
	if o.FailuresUntil > 0 {
		o.FailuresUntil = m + max(o.FailuresUntil-mz.crit, 0)
	}
	return o
}

// replay runs the transitions keep (E's numbering; the critical one last)
// by identity and returns the states before and after the last, or ok
// false when they are no valid execution.
func (mz *minimizer) replay(keep []int) (before, after *engine.Sim, ok bool, err error) {
	opts := mz.options(len(keep))
	opts.Chooser = engine.NewRecorded(mz.boot)
	s, err := engine.New(mz.c.Sim, opts)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%w: %w", ErrReplay, err)
	}
	valid := true
	run := func() error {
		for i, t := range keep {
			if i == len(keep)-1 {
				before = s.Clone(nil)
			}
			if !mz.stepAs(s, t) {
				valid = false
				return nil
			}
		}
		return nil
	}
	if mz.c.HandlerTimeout < 0 {
		err = run()
	} else {
		err = s.Guard(mz.c.HandlerTimeout, run)
	}
	mz.spent += int64(s.Steps())
	if err != nil || !valid {
		return nil, nil, false, nil // a hang or a divergence: not valid
	}
	return before, s, true, nil
}

// stepAs executes E's transition t as s's next step, if its event is
// enabled and its handler's recorded choices fit.
func (mz *minimizer) stepAs(s *engine.Sim, t int) bool {
	sr := &mz.steps[t-1]
	for i, e := range s.Ready() {
		if sr.matches(&e) {
			s.SetChooser(engine.NewRecorded(sr.handler))
			return s.StepEvent(i) == nil
		}
	}
	return false
}

func keyOf(keep []int) string {
	var b strings.Builder
	for _, t := range keep {
		fmt.Fprintf(&b, "%d,", t)
	}
	return b.String()
}

// test replays the subset s of E's transitions 1..crit-1 followed by the
// critical transition and judges it.
func (mz *minimizer) test(s []int, first bool) (outcome, error) {
	keep := append(slices.Clone(s), mz.crit)
	key := keyOf(keep)
	if o, ok := mz.cache[key]; ok {
		mz.res.Cached++
		return o, nil
	}
	if err := mz.r.ctxErr(); err != nil {
		return outcome{}, err
	}
	if !first && mz.res.Tests >= mz.mc.MaxTests {
		return outcome{}, errTests
	}
	if mz.left(false) <= 0 {
		return outcome{}, errBudget
	}
	mz.res.Tests++
	before, after, ok, err := mz.replay(keep)
	if err != nil {
		return outcome{}, err
	}
	o := outcome{}
	if !ok {
		mz.res.Invalid++
		mz.cache[key] = o
		return o, nil
	}
	if live, err := after.AllHold(mz.c.Sim.Liveness); err == nil && live {
		// The walks from a state count liveness only after it: a
		// reduction that ends in a live state (the critical transition
		// dropped, with events alike left in its place) would pass as
		// dead when the walks from it leave the live states for good.
		mz.cache[key] = o
		return o, nil
	}
	m := len(keep)
	depth := m + mz.depthOff
	confirm := mz.c.ConfirmWalks >= 0
	// The state before the critical transition recovers. For E's own
	// prefix Find saw it recover (k walks may well miss a near-dead
	// state): it is not walked again.
	if first {
		o.before = Probe{Step: m - 1, Phase: PhaseDirect, Recovers: true, Witness: -1}
	} else if o.before, err = mz.probe(before, m-1, batch{n: mz.c.Walks, stopAtLive: true, depth: depth}, false); err != nil {
		return outcome{}, err
	}
	if !o.before.Recovers && confirm {
		b := confirmBatch(mz.c, true)
		b.depth = depth
		if o.before, err = mz.probe(before, m-1, b, false); err != nil {
			return outcome{}, err
		}
	}
	if o.before.Recovers {
		// The state after it is dead.
		if o.after, err = mz.probe(after, m, batch{n: mz.c.Walks, stopAtLive: true, depth: depth}, false); err != nil {
			return outcome{}, err
		}
		o.pass = !o.after.Recovers
		if o.pass && confirm {
			b := confirmBatch(mz.c, true)
			b.depth = depth
			if o.conf, err = mz.probe(after, m, b, false); err != nil {
				return outcome{}, err
			}
			o.pass = !o.conf.Recovers
		}
	}
	mz.cache[key] = o
	return o, nil
}

// left returns the transitions the minimization may still spend on
// ddmin's tests (what the check needs kept back) or, when check is set,
// on the check; math.MaxInt64 without a budget.
func (mz *minimizer) left(check bool) int64 {
	if mz.mc.Budget <= 0 {
		return math.MaxInt64
	}
	limit := mz.mc.Budget
	if !check {
		limit -= mz.reserve
	}
	return limit - mz.spent
}

// probe runs the walks b from snap, state i of a tested path, within what
// the minimization has left for a test (or, with check, for the check):
// walks that the budget ends before their own bounds do decide nothing,
// and probe returns them with errBudget.
func (mz *minimizer) probe(snap *engine.Sim, i int, b batch, check bool) (Probe, error) {
	b.phase = PhaseConfirm
	if b.n == mz.c.Walks {
		b.phase = PhaseDirect
	}
	left, cut := mz.left(check), false
	if left <= 0 {
		return Probe{Step: i, Phase: b.phase, Witness: -1}, errBudget
	}
	if mz.mc.Budget > 0 && (b.budget <= 0 || left < b.budget) {
		b.budget, cut = left, true
	}
	p, _, err := mz.r.run(snap, i, b)
	mz.spent += p.Transitions
	if err == nil && cut && p.Budget {
		err = errBudget
	}
	return p, err
}

// ddmin is Zeller and Hildebrandt's minimizing delta debugging over the
// transitions c (E's numbering, in order): it returns a subset that passes
// the test and from which no single transition can be dropped (nil error),
// or the smallest passing subset found when a budget or the context ended
// it (the error says which).
func (mz *minimizer) ddmin(c []int) ([]int, error) {
	n := 2
	for len(c) > 0 {
		n = min(n, len(c))
		parts := split(c, n)
		reduced := false
		if n > 1 {
			for _, p := range parts {
				o, err := mz.test(p, false)
				if err != nil {
					return c, err
				}
				if o.pass {
					c, n, reduced = p, 2, true
					mz.accepted = append(mz.accepted, c)
					break
				}
			}
		}
		if !reduced {
			for i := range parts {
				comp := complement(parts, i)
				o, err := mz.test(comp, false)
				if err != nil {
					return c, err
				}
				if o.pass {
					c, n, reduced = comp, max(n-1, 2), true
					mz.accepted = append(mz.accepted, c)
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				return c, nil // every single transition was tried alone
			}
			n = min(2*n, len(c))
		}
	}
	return c, nil
}

// errRejected ends a minimization whose shortest accepted path the
// check rejected.
var errRejected = errors.New("critical: the minimized path's end recovered in its check")

// check samples the end of ddmin's result best (the last path it
// accepted) with fresh walks, numbered from Walks+ConfirmWalks on (no
// test ran them), stopping at the first that recovers. If one does, the
// path is not doomed: check goes back through the paths ddmin accepted
// before it and returns the first whose sample has no recovery, or E's own
// prefix (the path Find confirmed) when none has. When the minimization
// budget ends a sample before its own bounds, the path it samples is
// unchecked: check returns E's own prefix with errBudget
// (Minimized.Unchecked). With confirmation off it returns best unchecked.
func (mz *minimizer) check(best []int) ([]int, error) {
	if mz.c.ConfirmWalks < 0 || len(mz.accepted) < 2 {
		return best, nil
	}
	for i := len(mz.accepted) - 1; i >= 1; i-- {
		s := mz.accepted[i]
		m := len(s) + 1
		if mz.left(true) <= 0 {
			mz.res.Unchecked = m
			return mz.accepted[0], errBudget
		}
		_, after, ok, err := mz.replay(append(slices.Clone(s), mz.crit))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: an accepted reduction does not replay", ErrReplay)
		}
		b := batch{from: mz.c.Walks + mz.c.ConfirmWalks, n: 2 * mz.c.ConfirmWalks, stopAtLive: true, budget: satAdd(max(mz.c.ConfirmBudget, 0), max(mz.c.ConfirmBudget, 0)), depth: m + mz.depthOff}
		p, err := mz.probe(after, m, b, true)
		if errors.Is(err, errBudget) {
			mz.res.Unchecked = m
			return mz.accepted[0], err
		}
		if err != nil {
			return nil, err
		}
		if !p.Recovers {
			mz.res.Check = p
			return s, nil
		}
		mz.res.Rejected++
	}
	return mz.accepted[0], nil
}

// split cuts c into n parts of nearly equal length, in order.
func split(c []int, n int) [][]int {
	parts := make([][]int, 0, n)
	start := 0
	for i := range n {
		end := start + (len(c)-start)/(n-i)
		parts = append(parts, c[start:end])
		start = end
	}
	return parts
}

// complement returns every part but part i, concatenated in order.
func complement(parts [][]int, i int) []int {
	var out []int
	for j, p := range parts {
		if j != i {
			out = append(out, p...)
		}
	}
	return out
}

// finish replays the chosen subset to fill in the result.
func (mz *minimizer) finish(s []int) error {
	keep := append(slices.Clone(s), mz.crit)
	o := mz.cache[keyOf(keep)]
	_, after, ok, err := mz.replay(keep)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the minimized path does not replay", ErrReplay)
	}
	res := mz.res
	res.Choices, res.Steps = after.ChoiceValues(), after.Steps()
	res.Options = mz.options(len(keep))
	res.WalkDepth = res.Steps + mz.depthOff
	res.Kept = keep
	res.Events = make([]engine.Event, len(keep))
	for i, t := range keep {
		res.Events[i] = mz.steps[t-1].ev
	}
	res.Before, res.After, res.AfterConfirm = o.before, o.after, o.conf
	res.Transitions = mz.spent
	return nil
}

// Trace returns the minimized path as a trace of kind "minimized" for the
// same system as the dead trace: mdb and `macemc replay` open it like any
// trace. Its critical step is its last, with condition C1.
func (m *Minimized) Trace(dead *trace.Trace) *trace.Trace {
	how := "1-minimal"
	switch {
	case m.Unchecked > 0:
		how = fmt.Sprintf("not proved 1-minimal: the budget ended before the check with fresh walks of the %d-step path ddmin found, whose end may be near dead, so it is the dead path's own prefix", m.Unchecked)
	case m.Stop == "check":
		how = fmt.Sprintf("not proved 1-minimal: fresh walks recovered from the end of %d shorter %s ddmin accepted", m.Rejected, plural(m.Rejected, "path", "paths"))
	case !m.Minimal:
		how = "not proved 1-minimal (" + m.Stop + ")"
	}
	return &trace.Trace{
		Tool:          dead.Tool,
		System:        dead.System,
		Sys:           dead.Sys,
		Params:        maps.Clone(dead.Params),
		Seed:          dead.Seed,
		Choices:       slices.Clone(m.Choices),
		Steps:         m.Steps,
		FailuresUntil: m.Options.FailuresUntil,
		NoFailures:    m.Options.NoFailures,
		Properties:    slices.Clone(dead.Properties),
		Faults:        dead.Faults,
		Kind:          trace.KindMinimized,
		Property:      dead.Property,
		Depth:         0,
		WalkDepth:     m.WalkDepth,
		Critical:      m.Steps,
		Condition:     C1.String(),
		Note:          fmt.Sprintf("minimized doomed path (%s): %d of the dead path's first %d transitions, ending with its critical transition", how, m.Steps, m.From),
	}
}

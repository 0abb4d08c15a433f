package delay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

func init() { explore.Register(Strategy{}) }

// Defaults of the strategy's options.
const (
	DefaultSteps = 100
	DefaultBase  = "rr"
)

// Bases are the base schedulers the base option names: seed 002's
// round-robin (rr) and run-to-completion (rtc), and round-robin that
// passes the turn on after every event (rr-event).
var Bases = []string{"rr", "rr-event", "rtc"}

// Strategy is iterative delay bounding over a deterministic base scheduler.
type Strategy struct{}

// Name implements explore.Strategy.
func (Strategy) Name() string { return "delay" }

// Doc implements explore.Strategy.
func (Strategy) Doc() string {
	return "iterative delay bounding over a deterministic round-robin or run-to-completion scheduler, state caching without the scheduler's state (seed 002)"
}

// Params implements explore.Strategy.
func (Strategy) Params() []sim.ParamSpec {
	return []sim.ParamSpec{
		{Name: "base", Kind: sim.ParamString, Default: DefaultBase, Doc: "base scheduler: rr (round-robin over event sources in creation order, each running until it has no event left), rr-event (round-robin, one event per turn) or rtc (run to completion, causal order)"},
		{Name: "steps", Kind: sim.ParamInt, Default: fmt.Sprint(DefaultSteps), Doc: "steps of each schedule's bounded part (capped by --depth); a walk follows", Min: sim.Bound(1), Max: sim.Bound(explore.MaxSteps)},
		{Name: "max", Kind: sim.ParamInt, Default: "0", Doc: "largest delay bound to search (0: no cap); with state caching not every schedule within it runs (--no-hashing runs them all)", Min: sim.Bound(0)},
	}
}

// New implements explore.Strategy.
func (Strategy) New(s explore.Setup) (explore.Explorer, error) {
	base := s.Params.String("base")
	if base == "" {
		base = DefaultBase
	}
	if !slices.Contains(Bases, base) {
		return nil, &explore.ParamError{Name: "base", Value: base, Range: strings.Join(Bases, ", ")}
	}
	steps, err := s.Steps(DefaultSteps)
	if err != nil {
		return nil, err
	}
	maxBound := s.Params.Int("max")
	if maxBound < 0 {
		return nil, &explore.ParamError{Name: "max", Value: maxBound, Range: "0 (no cap) or a positive delay bound"}
	}
	e := &explorer{steps: steps, max: maxBound, bound: -1}
	if base == "rtc" {
		e.sched.base = &runToCompletion{}
	} else {
		e.sched.base = &roundRobin{each: base == "rr-event"}
	}
	return e, nil
}

type explorer struct {
	steps, max int
	bound      int // the delay bound of the current round
	st         explore.Status
	reached    bool // a path of the current round reached its step bound
	sched      chooser
}

// Next implements explore.Explorer.
func (e *explorer) Next(prev *explore.End) (explore.Path, bool) {
	if e.st.Done != explore.StopNone {
		return explore.Path{}, false
	}
	if prev == nil {
		e.round()
		return e.path(), true
	}
	e.reached = e.reached || prev.Reason == explore.EndDepth
	if e.sched.next() {
		return e.path(), true
	}
	e.st.DeepestComplete = e.steps
	switch {
	case !e.sched.cut && e.reached:
		// No schedule needed more delays: a higher bound explores
		// nothing new; the step bound cut some.
		e.st.Done = explore.StopDepth
	case !e.sched.cut:
		e.st.Done = explore.StopExhausted
	case e.max > 0 && e.bound >= e.max:
		e.st.Done = explore.StopDepth
	default:
		e.round()
		return e.path(), true
	}
	return explore.Path{}, false
}

// round starts the round of the next delay bound.
func (e *explorer) round() {
	e.bound++
	e.st.Rounds++
	e.st.Depth = e.steps
	e.reached = false
	e.sched.budget = e.bound
	e.sched.cut = false
	e.sched.seq = e.sched.seq[:0]
}

func (e *explorer) path() explore.Path {
	e.sched.start()
	return explore.Path{Round: e.st.Rounds, Depth: e.steps, Scheduler: &e.sched, Prune: true}
}

// Status implements explore.Explorer.
func (e *explorer) Status() explore.Status { return e.st }

// Bound returns the delay bound of the current round (round r searches
// bound r-1).
func (e *explorer) Bound() int { return e.bound }

// base is a deterministic scheduler with a delay operation (seed 002 §2):
// order lists the ready events in the order it would schedule them,
// Next(d) first and Next(Delay^k(d)) k-th, failures last; ran updates its
// state after the k-th was chosen (k delays, then Step).
type base interface {
	reset()
	order(ready []engine.Event, out []int32) []int32
	ran(ready []engine.Event, order []int32, k int)
}

// chooser answers a path's choice points. An event choice takes the k-th
// event of the base scheduler's order, spending k delays; seq holds the
// path's k at every choice point (and the answers of Rand and Elapsed,
// which are the system's own nondeterminism: every answer is tried, for
// free), extended with 0 at new positions; next moves seq to the following
// sequence in depth-first order, as Figure 1's BoundedDFS tries Next(d)
// first and then one more delay.
type chooser struct {
	base   base
	budget int  // the round's delay bound
	cut    bool // a choice point of the round had more events than the budget left
	seq    []int32
	arity  []int32
	pos    int
	spent  int
	order  []int32
}

func (c *chooser) start() {
	c.pos, c.spent = 0, 0
	c.base.reset()
}

// value returns the answer at the current position among n.
func (c *chooser) value(n int) int {
	if c.pos < len(c.seq) {
		c.arity[c.pos] = int32(n)
		v := c.seq[c.pos]
		c.pos++
		return int(v)
	}
	c.seq = append(c.seq, 0)
	c.arity = append(c.arity[:c.pos], int32(n))
	c.pos++
	return 0
}

// Choose implements engine.Chooser: the answers of Rand and Elapsed.
func (c *chooser) Choose(_ engine.ChoiceKind, n int, _ []float64) int { return c.value(n) }

// ChooseEvent implements engine.EventChooser.
func (c *chooser) ChooseEvent(ready []engine.Event, _ []float64) int {
	c.order = c.base.order(ready, c.order[:0])
	n := min(len(c.order), c.budget-c.spent+1)
	if n < len(c.order) {
		c.cut = true
	}
	k := c.value(n)
	c.spent += k
	c.base.ran(ready, c.order, k)
	return int(c.order[k])
}

// Cost implements explore.Coster: the delays spent so far. A state is
// pruned only when an earlier path of the round reached it with no more
// delays spent.
func (c *chooser) Cost() uint32 { return uint32(c.spent) }

// next advances to the next sequence; false when the round is complete.
func (c *chooser) next() bool {
	c.seq = c.seq[:c.pos]
	for i := len(c.seq) - 1; i >= 0; i-- {
		if c.seq[i]+1 < c.arity[i] {
			c.seq[i]++
			c.seq = c.seq[:i+1]
			return true
		}
	}
	c.seq = c.seq[:0]
	return false
}

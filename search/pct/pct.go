package pct

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

func init() { explore.Register(Strategy{}) }

// Defaults of the strategy's options.
const (
	DefaultDepth = 3
	DefaultSteps = 100
)

// seedSalt separates the strategy's random sequence from the walks'.
const seedSalt = 0x706374

// Strategy is PCT.
type Strategy struct{}

// Name implements explore.Strategy.
func (Strategy) Name() string { return "pct" }

// Doc implements explore.Strategy.
func (Strategy) Doc() string {
	return "probabilistic concurrency testing: random source priorities with d-1 change points in the bounded part, then the walk (seed 001's priority-based scheduler)"
}

// Params implements explore.Strategy.
func (Strategy) Params() []sim.ParamSpec {
	return []sim.ParamSpec{
		{Name: "depth", Kind: sim.ParamInt, Default: fmt.Sprint(DefaultDepth), Doc: "d, the bug depth: d-1 priority change points per schedule (1 to steps+1)"},
		{Name: "steps", Kind: sim.ParamInt, Default: fmt.Sprint(DefaultSteps), Doc: "k, the steps of each PCT schedule (capped by --depth); a walk follows. Set it near the length of the runs: change points past where a schedule ends are lost", Min: sim.Bound(1), Max: sim.Bound(explore.MaxSteps)},
		{Name: "unit", Kind: sim.ParamString, Default: "source", Doc: "what has a priority: source (each connection, timer, driver) or node"},
	}
}

// New implements explore.Strategy.
func (Strategy) New(s explore.Setup) (explore.Explorer, error) {
	steps, err := s.Steps(DefaultSteps)
	if err != nil {
		return nil, err
	}
	d := DefaultDepth
	if _, set := s.Params["depth"]; set {
		d = s.Params.Int("depth")
	}
	if d < 1 || d > steps+1 {
		return nil, &explore.ParamError{Name: "depth", Value: d, Range: fmt.Sprintf("1 to steps+1 = %d", steps+1)}
	}
	unit := s.Params.String("unit")
	switch unit {
	case "":
		unit = "source"
	case "source", "node":
	default:
		return nil, &explore.ParamError{Name: "unit", Value: unit, Range: "source or node"}
	}
	sc := &scheduler{k: steps, d: d, byNode: unit == "node", prio: map[uint64]float64{}, change: make([]int, d-1)}
	sc.rng = rand.New(&sc.pcg)
	return &explorer{steps: steps, seeds: explore.NewPathSeeds(s.Seed, seedSalt), sched: sc}, nil
}

type explorer struct {
	steps int
	seeds explore.PathSeeds
	sched *scheduler
	// ended counts the schedules whose end Next was told of, and
	// endSteps sums their lengths; cycles and quiescent count those that
	// ended back at a state of their own path and with nothing ready (for
	// Warnings).
	ended, endSteps   int64
	cycles, quiescent int64
}

// Next implements explore.Explorer.
func (e *explorer) Next(prev *explore.End) (explore.Path, bool) {
	if prev != nil {
		e.ended++
		e.endSteps += int64(prev.Steps)
		switch prev.Reason {
		case explore.EndCycle:
			e.cycles++
		case explore.EndQuiescent:
			e.quiescent++
		}
	}
	e.sched.start(e.seeds.Next())
	return explore.Path{Round: 1, Depth: e.steps, Scheduler: e.sched}, true
}

// Warnings implements explore.Warner: schedules that end far below k lose
// the change points drawn past their end, and PCT's bound is then that of
// a smaller depth at this k. What helps depends on why most of them ended:
// with nothing ready, a k near their length; back at a state of their own
// path (a step that left the state as it was), not a smaller k, which
// would only cut the schedules that run on, but no cut there
// (--no-hashing).
func (e *explorer) Warnings() []string {
	if e.ended < 20 {
		return nil
	}
	mean := float64(e.endSteps) / float64(e.ended)
	if 4*mean > float64(e.steps) {
		return nil
	}
	if e.cycles > e.quiescent {
		return []string{fmt.Sprintf("pct's schedules ended after %.1f steps on average, far below --pct-steps %d: %d of the %d ended back at a state of their own path, "+
			"and the change points drawn past a schedule's end are lost (the walk runs on from there without them). "+
			"A step that leaves the state as it was ends a schedule there: an event whose handler changes nothing, such as a timer re-armed until Elapsed says yes. "+
			"A lower --pct-steps would not make them run longer; with --no-hashing a schedule is not cut where it returns to its own state "+
			"(the explored state graph is then off too)", mean, e.steps, e.cycles, e.ended)}
	}
	return []string{fmt.Sprintf("pct's schedules ended after %.1f steps on average (%d of the %d with nothing ready, %d back at a state of their own path), "+
		"far below --pct-steps %d: its change points are drawn over all %d steps, and those past a schedule's end are lost; "+
		"--pct-steps %d draws them where the schedules run", mean, e.quiescent, e.ended, e.cycles, e.steps, e.steps, max(1, int(math.Ceil(mean))))}
}

// Status implements explore.Explorer.
func (e *explorer) Status() explore.Status { return explore.Status{Rounds: 1, Depth: e.steps} }

// scheduler makes one PCT schedule.
type scheduler struct {
	k, d   int
	byNode bool
	pcg    rand.PCG
	rng    *rand.Rand
	prio   map[uint64]float64 // initial priorities in (d, d+1), change point i gives i
	change []int              // change[i-1]: the step of change point i
	step   int
	top    []int32
}

func (s *scheduler) start(seed uint64) {
	s.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	clear(s.prio)
	s.step = 0
	for i := range s.change {
		s.change[i] = 1 + s.rng.IntN(s.k)
	}
}

func (s *scheduler) key(ev *engine.Event) uint64 {
	if s.byNode && !ev.Kind.IsFailure() {
		return uint64(ev.Node) | 1<<63
	}
	return ev.Source()
}

// Choose implements engine.Chooser: Rand and Elapsed, uniformly.
func (s *scheduler) Choose(_ engine.ChoiceKind, n int, _ []float64) int {
	if n <= 1 {
		return 0
	}
	return s.rng.IntN(n)
}

// ChooseEvent implements engine.EventChooser.
func (s *scheduler) ChooseEvent(ready []engine.Event, _ []float64) int {
	s.step++
	best := -1.0
	s.top = s.top[:0]
	for i := range ready {
		k := s.key(&ready[i])
		p, ok := s.prio[k]
		if !ok {
			// A new source: a uniformly random place among the initial
			// priorities, as a random permutation would give it.
			p = float64(s.d) + s.rng.Float64()
			s.prio[k] = p
		}
		switch {
		case p > best:
			best = p
			s.top = append(s.top[:0], int32(i))
		case p == best:
			s.top = append(s.top, int32(i))
		}
	}
	pick := int(s.top[0])
	if len(s.top) > 1 {
		pick = int(s.top[s.rng.IntN(len(s.top))])
	}
	for i, at := range s.change {
		if at == s.step {
			s.prio[s.key(&ready[pick])] = float64(i + 1)
		}
	}
	return pick
}

// Package pct is probabilistic concurrency testing (Burckhardt et al.,
// ASPLOS 2010), seed 001's randomised priority-based scheduler (P#, §4.5),
// as an exploration order. It registers itself as "pct".
//
// # Usage
//
//	macemc search --system transport --strategy pct --max-paths 1000
//	macemc search --system storage --strategy pct --pct-depth 2 --pct-steps 40
//
// Every path's bounded part is one PCT schedule of k = steps steps with
// bug depth d = depth: each event source gets a random priority when it
// first has an event, d-1 priority change points are drawn uniformly
// among steps 1..k, and every step runs an event of the highest-priority
// source that has one; at change point i (i = 1..d-1) the source that just
// ran drops to priority i, below every initial priority. Answers of
// Context.Rand and Context.Elapsed are uniform. Then the search's walk
// goes on to d_max, and liveness counts after the bounded part (a path
// whose walk reaches no live state is a suspected violation, seed 001's
// "hot at the end of a long execution"). Paths are independent (path i
// is seeded by the search's seed and i alone) and never pruned, so they
// never run out: give the search a budget (--max-paths, --time).
//
// Options (--pct-NAME):
//
//   - depth (3): d, the bug depth PCT targets: d-1 change points. Seed
//     001's vNext runs used 2 change points.
//   - steps (100, capped by --depth): k, the length of the PCT schedule.
//     P# estimates k from three runs; here it is the bounded part's
//     length, over which the change points are spread.
//   - unit (source): what has a priority. source: every event source
//     (engine.Event.Source: a node's driver, a reliable connection or
//     datagram path, a named timer, connection errors, a failure);
//     node: every node, as PCT's threads and P#'s machines (a failure
//     event keeps a priority of its own).
//
// # The guarantee
//
// A bug of depth d is one that some d ordering constraints between events
// make happen (seed 001 Table 4.4: depth 0 to 6). With n sources (or
// nodes) and schedules of k steps, one PCT schedule hits a given bug of
// depth d with probability at least 1/(n·k^(d-1)) (Burckhardt et al.,
// Theorem 9): the n sources must be in the right priority order for the
// first constraint (1/n) and each of the d-1 change points must fall on
// its step (1/k each). So m schedules miss it with probability at most
// (1 - 1/(n·k^(d-1)))^m. The bound holds for the bounded part's event
// choices; a bug that also needs particular answers of Rand or Elapsed is
// found with that probability times theirs, and the walk after the
// bounded part is outside it.
//
// # Priorities per source, not per node
//
// PCT's threads (and P#'s machines) each run one sequential stream of
// events, one at a time. In the simulator a node does not: it has one
// FIFO queue per peer, its timers and its driver, and the order in which
// it handles them is as nondeterministic as the order between nodes. An
// event source is such a stream, so the default gives each source its
// priority, PCT's model exactly, with n the number of sources. With
// unit=node (PCT and P# literally) the events of the highest-priority node
// are chosen among uniformly, a random scheduler inside each node that the
// guarantee's analysis does not cover: a bug that needs one node to handle
// its queues in a particular order for several steps gets a probability
// that shrinks with every step instead of a change point's 1/k. Several
// events of one source at once (datagrams on one path, when the system
// reorders them) are also chosen among uniformly, so that a reordering
// keeps a positive probability.
package pct

import (
	"fmt"
	"math/rand/v2"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
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
		{Name: "depth", Kind: sim.ParamInt, Default: fmt.Sprint(DefaultDepth), Doc: "d, the bug depth: d-1 priority change points per schedule"},
		{Name: "steps", Kind: sim.ParamInt, Default: fmt.Sprint(DefaultSteps), Doc: "k, the steps of each PCT schedule (capped by --depth); a walk follows"},
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
		return nil, fmt.Errorf("depth %d: want 1 to steps+1 = %d", d, steps+1)
	}
	unit := s.Params.String("unit")
	switch unit {
	case "":
		unit = "source"
	case "source", "node":
	default:
		return nil, fmt.Errorf("unit %q: want source or node", unit)
	}
	sc := &scheduler{k: steps, d: d, byNode: unit == "node", prio: map[uint64]float64{}, change: make([]int, d-1)}
	sc.rng = rand.New(&sc.pcg)
	return &explorer{steps: steps, seed: s.Seed ^ seedSalt, sched: sc}, nil
}

type explorer struct {
	steps int
	seed  uint64
	index uint64
	sched *scheduler
}

// Next implements explore.Explorer.
func (e *explorer) Next(*explore.End) (explore.Path, bool) {
	e.sched.start(walks.SeedFor(e.seed, e.index))
	e.index++
	return explore.Path{Round: 1, Depth: e.steps, Scheduler: e.sched}, true
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

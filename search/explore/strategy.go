package explore

import (
	"errors"
	"fmt"
	"github.com/macemc/macemc/walks"
	"slices"
	"strings"
	"sync"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// ErrUnknownStrategy is returned by Lookup for a name nobody registered.
var ErrUnknownStrategy = errors.New("explore: unknown strategy")

// Strategy is an exploration order: which executions the bounded part of a
// search runs, one path after another. The executor (Run) does everything
// else: it executes each path, checks safety after every step, prunes by
// state hash where the path allows it, continues the path with a random
// walk to d_max, spreads the walks over workers, commits results in path
// order and keeps the budgets.
//
// A strategy lives in a package of its own (search/dfs, search/walk, ...)
// and registers itself with Register in an init function. One outside
// macemc's module does the same from its own package, which the program
// that runs the search (a cli.Main binary, or one that calls search.Run)
// imports for its side effect (import _ "example.com/mystrategy").
//
// How its explorer ends the search matters (Status.Done): StopExhausted is
// a claim that every execution within the strategy's bound was explored,
// on which rests the explored state graph's "liveness holds" (no fair
// cycle of hot states among all reachable states). A strategy that
// samples, restarts or stops on a budget of its own has not explored them
// all and must end with StopDepth. Leaving Done at StopNone, or claiming
// StopExhausted after a path of the last round reached its bound, is
// refused (StrategyStopError).
type Strategy interface {
	// Name is the strategy's name on the command line (--strategy NAME).
	Name() string
	// Doc says in one line what the strategy does.
	Doc() string
	// Params declares the strategy's own options; the command line offers
	// each as --NAME-PARAM (e.g. --pct-depth) and the resolved values reach
	// New in Setup.Params.
	Params() []sim.ParamSpec
	// New returns the explorer of one search.
	New(Setup) (Explorer, error)
}

// Setup is what a strategy is told about the search it explores.
type Setup struct {
	// Seed seeds any randomness of the strategy.
	Seed uint64
	// DepthStep and MaxDepth bound the bounded part of the paths:
	// iterative deepening by DepthStep, up to MaxDepth (0: no cap).
	DepthStep, MaxDepth int
	// Params are the strategy's own options, resolved against Params().
	Params sim.Params
}

// Steps returns the length of the bounded part a strategy with a "steps"
// option is asked for: the option's value (def when it is not given),
// capped by MaxDepth.
func (s Setup) Steps(def int) (int, error) {
	steps := def
	if _, set := s.Params["steps"]; set {
		steps = s.Params.Int("steps")
	}
	if s.MaxDepth > 0 {
		steps = min(steps, s.MaxDepth)
	}
	if steps < 1 || steps > MaxSteps {
		return 0, &ParamError{Name: "steps", Value: steps, Range: fmt.Sprintf("1 to %d", MaxSteps)}
	}
	return steps, nil
}

// ParamError is a strategy's option whose value is out of its range, as
// Strategy.New returns it: Name is the option (Setup.Params' key), Value
// its value, Range the values allowed.
type ParamError struct {
	Name  string
	Value any
	Range string
}

// Error says which option and what it allows, e.g. "depth 0: want 1 to 101".
func (e *ParamError) Error() string { return fmt.Sprintf("%s %v: want %s", e.Name, e.Value, e.Range) }

// MaxSteps bounds the bounded part of a path (the visited set records
// costs below 2^32, depths below 2^20).
const MaxSteps = 1<<20 - 1

// Explorer proposes the paths of one search, one at a time, in a fixed
// order: the same Setup gives the same paths.
type Explorer interface {
	// Next returns the next path, given how the previous one ended (nil
	// before the first path). It returns false when there is nothing left
	// to explore; Status then says why (its Done is no longer StopNone).
	Next(prev *End) (Path, bool)
	// Status says how far the exploration got.
	Status() Status
}

// Warner is an Explorer with something to tell the user when its search
// ends (Result.Warnings): what its paths showed of its settings. It is
// asked once, after the last path, whose ends it saw in path order (Next's
// prev), so its answer does not depend on the workers.
type Warner interface {
	Warnings() []string
}

// Status is how far an Explorer got.
type Status struct {
	// Rounds started, the depth bound of the current round, and the
	// deepest bound whose round completed.
	Rounds, Depth, DeepestComplete int
	// Done says why Next returned false (StopNone until then):
	//   - StopExhausted: a claim of completeness. Every execution within
	//     the strategy's bound was explored (run, or cut at a state whose
	//     subtree another path explored), and none reached the bound:
	//     nothing deeper exists. The explored
	//     state graph then holds every reachable state and transition,
	//     and finding no fair cycle of hot states in it proves that
	//     liveness holds. Only an order that covers every execution
	//     (the iterative deepening of dfs and dpor, delay's schedules
	//     once no schedule wanted more delays) may say it.
	//   - StopDepth: the strategy went as far as it goes: MaxDepth
	//     searched, or its own rounds, restarts or budget spent. A
	//     strategy that samples executions (random draws, restarts, a
	//     cap on paths) ends with StopDepth even if its last paths all
	//     ended before their bound.
	// The executor refuses StopNone here, and StopExhausted after a path
	// of the last round reached its depth bound (StrategyStopError).
	Done Stop
}

// Path is one execution for the executor to run.
type Path struct {
	// Round and Depth: the path's bounded part runs Depth steps after the
	// search's prefix, its choices answered by Scheduler; beyond it a
	// random walk goes on to d_max. Liveness only counts after Depth.
	Round, Depth int
	// Scheduler answers the bounded part's choice points. One that
	// implements engine.EventChooser sees the ready events it picks among.
	// One that implements Coster ranks the states it reaches for pruning.
	Scheduler engine.Chooser
	// Prune lets the executor end the path at a state that an earlier path
	// of the same round reached at a cost no higher (by default the depth
	// since the prefix; see Coster): that state's subtree is explored from
	// the earlier occurrence.
	Prune bool
}

// Forker is an Explorer whose rounds are searched depth first: in each
// round its paths are every execution of the round's depth bound in the
// lexicographic order of their choices, each path after the previous one
// backtracking from where that one ended (End.Steps), and its schedulers
// answer from the choice's kind and number of options alone (not the
// weights, and not as an engine.EventChooser). The executor can then run
// the subtrees below the round's paths at a split depth on several workers
// ahead of the order and check what they found in the order, with the
// same results as one worker (see Config.Workers).
type Forker interface {
	// Fork returns an explorer of round's paths that begin with prefix
	// (choices after the search's prefix), bounded at depth steps, in this
	// explorer's order: its first path makes the prefix's choices and then
	// the first choice everywhere, and it has no more paths once the next
	// one would leave the prefix. Its Status is not used.
	Fork(round, depth int, prefix []int32) Explorer
	// RoundDepth returns the depth bound of round (from 1), or false past
	// the last round the explorer can run (its MaxDepth): a shard (Shard)
	// explores the rounds without the paths that decide whether each is
	// reached.
	RoundDepth(round int) (int, bool)
}

// WalkOnly is a Strategy whose paths have no bounded part: each is a
// random walk of d_max steps from the initial state (search/walk), so
// what a bounded part gives (the explored state graph, a depth bound,
// failures only inside the bounded part) does not apply to it.
type WalkOnly interface {
	WalkOnly() bool
}

// IsWalkOnly reports whether s is a WalkOnly strategy that says so.
func IsWalkOnly(s Strategy) bool {
	w, ok := s.(WalkOnly)
	return ok && w.WalkOnly()
}

// Deepener is a Strategy whose rounds deepen by Setup.DepthStep (iterative
// deepening, as Deepening runs it: search/dfs, search/dpor). Another
// strategy's bound is its own (a steps option, capped by MaxDepth), and
// DepthStep changes nothing in its search: a caller that was given a
// depth step can say so.
type Deepener interface {
	Deepens() bool
}

// UsesDepthStep reports whether s is a Deepener that says so: whether
// Setup.DepthStep changes its search.
func UsesDepthStep(s Strategy) bool {
	d, ok := s.(Deepener)
	return ok && d.Deepens()
}

// OrderReducer is a Strategy that runs one order of the events that
// commute (partial-order reduction): its exhausted search reaches every
// end state but not every transition of the states on the way, so its
// explored state graph can lack a fair cycle through the orders it left
// out, and finding none there proves no liveness.
type OrderReducer interface {
	ReducesOrders() bool
}

// Coster is a Scheduler that ranks the states its path reaches for
// pruning: a state seen before in the same round with a cost no higher
// than the current one is not explored again. Without it the cost is the
// state's depth after the prefix. Delay bounding ranks states by the
// delays spent to reach them.
type Coster interface {
	Cost() uint32
}

// Watcher is a Scheduler that watches its path's bounded part: after every
// step beyond the search's prefix, Watch is shown the simulator in the
// state the step led to (its last event, engine.Sim.Shared, the history,
// what is ready now). Partial-order reduction learns there what each step
// did. Returning false ends the bounded part in that state (after it is
// checked), as EndBlocked: the scheduler knows that every way on from it
// is explored by other paths (a sleep-set blocked state of DPOR), so the
// path neither walks nor is checked at its end.
type Watcher interface {
	Watch(s *engine.Sim) bool
}

// End says how a path's bounded part ended.
type End struct {
	// Steps is the number of steps the path ran after the prefix.
	Steps int
	// Reason is why the bounded part ended.
	Reason EndReason
}

// EndReason is why a path's bounded part ended.
type EndReason int

// The ways a bounded part ends.
const (
	// EndDepth: it reached its depth bound (a walk follows).
	EndDepth EndReason = iota
	// EndPruned: it reached a state seen before in this round.
	EndPruned
	// EndCycle: it returned to a state of its own path (a walk follows).
	EndCycle
	// EndQuiescent: nothing was left to run.
	EndQuiescent
	// EndViolation: a safety property failed, a handler failed, or the
	// path check (Config.Check) found a violation.
	EndViolation
	// EndBlocked: the scheduler ended it (Watcher): every way on is
	// explored by other paths.
	EndBlocked
)

var endNames = [...]string{"depth", "pruned", "cycle", "quiescent", "violation", "blocked"}

// String returns the reason's name, e.g. "pruned".
func (r EndReason) String() string {
	if int(r) < len(endNames) {
		return endNames[r]
	}
	return fmt.Sprintf("end(%d)", int(r))
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Strategy{}
)

// Register makes a strategy findable by name. It panics on a duplicate
// name, a programming error; call it from an init function.
func Register(s Strategy) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[s.Name()]; dup {
		panic("explore: Register called twice for strategy " + s.Name())
	}
	registry[s.Name()] = s
}

// Lookup returns the registered strategy with this name.
func Lookup(name string) (Strategy, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	if s, ok := registry[name]; ok {
		return s, nil
	}
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownStrategy, name, strings.Join(names, ", "))
}

// Strategies returns every registered strategy, sorted by name.
func Strategies() []Strategy {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]Strategy, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Strategy) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// PathSeeds numbers the seeds of a strategy whose every path is a random
// draw (random, pct, walk): path i draws with walks.SeedFor(seed^salt, i),
// so that a path depends on the search's seed and its own place alone. The
// salt keeps the strategy's draws apart from the walks' (walks.SeedFor of
// the search's seed).
type PathSeeds struct{ seed, next uint64 }

// NewPathSeeds returns the path seeds of a search with this seed, for a
// strategy with this salt.
func NewPathSeeds(seed, salt uint64) PathSeeds { return PathSeeds{seed: seed ^ salt} }

// Next returns the next path's seed.
func (p *PathSeeds) Next() uint64 {
	s := walks.SeedFor(p.seed, p.next)
	p.next++
	return s
}

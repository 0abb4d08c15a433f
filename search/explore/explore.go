package explore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// Sentinel errors of the executor.
var (
	// ErrConfig marks a configuration the search cannot run.
	ErrConfig = errors.New("explore: bad config")
	// ErrPrefix marks a prefix that does not replay on the system.
	ErrPrefix = errors.New("explore: prefix does not replay")
	// ErrStrategyStop marks a strategy whose explorer ended the search
	// without a valid reason (StrategyStopError).
	ErrStrategyStop = errors.New("explore: strategy ended without a valid reason")
)

// StrategyStopError is a search that ended because its explorer's Next
// returned false with a Status.Done that cannot be so: StopNone (the
// explorer did not say why it stopped), or StopExhausted although a path
// of its last round reached its depth bound (a claim of completeness its
// own paths contradict). The executor refuses both rather than report a
// search whose reason, and with StopExhausted the explored graph's proof
// of liveness, rests on nothing. It matches ErrStrategyStop.
type StrategyStopError struct {
	// Strategy is the strategy's name.
	Strategy string
	// Done is what its Status said.
	Done Stop
	// Round and Depth, with Done StopExhausted, are the last round and
	// the depth bound a path of it reached.
	Round, Depth int
}

// Error names the strategy and what it should have said.
func (e *StrategyStopError) Error() string {
	if e.Done == StopExhausted {
		return fmt.Sprintf("strategy %s claims an exhausted search (its Status.Done is StopExhausted), but a path of its last round (round %d) reached its depth bound %d: "+
			"StopExhausted says every execution within the strategy's bound was explored and none reached the bound, on which the explored graph's proof that liveness holds rests; "+
			"a strategy that samples, restarts or stops on a budget of its own must report StopDepth", e.Strategy, e.Round, e.Depth)
	}
	return fmt.Sprintf("strategy %s stopped without saying why: its Status.Done is StopNone when its Next returned false; "+
		"its explorer must set Done to StopExhausted (every execution within its bound was explored) or StopDepth (it searched as far as it goes, or spent a budget of its own)",
		e.Strategy)
}

// Is makes a StrategyStopError match ErrStrategyStop.
func (e *StrategyStopError) Is(target error) bool { return target == ErrStrategyStop }

// Defaults of the original MaceMC (see the design note).
const (
	DefaultDepthStep = 5
	DefaultWalkDepth = 20000
)

// Config describes one exploration.
type Config struct {
	// System is the configuration to search; its Safety and Liveness
	// properties (already narrowed by the caller, if wanted) are checked.
	System *sim.Config
	// Strategy orders the paths; StrategyParams are its options.
	Strategy       Strategy
	StrategyParams sim.Params
	// DepthStep is the iterative-deepening increment (default 5) and
	// MaxDepth caps the bounded part (0: no cap), as the strategy uses them.
	DepthStep int
	MaxDepth  int
	// WalkDepth is d_max, the length of every execution's random walk
	// tail (default 20,000).
	WalkDepth int
	// Seed seeds the strategy and every walk: a path of a strategy that
	// prunes (dfs, delay) walks with a seed of Seed, its round and its
	// choices, the others' path i with walks.SeedFor(Seed, i).
	Seed uint64
	// Workers is how many goroutines run the search (default: all cores).
	// One runs it on one core at a time. More run the walks in parallel
	// and, for a strategy that searches depth first (a Forker: dfs), the
	// subtrees of each round ahead of the order, which the coordinator
	// checks in order (speculation, see doc.go). The result does not
	// depend on it.
	Workers int
	// MaxPaths stops after this many paths (0: no limit).
	MaxPaths int64
	// Time stops the search after this long (0: no limit).
	Time time.Duration
	// MaxViolations stops after this many violating paths (default 1).
	MaxViolations int
	// NoHashing turns state hashing off: no path is cut short because it
	// reached a state seen before.
	NoHashing bool
	// MaxStates bounds the visited-state set (default DefaultMaxStates).
	// Past the bound, a new state takes the place of one recorded in an
	// earlier round or is not recorded (Stats.Unrecorded): it will not cut
	// a later path short, so the search repeats work it could have
	// skipped. That loses coverage per unit of time, never correctness.
	MaxStates int
	// Unbiased makes walks choose events uniformly instead of by weight.
	Unbiased bool
	// WalkFailures keeps failures on during walks. By default failures
	// happen only within the bounded part and walks run without them,
	// weights on ("gusto", as in the original).
	WalkFailures bool
	// Prefix, when set, is a recorded execution of PrefixSteps steps
	// (e.g. a live steady state, seed 003 §4.2 point 4): every path starts
	// from its end.
	Prefix      []int32
	PrefixSteps int
	// HandlerTimeout is the watchdog's limit for one handler (default 5s).
	HandlerTimeout time.Duration
	// Progress, when set, is called about every ProgressEvery with the
	// statistics so far, from the coordinating goroutine.
	Progress      func(Stats)
	ProgressEvery time.Duration
	// Observe, when set, builds a per-walk observer (see walks.Config and
	// walks.Observer); lasso detection hooks in here. It is called once
	// per walk, from the worker that runs it. A walk the observer ends
	// with a verdict is a violation (outcome walks.Observed), committed in
	// path order like any other. An observer that is a Committer is told
	// when its walk's path is committed.
	Observe func() walks.Observer
	// Check, when set, judges every execution where it ends (see
	// PathCheck): linearizability of the clients' history is one.
	Check PathCheck

	// Graph, when set, records the explored state graph and reports the
	// fair cycles of hot states it holds (see GraphConfig).
	Graph *GraphConfig

	// Records, when set, merges shards (Shard) of this search: the
	// coordinator follows the strategy's paths through the records of all
	// of them and runs itself only what they do not cover, with the
	// result of one process (see shard.go). Run takes them over: it
	// empties their rounds as it reads them, to hold one copy.
	Records []*ShardRecords

	pathHook func(choices []int32)                 // tests: called with each bounded path
	specHook func(hits, misses, ran, walked int64) // tests: how many paths the coordinator followed from records and ran
	genHook  func(paths int64)                     // tests: how many paths the speculation's generator ran
}

// PathCheck judges whole executions where they end, beyond the safety
// properties checked in every state: package search/lin checks that the
// clients' history is linearizable. Check is shown the final state of
// every path that is not cut short: where its bounded part fell quiescent,
// or where its walk ended without a violation (live, or at d_max). A path
// cut at a state seen before is not checked: its continuation is, from
// the earlier occurrence, and a state's hash must then cover what Check
// judges (the engine's hash covers the history). Check is called from the
// coordinator and from the workers, concurrently; with several workers it
// may also be shown executions that the search then prunes (run ahead of
// the order, see Config.Workers), which the statistics do not count.
type PathCheck interface {
	Check(s *engine.Sim) Judgement
}

// Judgement is a PathCheck's verdict on one execution.
type Judgement struct {
	// Key identifies what was judged (the history's hash): the statistics
	// count distinct keys (Stats.CheckedDistinct).
	Key uint64
	// Outcome is the verdict. CheckViolated and CheckFailed make the path
	// a violation (verdict Safety, Violation.Checked set); CheckUnknown is
	// counted, never taken for CheckOK.
	Outcome CheckOutcome
	// Property names what was violated; Detail describes it
	// (Violation.Observed).
	Property string
	Detail   any
}

// CheckOutcome is a PathCheck's verdict.
type CheckOutcome int

// The verdicts of a PathCheck.
const (
	// CheckOK: the execution passed.
	CheckOK CheckOutcome = iota
	// CheckViolated: the execution is a violation.
	CheckViolated
	// CheckUnknown: the check could not decide (it timed out).
	CheckUnknown
	// CheckFailed: the check itself failed on the execution (the model
	// it checks against panicked): the path is reported as a violation
	// is, so that the failure can be replayed and looked at, but counted
	// apart (Stats.CheckedFailed).
	CheckFailed
)

func (c *Config) validate() error {
	if c.System == nil {
		return fmt.Errorf("%w: no system", ErrConfig)
	}
	if c.Strategy == nil {
		return fmt.Errorf("%w: no strategy", ErrConfig)
	}
	if err := c.System.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if c.DepthStep == 0 {
		c.DepthStep = DefaultDepthStep
	}
	if c.WalkDepth == 0 {
		c.WalkDepth = DefaultWalkDepth
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers()
	}
	if c.MaxViolations <= 0 {
		c.MaxViolations = 1
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = 250 * time.Millisecond
	}
	switch {
	case c.DepthStep < 0:
		return fmt.Errorf("%w: depth step %d", ErrConfig, c.DepthStep)
	case c.MaxDepth < 0:
		return fmt.Errorf("%w: depth %d", ErrConfig, c.MaxDepth)
	case c.WalkDepth < 0:
		return fmt.Errorf("%w: walk depth %d", ErrConfig, c.WalkDepth)
	case c.MaxPaths < 0, c.Time < 0:
		return fmt.Errorf("%w: negative budget", ErrConfig)
	case c.PrefixSteps < 0 || c.PrefixSteps > 0 && len(c.Prefix) == 0:
		return fmt.Errorf("%w: prefix of %d steps with %d choices", ErrConfig, c.PrefixSteps, len(c.Prefix))
	}
	return nil
}

// Verdict is what a search concluded.
type Verdict int

// The verdicts.
const (
	// None: nothing was found within the budget.
	None Verdict = iota
	// Safety: a safety property failed (or a handler panicked or hung).
	Safety
	// Liveness: a (suspected) liveness violation.
	Liveness
)

// String returns "none", "safety" or "liveness".
func (v Verdict) String() string {
	switch v {
	case None:
		return "none"
	case Safety:
		return "safety"
	case Liveness:
		return "liveness"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Stop says why a search ended.
type Stop int

// The reasons a search ends.
const (
	// StopNone: the search has not ended.
	StopNone Stop = iota
	// StopViolation: MaxViolations violating paths were found.
	StopViolation
	// StopPaths: the MaxPaths budget was spent.
	StopPaths
	// StopTime: the Time budget was spent.
	StopTime
	// StopInterrupted: the context was cancelled.
	StopInterrupted
	// StopDepth: the bounded part was searched to MaxDepth, or the
	// strategy spent its own rounds or budget.
	StopDepth
	// StopExhausted: every execution within the strategy's bound was
	// explored and no path reached its depth bound: nothing deeper
	// exists, the reachable states were all explored. It is a claim of
	// completeness (see Status.Done): the explored graph's proof that
	// liveness holds rests on it.
	StopExhausted
	// StopMemory: the run's heap grew past its memory limit (set by
	// package search, whose runs watch their heap; explore itself stops
	// such a run as StopInterrupted).
	StopMemory
	// StopCycle: a shard's explored graph held a fair cycle of hot states
	// at the end of a round (Shard), where the search it is a shard of
	// stops as a rule.
	StopCycle
)

var stopNames = [...]string{"", "violation", "paths", "time", "interrupted", "depth", "exhausted", "memory", "fair cycle"}

// String returns the reason's name as reports give it, e.g. "exhausted".
func (s Stop) String() string {
	if int(s) < len(stopNames) {
		return stopNames[s]
	}
	return fmt.Sprintf("stop(%d)", int(s))
}

// ParseStop returns the Stop with this name.
func ParseStop(name string) (Stop, bool) {
	i := slices.Index(stopNames[:], name)
	return Stop(max(i, 0)), i >= 0
}

// Complete reports whether the search ended on its own terms rather than
// on a budget or a cancellation: its statistics then depend only on the
// inputs.
func (s Stop) Complete() bool { return s == StopViolation || s == StopDepth || s == StopExhausted }

// Violation is one violating execution.
type Violation struct {
	Verdict Verdict
	// Outcome says how the execution ended: walks.Dead (suspected
	// liveness violation), walks.Quiescent (certain), walks.Unsafe or
	// walks.Failed (a handler panicked or hung), or walks.Observed (the
	// walk's observer reported a violation, a liveness verdict).
	Outcome  walks.Outcome
	Property string
	// Observed is the observer's detail of a walks.Observed outcome (for
	// lasso detection a *lasso.Finding), or the path check's detail when
	// Checked; nil otherwise.
	Observed any
	// Checked marks a violation the path check (Config.Check) found where
	// the execution ended (verdict Safety, outcome walks.Unsafe).
	Checked bool
	// Choices replay the execution; Steps is its length.
	Choices []int32
	Steps   int
	// Path is the index of the path in search order; Depth the depth
	// bound of its bounded part, beyond which liveness counted (LiveAfter
	// = PrefixSteps + Depth).
	Path      int64
	Depth     int
	LiveAfter int
	// FailuresUntil is the step from which failures were off (replay
	// needs it); 0 when they were on throughout.
	FailuresUntil int
	// Err is the handler panic or hang behind a Failed outcome.
	Err error
	// Graph is set for a violation found in the explored state graph
	// (Config.Graph): a fair cycle of hot states.
	Graph *GraphLasso
}

// Stats say what a search covered. Every count covers the paths before
// the search stopped, in path order, so that with a complete search
// (Stop.Complete, or a MaxPaths budget) they depend only on the inputs and
// not on the number of workers or how they were scheduled.
type Stats struct {
	// Rounds started, the depth bound of the last round, and the deepest
	// bound whose round completed.
	Rounds          int
	DeepestComplete int
	Depth           int
	// Paths executed, of which Pruned were cut short by reaching a state
	// already seen on an earlier path, Blocked were ended by their
	// scheduler (every way on explored elsewhere: DPOR's sleep sets),
	// Cycles ended their bounded part early by returning to a state of
	// their own (and walked from there), and Walks that ran a random walk.
	Paths   int64
	Pruned  int64
	Blocked int64
	Cycles  int64
	Walks   int64
	// TimeCut counts the paths the search ran but left out of these
	// counts because the time budget (Config.Time) ended their walks.
	TimeCut int64
	// Checked counts the paths the path check (Config.Check) judged where
	// they ended, CheckedDistinct the distinct things it judged (for
	// linearizability, distinct histories), and of those CheckedViolated
	// were violations, CheckedUnknown could not be decided and
	// CheckedFailed made the check fail.
	Checked, CheckedDistinct, CheckedViolated, CheckedUnknown, CheckedFailed int64
	// Transitions executed in all (bounded parts and walks).
	Transitions int64
	// DistinctStates is the number of distinct states the bounded parts
	// reached (the states recorded in the visited-state set); Unrecorded
	// counts the new states the full set could not record (see
	// Config.MaxStates), Forgotten the states of earlier rounds it dropped
	// to make room (a state recorded again after that counts again in
	// DistinctStates), and VisitedBytes is the set's memory.
	DistinctStates int64
	Unrecorded     int64
	Forgotten      int64
	VisitedBytes   int
	// Unhashed says the search pruned no path: hashing was off
	// (Config.NoHashing) or the strategy never prunes (random, pct,
	// walk, dpor), so DistinctStates and Pruned are 0 by design.
	Unhashed   bool
	Elapsed    time.Duration
	Violations int
	// Stop says why the search ended.
	Stop Stop
	// Graph says what the explored state graph held (Config.Graph; nil
	// without it).
	Graph *GraphStats
}

// Result is a search's verdict with its evidence and coverage.
type Result struct {
	Verdict    Verdict
	Violations []Violation
	Stats      Stats
	// Speculation says how much the workers ran ahead of the order, and
	// how much of it the search used. Unlike Stats it depends on the
	// workers and their timing: it is for measuring, never for a report.
	Speculation SpeculationStats
	// Warnings are the strategy's (Warner), when its explorer has any;
	// Notes say what the executor could not do as asked (the explored
	// graph turned off, say), whatever the search found.
	Warnings, Notes []string
}

// SpeculationStats say what speculation did (see doc.go): the paths the
// coordinator followed from the workers' records and those it ran itself,
// and the paths the workers ran ahead and walked, some of them thrown
// away (a state of theirs was pruned in the order).
type SpeculationStats struct {
	Followed, Ran, AheadPaths, AheadWalks int64
}

// pathStats is what one path adds to the statistics, committed in path
// order.
type pathStats struct {
	transitions int64
	newStates   int64
	unrecorded  int64
	pruned      bool
	blocked     bool
	cycle       bool
	walked      bool
	checked     bool // judged by the path check, with this verdict:
	judged      Judgement
	// cut marks a path whose walk was cut short or never run because the
	// search was interrupted: it is not counted.
	cut bool
	// graph is the explored graph's statistics after the path's bounded
	// part (hasGraph unset without a graph): the coordinator runs ahead of
	// the commits, so the statistics of the last committed path are the
	// ones that do not depend on timing. Performance: held here, not
	// allocated for every path.
	graph    GraphStats
	hasGraph bool
}

// Committer is implemented by a walk's observer (Config.Observe) that
// keeps what it saw to itself until the search commits the walk's path:
// Commit is called once per committed path that walked, in path order,
// never for the paths a search started past its stopping point. Counting
// there makes an observer's statistics independent of the workers.
type Committer interface {
	Commit()
}

// job is one path whose random walk a worker runs.
type job struct {
	index   int64
	choices []int32
	steps   int
	depth   int
	result  *Violation // set when the bounded part already decided
	walk    bool       // the path goes on with a walk
	stats   pathStats
	// observer is the walk's observer (Config.Observe), if any.
	observer walks.Observer
	// status is the explorer's status when it handed out the path.
	status Status
	// noPath marks a result that is no path of the strategy's (a cycle
	// of the explored graph): it does not count as one.
	noPath bool
	// sim, when set, holds the execution at the end of the bounded part
	// (the coordinator's, handed over with engine.Sim.SwapState): the
	// worker walks on from it instead of replaying the path. here says
	// that the simulator the walk runs on holds it already.
	sim  *engine.Sim
	here bool
	// seed seeds the path's walk (pathSeed).
	seed uint64
	// ownCycle marks a bounded part cut at a state of its own path by a
	// strategy that explores that state's ways on from where the path
	// first reached it (it prunes, or reduces orders): its walk runs
	// without failures (walkFailuresUntil).
	ownCycle bool
}

// setup returns what the strategy is told of the search: with liveness
// properties, its MaxDepth is capped at half the steps between the
// prefix's end and the walk depth, since liveness counts only after a
// path's bounded part. A walk that has few steps left after it cannot show
// the state live (one that reached d_max would never check it) and every
// such path would look doomed: iterative deepening ends (StopDepth) with
// the round whose walks have as many steps as its bound (without a
// prefix, the bound d_max/2, the deepest state Algorithm 3 probes: seed
// 003 §3.2).
func (c *Config) setup() Setup {
	maxDepth := c.MaxDepth
	if room := c.DepthRoom(); len(c.System.Liveness) > 0 && room >= 1 && (maxDepth == 0 || maxDepth > room) {
		maxDepth = room
	}
	return Setup{Seed: c.Seed, DepthStep: c.DepthStep, MaxDepth: maxDepth, Params: c.StrategyParams}
}

// DepthRoom is the deepest bounded part whose walks still have as many
// steps after it, up to WalkDepth: half the steps between the prefix's
// end and d_max. With liveness properties a search's MaxDepth is capped
// there (see setup).
func (c *Config) DepthRoom() int { return (c.WalkDepth - c.PrefixSteps) / 2 }

// Run explores c.System: the strategy's paths in order, each path's
// bounded part continued by a random walk of up to d_max steps (seed 003,
// Algorithms 1 and 2). Safety is checked after every step, liveness only
// beyond the path's depth bound. Cancelling ctx stops the search; the
// result still reports what was covered, with Stop StopInterrupted.
func Run(ctx context.Context, c Config) (*Result, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	ex, err := c.Strategy.New(c.setup())
	if err != nil {
		return nil, fmt.Errorf("%w: strategy %s: %w", ErrConfig, c.Strategy.Name(), err)
	}
	var preload map[int][]*task
	gr, warnings := graphFor(&c)
	if len(c.Records) > 0 {
		if _, ok := ex.(Forker); !ok {
			return nil, notForker(c.Strategy)
		}
		if preload, err = mergeRecords(c.Records, gr); err != nil {
			return nil, err
		}
	}
	r := &runner{cfg: c, ctx: ctx, ex: ex, start: time.Now(), seen: newVisited(c.MaxStates), preload: preload}
	r.graph = gr
	res, err := r.run()
	if res != nil {
		res.Notes = warnings
	}
	if !r.hung {
		// A goroutine stuck in a hung handler's path may still hold the
		// coordinator: leave the table to it then.
		r.seen.free()
	}
	return res, err
}

// DefaultWorkers is the number of workers a search runs when Config.Workers
// is 0: one per core.
func DefaultWorkers() int { return runtime.NumCPU() }

type runner struct {
	cfg   Config
	ctx   context.Context
	ex    Explorer
	start time.Time

	seen *visited // state hash -> round<<32 | cost first seen at
	// hashing is set once the explorer handed out a path that may be
	// pruned, with hashing on (Stats.Unhashed).
	hashing atomic.Bool
	// coord executes the paths the coordinator runs itself.
	coord *pathRunner
	// spec runs the subtrees of a round ahead of the order on the
	// workers (speculation), or is nil; with one worker, handoff tells
	// the coordinator that the worker is done with the job it was sent.
	spec    *speculation
	handoff chan struct{}
	// preload holds the merged shards' tasks of every round (Records).
	preload map[int][]*task

	// livePaths and liveTransitions count what ran so far, for progress
	// reports (the result counts committed paths only): the coordinator's
	// paths, the workers' walks. Performance: the fields the workers read
	// or write for every path (stopping, liveTransitions) lie on cache
	// lines of their own; livePaths is the coordinator's alone.
	livePaths       int64
	_               cacheLine
	liveTransitions atomic.Int64
	stopping        atomic.Bool
	timeUp          atomic.Bool // Config.Time has passed
	_               cacheLine

	// pool holds simulators to carry executions from the coordinator to
	// the workers (job.sim).
	pool chan *engine.Sim

	// graph is the explored state graph (Config.Graph), or nil.
	graph *graphRun

	mu         sync.Mutex
	done       map[int64]*job // finished jobs waiting to be committed
	nextCommit int64
	violations []Violation
	stopReason Stop
	final      *Status    // the explorer's status once it had no more paths
	stopAt     int64      // first path index not committed when stopping (-1: none)
	stats      Stats      // committed paths
	graphNow   GraphStats // the graph's statistics of the last committed path (stats.Graph)
	judged     map[uint64]CheckOutcome
	quit       chan struct{}
	// hung marks a coordinator abandoned to a hung handler: its goroutine
	// may still use the visited set.
	hung bool
}

func (r *runner) liveAfter(depth int) int { return r.cfg.PrefixSteps + depth }

func (r *runner) failuresUntil(depth int) int {
	if r.cfg.WalkFailures {
		return 0
	}
	return r.cfg.PrefixSteps + depth
}

// walkFailuresUntil returns the step from which failures are off in job
// j's walk: the path's depth bound, or, for a bounded part that dfs, dpor
// or delay cut where its path came back to one of its own states
// (EndCycle, ownCycle), the cut. Failures happen only in the bounded part
// (seed 003), and that state's ways on, failures included, are explored
// from where the path first reached it: the walk's random steps up to the
// bound are no schedule of the strategy's (delay bounding "found" with 0
// delays a reset no schedule of its made). A random or pct schedule is
// one random execution, not a tree: its walk stands for the rest of it,
// failures on up to the bound, as before the cut.
func (r *runner) walkFailuresUntil(j *job) int {
	until := r.failuresUntil(j.depth)
	if until != 0 && j.ownCycle {
		return min(until, j.steps)
	}
	return until
}

// ReducesOrders says whether the strategy runs one order of the events
// that commute (OrderReducer).
func ReducesOrders(s Strategy) bool {
	r, ok := s.(OrderReducer)
	return ok && r.ReducesOrders()
}

// graphFor returns the explored graph of the search c (nil for none), and
// a warning when c asks for one the search cannot keep: the graph has one
// initial state, so a system whose nodes choose while they boot (its paths
// start from several) gets none.
func graphFor(c *Config) (*graphRun, []string) {
	gr := newGraphRun(c)
	if gr == nil || len(c.Prefix) > 0 || !bootChooses(c) {
		return gr, nil
	}
	return nil, []string{"the nodes choose while they boot (Rand or Elapsed in Start), so the executions start from several initial states, " +
		"which the explored state graph does not tell apart: its check for fair cycles is off, and liveness is checked by the walks alone"}
}

// bootChooses reports whether the system's nodes make a choice while they
// boot (Rand or Elapsed in Start): then the paths start from as many
// initial states as its answers make. A system that does not boot says
// nothing here (the search reports it).
func bootChooses(c *Config) bool {
	s, err := engine.NewGuarded(c.System, engine.Options{}, c.HandlerTimeout)
	return err == nil && s != nil && len(s.Choices()) > 0
}

func (r *runner) run() (*Result, error) {
	if len(r.cfg.Prefix) > 0 {
		if _, err := engine.Replay(r.cfg.System, r.cfg.Prefix, r.cfg.PrefixSteps, engine.Options{}); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrPrefix, err)
		}
	}
	r.done = map[int64]*job{}
	r.stopAt = -1
	// The coordinator closes jobs when it finishes; if a handler hangs in
	// it, quit releases the workers instead (the hung goroutine is left).
	jobs := make(chan *job, 4*r.cfg.Workers)
	r.pool = make(chan *engine.Sim, 5*r.cfg.Workers+2)
	r.quit = make(chan struct{})
	results := make(chan *job, 4*r.cfg.Workers)
	var wg sync.WaitGroup
	if r.cfg.Workers > 1 || len(r.cfg.Records) > 0 {
		r.spec = newSpeculation(r)
		if len(r.cfg.Records) > 0 {
			r.spec.preload = r.preload
		}
	}
	if r.cfg.Workers == 1 {
		// One worker: the coordinator waits for each job before the next
		// path, so that the search runs on one core at a time.
		r.handoff = make(chan struct{})
	}
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.worker(jobs, results)
		}()
	}
	committed := make(chan struct{})
	go func() {
		for j := range results {
			r.commit(j)
		}
		close(committed)
	}()
	err := r.coordinate(jobs, results)
	r.spec.stop()
	var spec SpeculationStats
	if r.spec != nil {
		ran, walked := r.spec.ahead()
		spec = SpeculationStats{Followed: r.spec.hits, Ran: r.spec.misses, AheadPaths: ran, AheadWalks: walked}
		if r.cfg.specHook != nil {
			r.cfg.specHook(spec.Followed, spec.Ran, spec.AheadPaths, spec.AheadWalks)
		}
		if r.cfg.genHook != nil {
			r.cfg.genHook(r.spec.genPaths) // the generator has stopped (stop)
		}
	}
	wg.Wait()
	close(results)
	<-committed
	r.flush()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &Result{Violations: r.violations, Stats: r.snapshotLocked(), Speculation: spec}
	res.Stats.Stop = r.stopReason
	if w, ok := r.ex.(Warner); ok {
		res.Warnings = w.Warnings()
	}
	if f := r.final; f != nil && r.stopReason == f.Done {
		res.Stats.Rounds, res.Stats.Depth, res.Stats.DeepestComplete = f.Rounds, f.Depth, f.DeepestComplete
	}
	if r.stopReason != StopViolation && r.graph != nil {
		// Every path ran and the graph had its last look: its final
		// statistics are the search's.
		res.Stats.Graph = r.graphStats()
		res.Stats.Graph.TimeWaits = r.graph.timeWaits(r.stopReason)
	}
	if len(res.Violations) > 0 {
		res.Verdict = res.Violations[0].Verdict
	}
	return res, nil
}

// snapshotLocked returns the committed statistics with the explorer's
// status; r.mu is held.
func (r *runner) snapshotLocked() Stats {
	st := r.stats
	if st.Graph != nil {
		g := *st.Graph // r.graphNow changes with the next commit
		st.Graph = &g
	}
	st.VisitedBytes = r.seen.bytes()
	st.Forgotten = r.seen.forgotten.Load()
	st.Unhashed = !r.hashing.Load()
	st.Elapsed = time.Since(r.start)
	st.Violations = len(r.violations)
	return st
}

// progress returns the statistics so far for a progress report, on the
// coordinator's goroutine: the committed ones (the report's, which wait
// for the slowest walk before them), with what ran so far where it is
// ahead: the coordinator's paths, its round and depth bound (status), the
// states in its visited set, and the transitions the workers ran, walks
// run ahead of the coordinator included (some of which the search then
// throws away, so the report's count can end below the last progress).
func (r *runner) progress(status Status) Stats {
	r.mu.Lock()
	st := r.snapshotLocked()
	r.mu.Unlock()
	st.Paths = max(st.Paths, r.livePaths)
	st.Transitions = max(st.Transitions, r.liveTransitions.Load())
	if status.Rounds > st.Rounds {
		st.Rounds, st.Depth, st.DeepestComplete = status.Rounds, status.Depth, status.DeepestComplete
	}
	st.DistinctStates = max(st.DistinctStates, int64(r.seen.len()))
	return st
}

// commit records finished jobs in path order, so that which violation is
// reported, and every count, do not depend on how many workers ran or how
// fast.
func (r *runner) commit(j *job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done[j.index] = j
	for {
		next, ok := r.done[r.nextCommit]
		if !ok {
			return
		}
		delete(r.done, r.nextCommit)
		r.nextCommit++
		if r.stopAt >= 0 && next.index >= r.stopAt {
			continue
		}
		if next.stats.cut && next.result == nil {
			if r.timeUp.Load() && r.ctx.Err() == nil && r.stopReason != StopViolation {
				// The time budget ended its walk: whatever stopped
				// the search first, it did not run all its paths.
				r.stopReason = StopTime
				r.stats.TimeCut++
			}
			continue
		}
		r.add(next)
		if next.result != nil {
			r.violations = append(r.violations, *next.result)
			if len(r.violations) >= r.cfg.MaxViolations {
				r.stopAt = next.index + 1
				r.stopReason = StopViolation
				r.stopping.Store(true)
			}
		}
	}
}

// add counts a committed path; r.mu is held.
func (r *runner) add(j *job) {
	st, ps := &r.stats, &j.stats
	if ps.hasGraph {
		r.graphNow = ps.graph
		st.Graph = &r.graphNow
	}
	if j.noPath {
		return
	}
	st.Rounds, st.Depth, st.DeepestComplete = j.status.Rounds, j.status.Depth, j.status.DeepestComplete
	st.Paths++
	st.Transitions += ps.transitions
	st.DistinctStates += ps.newStates
	st.Unrecorded += ps.unrecorded
	if ps.pruned {
		st.Pruned++
	}
	if ps.blocked {
		st.Blocked++
	}
	if ps.checked {
		st.Checked++
		if _, seen := r.judged[ps.judged.Key]; !seen {
			if r.judged == nil {
				r.judged = map[uint64]CheckOutcome{}
			}
			r.judged[ps.judged.Key] = ps.judged.Outcome
			st.CheckedDistinct++
			switch ps.judged.Outcome {
			case CheckViolated:
				st.CheckedViolated++
			case CheckUnknown:
				st.CheckedUnknown++
			case CheckFailed:
				st.CheckedFailed++
			}
		}
	}
	if ps.cycle {
		st.Cycles++
	}
	if ps.walked {
		st.Walks++
	}
	if c, ok := j.observer.(Committer); ok {
		c.Commit()
	}
}

// flush commits what is left after an abandoned run (a hung handler
// released the workers early), in path order, skipping the gaps.
func (r *runner) flush() {
	r.mu.Lock()
	var idx []int64
	for i := range r.done {
		idx = append(idx, i)
	}
	r.mu.Unlock()
	slices.Sort(idx)
	for _, i := range idx {
		r.mu.Lock()
		j := r.done[i]
		r.nextCommit = i
		r.mu.Unlock()
		r.commit(j)
	}
}

// finished records the explorer's final status in the statistics once it
// has no more paths: every path it handed out is committed by the end of
// the run, so its rounds are the search's. Until then the statistics
// carry the status of the last committed path (add), not of the paths the
// coordinator ran ahead to, so that they do not depend on the workers.
func (r *runner) finished(s Status) {
	r.mu.Lock()
	r.final = &s
	r.mu.Unlock()
}

// coordinate asks the explorer for paths in order, executing each path's
// bounded part itself (to prune by state hash in a deterministic order),
// or checking in that order what the workers found running it ahead
// (speculation), and handing the walk to the workers.
func (r *runner) coordinate(jobs, results chan<- *job) error {
	c := &r.cfg
	s, err := engine.NewGuarded(c.System, engine.Options{}, c.HandlerTimeout)
	var hang *engine.HangError
	if errors.As(err, &hang) {
		// Start did not return: the first path's violation.
		close(jobs)
		close(r.quit)
		r.commit(&job{index: 0, result: &Violation{Verdict: Safety, Outcome: walks.Failed, Property: walks.HangPropertyOf(err), Choices: hang.Choices, Err: err}})
		return nil
	}
	if s == nil {
		close(jobs)
		return err
	}
	// A handler that panics at boot (err) is the first path's violation:
	// bounded reports it when it resets s for the path.
	r.coord = newPathRunner(r, s, globalSet{r.seen})
	r.coord.graph = true
	pr := r.coord
	var index int64
	lastProgress := time.Now()
	var deadline time.Time
	if c.Time > 0 {
		deadline = r.start.Add(c.Time)
		// The walks running when the budget ends stop there, as on
		// Ctrl-C (their paths are not counted): a walk of a system
		// whose steps are slow ran on for half a minute past --time,
		// and the coordinator, waiting to hand out the next path, did
		// not see the end of the budget until it finished.
		timer := time.AfterFunc(time.Until(deadline), func() { r.timeUp.Store(true) })
		defer timer.Stop()
	}
	// A state that takes long to encode still heeds the budget.
	s.SetInterrupt(func() bool { return r.ctx.Err() != nil || !deadline.IsZero() && time.Now().After(deadline) })
	stop := func(reason Stop) {
		r.mu.Lock()
		if r.stopReason == StopNone {
			r.stopReason = reason
		}
		if r.stopAt < 0 {
			r.stopAt = index
		}
		r.mu.Unlock()
		r.stopping.Store(true)
	}
	// send hands a job to the workers (with one worker, waits for it to be
	// done); false when the workers are gone.
	send := func(j *job) bool {
		select {
		case jobs <- j:
		case <-r.quit:
			return false
		}
		if r.handoff != nil {
			select {
			case <-r.handoff:
			case <-r.quit:
				return false
			}
		}
		return true
	}
	var status Status // the explorer's, for the current path
	round := 0
	// reached: a path of the current round ended at its depth bound, at
	// depth reachedDepth (what a claim of StopExhausted contradicts).
	reached, reachedDepth := false, 0
	// graph searches the explored graph for a fair cycle when it is due
	// and hands the violation, if any, to the workers as the next path's
	// result; false when the search is to stop (the workers are gone).
	var graphFound int64 // the graph's lassos among the indices
	graph := func(roundEnded bool) bool {
		if !r.graph.due(roundEnded, index) {
			return true
		}
		v := r.checkGraph(index)
		if v == nil {
			return true
		}
		j := &job{index: index, result: v, noPath: true}
		j.stats.graph, j.stats.hasGraph = r.graphStatsNow()
		index++
		graphFound++ // an index, not a path: MaxPaths counts paths
		return send(j)
	}
	err = s.Guard(c.HandlerTimeout, func() error {
		defer close(jobs)
		// err is the closure's own: when the watchdog abandons a hung
		// handler, this goroutine lives on while Guard returns.
		var err error
		// end points at last, how the previous path ended (one variable,
		// not one allocation a path).
		var end *End
		var last End
		for {
			if r.stopping.Load() {
				return nil
			}
			if r.ctx.Err() != nil {
				stop(StopInterrupted)
				return nil
			}
			if c.MaxPaths > 0 && index-graphFound >= c.MaxPaths {
				if graph(true) {
					stop(StopPaths)
				}
				return nil
			}
			if !deadline.IsZero() && time.Now().After(deadline) {
				if graph(true) {
					stop(StopTime)
				}
				return nil
			}
			p, ok := r.ex.Next(end)
			if ok && p.Prune && !c.NoHashing {
				r.hashing.Store(true)
			}
			status = r.ex.Status()
			if !graph(!ok || round != 0 && p.Round != round) {
				return nil
			}
			if !ok {
				switch {
				case status.Done == StopNone:
					return &StrategyStopError{Strategy: c.Strategy.Name(), Done: status.Done}
				case status.Done == StopExhausted && reached:
					return &StrategyStopError{Strategy: c.Strategy.Name(), Done: status.Done, Round: round, Depth: reachedDepth}
				}
				r.finished(status)
				stop(status.Done)
				return nil
			}
			if p.Round != round {
				reached = false
			}
			round = p.Round
			if c.Progress != nil && time.Since(lastProgress) >= c.ProgressEvery {
				lastProgress = time.Now()
				c.Progress(r.progress(status))
			}
			var j *job
			var e End
			handled, walkOnly := false, false
			if r.spec.follows(&p, r.ex) {
				var f followed
				f, err = r.spec.follow(&p, index)
				if err != nil {
					return err
				}
				if f.job != nil {
					j, e, handled, walkOnly = f.job, f.end, !f.walk, f.walk
					r.spec.hits++
				} else {
					r.spec.misses++
					j, e, err = pr.boundedAfter(&p, index, f.pre, f.carry)
				}
			} else {
				pr.same = 0
				if _, dfs := r.ex.(Forker); dfs && p.Prune {
					pr.same = pr.turn
				}
				j, e, err = pr.bounded(&p, index)
				pr.same = 0
			}
			if j != nil {
				j.status = status
				j.stats.graph, j.stats.hasGraph = r.graphStatsNow()
			}
			if s.Abandoned() {
				// The watchdog gave up on a handler of this path and
				// reports it at index: touch nothing more.
				return nil
			}
			var ee *engine.EncodingError
			if errors.As(err, &ee) && ee.Interrupted {
				// The budget ran out inside one long state encoding.
				if r.ctx.Err() != nil {
					stop(StopInterrupted)
				} else {
					stop(StopTime)
				}
				return nil
			}
			if err != nil {
				return err
			}
			last = e
			end = &last
			if e.Reason == EndDepth {
				reached, reachedDepth = true, p.Depth
			}
			if c.pathHook != nil {
				if handled || walkOnly {
					c.pathHook(slices.Concat(c.Prefix, r.spec.lastChoices))
				} else {
					c.pathHook(s.ChoiceValues())
				}
			}
			r.livePaths++
			index++
			if j.walk && !handled && !walkOnly {
				// Hand the execution over: the worker walks on from it
				// instead of replaying it, and the coordinator resets
				// what it gets back for the next path.
				o, err := r.takeSim()
				if err != nil {
					return err
				}
				s.SwapState(o)
				j.sim = o
			}
			if handled {
				// Walked already, by the worker that ran it.
				results <- j
				continue
			}
			if !send(j) {
				return nil
			}
		}
	})
	if errors.As(err, &hang) {
		r.hung = true
		close(r.quit)
		// The hung path is the violation; report it in order.
		v := &Violation{Verdict: Safety, Outcome: walks.Failed, Property: walks.HangPropertyOf(err), Choices: hang.Choices, Steps: hang.Step, Path: index, Err: err}
		r.commit(&job{index: index, result: v, status: status, stats: pathStats{transitions: int64(hang.Step)}})
		return nil
	}
	return err
}

// pathChooser answers a path's choice points: the search's prefix first,
// then choices already taken from the path's scheduler (pre), then the
// scheduler.
type pathChooser struct {
	base  []int32
	bpos  int
	pre   []int32
	ppos  int
	sched engine.Chooser
}

// fixed returns the next choice of the prefix or of pre, if any is left.
func (c *pathChooser) fixed() (int, bool) {
	if c.bpos < len(c.base) {
		v := c.base[c.bpos]
		c.bpos++
		return int(v), true
	}
	if c.ppos < len(c.pre) {
		v := c.pre[c.ppos]
		c.ppos++
		return int(v), true
	}
	return 0, false
}

func (c *pathChooser) Choose(kind engine.ChoiceKind, n int, w []float64) int {
	if v, ok := c.fixed(); ok {
		return v
	}
	return c.sched.Choose(kind, n, w)
}

// eventPathChooser is a pathChooser whose scheduler sees the ready events.
type eventPathChooser struct {
	*pathChooser
	events engine.EventChooser
}

func (c *eventPathChooser) ChooseEvent(ready []engine.Event, w []float64) int {
	if v, ok := c.fixed(); ok {
		return v
	}
	return c.events.ChooseEvent(ready, w)
}

// pruneSet decides where a path is cut short by state hashing.
type pruneSet interface {
	// visit reports whether state h, reached at cost in round, was reached
	// before in that round at no higher cost (the path is pruned there);
	// otherwise it records the state.
	visit(h uint64, round int, cost uint64) (bool, putResult)
}

// globalSet is the search's visited-state set: the one that decides.
type globalSet struct{ v *visited }

func (g globalSet) visit(h uint64, round int, cost uint64) (bool, putResult) {
	if seen, ok := g.v.get(h); ok && seen>>32 == uint64(round) && seen&0xffffffff <= cost {
		return true, 0
	}
	return false, g.v.put(h, uint64(round)<<32|cost)
}

// pathRunner executes bounded parts one after another on one simulator:
// the coordinator's, in the search's order, or a speculating worker's, in
// the order of a subtree.
type pathRunner struct {
	r    *runner
	s    *engine.Sim
	pc   pathChooser
	seen pruneSet
	// graph says to record the explored state graph (the coordinator).
	graph bool
	// rec, when set, records the hashes (and graph steps) of every state
	// of the path for the coordinator (a speculating worker).
	rec *recorder
	// floor: states this many steps after the prefix or fewer are not
	// pruned (a speculative subtree's prefix, which the coordinator
	// decides). cut, when positive, ends every path at this many steps
	// after the prefix as if it were its depth bound (the generator of
	// speculation's tasks).
	floor, cut int
	// same, when positive, is the caller's guess that the path replays
	// the previous path's first same steps after the prefix (where a
	// depth-first order turns: turn, which keepChoices sets for the path
	// it keeps). Performance: the part hashes of those states are not
	// restored (memo), only those of state same on: restoring a state's
	// hashes replaces all of them, so only the last state before the
	// first new one needs it. A guess too high only leaves the new
	// states' hashes to be computed from scratch (hashes are restored at
	// replayed states only).
	same, turn int
	// onPath holds the hashes of the states of the previous path; states
	// is the number of states after the prefix that path checked (and,
	// with hashing, whose hashes onPath holds); memos[k] holds the part
	// hashes of its state k after the prefix (0: the prefix's end), valid
	// for k <= memoOK, to restore when a later path replays it.
	onPath []uint64
	states int
	// bootChose says that the current path's nodes chose at boot, so its
	// initial state is its own (memos[0] is not restored onto it).
	bootChose bool
	memos     []engine.HashMemo
	memoOK    int
	// prev holds the previous path's choices after the prefix: a new path
	// reaches the same states as long as it makes the same choices (in
	// the same round: a new round records its states anew). prevRound is
	// that path's round.
	prev      []int32
	prevRound int
}

func newPathRunner(r *runner, s *engine.Sim, seen pruneSet) *pathRunner {
	return &pathRunner{r: r, s: s, seen: seen, pc: pathChooser{base: r.cfg.Prefix}}
}

// bounded executes path p's bounded part: up to p.Depth steps beyond the
// prefix. It returns the job for the path (with the verdict already set
// if the bounded part alone decided it) and how the bounded part ended.
func (pr *pathRunner) bounded(p *Path, index int64) (*job, End, error) {
	return pr.boundedAfter(p, index, nil, pathStats{})
}

// boundedAfter is bounded for a path whose first choices after the prefix
// (pre) were taken from its scheduler already, while the coordinator
// checked the states they lead to against a speculative record: those are
// the previous path's states now (prev, states and onPath say so), and
// carry holds what checking them added to the statistics.
func (pr *pathRunner) boundedAfter(p *Path, index int64, pre []int32, carry pathStats) (*job, End, error) {
	r, s := pr.r, pr.s
	c := &r.cfg
	pc := &pr.pc
	pc.bpos, pc.ppos, pc.pre, pc.sched = 0, 0, pre, p.Scheduler
	var ch engine.Chooser = pc
	if ec, ok := p.Scheduler.(engine.EventChooser); ok {
		ch = &eventPathChooser{pathChooser: pc, events: ec}
	}
	coster, _ := p.Scheduler.(Coster)
	watcher, _ := p.Scheduler.(Watcher)
	s.SetFailuresUntil(r.failuresUntil(p.Depth))
	j := &job{index: index, depth: p.Depth}
	j.stats.newStates, j.stats.unrecorded = carry.newStates, carry.unrecorded
	if pr.rec != nil {
		pr.rec.reset()
	}
	violation := func(verdict Verdict, out walks.Outcome, prop string, err error) (*job, End, error) {
		j.result = &Violation{Verdict: verdict, Outcome: out, Property: prop, Choices: s.ChoiceValues(), Steps: s.Steps(),
			Path: index, Depth: p.Depth, LiveAfter: r.liveAfter(p.Depth), FailuresUntil: r.failuresUntil(p.Depth), Err: err}
		pr.keepChoices()
		return j, End{Steps: s.Steps() - c.PrefixSteps, Reason: EndViolation}, nil
	}
	if err := s.Reset(ch); err != nil {
		return violation(Safety, walks.Failed, walks.PanicProperty, err)
	}
	// The initial state is the same for every path unless the nodes'
	// Start chose (Rand, Elapsed): then each path starts from the state
	// its choices made, hashed and checked as its own.
	pr.bootChose = c.PrefixSteps == 0 && len(s.Choices()) > 0
	if len(pr.onPath) == 0 || pr.bootChose {
		h := s.Hash()
		if err := s.HashErr(); err != nil && !c.NoHashing {
			return nil, End{}, fmt.Errorf("initial state: %w", err)
		}
		if len(pr.onPath) == 0 {
			pr.onPath = append(pr.onPath, h)
		} else {
			pr.onPath[0] = h
		}
		if c.PrefixSteps == 0 {
			// Safety holds in every state, the initial one too.
			if i, err := s.FirstViolated(c.System.Safety); err != nil || i >= 0 {
				if err != nil {
					return violation(Safety, walks.Failed, c.System.Safety[i].Name, err)
				}
				return violation(Safety, walks.Unsafe, c.System.Safety[i].Name, nil)
			}
		}
	}
	// Performance: the states this path reaches while it makes the same
	// choices as the previous path are that path's states (replay is
	// deterministic), which it checked and hashed (onPath holds their
	// hashes) before going on past them. They are replayed, not checked or
	// hashed again: only the new states are, and their parts (nodes,
	// messages) that the replay did not change are not encoded again
	// either: the part hashes saved on the path that first reached each
	// state are restored (engine.HashMemo). prev is how many such states
	// the previous path has; k counts this path's.
	prev, k := pr.states, 0
	pr.states = 0
	if p.Round != pr.prevRound {
		// The states of the previous path were recorded in its round:
		// this round must check and record them again.
		pr.prev, pr.prevRound, pr.memoOK = pr.prev[:0], p.Round, 0
	}
	if c.PrefixSteps == 0 {
		pr.memo(0, true)
		if pr.graph {
			r.recordRoot(s)
		}
	}
	limit := c.PrefixSteps + p.Depth
	if pr.cut > 0 {
		limit = c.PrefixSteps + min(p.Depth, pr.cut)
	}
	fresh, same := false, 0 // same: the choices after the prefix compared with pr.prev so far
	for s.Steps() < limit {
		ok, err := s.Step()
		if err != nil {
			if errors.Is(err, engine.ErrBadChoice) && s.Steps() < c.PrefixSteps {
				return nil, End{}, fmt.Errorf("%w: %w", ErrPrefix, err)
			}
			return violation(Safety, walks.Failed, walks.PanicProperty, err)
		}
		if !ok {
			// Quiescent within the bound: nothing can ever happen again,
			// so a state that is not live now is dead.
			if len(c.System.Liveness) > 0 {
				if i, err := s.FirstViolated(c.System.Liveness); err != nil || i >= 0 {
					if err != nil {
						return violation(Safety, walks.Failed, c.System.Liveness[i].Name, err)
					}
					return violation(Liveness, walks.Quiescent, c.System.Liveness[i].Name, nil)
				}
			}
			pr.keepChoices()
			if c.Check != nil {
				if v := r.check(s, j, p.Depth); v != nil {
					j.result = v
					return j, End{Steps: s.Steps() - c.PrefixSteps, Reason: EndViolation}, nil
				}
			}
			return j, End{Steps: s.Steps() - c.PrefixSteps, Reason: EndQuiescent}, nil
		}
		j.stats.transitions++
		if s.Steps() <= c.PrefixSteps {
			if s.Steps() == c.PrefixSteps {
				pr.memo(0, true)
				if pr.graph {
					r.recordRoot(s)
				}
			}
			continue
		}
		stop := watcher != nil && !watcher.Watch(s)
		if !fresh {
			cs := s.Choices()[len(c.Prefix):]
			for ; same < len(cs); same++ {
				if same >= len(pr.prev) || cs[same].Value != pr.prev[same] {
					fresh = true
					break
				}
			}
		}
		k++
		if !fresh && k <= prev {
			if k <= pr.memoOK && k >= pr.same {
				pr.memo(k, false)
			}
			pr.states = k
			if pr.rec != nil {
				var h uint64
				if !c.NoHashing {
					h = pr.onPath[k]
				}
				pr.rec.state(s, k, h, true)
			}
			if stop {
				return pr.blocked(j)
			}
			continue
		}
		if i, err := s.FirstViolated(c.System.Safety); err != nil || i >= 0 {
			if err != nil {
				return violation(Safety, walks.Failed, c.System.Safety[i].Name, err)
			}
			return violation(Safety, walks.Unsafe, c.System.Safety[i].Name, nil)
		}
		if !c.NoHashing {
			h := s.Hash()
			if err := s.HashErr(); err != nil {
				return nil, End{}, fmt.Errorf("state after step %d: %w", s.Steps(), err)
			}
			if pr.rec != nil {
				pr.rec.state(s, k, h, false)
			}
			if pr.graph && r.graph != nil {
				r.record(s, k, h)
			}
			if slices.Contains(pr.onPath[:k], h) {
				// A cycle back to a state of this very path: going deeper
				// adds nothing to the bounded part, but if every way on
				// from here cycles no path would ever reach its bound and
				// walk, and a dead state that only loops would go unseen.
				// End the bounded part here and walk from it.
				j.stats.cycle = true
				pr.states = k - 1
				j.ownCycle = p.Prune || ReducesOrders(c.Strategy)
				return pr.walkFrom(j, p, EndCycle)
			}
			if p.Prune && k > pr.floor {
				cost := uint64(s.Steps() - c.PrefixSteps)
				if coster != nil {
					cost = uint64(coster.Cost())
				}
				pruned, res := pr.seen.visit(h, p.Round, cost)
				if pruned {
					j.stats.pruned = true
					pr.states = k - 1
					pr.keepChoices()
					return j, End{Steps: s.Steps() - c.PrefixSteps, Reason: EndPruned}, nil
				}
				switch res {
				case putNew:
					j.stats.newStates++
				case putUnrecorded:
					j.stats.unrecorded++
				}
			}
			pr.onPath = append(pr.onPath[:k], h)
			pr.memo(k, true)
		} else if pr.rec != nil {
			pr.rec.state(s, k, 0, false)
		}
		pr.states = k
		if stop {
			return pr.blocked(j)
		}
	}
	return pr.walkFrom(j, p, EndDepth)
}

// blocked ends a bounded part its scheduler ended (Watcher).
func (pr *pathRunner) blocked(j *job) (*job, End, error) {
	j.stats.blocked = true
	pr.keepChoices()
	return j, End{Steps: pr.s.Steps() - pr.r.cfg.PrefixSteps, Reason: EndBlocked}, nil
}

// check runs the path check on the execution's final state and records
// its verdict in j's statistics; it returns the violation, if any.
func (r *runner) check(s *engine.Sim, j *job, depth int) *Violation {
	jd := r.cfg.Check.Check(s)
	j.stats.checked, j.stats.judged = true, jd
	if jd.Outcome != CheckViolated && jd.Outcome != CheckFailed {
		return nil
	}
	return &Violation{Verdict: Safety, Outcome: walks.Unsafe, Property: jd.Property, Observed: jd.Detail, Checked: true,
		Choices: s.ChoiceValues(), Steps: s.Steps(), Path: j.index, Depth: depth, LiveAfter: r.liveAfter(depth), FailuresUntil: r.failuresUntil(depth)}
}

// walkFrom ends a bounded part whose path goes on with a random walk.
func (pr *pathRunner) walkFrom(j *job, p *Path, reason EndReason) (*job, End, error) {
	s, c := pr.s, &pr.r.cfg
	pr.keepChoices()
	j.choices, j.steps, j.walk = s.ChoiceValues(), s.Steps(), true
	j.seed = pathSeed(c.Seed, j.index, p, pr.prev)
	return j, End{Steps: s.Steps() - c.PrefixSteps, Reason: reason}, nil
}

// pathSeed returns the seed of a path's walk. The paths of a strategy that
// prunes (a tree of distinct choice sequences in each round) walk with a
// seed of their round and choices after the prefix, so that a walk does not
// depend on where its path falls in the order (the speculating workers do
// not know that); the others, whose paths may repeat (random schedules),
// with a seed of their index: walks.SeedFor(seed, index).
func pathSeed(seed uint64, index int64, p *Path, choices []int32) uint64 {
	if !p.Prune {
		return walks.SeedFor(seed, uint64(index))
	}
	// FNV-1a over the round and the choices, 32 bits at a time.
	h := uint64(14695981039346656037)
	mix := func(x uint32) {
		for range 4 {
			h ^= uint64(x & 0xff)
			h *= 1099511628211
			x >>= 8
		}
	}
	mix(uint32(p.Round))
	for _, v := range choices {
		mix(uint32(v))
	}
	return walks.SeedFor(seed, h)
}

// keepChoices remembers the path's choices after the prefix, for the next
// path to compare its own with.
func (pr *pathRunner) keepChoices() {
	s, c := pr.s, &pr.r.cfg
	all := s.Choices()
	base := min(len(c.Prefix), len(all))
	cs := all[base:]
	pr.prev = pr.prev[:0]
	for _, ch := range cs {
		pr.prev = append(pr.prev, ch.Value)
	}
	pr.turn = turn(cs, 0, s.Steps()-c.PrefixSteps, func(k int) int { return s.StepStart(c.PrefixSteps+k) - base })
}

// turn returns how many steps of a path the next path of a depth-first
// order replays (search/dfs: the next path turns at the last choice after
// the first floor that has an option left, and keeps the choices before
// it): choices are the path's after the search's prefix, and its step k+1
// began at choice start(k) (k < steps). It is 0 when the order has no next
// path that keeps the first floor choices.
func turn(choices []engine.Choice, floor, steps int, start func(k int) int) int {
	i := len(choices) - 1
	for i >= floor && choices[i].Value+1 >= choices[i].N {
		i--
	}
	if i < floor {
		return 0
	}
	// The step that makes choice i is where the next path turns: it
	// replays the steps before it.
	k := steps - 1
	for k > 0 && start(k) > i {
		k--
	}
	return max(k, 0)
}

// memo restores the part hashes of state k of the path (0: the end of the
// prefix) if a path saved them, or saves them when save is set. A restore
// that does not fit leaves the hashes to be computed (Sim.RestoreHashes).
func (pr *pathRunner) memo(k int, save bool) {
	if pr.r.cfg.NoHashing {
		return
	}
	for len(pr.memos) <= k {
		pr.memos = append(pr.memos, engine.HashMemo{})
	}
	s := pr.s
	if save {
		if k > 0 || pr.bootChose || !s.RestoreHashes(&pr.memos[0]) {
			s.SaveHashes(&pr.memos[k])
		}
		if k > 0 && pr.memoOK >= k-1 {
			// memos[1..k] are this path's now (those past k belong to a
			// path it left).
			pr.memoOK = k
		}
		return
	}
	s.RestoreHashes(&pr.memos[k])
}

// takeSim returns a simulator of the system from the pool, or a new one.
func (r *runner) takeSim() (*engine.Sim, error) {
	select {
	case s := <-r.pool:
		return s, nil
	default:
		s, err := engine.NewGuarded(r.cfg.System, engine.Options{}, r.cfg.HandlerTimeout)
		if s == nil || errors.Is(err, engine.ErrHang) {
			return nil, err
		}
		return s, nil // a boot that panicked fails again when it is reset
	}
}

// putSim returns a simulator to the pool, if it has room.
func (r *runner) putSim(s *engine.Sim) {
	select {
	case r.pool <- s:
	default:
	}
}

// worker runs each job's random walk, on the execution the job carries
// (job.sim) or, without one, after replaying the job's bounded path.
// Performance: one watchdog (engine.Sim.Guard) watches the worker's
// simulator for as long as no handler hangs, rather than one per job (a
// goroutine and a ticker each); the job's execution is swapped into that
// simulator.
func (r *runner) worker(jobs <-chan *job, results chan<- *job) {
	c := &r.cfg
	rnd := engine.NewRandom(0)
	rnd.Unbiased = c.Unbiased
	for {
		s, err := engine.NewGuarded(c.System, engine.Options{Chooser: rnd}, c.HandlerTimeout)
		if s == nil || errors.Is(err, engine.ErrHang) {
			// A Start that hangs is the coordinator's to report.
			r.drain(jobs, results, err)
			return
		}
		// A boot that panicked (err) fails again where a walk resets s.
		var cur atomic.Pointer[job]      // the job being walked, for a hang report
		var curTask atomic.Pointer[task] // the task being explored
		var sw *specWorker
		var tasks <-chan *task
		if r.spec != nil {
			sw, tasks = r.spec.newWorker(s, rnd), r.spec.queue
		}
		err = s.Guard(c.HandlerTimeout, func() error {
			for !s.Abandoned() {
				var j *job
				// Walks first: the commits wait for them.
				select {
				case j2, ok := <-jobs:
					if !ok {
						return nil
					}
					j = j2
				default:
					select {
					case j2, ok := <-jobs:
						if !ok {
							return nil
						}
						j = j2
					case t := <-tasks:
						curTask.Store(t)
						if !r.spec.run(sw, t) {
							return nil
						}
						curTask.Store(nil)
						continue
					case <-r.quit:
						return nil
					}
				}
				if j.result == nil && j.walk && r.ctx.Err() != nil {
					// Interrupted: the walk is not run, nor counted.
					j.stats.cut = true
				}
				if j.result != nil || !j.walk || j.stats.cut || r.stopping.Load() && r.beyondStop(j.index) {
					if j.sim != nil {
						r.putSim(j.sim)
						j.sim = nil
					}
					r.done1(results, j)
					continue
				}
				cur.Store(j)
				if !r.walk(s, rnd, j) {
					// The watchdog gave up on this walk's handler while it
					// ran and reports the job; this goroutine is done.
					return nil
				}
				cur.Store(nil)
				r.done1(results, j)
			}
			return nil
		})
		if err == nil {
			return
		}
		if t := curTask.Load(); t != nil {
			// A handler hung in a speculative path: speculate no more, and
			// leave the path to the coordinator, which meets the hang in
			// the order and reports it.
			r.spec.off.Store(true)
			t.finish()
			continue
		}
		// A handler hung: s is abandoned to it (the goroutine stuck in it
		// stops at its next Context call, without touching the job); report
		// the job as a new one and go on with a new simulator.
		j := cur.Load()
		var hang *engine.HangError
		if j == nil || !errors.As(err, &hang) {
			panic(fmt.Sprintf("explore: worker guard: %v", err)) // Guard only fails on a hang
		}
		v := &Violation{Verdict: Safety, Outcome: walks.Failed, Property: walks.HangPropertyOf(err), Choices: hang.Choices, Steps: hang.Step,
			Path: j.index, Depth: j.depth, LiveAfter: r.liveAfter(j.depth), FailuresUntil: r.failuresUntil(j.depth), Err: err}
		st := j.stats
		st.walked = true
		st.transitions += int64(hang.Step - j.steps)
		r.done1(results, &job{index: j.index, choices: j.choices, steps: j.steps, depth: j.depth, result: v, stats: st, status: j.status})
	}
}

// done1 hands a finished job to the commits and, with one worker, tells
// the coordinator it may go on.
func (r *runner) done1(results chan<- *job, j *job) {
	results <- j
	if r.handoff != nil {
		select {
		case r.handoff <- struct{}{}:
		case <-r.quit:
		}
	}
}

// drain fails every job that needs a walk when the worker cannot build a
// simulator (the system does not boot).
func (r *runner) drain(jobs <-chan *job, results chan<- *job, err error) {
	for {
		select {
		case j, ok := <-jobs:
			if !ok {
				return
			}
			if j.result == nil && j.walk {
				j.result = r.failed(j, nil, err)
			}
			results <- j
		case <-r.quit:
			return
		}
	}
}

// walk runs job j's random walk on s, seeded by j.seed, and sets
// j.result when it ends in a violation. It returns false, leaving j alone,
// when the watchdog abandoned s meanwhile (the worker reports the job).
func (r *runner) walk(s *engine.Sim, rnd *engine.Random, j *job) bool {
	c := &r.cfg
	rnd.Reseed(j.seed)
	if j.here {
		// s holds the path's execution: the walk goes on from it.
		j.here = false
		s.SetChooser(rnd)
	} else if j.sim != nil {
		// The coordinator's execution of the bounded path, handed over:
		// the walk's choices follow the path's, as with a replay.
		s.SwapState(j.sim)
		r.putSim(j.sim)
		j.sim = nil
		s.SetChooser(rnd)
	} else {
		// Replay the path as it ran: with failures on up to its depth
		// (which events are ready, and so what each choice means, depends
		// on it).
		s.SetFailuresUntil(r.failuresUntil(j.depth))
		if err := s.Reset(&engine.Prefix{Seq: j.choices, Then: rnd}); err != nil {
			if s.Abandoned() {
				return false
			}
			j.stats.walked = true
			j.result = r.failed(j, s, err)
			return true
		}
		for s.Steps() < j.steps {
			if _, err := s.Step(); err != nil {
				if s.Abandoned() {
					return false
				}
				j.stats.walked = true
				j.result = r.failed(j, s, err)
				return true
			}
		}
	}
	s.SetFailuresUntil(r.walkFailuresUntil(j))
	wc := &walks.Config{MaxSteps: c.WalkDepth, LiveAfter: r.liveAfter(j.depth), Safety: c.System.Safety, Liveness: c.System.Liveness}
	obs := &walkObserver{r: r, index: j.index, done: r.ctx.Done()}
	if c.Observe != nil {
		obs.inner = c.Observe()
		j.observer = obs.inner
	}
	wc.Observe = obs
	res := walks.Walk(s, wc)
	if s.Abandoned() {
		return false
	}
	j.stats.cut = obs.interrupted
	j.stats.walked = true
	j.stats.transitions += int64(res.Steps - j.steps)
	r.liveTransitions.Add(int64(res.Steps - j.steps))
	if res.Outcome.Violation() {
		verdict := Liveness
		if res.Outcome == walks.Unsafe || res.Outcome == walks.Failed {
			verdict = Safety
		}
		j.result = &Violation{Verdict: verdict, Outcome: res.Outcome, Property: res.Property, Observed: res.Observed, Choices: s.ChoiceValues(), Steps: s.Steps(),
			Path: j.index, Depth: j.depth, LiveAfter: r.liveAfter(j.depth), FailuresUntil: r.walkFailuresUntil(j), Err: res.Err}
	} else if c.Check != nil && res.Outcome != walks.Stopped {
		j.result = r.check(s, j, j.depth)
	}
	return true
}

// walkObserver is the observer of one walk: it ends the walk early, with
// no verdict, once the search is stopping before the walk's path or is
// interrupted (then the path is not counted), and otherwise defers to the
// caller's observer.
type walkObserver struct {
	r           *runner
	index       int64
	inner       walks.Observer
	done        <-chan struct{} // r.ctx.Done()
	cut         bool
	interrupted bool
}

// Observe looks at the run's context and time budget after every step, so
// that a walk whose handlers take seconds stops at the next one when the
// run is interrupted or its budget ends. Performance: a receive that does
// not block, on a channel that is not closed, takes no lock, nor does an
// atomic load.
func (o *walkObserver) Observe(s *engine.Sim) bool {
	select {
	case <-o.done:
		o.cut, o.interrupted = true, true
		return false
	default:
	}
	if o.r.timeUp.Load() {
		// The time budget ended: the walk is not whole, as on Ctrl-C.
		o.cut, o.interrupted = true, true
		return false
	}
	if s.Steps()&1023 == 0 && o.r.stopping.Load() && o.r.beyondStop(o.index) {
		o.cut = true
		return false
	}
	return o.inner == nil || o.inner.Observe(s)
}

func (o *walkObserver) Verdict() (string, any) {
	if o.cut || o.inner == nil {
		return "", nil
	}
	return o.inner.Verdict()
}

// beyondStop reports whether path index is past where the search stops;
// a speculative walk (index -1) is, once the search stops at all.
func (r *runner) beyondStop(index int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopAt >= 0 && (index < 0 || index >= r.stopAt)
}

func (r *runner) failed(j *job, s *engine.Sim, err error) *Violation {
	v := &Violation{Verdict: Safety, Outcome: walks.Failed, Property: walks.PanicProperty, Choices: j.choices, Steps: j.steps,
		Path: j.index, Depth: j.depth, LiveAfter: r.liveAfter(j.depth), FailuresUntil: r.walkFailuresUntil(j), Err: err}
	if s != nil {
		v.Choices, v.Steps = s.ChoiceValues(), s.Steps()
	}
	return v
}

package search

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

// Sentinel errors of the search.
var (
	// ErrConfig marks a configuration the search cannot run.
	ErrConfig = errors.New("search: bad config")
	// ErrPrefix marks a prefix that does not replay on the system.
	ErrPrefix = errors.New("search: prefix does not replay")
)

// Defaults of the original MaceMC (see the design note).
const (
	DefaultDepthStep = 5
	DefaultWalkDepth = 20000
)

// Config describes one search.
type Config struct {
	// System is the configuration to search; its Safety and Liveness
	// properties (already narrowed by the caller, if wanted) are checked.
	System *sim.Config
	// DepthStep is the iterative-deepening increment (default 5): the
	// first round searches all executions of DepthStep steps, the next
	// 2*DepthStep, and so on.
	DepthStep int
	// MaxDepth caps the bounded search (0: deepen until a budget ends or
	// the state space is exhausted).
	MaxDepth int
	// WalkDepth is d_max, the length of every execution's random walk
	// tail (default 20,000).
	WalkDepth int
	// Seed seeds every walk: walk i uses walks.SeedFor(Seed, i).
	Seed uint64
	// Workers run walks in parallel (default: all cores). The verdict
	// does not depend on it.
	Workers int
	// MaxPaths stops after this many bounded paths (0: no limit).
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
	// happen only within the bounded search and walks run without them,
	// weights on ("gusto", as in the original).
	WalkFailures bool
	// Prefix, when set, is a recorded execution of PrefixSteps steps
	// (e.g. a live steady state, seed 003 §4.2 point 4): the search starts
	// from its end.
	Prefix      []int32
	PrefixSteps int
	// HandlerTimeout is the watchdog's limit for one handler (default 5s).
	HandlerTimeout time.Duration
	// Context cancels the search (Ctrl-C); the result still reports what
	// was covered.
	Context context.Context
	// Progress, when set, is called about every ProgressEvery with the
	// statistics so far, from the search's coordinating goroutine.
	Progress      func(Stats)
	ProgressEvery time.Duration
	// Observe, when set, builds a per-walk observer (see walks.Config and
	// walks.Observer); lasso detection hooks in here. It is called once
	// per walk, from the worker that runs it. A walk the observer ends
	// with a verdict is a violation (outcome walks.Observed), committed in
	// path order like any other.
	Observe func() walks.Observer

	pathHook func(choices []int32) // tests: called with each bounded path
}

func (c *Config) validate() error {
	if c.System == nil {
		return fmt.Errorf("%w: no system", ErrConfig)
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
		c.Workers = runtime.NumCPU()
	}
	if c.MaxViolations <= 0 {
		c.MaxViolations = 1
	}
	if c.Context == nil {
		c.Context = context.Background()
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
	return [...]string{"none", "safety", "liveness"}[v]
}

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
	// lasso detection a *lasso.Finding); nil otherwise.
	Observed any
	// Choices replay the execution; Steps is its length.
	Choices []int32
	Steps   int
	// Path is the index of the bounded path in search order; Depth the
	// depth bound of its round, beyond which liveness counted (LiveAfter
	// = PrefixSteps + Depth).
	Path      int64
	Depth     int
	LiveAfter int
	// FailuresUntil is the step from which failures were off (replay
	// needs it); 0 when they were on throughout.
	FailuresUntil int
	// Err is the handler panic or hang behind a Failed outcome.
	Err error
}

// Stats say what a search covered.
type Stats struct {
	// Rounds started, and the deepest depth whose round completed.
	Rounds          int
	DeepestComplete int
	Depth           int
	// Paths executed (bounded sequences), of which Pruned were cut short
	// by reaching a state already seen on an earlier path, Cycles ended
	// their bounded part early by returning to a state of their own (and
	// walked from there), and Walks that ran a random walk.
	Paths  int64
	Pruned int64
	Cycles int64
	Walks  int64
	// Transitions executed in all (prefixes and walks).
	Transitions int64
	// DistinctStates is the number of distinct state hashes recorded in
	// the visited-state set; Unrecorded counts the new states the full set
	// could not record (see Config.MaxStates), and VisitedBytes is the
	// set's memory.
	DistinctStates int
	Unrecorded     int64
	VisitedBytes   int
	Elapsed        time.Duration
	Violations     int
	// Stop says why the search ended: "violation", "paths", "time",
	// "interrupted", "depth" (MaxDepth searched), "exhausted" (no path
	// reached the depth bound: there is nothing deeper to search).
	Stop string
}

// Result is a search's verdict with its evidence and coverage.
type Result struct {
	Verdict    Verdict
	Violations []Violation
	Stats      Stats
}

// job is one bounded path whose random walk a worker runs.
type job struct {
	index     int64
	choices   []int32
	steps     int
	depth     int
	result    *Violation // set when the coordinator already decided
	walkSteps int
	// sim, when set, holds the execution at the end of the bounded path
	// (the coordinator's, handed over with sim.SwapState): the worker
	// walks on from it instead of replaying the path.
	sim *engine.Sim
}

// Run searches cfg.System: iterative bounded depth-first search over the
// choice sequences (Algorithm 1), each bounded path continued by a random
// walk of up to d_max steps (Algorithm 2). Safety is checked after every
// step, liveness only beyond the depth bound.
func Run(cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, start: time.Now(), seen: newVisited(cfg.MaxStates)}
	return r.run()
}

type runner struct {
	cfg   Config
	start time.Time

	seen   *visited // state hash -> round<<32 | depth first seen at
	onPath []uint64 // hashes of the states of the current path
	// states is the number of states after the prefix the last path
	// checked (and, with hashing, whose hashes onPath holds); memos[k]
	// holds the part hashes of the path's state k after the prefix (0:
	// the prefix's end), to restore when a later path replays it.
	states int
	memos  []engine.HashMemo

	paths, pruned, cycles, walksRun, transitions atomic.Int64
	stopping                                     atomic.Bool

	// pool holds simulators to carry executions from the coordinator to
	// the workers (job.sim).
	pool chan *engine.Sim

	mu         sync.Mutex
	done       map[int64]*job // finished jobs waiting to be committed
	nextCommit int64
	violations []Violation
	stopReason string
	stopAt     int64 // first path index not committed when stopping (-1: none)
	stats      Stats
	quit       chan struct{}
}

func (r *runner) liveAfter(depth int) int { return r.cfg.PrefixSteps + depth }

func (r *runner) failuresUntil(depth int) int {
	if r.cfg.WalkFailures {
		return 0
	}
	return r.cfg.PrefixSteps + depth
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
	err := r.coordinate(jobs)
	wg.Wait()
	close(results)
	<-committed
	r.flush()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &Result{Violations: r.violations, Stats: r.snapshotLocked()}
	if r.stopReason == "" {
		r.stopReason = r.stats.Stop
	}
	res.Stats.Stop = r.stopReason
	if len(res.Violations) > 0 {
		res.Verdict = res.Violations[0].Verdict
	}
	return res, nil
}

func (r *runner) snapshotLocked() Stats {
	st := r.stats
	st.Paths = r.paths.Load()
	st.Pruned = r.pruned.Load()
	st.Cycles = r.cycles.Load()
	st.Walks = r.walksRun.Load()
	st.Transitions = r.transitions.Load()
	st.DistinctStates = r.seen.len()
	st.Unrecorded = r.seen.unrecorded
	st.VisitedBytes = r.seen.bytes()
	st.Elapsed = time.Since(r.start)
	st.Violations = len(r.violations)
	return st
}

// commit records finished jobs in path order, so that which violation is
// reported does not depend on how many workers ran or how fast.
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
		if next.result != nil {
			r.violations = append(r.violations, *next.result)
			if len(r.violations) >= r.cfg.MaxViolations {
				r.stopAt = next.index + 1
				r.stopReason = "violation"
				r.stopping.Store(true)
			}
		}
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

// coordinate enumerates bounded paths in depth-first order, round by
// round, executing each path's prefix itself (to prune by state hash in a
// deterministic order) and handing the walk to the workers.
func (r *runner) coordinate(jobs chan<- *job) error {
	c := &r.cfg
	s, err := engine.New(c.System, engine.Options{NoFailures: false})
	if err != nil {
		return err
	}
	var index int64
	lastProgress := time.Now()
	var deadline time.Time
	if c.Time > 0 {
		deadline = r.start.Add(c.Time)
	}
	stop := func(reason string) {
		r.mu.Lock()
		if r.stopReason == "" {
			r.stopReason = reason
		}
		if r.stopAt < 0 {
			r.stopAt = index
		}
		r.mu.Unlock()
		r.stopping.Store(true)
	}
	err = s.Guard(c.HandlerTimeout, func() error {
		defer close(jobs)
		dfs := &dfsChooser{base: c.Prefix}
		for round := 1; ; round++ {
			depth := round * c.DepthStep
			if c.MaxDepth > 0 && depth > c.MaxDepth {
				depth = c.MaxDepth
			}
			r.mu.Lock()
			r.stats.Rounds, r.stats.Depth = round, depth
			r.mu.Unlock()
			dfs.seq = dfs.seq[:0]
			reachedDepth := false
			for {
				if r.stopping.Load() {
					return nil
				}
				if c.Context.Err() != nil {
					stop("interrupted")
					return nil
				}
				if c.MaxPaths > 0 && r.paths.Load() >= c.MaxPaths {
					stop("paths")
					return nil
				}
				if !deadline.IsZero() && time.Now().After(deadline) {
					stop("time")
					return nil
				}
				if c.Progress != nil && time.Since(lastProgress) >= c.ProgressEvery {
					lastProgress = time.Now()
					r.mu.Lock()
					st := r.snapshotLocked()
					r.mu.Unlock()
					c.Progress(st)
				}
				j, reached, err := r.prefix(s, dfs, index, round, depth)
				if s.Abandoned() {
					// The watchdog gave up on a handler of this path and
					// reports it at index: touch nothing more.
					return nil
				}
				if err != nil {
					return err
				}
				reachedDepth = reachedDepth || reached
				if c.pathHook != nil {
					c.pathHook(s.ChoiceValues())
				}
				r.paths.Add(1)
				index++
				if j.result == nil && j.walkSteps >= 0 && j.choices != nil {
					// Hand the execution over: the worker walks on from
					// it instead of replaying it, and the coordinator
					// resets what it gets back for the next path.
					o, err := r.takeSim()
					if err != nil {
						return err
					}
					s.SwapState(o)
					j.sim = o
				}
				select {
				case jobs <- j:
				case <-r.quit:
					return nil
				}
				if !dfs.next() {
					break
				}
			}
			r.mu.Lock()
			r.stats.DeepestComplete = depth
			r.mu.Unlock()
			if !reachedDepth {
				stop("exhausted")
				return nil
			}
			if c.MaxDepth > 0 && depth >= c.MaxDepth {
				stop("depth")
				return nil
			}
		}
	})
	var hang *engine.HangError
	if errors.As(err, &hang) {
		close(r.quit)
		// The hung path is the violation; report it in order.
		v := &Violation{Verdict: Safety, Outcome: walks.Failed, Property: "handler did not return", Choices: hang.Choices, Steps: hang.Step, Path: index, Err: err}
		r.commit(&job{index: index, result: v})
		return nil
	}
	return err
}

// prefix executes one bounded path up to depth steps beyond the prefix.
// It returns the job for the path (with the verdict already set if the
// prefix alone decided it) and whether the path reached the depth bound.
func (r *runner) prefix(s *engine.Sim, dfs *dfsChooser, index int64, round, depth int) (*job, bool, error) {
	c := &r.cfg
	dfs.pos, dfs.bpos = 0, 0
	s.SetFailuresUntil(r.failuresUntil(depth))
	j := &job{index: index, depth: depth}
	violation := func(verdict Verdict, out walks.Outcome, prop string, err error) (*job, bool, error) {
		j.result = &Violation{Verdict: verdict, Outcome: out, Property: prop, Choices: s.ChoiceValues(), Steps: s.Steps(),
			Path: index, Depth: depth, LiveAfter: r.liveAfter(depth), FailuresUntil: r.failuresUntil(depth), Err: err}
		return j, false, nil
	}
	if err := s.Reset(dfs); err != nil {
		return violation(Safety, walks.Failed, walks.PanicProperty, err)
	}
	if len(r.onPath) == 0 {
		r.onPath = append(r.onPath, s.Hash()) // the initial state: the same for every path
	}
	// Performance: the states before the point where this path branches
	// off the previous one are the previous path's states (replay is
	// deterministic), which that path checked and hashed (onPath holds
	// their hashes) before going on past them. They are replayed, not
	// checked or hashed again: only the new states are, and their parts
	// (nodes, messages) that the replay did not change are not encoded
	// again either: the part hashes saved on the path that first reached
	// each state are restored (engine.HashMemo). prev is how many such states
	// the previous path has; k counts this path's.
	prev, k := r.states, 0
	r.states = 0
	if c.PrefixSteps == 0 {
		r.memo(s, 0, true)
	}
	limit := c.PrefixSteps + depth
	for s.Steps() < limit {
		ok, err := s.Step()
		if err != nil {
			if errors.Is(err, engine.ErrBadChoice) && s.Steps() < c.PrefixSteps {
				return nil, false, fmt.Errorf("%w: %w", ErrPrefix, err)
			}
			return violation(Safety, walks.Failed, walks.PanicProperty, err)
		}
		r.transitions.Add(1)
		if !ok {
			// Quiescent within the bound: nothing can ever happen again,
			// so a state that is not live now is dead.
			if len(c.System.Liveness) > 0 {
				if i, err := s.FirstViolated(c.System.Liveness); err != nil || i >= 0 {
					if err != nil {
						return violation(Liveness, walks.Failed, c.System.Liveness[i].Name, err)
					}
					return violation(Liveness, walks.Quiescent, c.System.Liveness[i].Name, nil)
				}
			}
			return j, false, nil
		}
		if s.Steps() <= c.PrefixSteps {
			if s.Steps() == c.PrefixSteps {
				r.memo(s, 0, true)
			}
			continue
		}
		// Only states past the point where this path branches off the
		// previous one are new.
		fresh := dfs.pos > dfs.diverge
		k++
		if !fresh && k <= prev {
			r.memo(s, k, false)
			r.states = k
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
			if fresh {
				d := uint64(s.Steps() - c.PrefixSteps)
				if slices.Contains(r.onPath[:k], h) {
					// A cycle back to a state of this very path: going
					// deeper adds nothing to the bounded search, but if
					// every way on from here cycles no path would ever
					// reach the periphery and walk, and a dead state
					// that only loops would go unseen. End the bounded
					// part here and walk from it.
					r.cycles.Add(1)
					j.choices, j.steps = s.ChoiceValues(), s.Steps()
					return j, false, nil
				}
				if prev, ok := r.seen.get(h); ok && prev>>32 == uint64(round) && prev&0xffffffff <= d {
					r.pruned.Add(1)
					j.walkSteps = -1
					return j, false, nil
				}
				r.seen.put(h, uint64(round)<<32|d)
			}
			r.onPath = append(r.onPath[:k], h)
			r.memo(s, k, true)
		}
		r.states = k
	}
	j.choices = s.ChoiceValues()
	j.steps = s.Steps()
	return j, true, nil
}

// memo restores the part hashes of state k of the path (0: the end of the
// prefix) if a path saved them, or saves them when save is set. A restore
// that does not fit leaves the hashes to be computed (Sim.RestoreHashes).
func (r *runner) memo(s *engine.Sim, k int, save bool) {
	if r.cfg.NoHashing {
		return
	}
	for len(r.memos) <= k {
		r.memos = append(r.memos, engine.HashMemo{})
	}
	if save {
		if k > 0 || !s.RestoreHashes(&r.memos[0]) {
			s.SaveHashes(&r.memos[k])
		}
		return
	}
	s.RestoreHashes(&r.memos[k])
}

// takeSim returns a simulator of the system from the pool, or a new one.
func (r *runner) takeSim() (*engine.Sim, error) {
	select {
	case s := <-r.pool:
		return s, nil
	default:
		return engine.New(r.cfg.System, engine.Options{})
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
// Performance: one watchdog (sim.Guard) watches the worker's simulator for
// as long as no handler hangs, rather than one per job (a goroutine and a
// ticker each); the job's execution is swapped into that simulator.
func (r *runner) worker(jobs <-chan *job, results chan<- *job) {
	c := &r.cfg
	rnd := engine.NewRandom(0)
	rnd.Unbiased = c.Unbiased
	for {
		s, err := engine.New(c.System, engine.Options{Chooser: rnd})
		if err != nil {
			r.drain(jobs, results, err)
			return
		}
		var cur atomic.Pointer[job] // the job being walked, for a hang report
		err = s.Guard(c.HandlerTimeout, func() error {
			for !s.Abandoned() {
				var j *job
				select {
				case j2, ok := <-jobs:
					if !ok {
						return nil
					}
					j = j2
				case <-r.quit:
					return nil
				}
				if j.result != nil || j.walkSteps < 0 || j.choices == nil || r.stopping.Load() && r.beyondStop(j.index) {
					if j.sim != nil {
						r.putSim(j.sim)
						j.sim = nil
					}
					results <- j
					continue
				}
				cur.Store(j)
				if !r.walk(s, rnd, j) {
					// The watchdog gave up on this walk's handler while it
					// ran and reports the job; this goroutine is done.
					return nil
				}
				cur.Store(nil)
				results <- j
			}
			return nil
		})
		if err == nil {
			return
		}
		// A handler hung: s is abandoned to it (the goroutine stuck in it
		// stops at its next Context call, without touching the job); report
		// the job as a new one and go on with a new simulator.
		r.walksRun.Add(1)
		j := cur.Load()
		var hang *engine.HangError
		if j == nil || !errors.As(err, &hang) {
			panic(fmt.Sprintf("search: worker guard: %v", err)) // Guard only fails on a hang
		}
		v := &Violation{Verdict: Safety, Outcome: walks.Failed, Property: "handler did not return", Choices: hang.Choices, Steps: hang.Step,
			Path: j.index, Depth: j.depth, LiveAfter: r.liveAfter(j.depth), FailuresUntil: r.failuresUntil(j.depth), Err: err}
		results <- &job{index: j.index, choices: j.choices, steps: j.steps, depth: j.depth, result: v}
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
			if j.result == nil && j.walkSteps >= 0 && j.choices != nil {
				j.result = r.failed(j, nil, err)
			}
			results <- j
		case <-r.quit:
			return
		}
	}
}

// walk runs job j's random walk on s, seeded by the job's index, and sets
// j.result when it ends in a violation. It returns false, leaving j and the
// statistics alone, when the watchdog abandoned s meanwhile (the worker
// reports the job).
func (r *runner) walk(s *engine.Sim, rnd *engine.Random, j *job) bool {
	c := &r.cfg
	rnd.Reseed(walks.SeedFor(c.Seed, uint64(j.index)))
	if j.sim != nil {
		// The coordinator's execution of the bounded path, handed over:
		// the walk's choices follow the path's, as with a replay.
		s.SwapState(j.sim)
		r.putSim(j.sim)
		j.sim = nil
		s.SetChooser(rnd)
	} else {
		if err := s.Reset(&engine.Prefix{Seq: j.choices, Then: rnd}); err != nil {
			if s.Abandoned() {
				return false
			}
			r.walksRun.Add(1)
			j.result = r.failed(j, s, err)
			return true
		}
		for s.Steps() < j.steps {
			if _, err := s.Step(); err != nil {
				if s.Abandoned() {
					return false
				}
				r.walksRun.Add(1)
				j.result = r.failed(j, s, err)
				return true
			}
		}
	}
	s.SetFailuresUntil(r.failuresUntil(j.depth))
	wc := &walks.Config{MaxSteps: c.WalkDepth, LiveAfter: r.liveAfter(j.depth), Safety: c.System.Safety, Liveness: c.System.Liveness}
	obs := &walkObserver{r: r, index: j.index}
	if c.Observe != nil {
		obs.inner = c.Observe()
	}
	wc.Observe = obs
	res := walks.Walk(s, wc)
	if s.Abandoned() {
		return false
	}
	r.walksRun.Add(1)
	r.transitions.Add(int64(res.Steps - j.steps))
	if res.Outcome.Violation() {
		verdict := Liveness
		if res.Outcome == walks.Unsafe || res.Outcome == walks.Failed {
			verdict = Safety
		}
		j.result = &Violation{Verdict: verdict, Outcome: res.Outcome, Property: res.Property, Observed: res.Observed, Choices: s.ChoiceValues(), Steps: s.Steps(),
			Path: j.index, Depth: j.depth, LiveAfter: r.liveAfter(j.depth), FailuresUntil: r.failuresUntil(j.depth), Err: res.Err}
	}
	return true
}

// walkObserver is the observer of one walk: it ends the walk early, with
// no verdict, once the search is stopping before the walk's path, and
// otherwise defers to the caller's observer.
type walkObserver struct {
	r     *runner
	index int64
	inner walks.Observer
	cut   bool
}

func (o *walkObserver) Observe(s *engine.Sim) bool {
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

func (r *runner) beyondStop(index int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopAt >= 0 && index >= r.stopAt
}

func (r *runner) failed(j *job, s *engine.Sim, err error) *Violation {
	v := &Violation{Verdict: Safety, Outcome: walks.Failed, Property: walks.PanicProperty, Choices: j.choices, Steps: j.steps,
		Path: j.index, Depth: j.depth, LiveAfter: r.liveAfter(j.depth), FailuresUntil: r.failuresUntil(j.depth), Err: err}
	if s != nil {
		v.Choices, v.Steps = s.ChoiceValues(), s.Steps()
	}
	return v
}

// dfsChooser answers choice points from base (a prefix execution), then
// from seq, extending seq with 0 (the first child) at new positions and
// recording each position's number of alternatives. next moves seq to
// the following sequence in depth-first order.
type dfsChooser struct {
	base  []int32
	seq   []int32
	arity []int32
	pos   int // position in seq (after base)
	bpos  int
	// diverge is the first position where the current sequence differs
	// from the previous one.
	diverge int
}

func (d *dfsChooser) Choose(_ engine.ChoiceKind, n int, _ []float64) int {
	if d.bpos < len(d.base) {
		v := d.base[d.bpos]
		d.bpos++
		return int(v)
	}
	if d.pos < len(d.seq) {
		d.arity[d.pos] = int32(n)
		v := d.seq[d.pos]
		d.pos++
		return int(v)
	}
	d.seq = append(d.seq, 0)
	d.arity = append(d.arity[:d.pos], int32(n))
	d.pos++
	return 0
}

// next advances to the next sequence; false when the round is complete.
// Positions the last execution did not reach (it ended early) are dropped.
func (d *dfsChooser) next() bool {
	d.bpos = 0
	d.seq = d.seq[:d.pos]
	for i := len(d.seq) - 1; i >= 0; i-- {
		if d.seq[i]+1 < d.arity[i] {
			d.seq[i]++
			d.seq = d.seq[:i+1]
			d.diverge = i
			return true
		}
	}
	d.seq = d.seq[:0]
	d.diverge = 0
	return false
}

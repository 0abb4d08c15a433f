package explore

import (
	"errors"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/macemc/macemc/sim/engine"
)

// Speculation: the bounded search on several cores with the results of one.
//
// The bounded DFS is sequential by nature: whether a path is pruned depends
// on the states of every earlier path, and which path comes next depends on
// where the previous one was cut. So the coordinator keeps deciding, in
// order, exactly as one worker would; what the workers take off it is the
// work: executing paths, hashing their states and walking them.
//
// In a round of a Forker strategy (the bounded DFS), the paths are cut at a
// split depth into subtrees (tasks): a generator runs the paths of the round
// up to the split depth, in order, and every path that reaches it is the
// prefix of a task. A worker explores a task's subtree depth first with
// the strategy's own order (Forker.Fork), pruning by hints (a shared table
// of the states the workers reached, each with the task that reached it:
// a state first reached by an earlier task, or earlier in this one, at no
// higher depth, is most likely pruned by the coordinator too), walks each
// path that reaches its bound, and records what each path did: its choices
// (with their kinds and numbers of options), the hash of every state, how
// it ended and its walk. The coordinator follows the strategy's paths in
// order and, instead of executing one, reads its record: it answers the
// scheduler's choice points from it, checks every state of it against the
// visited-state set and the path's own states exactly as it would have
// after executing them, and takes the path's verdict and walk from the
// record. Where no record fits (a hint pruned what the set does not, or
// the path lies outside the subtrees), the coordinator executes the path
// itself from where the record left it. So the records are a cache of
// executions, and every decision is the coordinator's: the verdict, the
// reported path and every count are those of one worker, whatever the
// number of workers and however they are scheduled.
//
// Walks need seeds that do not depend on a path's place in the order: a
// pruned strategy's path walks with a seed of its round and choices
// (pathSeed).

// minSpecDepth is the smallest depth bound of a round that is speculated:
// shallower rounds are too small to share.
const minSpecDepth = 4

// splitSpan is how many steps below the split depth a task's subtree
// reaches: subtrees of a few hundred paths keep the workers busy between
// tasks and the hints close to the coordinator's decisions.
const splitSpan = 4

// tasksPerWorker is how many tasks the generator may keep ahead of the
// coordinator per worker (maxTask).
const tasksPerWorker = 4

// preChunk is how many records of paths that end above the split depth
// the generator gathers into one task before it hands them to the
// coordinator. Such tasks count against maxTask like the others, which
// bounds the records held ahead of the coordinator.
const preChunk = 256

// splitDepth returns the split depth of a round of depth bound depth.
func splitDepth(depth int) int { return max(1, depth-splitSpan) }

// specRec is what a worker found on one path of a task.
type specRec struct {
	// choices are the path's bounded part after the search's prefix;
	// starts[i] is where step i+1 began in choices. begun steps began,
	// checked states were reached and passed the safety check; hashes
	// (with hashing) and graph (with the explored graph) have one entry
	// per checked state.
	choices []engine.Choice
	starts  []int32
	begun   int
	checked int
	hashes  []uint64
	graph   []graphStep
	// end says how the bounded part ended; EndPruned is the hints'
	// decision, which the coordinator checks.
	end End
	// job is the path's job: its verdict, walk and statistics (its index
	// and pruning statistics are the coordinator's to fill in). redo marks
	// a merged record of a violation, which the coordinator runs again.
	job  *job
	redo bool
}

// turn returns how many steps of the record's path the next path of a
// depth-first order replays (search/dfs: the next path turns at the last
// choice after the first floor that has an option left, and keeps the
// choices before it), at least floor's. Performance: pathRunner.same;
// should a strategy's order differ, a path that turns earlier only has its
// new states' hashes computed from scratch (the hashes are restored at
// replayed states only).
func (sr *specRec) turn(floor int) int {
	return turn(sr.choices, floor, len(sr.starts), func(k int) int { return int(sr.starts[k]) })
}

// stepEnd returns where step k+1 ends in choices.
func (sr *specRec) stepEnd(k int) int {
	if k+1 < len(sr.starts) {
		return int(sr.starts[k+1])
	}
	return len(sr.choices)
}

// task is a subtree of a round for a worker to explore: the paths below
// prefix, in order.
type task struct {
	ord          int64 // the task's place in the round, from 1
	round, depth int
	prefix       []int32
	mu           sync.Mutex
	cond         sync.Cond
	recs         []*specRec
	done         bool
	// above marks the generator's records of the paths that end above
	// the split depth before task ord (no worker explores it).
	above bool
	// passed: the coordinator is done with the task; a worker still on it
	// stops.
	passed atomic.Bool
}

func newTask(ord int64, round, depth int, prefix []int32) *task {
	t := &task{ord: ord, round: round, depth: depth, prefix: prefix}
	t.cond.L = &t.mu
	return t
}

func (t *task) add(sr *specRec) {
	t.mu.Lock()
	t.recs = append(t.recs, sr)
	t.mu.Unlock()
	t.cond.Broadcast()
}

func (t *task) finish() {
	t.mu.Lock()
	t.done = true
	t.mu.Unlock()
	t.cond.Broadcast()
}

// rec returns record i of the task, waiting for it; nil when the task
// ended with fewer records.
func (t *task) rec(i int) *specRec {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i >= len(t.recs) && !t.done {
		t.cond.Wait()
	}
	if i < len(t.recs) {
		return t.recs[i]
	}
	return nil
}

// speculation runs the subtrees of the current round ahead of the
// coordinator (see above).
//
// Performance: the fields that the coordinator writes for every path it
// follows (its cursor), those the workers read for every path they run
// (off, current) and those under mu lie on cache lines of their own
// (padding), so that one goroutine's writes do not take the others' lines
// away from them; the workers count what they ran each in its own
// specWorker.
type speculation struct {
	r       *runner
	queue   chan *task // tasks for the workers, of every round
	maxTask int        // how many tasks may be generated ahead of the coordinator
	// In a shard (Shard), the generator keeps the tasks numbered shard
	// modulo shards only, and counts all it made (made). In a merge,
	// preload holds every round's tasks.
	shard, shards int
	preload       map[int][]*task
	// limit, when positive, is a shard's share of the path budget: a task
	// stops once its paths and those of the tasks before it that the
	// shard is done with reach it (so that a later task, run at the same
	// time, does not take an earlier one's share).
	limit int64

	_       cacheLine
	off     atomic.Bool // a speculative handler hung: no more speculation
	current atomic.Int64
	// violation is the first task of the current round in which a worker
	// found a violating path (round<<40 | task; 0: none), when one
	// violation ends the search (violationEnds).
	violation atomic.Int64
	// donePaths: a shard's paths of the tasks it is done with (limit).
	donePaths atomic.Int64

	_     cacheLine
	mu    sync.Mutex
	cond  sync.Cond
	hints *hintTable
	round int // the round being speculated; 0: none
	depth int
	split int
	fork  Forker
	tasks []*task // the round's tasks so far, in order
	gen   bool    // the round's generator is running
	quit  chan struct{}
	genWG sync.WaitGroup
	// genRunner runs the generator's paths, round after round.
	genRunner *pathRunner
	passed    int // tasks the coordinator is done with
	made      int64
	// genPaths counts the generator's paths, every round's (tests).
	genPaths int64
	workers  []*specWorker // every worker's, for their counts

	_ cacheLine
	// the coordinator's cursor: task ti (cur, once looked at), record ri;
	// seen holds the records of cur it has read.
	cur         *task
	seen        []*specRec
	ti, ri      int
	vals        []int32 // the scheduler's choices on the path being followed
	lastChoices []int32
	// took is the last task from whose records the coordinator took a
	// violation.
	took *task
	// hits and misses count the paths the coordinator followed from the
	// records and those it ran itself (tests and benchmarks).
	hits, misses int64
	_            cacheLine
}

// cacheLine is padding that keeps the fields before it and those after it
// off one cache line (two, with the adjacent line prefetched).
type cacheLine [128]byte

// ahead returns how many paths the workers ran ahead of the order, and
// how many of them they walked.
func (sp *speculation) ahead() (ran, walked int64) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for _, w := range sp.workers {
		ran += w.ran.Load()
		walked += w.walked.Load()
	}
	return ran, walked
}

func newSpeculation(r *runner) *speculation {
	sp := &speculation{r: r, maxTask: tasksPerWorker * r.cfg.Workers, shards: 1}
	sp.queue = make(chan *task, sp.maxTask+1)
	sp.cond.L = &sp.mu
	return sp
}

// follows reports whether the coordinator follows path p through the
// records, starting the speculation of p's round when it is p's first path.
func (sp *speculation) follows(p *Path, ex Explorer) bool {
	if sp == nil || sp.off.Load() || !p.Prune {
		return false
	}
	fk, ok := ex.(Forker)
	if !ok {
		return false
	}
	switch p.Scheduler.(type) {
	case engine.EventChooser, Watcher, Coster:
		return false
	}
	if p.Round != sp.round {
		sp.startRound(p.Round, p.Depth, fk)
	}
	return sp.depth >= minSpecDepth
}

// startRound ends the previous round's speculation and starts round's.
func (sp *speculation) startRound(round, depth int, fk Forker) {
	sp.stopGen()
	sp.mu.Lock()
	sp.round, sp.depth, sp.split, sp.fork = round, depth, splitDepth(depth), fk
	sp.tasks, sp.ti, sp.ri, sp.passed, sp.made, sp.cur, sp.seen = nil, 0, 0, 0, 0, nil, nil
	sp.violation.Store(0)
	sp.gen = depth >= minSpecDepth && sp.preload == nil
	if sp.preload != nil {
		sp.tasks = sp.preload[round]
	}
	sp.current.Store(int64(round))
	if sp.gen {
		// An earlier round's hints prune nothing in this one, but they
		// cost no more than the room they take: a table over half full
		// is replaced by an empty one (see growHints).
		if sp.hints == nil {
			sp.hints = newHintTable(min(firstHints, hintBound(sp.r.cfg.MaxStates, sp.r.cfg.MaxPaths)))
		} else if 2*sp.hints.count.Load() > sp.hints.max {
			sp.growHints()
		}
	}
	sp.mu.Unlock()
	if !sp.gen {
		return
	}
	sp.quit = make(chan struct{})
	sp.genWG.Add(1)
	go func(quit chan struct{}) {
		defer sp.genWG.Done()
		sp.generate(round, depth, sp.split, fk, quit)
	}(sp.quit)
}

// stopGen stops the current round's generator.
func (sp *speculation) stopGen() {
	if sp.quit != nil {
		close(sp.quit)
		sp.quit = nil
	}
	sp.mu.Lock()
	sp.cond.Broadcast()
	sp.mu.Unlock()
	sp.genWG.Wait()
}

// stop ends the speculation when the search ends.
func (sp *speculation) stop() {
	if sp == nil {
		return
	}
	sp.current.Store(0)
	sp.stopGen()
	if sp.genRunner != nil && !sp.genRunner.s.Abandoned() {
		sp.genRunner.seen.(*genSet).v.free()
	}
}

// generate runs the round's paths up to the split depth, in order, and
// queues a task for every one that reaches it, keeping at most maxTask of
// them ahead of the coordinator.
func (sp *speculation) generate(round, depth, split int, fk Forker, quit chan struct{}) {
	r := sp.r
	c := &r.cfg
	defer func() {
		sp.mu.Lock()
		sp.gen = false
		sp.mu.Unlock()
		sp.cond.Broadcast()
	}()
	// The generator's simulator and set serve every round (the set keeps
	// each state's round: an earlier round's prunes nothing).
	if sp.genRunner == nil {
		s, err := engine.NewGuarded(c.System, engine.Options{}, c.HandlerTimeout)
		if s == nil || err != nil {
			return // the coordinator reports a system that does not boot
		}
		gs := &genSet{globalSet: globalSet{newVisited(GeneratorStates(c.MaxStates))}, hints: sp.hints}
		pr := newPathRunner(r, s, gs)
		pr.rec = &recorder{}
		if r.graph != nil {
			pr.rec.graph = r
		}
		sp.genRunner = pr
	}
	pr := sp.genRunner
	s := pr.s
	gs := pr.seen.(*genSet)
	gs.task = 1
	sp.mu.Lock()
	gs.hints = sp.hints
	sp.mu.Unlock()
	pr.cut = split
	ex := fk.Fork(round, split, nil)
	var ord int64
	// pre holds the records of the paths that end above the split depth
	// since the last task: the coordinator follows them before the next.
	// A shard keeps them in shard 0 only.
	var pre *task
	keepPre := sp.shard == 0
	err := s.Guard(c.HandlerTimeout, func() error {
		var end *End
		var last End
		for {
			// Wait for room ahead of the coordinator.
			sp.mu.Lock()
			for len(sp.tasks)-sp.passed >= sp.maxTask && !isClosed(quit) {
				sp.cond.Wait()
			}
			sp.mu.Unlock()
			if isClosed(quit) || r.stopping.Load() || r.ctx.Err() != nil {
				return nil
			}
			p, more := ex.Next(end)
			if !more {
				return nil
			}
			// The path is the round's, cut at the split depth (its walk,
			// failures and liveness are those of the round's depth).
			p.Depth = depth
			pr.same = pr.turn
			j, e, err := pr.bounded(&p, -1)
			if err != nil {
				return err
			}
			sp.genPaths++
			last = e
			end = &last
			if e.Reason != EndDepth {
				// A path that ends above the split: its record is the
				// generator's (its walk, if any, is the coordinator's to
				// hand out).
				if keepPre {
					if pre == nil {
						pre = newTask(ord+1, round, depth, nil)
						pre.above = true
						pre.done = true
					}
					sr := recordOf(pr, e)
					sr.job = j
					pre.recs = append(pre.recs, sr)
					if len(pre.recs) == preChunk {
						// Hand them over now: when few paths or none reach
						// the split (a tree whose paths end before it), the
						// records would otherwise pile up until the round
						// ends, the coordinator waiting for them.
						sp.mu.Lock()
						sp.tasks = append(sp.tasks, pre)
						sp.mu.Unlock()
						sp.cond.Broadcast()
						pre = nil
					}
				}
				continue
			}
			ord++
			gs.task = ord + 1 // the paths from here on come after task ord
			sp.mu.Lock()
			sp.made = ord
			sp.mu.Unlock()
			if (ord-1)%int64(sp.shards) != int64(sp.shard) {
				continue // another shard's
			}
			t := newTask(ord, round, depth, slices.Clone(pr.prev))
			sp.mu.Lock()
			if h := sp.hints; h.count.Load() >= h.max {
				sp.growHints()
				gs.hints = sp.hints
			}
			if pre != nil {
				sp.tasks = append(sp.tasks, pre)
				pre = nil
			}
			sp.tasks = append(sp.tasks, t)
			sp.mu.Unlock()
			sp.cond.Broadcast()
			select {
			case sp.queue <- t:
			case <-quit:
				return nil
			}
		}
	})
	if pre != nil {
		sp.mu.Lock()
		sp.tasks = append(sp.tasks, pre)
		sp.mu.Unlock()
	}
	if err != nil && errors.Is(err, engine.ErrHang) {
		sp.off.Store(true)
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// specWorker is a worker's means to explore tasks.
type specWorker struct {
	pr  *pathRunner
	rec recorder
	rnd *engine.Random
	// ran and walked count the speculative paths the worker ran and
	// walked, on a cache line of their own.
	_           cacheLine
	ran, walked atomic.Int64
	_           cacheLine
}

func (sp *speculation) newWorker(s *engine.Sim, rnd *engine.Random) *specWorker {
	w := &specWorker{rnd: rnd}
	sp.mu.Lock()
	sp.workers = append(sp.workers, w)
	sp.mu.Unlock()
	w.pr = newPathRunner(sp.r, s, nil)
	if sp.r.graph != nil {
		w.rec.graph = sp.r
	}
	w.pr.rec = &w.rec
	return w
}

// run explores task t's subtree: every path in order, pruned by the hints,
// each recorded with its walk. It returns false when the watchdog
// abandoned the worker's simulator (a handler hung): the task is then
// ended without the hung path, which the coordinator runs itself.
func (sp *speculation) run(w *specWorker, t *task) bool {
	defer t.finish()
	r := sp.r
	if int64(t.round) != sp.current.Load() {
		return true
	}
	sp.mu.Lock()
	fk, split, hints := sp.fork, sp.split, sp.hints
	sp.mu.Unlock()
	ex := fk.Fork(t.round, t.depth, t.prefix)
	pr := w.pr
	pr.seen, pr.floor = hintSet{hints, t.ord}, split
	w.rec.hints = hints
	var end *End
	var last End
	var prev *specRec // the task's last path
	for n := int64(0); !r.stopping.Load() && r.ctx.Err() == nil && int64(t.round) == sp.current.Load() && !sp.off.Load() && !t.passed.Load() &&
		(sp.limit == 0 || sp.donePaths.Load()+n < sp.limit) && !sp.pastViolation(t); n++ {
		p, more := ex.Next(end)
		if !more {
			break
		}
		// Every path of the task replays the previous one's up to where
		// the order turns off it (the first one's previous path is
		// another task's).
		pr.same = 0
		if prev != nil {
			pr.same = prev.turn(len(t.prefix))
		}
		j, e, err := pr.bounded(&p, -1)
		pr.same = 0
		if pr.s.Abandoned() {
			return false
		}
		if err != nil {
			break // the coordinator meets the error itself
		}
		last = e
		end = &last
		w.ran.Add(1)
		sr := w.record(e)
		prev = sr
		if j.walk && j.result == nil {
			j.here = true
			w.walked.Add(1)
			if !r.walk(pr.s, w.rnd, j) {
				return false
			}
			if j.stats.cut {
				break // interrupted or stopping: the walk is not whole
			}
		}
		violating := j.result != nil
		sr.job = j
		t.add(sr) // the coordinator's from here
		if violating && sp.violationEnds() {
			sp.violated(t)
			break
		}
	}
	return true
}

// violationEnds reports whether one violation ends the search, so that
// the paths after a violating one are not run ahead: a search of one
// process (a shard keeps its records whole) that stops at the first
// violation.
func (sp *speculation) violationEnds() bool {
	return sp.r.cfg.MaxViolations == 1 && sp.shards == 1
}

// violated records that a worker found a violating path in task t.
// Performance: the search most likely stops there, so the paths after it
// in the order (the rest of t, and the round's later tasks) are not run
// ahead; should the coordinator not take the violation (a state before it
// is pruned in the order), it runs the paths of the tasks skipped
// meanwhile itself, with the same results, and the workers go on from
// there once it passed t (passTask).
func (sp *speculation) violated(t *task) {
	mark := int64(t.round)<<40 | t.ord
	for {
		old := sp.violation.Load()
		if int64(t.round) != sp.current.Load() || old != 0 && old>>40 >= int64(t.round) && old <= mark || sp.violation.CompareAndSwap(old, mark) {
			return
		}
	}
}

// pastViolation reports whether task t lies after a task of its round in
// which a worker found a violating path (violated).
func (sp *speculation) pastViolation(t *task) bool {
	v := sp.violation.Load()
	return v != 0 && v>>40 == int64(t.round) && t.ord > v&(1<<40-1)
}

// record returns the record of the path the worker just ran.
func (w *specWorker) record(e End) *specRec { return recordOf(w.pr, e) }

// recordOf returns the record of the path pr just ran (its job is the
// caller's to set).
func recordOf(pr *pathRunner, e End) *specRec {
	s := pr.s
	c := &pr.r.cfg
	rc := pr.rec
	all := s.Choices()
	base := min(len(c.Prefix), len(all))
	sr := rc.mem.rec()
	sr.end = e
	sr.choices = take(&rc.mem.choices, all[base:])
	rc.mem.tmp = rc.mem.tmp[:0]
	for i := c.PrefixSteps; ; i++ {
		st := s.StepStart(i)
		if st >= len(all) {
			break
		}
		rc.mem.tmp = append(rc.mem.tmp, int32(st-base))
	}
	sr.starts = take(&rc.mem.starts, rc.mem.tmp)
	sr.begun = len(sr.starts)
	sr.checked = len(rc.hashes)
	sr.hashes = take(&rc.mem.hashes, rc.hashes)
	if rc.graph != nil {
		sr.graph = take(&rc.mem.graph, rc.steps[:len(rc.hashes)])
	}
	return sr
}

// recordMem hands out the memory of records in chunks: a record's slices
// and the record itself are parts of larger arrays, which the records of
// a worker share (one allocation for many records; a chunk is freed once
// the coordinator is done with every record in it).
type recordMem struct {
	choices []engine.Choice
	starts  []int32
	hashes  []uint64
	graph   []graphStep
	recs    []specRec
	tmp     []int32
}

// chunk is how many elements a chunk holds at least.
const chunk = 4096

// take copies v into the free part of *buf (a new chunk when it does not
// fit) and returns the copy.
func take[T any](buf *[]T, v []T) []T {
	if len(v) == 0 {
		return nil
	}
	if cap(*buf)-len(*buf) < len(v) {
		*buf = make([]T, 0, max(chunk, len(v)))
	}
	n := len(*buf)
	*buf = append(*buf, v...)
	return (*buf)[n : n+len(v) : n+len(v)]
}

// rec returns a new record from the chunk.
func (m *recordMem) rec() *specRec {
	if len(m.recs) == cap(m.recs) {
		m.recs = make([]specRec, 0, chunk/16)
	}
	m.recs = m.recs[:len(m.recs)+1]
	return &m.recs[len(m.recs)-1]
}

// recorder keeps the hash (and the graph step) of every state of a
// speculative path (pathRunner.rec).
type recorder struct {
	graph  *runner // the search, when its graph is recorded
	hashes []uint64
	// steps holds the graph steps of the path's states (its first
	// len(hashes)). Performance: a path that replays the previous path's
	// first states (boundedAfter) keeps their steps from it, as it keeps
	// their hashes, instead of computing them again: most states of a
	// depth-first search's path are its predecessor's.
	steps []graphStep
	units []uint64 // scratch for graphStepOf
	mem   recordMem
	// hints, when set, is the hint table of the task being run. A state
	// in it is in the graph's stateInfos already: every path records a
	// state (state, which puts its info there) before it hints it
	// (pruneSet.visit). Performance: a lookup in it costs less than one
	// in stateInfos, and most states a worker records were hinted before.
	hints *hintTable
}

// reset starts a new path (the steps stay, for the states it replays).
func (rc *recorder) reset() {
	rc.hashes = rc.hashes[:0]
}

// state records state k of the path (hash h; 0 without hashing), which
// the previous path reached too when replayed is set. States are recorded
// in order, from state 1.
func (rc *recorder) state(s *engine.Sim, k int, h uint64, replayed bool) {
	rc.hashes = append(rc.hashes, h)
	if rc.graph == nil {
		return
	}
	if replayed && k <= len(rc.steps) {
		// The previous path's state k, reached by the same step: its
		// step is in place (and so are those of the previous path's
		// later states, which the path may replay next).
		return
	}
	var st graphStep
	known := rc.hints != nil && rc.hints.has(h)
	st, rc.units = rc.graph.graphStepOf(s, h, known, rc.units)
	rc.steps = append(rc.steps[:k-1], st)
}

// followed is what following a path through the records gave: the path's
// job and end when the records decided it, or else the choices taken from
// its scheduler so far (pre) and what checking the states they lead to
// added to the statistics, for the coordinator to go on executing.
type followed struct {
	job   *job
	end   End
	walk  bool // the job's walk is still to run
	pre   []int32
	carry pathStats
}

// follow decides path p (the index-th) from the records where they cover
// it, as bounded would have after executing it (see above).
func (sp *speculation) follow(p *Path, index int64) (followed, error) {
	r := sp.r
	c := &r.cfg
	pr := r.coord
	if p.Round != pr.prevRound {
		pr.prev, pr.prevRound, pr.memoOK = pr.prev[:0], p.Round, 0
	}
	if len(pr.onPath) == 0 {
		// The first path is the coordinator's own (the first record is of
		// a later one): nothing is known of the initial state yet.
		return followed{}, nil
	}
	prevStates := pr.states
	vals := sp.vals[:0]
	sr := sp.seek(vals)
	var st pathStats
	k, states, done := 0, 0, 0 // steps followed, states checked, choices of whole steps
	fresh, same, shared := false, 0, -1
	miss := func() (followed, error) {
		if fresh {
			pr.prev = append(pr.prev[:0], vals[:done]...)
			pr.states = states
			pr.memoOK = min(pr.memoOK, shared)
		}
		sp.vals = vals
		return followed{pre: slices.Clone(vals), carry: st}, nil
	}
	// end finishes the path with job j.
	end := func(j *job, e End) (followed, error) {
		pr.prev = append(pr.prev[:0], vals...)
		pr.states = states
		if shared >= 0 {
			pr.memoOK = min(pr.memoOK, shared)
		}
		j.stats.newStates, j.stats.unrecorded = st.newStates, st.unrecorded
		sp.vals, sp.lastChoices = vals, vals
		return followed{job: j, end: e}, nil
	}
	// fromRecord is the path's job as the record has it.
	fromRecord := func() (followed, error) {
		if sr.redo {
			// A merged violation: run again, to rebuild it whole.
			return miss()
		}
		// The record is this path's alone: its job becomes the path's.
		j := sr.job
		j.index = index
		if j.result != nil {
			j.result.Path = index
			sp.took = sp.cur
		}
		f, err := end(j, sr.end)
		// A generator's record (or a merged one) walks from its end, if it
		// walks: the coordinator hands the walk out, to replay the path.
		if f.walk = j.walk && !j.stats.walked && j.result == nil; f.walk {
			j.choices, j.steps, j.depth = slices.Concat(c.Prefix, vals), c.PrefixSteps+sr.end.Steps, p.Depth
			j.seed = pathSeed(c.Seed, index, p, vals)
		}
		return f, err
	}
	for {
		if sr == nil {
			return miss()
		}
		if k == sr.begun {
			if len(vals) < len(sr.choices) {
				// Choices after the last step that began: those of a path
				// that ended at boot (its nodes' Start chose), which the
				// scheduler answers as the step's, so that a depth-first
				// order sees their other options.
				ch := sr.choices[len(vals)]
				v := int32(p.Scheduler.Choose(ch.Kind, int(ch.N), nil))
				if vals = append(vals, v); v != ch.Value {
					sr = sp.seek(vals)
				}
				continue
			}
			if k == sr.checked && sr.end.Reason == EndPruned {
				// The hints pruned here, the visited set does not.
				return miss()
			}
			if sr.end.Reason == EndCycle {
				return miss() // the coordinator found no cycle here: not this record's path
			}
			return fromRecord()
		}
		// The choices of step k+1, from the scheduler.
		for len(vals) < sr.stepEnd(k) {
			ch := sr.choices[len(vals)]
			v := int32(p.Scheduler.Choose(ch.Kind, int(ch.N), nil))
			vals = append(vals, v)
			if v != ch.Value {
				if sr = sp.seek(vals); sr == nil {
					return miss()
				}
			}
		}
		k++
		if !fresh {
			for ; same < len(vals); same++ {
				if same >= len(pr.prev) || vals[same] != pr.prev[same] {
					fresh = true
					shared = k - 1
					break
				}
			}
		}
		if k > sr.checked {
			// The step failed, or its state is unsafe: the record's end.
			return fromRecord()
		}
		if !fresh && k <= prevStates {
			// A state of the previous path, checked there.
			if !c.NoHashing && pr.onPath[k] != sr.hashes[k-1] {
				return miss()
			}
			states, done = k, len(vals)
			continue
		}
		if !c.NoHashing {
			h := sr.hashes[k-1]
			cycle := slices.Contains(pr.onPath[:k], h)
			if cycle != (k == sr.begun && sr.end.Reason == EndCycle) {
				return miss()
			}
			if r.graph != nil {
				r.recordStep(k, &sr.graph[k-1], h, sr.choices[sr.starts[k-1]:sr.stepEnd(k-1)], vals[sr.starts[k-1]:])
			}
			if cycle {
				return fromRecord() // the record's walk from the cycle
			}
			pruned, res := r.coord.seen.visit(h, p.Round, uint64(k))
			if pruned {
				var j *job
				if k == sr.begun && sr.end.Reason == EndPruned && sr.job != nil {
					// The record's own job: a path pruned here, which
					// nothing else reads. Performance: most paths are
					// pruned; this saves allocating a job for each.
					j = sr.job
					*j = job{index: index, depth: p.Depth}
				} else {
					j = &job{index: index, depth: p.Depth}
				}
				j.stats.pruned = true
				j.stats.transitions = int64(c.PrefixSteps + k)
				return end(j, End{Steps: k, Reason: EndPruned})
			}
			switch res {
			case putNew:
				st.newStates++
			case putUnrecorded:
				st.unrecorded++
			}
			pr.onPath = append(pr.onPath[:k], h)
		}
		states, done = k, len(vals)
	}
}

// seek moves the cursor to the first record that begins with vals and
// returns it; nil when the record at the cursor is past vals (the path was
// not speculated) or no record is left.
func (sp *speculation) seek(vals []int32) *specRec {
	for {
		sr := sp.at()
		if sr == nil {
			return nil
		}
		n := min(len(vals), len(sr.choices))
		d := 0
		for d < n && sr.choices[d].Value == vals[d] {
			d++
		}
		switch {
		case d == len(vals):
			return sr
		case d == len(sr.choices):
			// The record ends where the path goes on: its end does not
			// cover the path.
			return nil
		case sr.choices[d].Value > vals[d]:
			return nil
		}
		sp.advance() // the record lies before the path: below a pruned state
	}
}

// at returns the record at the cursor, waiting for it; nil when there is
// none (the round's tasks are all passed).
func (sp *speculation) at() *specRec {
	for {
		// Performance: the records the coordinator has seen of the task
		// at the cursor (seen) are read without a lock; only past them
		// does it take the task's lock, and wait.
		if sp.ri < len(sp.seen) {
			return sp.seen[sp.ri]
		}
		if sp.cur == nil {
			sp.mu.Lock()
			for sp.ti >= len(sp.tasks) && sp.gen {
				sp.cond.Wait()
			}
			if sp.ti >= len(sp.tasks) {
				sp.mu.Unlock()
				return nil
			}
			sp.cur = sp.tasks[sp.ti]
			sp.mu.Unlock()
		}
		if sr := sp.cur.rec(sp.ri); sr != nil {
			sp.cur.mu.Lock()
			sp.seen = sp.cur.recs
			sp.cur.mu.Unlock()
			return sr
		}
		sp.passTask()
	}
}

// nextTask returns the task at the cursor, waiting for the generator;
// nil when the round has no more (a shard's loop).
func (sp *speculation) nextTask() *task {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for sp.ti >= len(sp.tasks) && sp.gen {
		sp.cond.Wait()
	}
	if sp.ti >= len(sp.tasks) {
		return nil
	}
	return sp.tasks[sp.ti]
}

// generated returns how many tasks the round's generator made, in all
// shards, once it ended.
func (sp *speculation) generated() int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for sp.gen {
		sp.cond.Wait()
	}
	return sp.made
}

// advance moves the cursor to the next record (the task's records go
// when the coordinator passes the task).
func (sp *speculation) advance() { sp.ri++ }

// passTask moves the cursor to the next task: the coordinator is done
// with the current one, which makes room for the generator.
func (sp *speculation) passTask() {
	sp.mu.Lock()
	if t := sp.tasks[sp.ti]; !t.above && sp.took != t {
		// The coordinator took no violation from t: the paths after it
		// are to be run ahead again, if a worker found one in it
		// (violated).
		if v := sp.violation.Load(); v != 0 && v>>40 == int64(t.round) && v&(1<<40-1) == t.ord {
			sp.violation.CompareAndSwap(v, 0)
		}
	}
	sp.tasks[sp.ti].passed.Store(true)
	sp.tasks[sp.ti] = nil
	sp.ti, sp.ri, sp.cur, sp.seen = sp.ti+1, 0, nil, nil
	sp.passed = sp.ti
	sp.mu.Unlock()
	sp.cond.Broadcast()
}

// genSet is the generator's set: the visited states of the round's paths
// up to the split depth, which decides there as the coordinator's set
// does, each also hinted to the tasks from task on (the paths after the
// last task generated come before the next one).
type genSet struct {
	globalSet
	hints *hintTable
	task  int64
}

func (g *genSet) visit(h uint64, round int, cost uint64) (bool, putResult) {
	pruned, res := g.globalSet.visit(h, round, cost)
	if !pruned {
		g.hints.visit(h, round, g.task, cost)
	}
	return pruned, res
}

// hintSet prunes a speculative path by the hints: a state reached by an
// earlier task, or earlier in this one, at no higher cost.
type hintSet struct {
	h    *hintTable
	task int64
}

func (hs hintSet) visit(h uint64, round int, cost uint64) (bool, putResult) {
	return hs.h.visit(h, round, hs.task, cost), putNew
}

// hintTable is the workers' shared table of the states their tasks
// reached: an open-addressing table of atomic slots, lock free, of a fixed
// size (past three quarters full, new states are not recorded: they are
// only hints). A slot keeps, per state, two of the occurrences of the
// newest round that reached it: the one of the earliest task (with its
// cost), and the one of the lowest cost (with its task). The coordinator
// prunes at a state reached earlier at no higher cost: an occurrence of a
// later task with a lower cost, or of an earlier one with a higher, is
// what one pair alone would lose.
type hintTable struct {
	keys  []atomic.Uint64
	first []atomic.Uint64 // round<<48 | task<<20 | cost: the earliest task's occurrence
	low   []atomic.Uint64 // the same, of the lowest cost's
	shift uint
	count atomic.Int64
	max   int64
}

// maxHints bounds the hint table: 24 bytes a slot.
const maxHints = 1 << 20

// hintBound is how many slots a search's hint table has: maxHints, or
// fewer for a small visited set or path budget (a search of a few thousand
// paths reaches no more than a few states a path).
func hintBound(maxStates int, maxPaths int64) int {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	size := min(slotsFor(maxStates), maxHints)
	if maxPaths > 0 {
		size = min(size, slotsFor(int(min(8*maxPaths, 1<<30))))
	}
	return size
}

// newHintTable returns a table of size slots (a power of 2).
func newHintTable(size int) *hintTable {
	return &hintTable{keys: make([]atomic.Uint64, size), first: make([]atomic.Uint64, size), low: make([]atomic.Uint64, size),
		max: int64(size) * 3 / 4, shift: 64 - uint(bits.TrailingZeros(uint(size)))}
}

// GeneratorStates bounds the visited set of speculation's generator, which
// holds the states of a round's paths above the split depth: a quarter of
// the search's bound. Past it the generator makes tasks the coordinator
// may prune at once (work thrown away, not a different result).
func GeneratorStates(maxStates int) int {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	return max(maxStates/4, 1024)
}

// firstHints is the size of a search's first hint table: small, so that a
// search of a few paths costs little to start; growHints makes more room.
const firstHints = 1 << 18

// growHints replaces a full (or, at a round's start, a half-full) hint
// table by an empty one four times its size, up to hintBound; sp.mu is
// held. The tasks running keep the table they started with: the tasks
// after them lose the hints of those before (more paths run ahead and
// thrown away for a while, never another result), where a full table
// would stop pruning the workers' paths for the rest of the round.
func (sp *speculation) growHints() {
	bound := hintBound(sp.r.cfg.MaxStates, sp.r.cfg.MaxPaths)
	sp.hints = newHintTable(min(4*len(sp.hints.keys), bound))
}

// HintBytes is the memory of the hint table of a speculating search with
// this bound of the visited set.
func HintBytes(maxStates int) int64 {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	return 24 * int64(min(slotsFor(maxStates), maxHints))
}

func packHint(round int, task int64, cost uint64) uint64 {
	return uint64(round&0xffff)<<48 | uint64(task&(1<<28-1))<<20 | min(cost, 1<<20-1)
}

// visit reports whether state h is hinted pruned for task at cost in
// round, and otherwise records it.
func (t *hintTable) visit(h uint64, round int, task int64, cost uint64) bool {
	k := key(h)
	mask := uint64(len(t.keys) - 1)
	want := packHint(round, task, cost)
	for i := (k * 0x9e3779b97f4a7c15) >> t.shift; ; i = (i + 1) & mask {
		switch t.keys[i].Load() {
		case k:
			if prunes(t.first[i].Load(), want) || prunes(t.low[i].Load(), want) {
				return true
			}
			update(&t.first[i], want, func(old uint64) bool {
				return hintTask(want) < hintTask(old) || hintTask(want) == hintTask(old) && hintCost(want) < hintCost(old)
			})
			update(&t.low[i], want, func(old uint64) bool {
				return hintCost(want) < hintCost(old) || hintCost(want) == hintCost(old) && hintTask(want) < hintTask(old)
			})
			return false
		case 0:
			if t.count.Load() >= t.max {
				return false
			}
			if t.keys[i].CompareAndSwap(0, k) {
				t.first[i].Store(want)
				t.low[i].Store(want)
				t.count.Add(1)
				return false
			}
			i-- // taken meanwhile: look at it again
		}
	}
}

// has reports whether state h is in the table.
func (t *hintTable) has(h uint64) bool {
	k := key(h)
	mask := uint64(len(t.keys) - 1)
	for i := (k * 0x9e3779b97f4a7c15) >> t.shift; ; i = (i + 1) & mask {
		switch t.keys[i].Load() {
		case k:
			return true
		case 0:
			return false
		}
	}
}

func hintTask(v uint64) uint64 { return v >> 20 & (1<<28 - 1) }
func hintCost(v uint64) uint64 { return v & (1<<20 - 1) }

// prunes reports whether occurrence old prunes occurrence want: the same
// round, a task no later and a cost no higher.
func prunes(old, want uint64) bool {
	return old>>48 == want>>48 && hintTask(old) <= hintTask(want) && hintCost(old) <= hintCost(want)
}

// update stores want in v if v holds an older round or better(v) holds.
func update(v *atomic.Uint64, want uint64, better func(old uint64) bool) {
	for {
		old := v.Load()
		if old>>48 == want>>48 && !better(old) {
			return
		}
		if v.CompareAndSwap(old, want) {
			return
		}
	}
}

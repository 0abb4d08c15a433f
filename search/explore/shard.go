package explore

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/macemc/macemc/sim/engine"
)

// Shards: the bounded search of one machine spread over several.
//
// A shard (Shard) runs what the workers of one process run ahead of its
// coordinator (speculation, spec.go), for a deterministic share of each
// round: every round's generator runs in every shard (it is small: the
// paths above the split depth) and numbers the round's tasks the same way
// everywhere; shard i of n explores the tasks whose number is i modulo n,
// walks their paths and records them. Merging (Config.Records) runs the
// coordinator alone over the records of all the shards: it follows the
// strategy's paths through them in order and executes what they do not
// cover (the paths above the split depth, a shard's tasks past its budget,
// and every path whose record holds a violation, so that the violation is
// rebuilt whole: its walk is seeded by its path, so it is the same). The
// merged result is the one process's: the same verdict, the same counts,
// the same first violation.
//
// A shard of a search with the explored graph (Config.Graph) also stops
// where that search stops on a fair cycle: it records the graph steps of
// its records in a graph of its own, as the coordinator records them
// (shardGraph), and after each round looks in it for a fair cycle of hot
// states, confirmed as the coordinator confirms one (checkGraph); once it
// finds one, the shard stops after that round (StopCycle). Without this a
// shard of a livelock that one process finds in its second round deepened
// round after round, each adding a few paths to its share of the budget,
// for minutes and gigabytes. Why this is safe, and why it is exact as a
// rule: the shard's graph is a subgraph of the one process's graph at the
// end of the same round (its paths are paths of that round, or run below
// a state the one process prunes and so reaches from where it first met
// that state, at no higher cost), and whether a cycle is fair depends
// only on the enabled units of its states and on its own transitions, so
// the one process's check at the end of that round (it checks at every
// round's end) finds a fair cycle too, and stops. Where it does not (its
// confirmation rejects what it finds, its graph or visited set is full, or
// a partial key gave a state the info of another of its states than the
// one the one process met first), the merge runs the rounds after the
// shards' last ones itself, as it runs whatever no record covers: the
// merged report is the one process's still, and a shard that stopped
// early cost the merge time only.

// ShardRecords are what one shard of a search found: the records of its
// tasks, round by round.
type ShardRecords struct {
	// Index and Count say which shard: Index of Count, from 0.
	Index, Count int
	Rounds       []ShardRound
	// Paths, Walks and Transitions count what the shard ran, Violations
	// the paths whose record holds one.
	Paths, Walks, Transitions int64
	Violations                int
	// Stop says why the shard ended: StopExhausted or StopDepth (every
	// round it could reach), StopCycle (a fair cycle in its explored
	// graph), StopPaths (its share of the path budget), StopTime,
	// StopViolation or StopInterrupted.
	Stop Stop
}

// ShardRound is one round of a shard: its depth bound and the shard's
// tasks of it, in order.
type ShardRound struct {
	Round, Depth int
	Tasks        []ShardTask
}

// ShardTask is one task's records: every path of its subtree in order, up
// to where the shard stopped.
type ShardTask struct {
	Ord int64
	// Prefix marks the records of the paths that end above the split
	// depth before task Ord (shard 0 keeps them), not a task.
	Prefix  bool
	Records []Record
}

// Record is what a shard found on one path: its choices after the
// search's prefix with their kinds and numbers of options, where each step
// began, the hash (and graph step) of every state it checked, how its
// bounded part ended, and what its walk and the path check gave.
type Record struct {
	Choices []engine.Choice
	Starts  []int32
	Begun   int
	Checked int
	Hashes  []uint64
	Graph   []GraphStep
	End     End
	// Walked says the path walked, Cycle that its bounded part ended on a
	// cycle, Transitions counts its steps (bounded part and walk).
	Walked, Cycle bool
	Transitions   int64
	// Judged is the path check's verdict (Config.Check), when it judged
	// the path; its Detail is not kept.
	Judged *Judgement
	// Violation says the path is a violation: the merge runs it again to
	// rebuild it whole.
	Violation bool
}

// GraphStep is what the explored graph records of one state and the step
// into it (Config.Graph).
type GraphStep struct {
	Key     uint64
	Hot     bool
	Units   []uint64
	Unit    uint64
	Failure bool
	// Node is the node of the step's event (the node whose handler ran
	// it), to whom its clock questions belong (fair.Time).
	Node int
	// Repeat says the state's Hot and Units were given by an earlier
	// record of the same shard (a shard file writes them at a state's
	// first record only: every path replays the states of the paths
	// before it, and their units made most of a file); Units is then nil.
	Repeat bool
}

// record returns the Record of a speculative record (gr: the search's
// graph, which holds its states' info).
func (sr *specRec) record(gr *graphRun) Record {
	rec := Record{Choices: sr.choices, Starts: sr.starts, Begun: sr.begun, Checked: sr.checked, Hashes: sr.hashes, End: sr.end}
	for i, g := range sr.graph {
		hot, units, _ := gr.infos.get(sr.hashes[i], nil)
		rec.Graph = append(rec.Graph, GraphStep{Key: g.key, Hot: hot, Units: units, Unit: g.unit, Failure: g.failure, Node: int(g.node)})
	}
	if j := sr.job; j != nil {
		rec.Walked, rec.Cycle, rec.Transitions = j.stats.walked, j.stats.cycle, j.stats.transitions
		if j.stats.checked {
			jd := j.stats.judged
			jd.Detail = nil
			rec.Judged = &jd
		}
		rec.Violation = j.result != nil
	}
	return rec
}

// specRec returns the speculative record of a Record, for the coordinator
// to follow: a violation's is to be run again (redo). The info of its
// states goes to the graph's stateInfos (gr, nil without a graph); a
// step's choices are the record's own.
func (rec *Record) specRec(gr *graphRun) *specRec {
	sr := &specRec{choices: rec.Choices, starts: rec.Starts, begun: rec.Begun, checked: rec.Checked, hashes: rec.Hashes, end: rec.End, redo: rec.Violation}
	for i, g := range rec.Graph {
		sr.graph = append(sr.graph, graphStep{key: g.Key, unit: g.Unit, failure: g.Failure, node: uint16(g.Node)})
		if gr != nil && i < len(rec.Hashes) && !g.Repeat {
			gr.infos.put(rec.Hashes[i], g.Hot, g.Units)
		}
	}
	j := &job{walk: rec.Walked || rec.End.Reason == EndDepth || rec.End.Reason == EndCycle}
	j.stats.walked, j.stats.cycle, j.stats.transitions = rec.Walked, rec.Cycle, rec.Transitions
	// A bounded part that ended on a cycle of its own walks without
	// failures from there (walkFrom, job.ownCycle), which matters where
	// the merge runs the walk (a generator's record): the coordinator
	// follows only the paths of a Forker that prune, whose cycles are all
	// their own.
	j.ownCycle = rec.Cycle
	if rec.Judged != nil {
		j.stats.checked, j.stats.judged = true, *rec.Judged
	}
	sr.job = j
	return sr
}

// ErrShard marks a search that cannot be sharded or merged.
var ErrShard = fmt.Errorf("%w: shards", ErrConfig)

// notForker is the refusal to shard (or merge the shards of) a search
// whose strategy's explorer is not a Forker.
func notForker(s Strategy) error {
	return fmt.Errorf("%w: strategy %s cannot be sharded: its paths do not split into subtrees (its explorer is not an explore.Forker: "+
		"an order that searches each round depth first, whose subtrees below a depth can run apart, as dfs's)", ErrShard, s.Name())
}

// Shard runs shard index of count of the search c describes: in every
// round, the tasks numbered index modulo count (see above), with
// c.Workers workers, until the rounds run out, the search is interrupted
// or its budgets are spent: Time, MaxViolations violating paths, and a
// share of MaxPaths (twice the budget over count, and 100 more paths: the
// paths of a shard's tasks are not all paths of the search, and a merge
// runs itself what a shard left out); with the explored graph, also after
// a round at whose end the graph of the shard's records holds a fair
// cycle (see above). The strategy must be a Forker, and the search must
// not observe its walks (Config.Observe: a lasso detector's counts ride
// on each walk).
func Shard(ctx context.Context, c Config, index, count int) (*ShardRecords, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if count < 1 || index < 0 || index >= count {
		return nil, fmt.Errorf("%w: shard %d of %d", ErrShard, index, count)
	}
	if c.Observe != nil {
		return nil, fmt.Errorf("%w: walks observed (lasso detection) cannot be sharded", ErrShard)
	}
	ex, err := c.Strategy.New(c.setup())
	if err != nil {
		return nil, fmt.Errorf("%w: strategy %s: %w", ErrConfig, c.Strategy.Name(), err)
	}
	fk, ok := ex.(Forker)
	if !ok {
		return nil, notForker(c.Strategy)
	}
	var root *engine.Sim // the state after the prefix
	if len(c.Prefix) > 0 {
		if root, err = engine.Replay(c.System, c.Prefix, c.PrefixSteps, engine.Options{}); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrPrefix, err)
		}
	}
	r := &runner{cfg: c, ctx: ctx, start: time.Now(), seen: newVisited(1), stopAt: -1}
	defer r.seen.free()
	r.graph, _ = graphFor(&r.cfg)
	sg := newShardGraph(r, root)
	r.quit = make(chan struct{})
	sp := newSpeculation(r)
	sp.shard, sp.shards = index, count
	r.spec = sp
	sp.hints = newHintTable(hintBound(c.MaxStates, 0))
	var wg sync.WaitGroup
	jobs := make(chan *job) // no walk jobs: the workers run tasks only
	for range c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.worker(jobs, nil)
		}()
	}
	out := &ShardRecords{Index: index, Count: count}
	limit := int64(0)
	if c.MaxPaths > 0 {
		limit = 2*c.MaxPaths/int64(count) + 100
		sp.limit = limit
	}
	var deadline time.Time
	if c.Time > 0 {
		deadline = r.start.Add(c.Time)
	}
	// stop tells the workers the shard is done (they also stop at a
	// violation once r.stopping is set).
	stop := func(reason Stop) {
		out.Stop = reason
		r.stopping.Store(true)
	}
rounds:
	for round := 1; ; round++ {
		depth, ok := fk.RoundDepth(round)
		if !ok {
			stop(StopDepth)
			break
		}
		sp.startRound(round, depth, fk)
		sr := ShardRound{Round: round, Depth: depth}
		tasks := 0
		for {
			t := sp.nextTask()
			if t == nil {
				break
			}
			tasks++
			t.mu.Lock()
			for !t.done {
				t.cond.Wait()
			}
			recs := t.recs
			t.mu.Unlock()
			st := ShardTask{Ord: t.ord, Prefix: t.above}
			for _, rec := range recs {
				sg.add(rec)
				st.Records = append(st.Records, rec.record(r.graph))
				out.Paths++
				out.Transitions += rec.job.stats.transitions
				if rec.job.stats.walked {
					out.Walks++
				}
				if rec.job.result != nil {
					out.Violations++
				}
			}
			sr.Tasks = append(sr.Tasks, st)
			sp.donePaths.Add(int64(len(recs)))
			sp.passTask()
			switch {
			case ctx.Err() != nil:
				stop(StopInterrupted)
			case !deadline.IsZero() && time.Now().After(deadline):
				stop(StopTime)
			case out.Violations >= c.MaxViolations:
				stop(StopViolation)
			case limit > 0 && out.Paths >= limit:
				stop(StopPaths)
			}
			if r.stopping.Load() {
				out.Rounds = append(out.Rounds, sr)
				break rounds
			}
		}
		out.Rounds = append(out.Rounds, sr)
		// A cancelled search's generator stops (and makes no more tasks)
		// before the tasks do: the round then looks exhausted. And a round
		// may have no task of this shard's, after which no task checks
		// the time.
		switch {
		case ctx.Err() != nil:
			stop(StopInterrupted)
		case !deadline.IsZero() && time.Now().After(deadline):
			stop(StopTime)
		}
		if r.stopping.Load() {
			break
		}
		if depth < minSpecDepth {
			continue // no tasks in so shallow a round: the merge runs it
		}
		if sp.generated() == 0 {
			// No path of the round reached the split depth, so none
			// reached its bound: the search is exhausted.
			stop(StopExhausted)
			break
		}
		if sg.cycle(out.Paths) {
			stop(StopCycle)
			break
		}
	}
	sp.stop()
	close(r.quit)
	wg.Wait()
	return out, nil
}

// shardGraph is the explored graph of what a shard ran: the graph steps of
// its records, recorded from the root (the state after the prefix) as the
// coordinator records those of the records it follows (recordStep), in
// the search's graphRun, which the shard's coordinator does not use
// otherwise.
type shardGraph struct {
	r *runner
	// root is the state after the prefix; its simulator guards the checks
	// (the system's properties and the confirmation's replay run there).
	root *engine.Sim
	// prev is the last record recorded: the states of the steps a record
	// shares with it are recorded already (the graph's ids of the path
	// hold them).
	prev *specRec
	ch   []int32
	// off: a check hung in the system's code and was abandoned.
	off bool
}

// newShardGraph returns the graph of shard r's records, whose root is
// root (nil: the initial state); nil when the search has no graph, or its
// system does not boot (the merge reports it).
func newShardGraph(r *runner, root *engine.Sim) *shardGraph {
	c := &r.cfg
	if r.graph == nil {
		return nil
	}
	if root == nil {
		s, err := engine.NewGuarded(c.System, engine.Options{}, c.HandlerTimeout)
		if s == nil || err != nil {
			return nil
		}
		root = s
	}
	if err := root.Guard(c.HandlerTimeout, func() error {
		r.recordRoot(root)
		return nil
	}); err != nil {
		return nil
	}
	return &shardGraph{r: r, root: root}
}

// add records the states of record sr and the steps into them, past those
// it shares with the previous record.
func (sg *shardGraph) add(sr *specRec) {
	if sg == nil || sg.off {
		return
	}
	k := 0 // the steps shared with the previous record
	if p := sg.prev; p != nil {
		for k < len(p.graph) && k < len(sr.graph) && slices.EqualFunc(p.choices[p.starts[k]:p.stepEnd(k)], sr.choices[sr.starts[k]:sr.stepEnd(k)],
			func(a, b engine.Choice) bool { return a.Value == b.Value }) {
			k++
		}
	}
	for ; k < len(sr.graph); k++ {
		sg.ch = sg.ch[:0]
		for _, ch := range sr.choices[sr.starts[k]:sr.stepEnd(k)] {
			sg.ch = append(sg.ch, ch.Value)
		}
		sg.r.recordStep(k+1, &sr.graph[k], sr.hashes[k], sr.choices[sr.starts[k]:sr.stepEnd(k)], sg.ch)
	}
	sg.prev = sr
}

// cycle reports whether the graph holds a fair cycle of hot states that
// the search's confirmation accepts (checkGraph), looking when it changed
// since the last look; index is the shard's paths so far.
func (sg *shardGraph) cycle(index int64) bool {
	if sg == nil || sg.off || !sg.r.graph.due(true, index) {
		return false
	}
	var v *Violation
	if err := sg.root.Guard(sg.r.cfg.HandlerTimeout, func() error {
		v = sg.r.checkGraph(index)
		return nil
	}); err != nil {
		sg.off = true
		return false
	}
	return v != nil
}

// mergeRecords prepares a merge: the tasks of every shard's rounds in order,
// checked to be the shards 0 to n-1 of one search.
func mergeRecords(shards []*ShardRecords, gr *graphRun) (map[int][]*task, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no shards to merge", ErrShard)
	}
	n := shards[0].Count
	seen := make([]bool, n)
	for _, s := range shards {
		if s.Count != n || s.Index < 0 || s.Index >= n {
			return nil, fmt.Errorf("%w: shard %d of %d among shards of %d", ErrShard, s.Index, s.Count, n)
		}
		if seen[s.Index] {
			return nil, fmt.Errorf("%w: shard %d of %d given twice", ErrShard, s.Index, n)
		}
		seen[s.Index] = true
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("%w: shard %d of %d is missing", ErrShard, i, n)
	}
	rounds := map[int][]*task{}
	for _, s := range shards {
		for _, r := range s.Rounds {
			for k := range r.Tasks {
				st := &r.Tasks[k]
				t := newTask(st.Ord, r.Round, r.Depth, nil)
				t.above = st.Prefix
				t.recs = make([]*specRec, len(st.Records))
				for i := range st.Records {
					t.recs[i] = st.Records[i].specRec(gr)
				}
				// The records live on in the tasks, which the search lets
				// go of as it passes them: their shard's copy goes now
				// (a merge of 245 MB of shard files held 650 MB).
				st.Records = nil
				t.done = true
				rounds[r.Round] = append(rounds[r.Round], t)
			}
		}
		s.Rounds = nil
	}
	for _, ts := range rounds {
		// The paths above the split before task k come before it, in
		// the order shard 0 gave them (they may take several tasks).
		sort.SliceStable(ts, func(i, j int) bool {
			return ts[i].ord < ts[j].ord || ts[i].ord == ts[j].ord && ts[i].above && !ts[j].above
		})
	}
	return rounds, nil
}

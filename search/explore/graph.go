package explore

import (
	"fmt"
	"slices"
	"sync"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/fair"
)

// GraphConfig turns on the explored state graph (seed 002 §4.2): the
// executor records every state the bounded parts reach (hot or not, and
// the event sources enabled in it) and every transition between them, and
// looks for a reachable fair cycle of hot states in it (fair.FairCycle)
// after every round of the strategy, whenever the graph doubled since it
// last looked, and when the search ends, so that a cycle is found as soon
// as the explored part of the state space holds one (seed 002's iterative
// cycle detection). A cycle found in a part of the graph is a cycle of the
// whole: the search need not be exhausted for it to be real.
//
// The graph's cycle is replayed on the system (fair.Graph.Execution) and
// handed to Confirm; a confirmed one is a violation, committed in path
// order after the paths run so far. Recording needs state hashing and a
// liveness property; without either the graph stays empty.
type GraphConfig struct {
	// MaxStates bounds the graph (default fair.DefaultMaxStates): past it
	// new states are not recorded, and a cycle through them is not found.
	MaxStates int
	// Key names a graph state (default engine.Sim.Hash, the exact state).
	// A coarser key (a partial hash) merges states: its cycles are only
	// candidates, and Confirm must replay them.
	Key func(*engine.Sim) uint64
	// NodeFairness makes nodes the fairness units instead of event
	// sources (as lasso.NodeFairness).
	NodeFairness bool
	// Confirm checks a candidate and returns the violation to report
	// (Verdict, Path and Depth are filled in by the executor), or nil to
	// reject it. Without Confirm a candidate is reported as it is: outcome
	// walks.Observed, its *fair.Lasso in Violation.Observed.
	Confirm func(Candidate) *Violation
	// MaxRejects stops looking after this many rejected candidates in
	// all (default 8); one search tries up to the rest of them.
	MaxRejects int
}

// Candidate is a lasso of the explored graph as an execution: Choices
// replay it from the initial state (the search's prefix included) with
// failures on for the first Stem steps and off after them; state Stem
// starts the cycle and state Stem+Length ends it, with the same key.
type Candidate struct {
	Choices      []int32
	Stem, Length int
	// Lasso is the graph's lasso (its steps name graph states).
	Lasso *fair.Lasso
}

// GraphStats say what the explored graph held and what was found in it.
type GraphStats struct {
	States, Edges, Bytes int
	// Checks counts the searches for a fair cycle, Rejected the candidates
	// Confirm (or the replay) rejected.
	Checks, Rejected int
	// Full says the graph reached its bound.
	Full bool
	// TimeWaits, for a search that exhausted its states and found no fair
	// cycle in the graph, counts the strongly connected components of hot
	// states that hold a cycle fair to every unit once fairness to time is
	// set aside (fair.Graph.FairIgnoringTime): cycles in which a node asks
	// the clock and is told "not yet" at every ask. They were set aside as
	// unfair to time, which is right if that node's deadline is fixed and
	// wrong if it keeps moving, which the graph cannot tell: with any of
	// them, the graph is no proof of liveness.
	TimeWaits int
}

// stateInfos holds what the graph records of the states the speculating
// workers reached (whether each is hot, the fairness units enabled in it),
// by exact hash: the workers compute it once between them, when one of
// them first reaches the state, and the coordinator reads it when it adds
// the state to the graph from a record (recordStep). An exact hash names
// one state, so what it holds does not depend on which worker put it
// there. Performance: the shards hold no pointers (the collector does not
// scan them), each under its own lock, and index their states in a flat
// open-addressing table (linear probing, at most three quarters full),
// which costs less than a map.
type stateInfos struct {
	shards [infoShards]infoShard
}

const infoShards = 64

type infoShard struct {
	mu    sync.Mutex
	slots []infoSlot
	shift uint
	// State i is hot[i], with units[off[i]:off[i+1]] enabled.
	hot   []bool
	off   []int32
	units []uint64
	_     [64]byte // keeps two shards' locks off one cache line
}

type infoSlot struct {
	h  uint64
	i1 int32 // the index in hot and off + 1; 0: an empty slot
}

func (si *stateInfos) shard(h uint64) *infoShard { return &si.shards[h>>58] }

// slot returns the slot of hash h: its own, or the empty one where it
// goes.
func (sh *infoShard) slot(h uint64) *infoSlot {
	mask := uint64(len(sh.slots) - 1)
	for i := (h * 0x9e3779b97f4a7c15) >> sh.shift; ; i = (i + 1) & mask {
		if s := &sh.slots[i]; s.i1 == 0 || s.h == h {
			return s
		}
	}
}

// put records state h's info, unless it is recorded already.
func (si *stateInfos) put(h uint64, hot bool, units []uint64) {
	sh := si.shard(h)
	sh.mu.Lock()
	if sh.slots == nil {
		sh.slots, sh.shift, sh.off = make([]infoSlot, 64), 64-6, []int32{0}
	}
	if s := sh.slot(h); s.i1 == 0 {
		if 4*(len(sh.hot)+1) > 3*len(sh.slots) {
			old := sh.slots
			sh.slots, sh.shift = make([]infoSlot, 2*len(old)), sh.shift-1
			for _, o := range old {
				if o.i1 != 0 {
					*sh.slot(o.h) = o
				}
			}
			s = sh.slot(h)
		}
		*s = infoSlot{h: h, i1: int32(len(sh.hot)) + 1}
		sh.hot = append(sh.hot, hot)
		sh.units = append(sh.units, units...)
		sh.off = append(sh.off, int32(len(sh.units)))
	}
	sh.mu.Unlock()
}

// get returns state h's info, its units appended to units; ok is false
// when it is not recorded.
func (si *stateInfos) get(h uint64, units []uint64) (hot bool, _ []uint64, ok bool) {
	sh := si.shard(h)
	sh.mu.Lock()
	if sh.slots != nil {
		if s := sh.slot(h); s.i1 != 0 {
			i := s.i1 - 1
			hot, units, ok = sh.hot[i], append(units, sh.units[sh.off[i]:sh.off[i+1]]...), true
		}
	}
	sh.mu.Unlock()
	return hot, units, ok
}

// graphRun is the explored graph of one search.
type graphRun struct {
	// infos holds what the graph records of the states the speculating
	// workers reached (graphStepOf).
	infos     stateInfos
	c         *GraphConfig
	g         *fair.Graph
	ids       []int32 // per state of the current path after the prefix: its graph id, or -1
	units     []uint64
	ch        []int32
	version   uint64 // the graph's version at the last check
	checked   int    // states at the last check
	checkedAt int64  // the path index of the last check
	rejected  int
	checks    int
	done      bool // a cycle was reported, or too many were rejected
}

func newGraphRun(c *Config) *graphRun {
	if c.Graph == nil || c.NoHashing || len(c.System.Liveness) == 0 {
		return nil
	}
	gc := *c.Graph
	if gc.MaxRejects <= 0 {
		gc.MaxRejects = 8
	}
	return &graphRun{c: &gc, g: fair.New(gc.MaxStates)}
}

// unitOf returns the fairness unit of a ready event of s: its source
// (engine.Sim.FairSource), or with node fairness its node.
func unitOf(s *engine.Sim, ev *engine.Event, nodeFairness bool) uint64 {
	if nodeFairness && !ev.Kind.IsFailure() {
		return uint64(ev.Node) + 1
	}
	return s.FairSource(*ev)
}

// lastUnit returns the fairness unit of the event s's last step ran
// (engine.Sim.LastFairSource), as unitOf does of a ready one.
func lastUnit(s *engine.Sim, nodeFairness bool) uint64 {
	if ev := s.LastEvent(); nodeFairness && !ev.Kind.IsFailure() {
		return uint64(ev.Node) + 1
	}
	return s.LastFairSource()
}

// recordRoot records the state after the prefix, the graph's root, the
// first time a path reaches it.
func (r *runner) recordRoot(s *engine.Sim) {
	if gr := r.graph; gr != nil && len(gr.ids) == 0 {
		r.record(s, 0, s.Hash())
	}
}

// record records state k of the current path after the prefix (hash h),
// and the transition into it from state k-1.
func (r *runner) record(s *engine.Sim, k int, h uint64) {
	gr := r.graph
	key := h
	if gr.c.Key != nil {
		key = gr.c.Key(s)
	}
	id, known := gr.g.State(key)
	if !known {
		hot, units := stateOf(s, r.cfg.System.Liveness, gr.c.NodeFairness, gr.units[:0])
		gr.units = units
		var err error
		if id, err = gr.g.AddState(key, hot, units); err != nil {
			id = -1
		}
	}
	ev := s.LastEvent()
	gr.ch = gr.ch[:0]
	tm := fair.TimeNone
	if k > 0 {
		step := s.Choices()[s.StepStart(s.Steps()-1):]
		for _, c := range step {
			gr.ch = append(gr.ch, c.Value)
		}
		tm = fair.TimeOf(step)
	}
	gr.step(k, id, lastUnit(s, gr.c.NodeFairness), int(ev.Node), ev.Kind.IsFailure(), tm, gr.ch)
}

// stateOf returns whether s is hot (a liveness property fails: one that
// panics is no evidence) and the fairness units enabled in it, appended to
// units.
func stateOf(s *engine.Sim, liveness []sim.Property, nodeFairness bool, units []uint64) (bool, []uint64) {
	i, err := s.FirstViolated(liveness)
	for _, ev := range s.Ready() {
		if !ev.Kind.IsFailure() {
			units = append(units, unitOf(s, &ev, nodeFairness))
		}
	}
	return err == nil && i >= 0, units
}

// step records that state k of the path is graph state id (-1: not
// recorded), reached from state k-1 by an event of fairness unit unit on
// node node with choices ch, of time class tm (fair.TimeOf the step's
// choices).
func (gr *graphRun) step(k int, id int32, unit uint64, node int, failure bool, tm fair.Time, ch []int32) {
	for len(gr.ids) <= k {
		gr.ids = append(gr.ids, -1)
	}
	gr.ids[k] = id
	if k == 0 || id < 0 || gr.ids[k-1] < 0 {
		return
	}
	gr.g.AddEdge(gr.ids[k-1], id, unit, node, failure, tm, ch)
}

// graphStep is what a speculative record keeps for the graph of one state
// of its path and the step into it (graphStepOf), for the coordinator to
// record (recordStep): the state's key, and the fairness unit of the step,
// its event's node and whether it is a failure. Whether the state is hot
// and the units enabled in it are in the graph's stateInfos (by the
// state's exact hash, which the record keeps), the step's choices (and
// with their kinds its time class) in the record's choices.
// Performance: it holds no pointers, so the records' arrays of them cost
// the collector nothing to scan; the node sits in what would be padding.
type graphStep struct {
	key     uint64
	unit    uint64
	failure bool
	node    uint16
}

// graphStepOf returns the graph step of s's current state (hash h),
// reached by its last step, and makes sure the state's info is in the
// graph's stateInfos, unless the caller knows it is (units is scratch
// memory for it, returned for reuse). Performance: it computes the info
// and puts it without first asking stateInfos whether it holds it: a state
// the caller does not know is nearly always new to stateInfos too
// (randtree seed 7: 189,749 of 198,095), and put keeps the first info of a
// state (all are the same).
func (r *runner) graphStepOf(s *engine.Sim, h uint64, known bool, units []uint64) (graphStep, []uint64) {
	gr := r.graph
	gc := gr.c
	st := graphStep{key: h}
	if gc.Key != nil {
		st.key = gc.Key(s)
	}
	if !known {
		var hot bool
		hot, units = stateOf(s, r.cfg.System.Liveness, gc.NodeFairness, units[:0])
		gr.infos.put(h, hot, units)
	}
	ev := s.LastEvent()
	st.unit, st.failure, st.node = lastUnit(s, gc.NodeFairness), ev.Kind.IsFailure(), uint16(ev.Node)
	return st, units
}

// recordStep records state k of the current path (exact hash h, reached
// by a step of choices ch, whose kinds are in step: the record's choices
// of the step) from a speculative record's graph step. The worker that
// recorded the step put the state's info in stateInfos before it handed
// the record over; a state whose info is missing all the same is not
// recorded.
func (r *runner) recordStep(k int, st *graphStep, h uint64, step []engine.Choice, ch []int32) {
	gr := r.graph
	id, known := gr.g.State(st.key)
	if !known {
		hot, units, ok := gr.infos.get(h, gr.units[:0])
		gr.units = units
		id = -1
		if ok {
			var err error
			if id, err = gr.g.AddState(st.key, hot, units); err != nil {
				id = -1
			}
		}
	}
	gr.step(k, id, st.unit, int(st.node), st.failure, fair.TimeOf(step), ch)
}

// checkEvery is how many paths may run before a changed graph is searched
// again, when no round ends and the graph does not double: at least 256,
// and one for every 8 states of the graph, since a search costs time
// linear in the graph (a search of a graph of n states costs about as much
// as n/40 paths of a fixed system's dfs), so that searching costs a small
// part of the paths' time however large the graph grows. (A search after
// one that found nothing costs time linear in what was added since, as a
// rule: fair.Graph.FairCycles; the schedule is kept as it was, since it
// decides when a cycle is found.)
func (gr *graphRun) checkEvery() int64 { return max(256, int64(gr.g.States()/8)) }

// due reports whether the graph is to be searched now, if it changed since
// the last search: at the end of a round or of the search, when it doubled,
// or checkEvery paths after the last search.
func (gr *graphRun) due(roundEnded bool, index int64) bool {
	if gr == nil || gr.done || gr.g.Version() == gr.version || len(gr.ids) == 0 || gr.ids[0] < 0 {
		return false
	}
	return roundEnded || gr.g.States() >= 2*max(gr.checked, 64) || index-gr.checkedAt >= gr.checkEvery()
}

// checkGraph searches the graph for a fair cycle of hot states and returns
// the violation it makes, or nil: the graph's alternatives (fair.FairCycles)
// in order until one replays on the system and Confirm accepts it, or
// MaxRejects of them in all were rejected.
func (r *runner) checkGraph(index int64) *Violation {
	gr := r.graph
	gr.version, gr.checked, gr.checkedAt = gr.g.Version(), gr.g.States(), index
	gr.checks++
	for _, l := range gr.g.FairCycles(gr.ids[0], gr.c.MaxRejects-gr.rejected) {
		if v := r.confirm(l, index); v != nil {
			gr.done = true
			return v
		}
		gr.rejected++
	}
	gr.done = gr.rejected >= gr.c.MaxRejects
	return nil
}

// confirm replays lasso l on the system and hands it to Confirm; it returns
// the violation, or nil when l does not replay or Confirm rejects it.
func (r *runner) confirm(l *fair.Lasso, index int64) *Violation {
	gr, c := r.graph, &r.cfg
	s, err := engine.Replay(c.System, c.Prefix, c.PrefixSteps, engine.Options{})
	if err != nil {
		return nil
	}
	pre := s.ChoiceValues()
	stem, cycle, err := gr.g.Execution(s, l, gr.c.Key)
	if err != nil {
		return nil
	}
	cand := Candidate{Choices: slices.Concat(pre, stem, cycle), Stem: c.PrefixSteps + len(l.Stem), Length: len(l.Cycle), Lasso: l}
	var v *Violation
	if gr.c.Confirm != nil {
		v = gr.c.Confirm(cand)
	} else {
		prop := ""
		if i, _ := s.FirstViolated(c.System.Liveness); i >= 0 {
			prop = c.System.Liveness[i].Name
		}
		v = &Violation{Outcome: walks.Observed, Property: prop, Observed: l, Choices: cand.Choices,
			Steps: cand.Stem + cand.Length, LiveAfter: cand.Stem, FailuresUntil: cand.Stem}
	}
	if v == nil {
		return nil
	}
	v.Verdict, v.Path = Liveness, index
	v.Depth = cand.Stem - c.PrefixSteps
	v.Graph = &GraphLasso{Stem: len(l.Stem), Length: len(l.Cycle), SCC: l.SCC, States: gr.g.States(), Edges: gr.g.Edges()}
	return v
}

// GraphLasso says where a violation found in the explored graph came from.
type GraphLasso struct {
	// Stem and Length are the graph lasso's steps; SCC the size of the
	// strongly connected component its cycle runs in; States and Edges the
	// graph's size when it was found.
	Stem, Length, SCC, States, Edges int
}

// String describes the graph lasso in words.
func (g *GraphLasso) String() string {
	steps := func(n int) string {
		if n == 1 {
			return "1 step"
		}
		return fmt.Sprintf("%d steps", n)
	}
	return fmt.Sprintf("a fair cycle of %s in a strongly connected component of %d hot states of the explored state graph (%d states, %d transitions), %s from the initial state",
		steps(g.Length), g.SCC, g.States, g.Edges, steps(g.Stem))
}

// graphStats returns the graph's statistics (nil without a graph).
func (r *runner) graphStats() *GraphStats {
	st, ok := r.graphStatsNow()
	if !ok {
		return nil
	}
	return &st
}

// timeWaits returns GraphStats.TimeWaits of a search that stopped for
// reason stop: when it exhausted its states and the graph's last search,
// of the whole graph, found no fair cycle (nor any that Confirm
// rejected), the components of hot states that hold a fair cycle once
// fairness to time is set aside; otherwise 0. It searches the graph once,
// at the end of the search: no check on the way does.
func (gr *graphRun) timeWaits(stop Stop) int {
	if gr == nil || stop != StopExhausted || gr.done || gr.rejected > 0 || gr.g.Version() != gr.version || len(gr.ids) == 0 || gr.ids[0] < 0 {
		return 0
	}
	return gr.g.FairIgnoringTime(gr.ids[0])
}

// graphStatsNow returns the graph's statistics; false without a graph.
func (r *runner) graphStatsNow() (GraphStats, bool) {
	gr := r.graph
	if gr == nil {
		return GraphStats{}, false
	}
	return GraphStats{States: gr.g.States(), Edges: gr.g.Edges(), Bytes: gr.g.Bytes(), Checks: gr.checks, Rejected: gr.rejected, Full: gr.g.Full()}, true
}

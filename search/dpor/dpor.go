package dpor

import (
	"math/bits"
	"slices"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

func init() { explore.Register(Strategy{}) }

// Strategy is source-set DPOR with sleep sets over the bounded search.
type Strategy struct{}

// Name implements explore.Strategy.
func (Strategy) Name() string { return "dpor" }

// ReducesOrders implements explore.OrderReducer: DPOR runs one order of
// the events that commute.
func (Strategy) ReducesOrders() bool { return true }

// Deepens implements explore.Deepener: its rounds deepen by
// Setup.DepthStep.
func (Strategy) Deepens() bool { return true }

// Doc implements explore.Strategy.
func (Strategy) Doc() string {
	return "bounded search with dynamic partial-order reduction (source sets and sleep sets): one execution per order of the dependent events"
}

// Params implements explore.Strategy.
func (Strategy) Params() []sim.ParamSpec {
	return []sim.ParamSpec{
		{Name: "sleep", Kind: sim.ParamBool, Default: "true", Doc: "sleep sets: end a path whose every way on is explored by other paths"},
	}
}

// New implements explore.Strategy.
func (Strategy) New(s explore.Setup) (explore.Explorer, error) {
	sleep := true
	if _, ok := s.Params["sleep"]; ok {
		sleep = s.Params.Bool("sleep")
	}
	return &explorer{Deepening: explore.NewDeepening(s), sched: scheduler{sleepOn: sleep, counts: map[uint64]int32{}}}, nil
}

type explorer struct {
	explore.Deepening
	sched scheduler
}

// Next implements explore.Explorer.
func (e *explorer) Next(prev *explore.End) (explore.Path, bool) {
	if !e.Advance(prev, e) {
		return explore.Path{}, false
	}
	e.sched.begin()
	st := e.Status()
	return explore.Path{Round: st.Rounds, Depth: st.Depth, Scheduler: &e.sched}, true
}

// NextInRound implements explore.Rounds: the path of the next backtrack
// point the race analysis of prev added.
func (e *explorer) NextInRound(prev *explore.End) bool {
	if prev.Reason == explore.EndCycle {
		e.sched.expandLast()
	}
	e.sched.analyse()
	return e.sched.backtrack()
}

// StartRound implements explore.Rounds: a new exploration with a deeper
// bound.
func (e *explorer) StartRound() { e.sched.nodes = e.sched.nodes[:0] }

// Effects of an executed event beyond its node(s), which make it
// dependent on events at other nodes.
const (
	effInvoke uint8 = 1 << iota // recorded an invocation in the history
	effReturn                   // recorded a response, or abandoned operations (a reset)
	effShared                   // used state every node shares: Context.Monotone's counter, the monitors
	effGlobal                   // a driver request held back by a condition over the whole state
)

// desc describes one event for the reduction: its identity, where it
// happens, and what it touches.
type desc struct {
	// id is stable across executions: the event's source (a connection,
	// a timer, a node's driver, ...) and how many events of that source
	// ran before it in the path.
	id uint64
	// node is where it happens; peer the other end of a connection break,
	// or the sender of a datagram a duplication copies (-1 otherwise).
	node, peer int32
	// fail is the failure kind + 1 (failures share budgets), or 0.
	fail uint8
	// eff are the effects seen when it ran.
	eff uint8
	// cause is the step (absolute) that made it pending, -1 for none.
	cause int32
	key   uint64 // the source, whose count its running advances
}

// dependent reports whether the order of a and b can matter: they touch a
// common node, draw on the same failure budget, both use shared state
// (the Monotone counter, the monitors), one records a response and the
// other an invocation (the history's canonical form orders exactly
// those), one is a driver request whose condition reads the whole state
// (any event may enable or disable it), or one is a crash and the other
// may change what its connections hold (see crashDependent).
func dependent(a, b *desc) bool {
	switch {
	case (a.eff|b.eff)&effGlobal != 0,
		a.node == b.node,
		a.peer >= 0 && (a.peer == b.node || a.peer == b.peer),
		b.peer >= 0 && b.peer == a.node,
		a.fail != 0 && a.fail == b.fail,
		a.eff&effShared != 0 && b.eff&effShared != 0,
		a.eff&effInvoke != 0 && b.eff&effReturn != 0,
		a.eff&effReturn != 0 && b.eff&effInvoke != 0,
		crashDependent(a, b), crashDependent(b, a):
		return true
	}
	return false
}

const (
	failCrash = uint8(engine.EvCrash) + 1
	failDrop  = uint8(engine.EvDrop) + 1
	failDup   = uint8(engine.EvDuplicate) + 1
)

// crashDependent reports whether a is a crash and b an event whose order
// with it can matter although b happens at another node: every event but
// the drops and duplications of datagrams (those to the crashed node
// happen at it). A crash loses what is in flight on the crashed node's
// connections and tells each peer with something in flight of the break
// (engine: crash), so its effect depends on every step that may send to
// the node, receive from it, or add to or clear a peer's connection
// errors: any handler (it may send anywhere), a reset (its Start is one,
// and it clears the node's connection errors) and a break (its connection
// errors and the crash's queue at a common peer in the order they come).
// Which handler sends where is not known to the reduction, so all are
// taken as dependent.
func crashDependent(a, b *desc) bool {
	return a.fail == failCrash && b.fail != failDrop && b.fail != failDup
}

// node is one choice point of the current path: an event choice, or a
// handler's Rand or Elapsed.
type node struct {
	event bool
	n     int32 // alternatives
	val   int32 // the one taken on this path
	// Event choice points:
	ready []desc  // the ready events
	sleep []desc  // the sleep set on arrival
	done  []int32 // ready indexes explored from here, in order (val last)
	back  []int32 // the backtrack set: ready indexes to explore (done too)
	eff   []uint8 // per ready index, the effects seen when it ran from here
	// disabled lists the ready events (indexes) the step taken on this
	// path disabled: they were ready before it and are not after it.
	disabled []int32
}

// scheduler answers a path's choice points and watches its steps.
type scheduler struct {
	sleepOn bool
	nodes   []node
	pos     int // the next choice point of this path
	// The path's steps: the event choice point of each (index in nodes)
	// and the event it ran, with its effects.
	steps []int
	path  []desc
	base  int // the absolute step of the path's first step (-1: none yet)
	// counts[source] is how many events of the source ran so far.
	counts map[uint64]int32
	// next is the sleep set of the state the last step led to.
	next []desc
	// lastEvent is the event choice point of the step running.
	lastEvent int
	after     []uint64 // the ids of the events ready after the last step
}

// begin prepares a new path.
func (s *scheduler) begin() {
	s.pos, s.base, s.lastEvent = 0, -1, -1
	s.steps, s.path, s.next = s.steps[:0], s.path[:0], s.next[:0]
	clear(s.counts)
}

// describe returns the descriptions of the ready events.
func (s *scheduler) describe(ready []engine.Event) []desc {
	out := make([]desc, len(ready))
	for i := range ready {
		out[i] = s.describeOne(&ready[i])
	}
	return out
}

func (s *scheduler) describeOne(e *engine.Event) desc {
	d := desc{node: int32(e.Node), peer: -1, cause: e.Cause}
	key := e.Source()
	var tag uint64
	switch e.Kind {
	case engine.EvDatagram, engine.EvDrop, engine.EvDuplicate:
		// Datagrams of one pair may be reordered: tell them apart by
		// content (equal datagrams are interchangeable), and so their
		// drops and duplications (the duplications of two datagrams at
		// one node are two events, not the first and second of one
		// source).
		key = mix(engine.Event{Kind: engine.EvDatagram, Node: e.Node, Peer: e.Peer}.Source(), engine.Hash(e.Msg))
		switch e.Kind {
		case engine.EvDrop:
			tag = 1
		case engine.EvDuplicate:
			tag = 2
		}
	case engine.EvBreak:
		key = mix(key, uint64(e.Peer)+1)
		d.peer = int32(e.Peer)
	}
	if e.Kind == engine.EvDuplicate {
		// The copy joins the datagrams in flight as if sent at the
		// duplication: after those the sender sent before it, before
		// those it sends after it (without reordering, the order they
		// arrive in). So it happens at the sender too.
		d.peer = int32(e.Peer)
	}
	if e.Kind.IsFailure() {
		d.fail = uint8(e.Kind) + 1
	}
	if e.Kind == engine.EvPartition || e.Kind == engine.EvHeal {
		// A partition decides the fate of whatever crosses it, sent at
		// any node: a datagram lost or delivered, a message held.
		d.eff = effGlobal
	}
	if e.Kind == engine.EvReset {
		d.eff = effReturn // it may abandon pending operations
	}
	d.key = key
	d.id = mix(mix(key, uint64(s.counts[key])), tag)
	return d
}

// ChooseEvent implements engine.EventChooser.
func (s *scheduler) ChooseEvent(ready []engine.Event, _ []float64) int {
	i := s.pos
	s.pos++
	s.lastEvent = i
	if i < len(s.nodes) {
		if nd := &s.nodes[i]; nd.event && int(nd.n) == len(ready) {
			return int(nd.val)
		}
		s.nodes = s.nodes[:i] // the execution changed under us: start afresh here
	}
	descs := s.describe(ready)
	nd := node{event: true, n: int32(len(ready)), ready: descs, sleep: slices.Clone(s.next), eff: make([]uint8, len(ready))}
	for r := range descs {
		if !asleep(nd.sleep, descs[r].id) {
			nd.val = int32(r)
			break
		}
	}
	nd.done = []int32{nd.val}
	nd.back = []int32{nd.val}
	s.nodes = append(s.nodes, nd)
	return int(nd.val)
}

// Choose implements engine.Chooser for the handlers' Rand and Elapsed:
// every answer is explored.
func (s *scheduler) Choose(_ engine.ChoiceKind, n int, _ []float64) int {
	i := s.pos
	s.pos++
	if i < len(s.nodes) {
		if nd := &s.nodes[i]; !nd.event && int(nd.n) == n {
			return int(nd.val)
		}
		s.nodes = s.nodes[:i]
	}
	s.nodes = append(s.nodes, node{n: int32(n)})
	return 0
}

// Watch implements explore.Watcher: it records the step's event and
// effects, computes the sleep set of the state it led to, and ends the
// path when every ready event there sleeps.
func (s *scheduler) Watch(sm *engine.Sim) bool {
	if s.lastEvent < 0 {
		return true
	}
	step := sm.Steps() - 1
	if s.base < 0 {
		s.base = step
	}
	nd := &s.nodes[s.lastEvent]
	d := nd.ready[nd.val]
	if sm.Shared(step) {
		d.eff |= effShared
	}
	if sm.Global(step) {
		d.eff |= effGlobal
	}
	h := sm.History()
	for k := len(h) - 1; k >= 0 && h[k].Step == sm.Steps(); k-- {
		if h[k].Kind == sim.Invocation {
			d.eff |= effInvoke
		} else {
			d.eff |= effReturn
		}
	}
	nd.eff[nd.val] |= d.eff
	s.steps = append(s.steps, s.lastEvent)
	s.path = append(s.path, d)
	s.counts[d.key]++
	s.lastEvent = -1
	// What the step disabled (a datagram's drop by its delivery, the
	// failures of a budget it used up, a timer it cancelled) can only run
	// before it: a race that the executions never show.
	ready := sm.Ready()
	s.after = s.after[:0]
	for i := range ready {
		s.after = append(s.after, s.describeOne(&ready[i]).id)
	}
	nd.disabled = nd.disabled[:0]
	for r := range nd.ready {
		if id := nd.ready[r].id; int32(r) != nd.val && id != d.id && !slices.Contains(s.after, id) {
			nd.disabled = append(nd.disabled, int32(r))
		}
	}
	if !s.sleepOn {
		return true
	}
	// The sleep set of the new state: what slept here, and what was
	// explored here before this event, that does not depend on it.
	s.next = s.next[:0]
	for _, q := range nd.sleep {
		if !dependent(&q, &d) {
			s.next = append(s.next, q)
		}
	}
	for _, r := range nd.done[:len(nd.done)-1] {
		q := nd.ready[r]
		q.eff = nd.eff[r]
		if !dependent(&q, &d) {
			s.next = append(s.next, q)
		}
	}
	if len(s.next) == 0 || len(ready) == 0 {
		return true
	}
	for _, id := range s.after {
		if !asleep(s.next, id) {
			return true
		}
	}
	return false // sleep-set blocked
}

func asleep(sleep []desc, id uint64) bool {
	for i := range sleep {
		if sleep[i].id == id {
			return true
		}
	}
	return false
}

// expandLast adds every event ready in the state before the path's last
// step to that state's backtrack set. The path returned there to a state
// of its own and was cut, which hides the races between its steps and
// the steps that would follow: the cycle proviso of partial-order
// reduction (a state of every cycle is fully expanded; Godefroid 1996,
// condition C3) keeps an event that the cycle's states all postpone from
// being left out for good.
func (s *scheduler) expandLast() {
	if len(s.steps) == 0 {
		return
	}
	nd := &s.nodes[s.steps[len(s.steps)-1]]
	for r := range nd.ready {
		if !slices.Contains(nd.back, int32(r)) {
			nd.back = append(nd.back, int32(r))
		}
	}
}

// analyse finds the races of the path just run and adds to the backtrack
// sets what reverses them (source-DPOR, Abdulla et al., POPL 2014,
// Algorithm 1): for every pair of dependent steps i < j that no other
// chain of dependences or causes orders, the steps between them that do
// not happen after i, followed by j, are an execution that reverses the
// race; unless one of its first events is already explored (or to be) in
// the state before i, one of them is added there.
func (s *scheduler) analyse() {
	n := len(s.path)
	if n == 0 {
		return
	}
	for _, k := range s.steps {
		nd := &s.nodes[k]
		for _, r := range nd.disabled {
			if !slices.ContainsFunc(nd.back, func(b int32) bool { return nd.ready[b].id == nd.ready[r].id }) {
				nd.back = append(nd.back, r)
			}
		}
	}
	words := (n + 63) / 64
	hb := make([]uint64, n*words) // hb[j]: the steps that happen before j
	row := func(j int) []uint64 { return hb[j*words : (j+1)*words] }
	direct := make([]int, 0, n)
	for j := 0; j < n; j++ {
		dj := &s.path[j]
		direct = direct[:0]
		cause := -1
		if c := int(dj.cause) - s.base; dj.cause >= 0 && c >= 0 && c < j {
			cause = c
		}
		for i := 0; i < j; i++ {
			if i == cause || dependent(&s.path[i], dj) {
				direct = append(direct, i)
			}
		}
		rj := row(j)
		for _, i := range direct {
			rj[i>>6] |= 1 << (i & 63)
			for w, x := range row(i) {
				rj[w] |= x
			}
		}
		// A race: i directly before j by dependence alone.
		for _, i := range direct {
			if i == cause || !dependent(&s.path[i], dj) {
				continue
			}
			race := true
			for _, k := range direct {
				if k != i && row(k)[i>>6]&(1<<(i&63)) != 0 {
					race = false
					break
				}
			}
			if race {
				s.reverse(i, j, words, row)
			}
		}
	}
}

// reverse adds to the backtrack set of the state before step i a first
// event of notdep(i).j, unless one is there already.
func (s *scheduler) reverse(i, j, words int, row func(int) []uint64) {
	v := make([]uint64, words)
	var seq []int
	for k := i + 1; k < j; k++ {
		if row(k)[i>>6]&(1<<(i&63)) == 0 {
			seq = append(seq, k)
			v[k>>6] |= 1 << (k & 63)
		}
	}
	seq = append(seq, j)
	v[j>>6] |= 1 << (j & 63)
	nd := &s.nodes[s.steps[i]]
	var first []uint64 // ids of the initials of v
	for _, x := range seq {
		initial := true
		for w, bitsX := range row(x) {
			if bitsX&v[w] != 0 {
				initial = false
				break
			}
		}
		if initial {
			first = append(first, s.path[x].id)
		}
	}
	for _, r := range nd.back {
		if slices.Contains(first, nd.ready[r].id) {
			return
		}
	}
	for _, id := range first {
		for r := range nd.ready {
			if nd.ready[r].id == id {
				nd.back = append(nd.back, int32(r))
				return
			}
		}
	}
	// No first event is ready before step i: a cause the simulator does
	// not track (a failure) orders them; nothing to reverse.
}

// backtrack moves to the next path: the deepest choice point with an
// alternative left, taken, and everything after it dropped. It returns
// false when the round is explored.
func (s *scheduler) backtrack() bool {
	for k := len(s.nodes) - 1; k >= 0; k-- {
		nd := &s.nodes[k]
		if !nd.event {
			if nd.val+1 < nd.n {
				nd.val++
				s.nodes = s.nodes[:k+1]
				return true
			}
			continue
		}
		best := int32(-1)
		for _, r := range nd.back {
			if slices.Contains(nd.done, r) || asleep(nd.sleep, nd.ready[r].id) {
				continue
			}
			if best < 0 || r < best {
				best = r
			}
		}
		if best >= 0 {
			nd.val = best
			nd.done = append(nd.done, best)
			s.nodes = s.nodes[:k+1]
			return true
		}
	}
	return false
}

// mix combines hashes in order.
func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h *= 0xff51afd7ed558ccd
	return h ^ bits.RotateLeft64(h, 29)
}

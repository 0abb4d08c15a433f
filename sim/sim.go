package sim

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// ErrHandlerPanic marks a handler that panicked; see HandlerPanicError.
var ErrHandlerPanic = errors.New("sim: panic in handler")

// HandlerPanicError reports a handler that panicked. The checker treats it
// as a safety violation named "panic in handler".
type HandlerPanicError struct {
	Step  int
	Event string
	Value any
	Stack string
}

func (e *HandlerPanicError) Error() string {
	return fmt.Sprintf("sim: panic in handler at step %d (%s): %v", e.Step, e.Event, e.Value)
}

// Unwrap lets errors.Is match ErrHandlerPanic.
func (e *HandlerPanicError) Unwrap() error { return ErrHandlerPanic }

// pending is a message or datagram in flight.
type pending struct {
	msg    Message
	from   NodeID
	to     NodeID
	weight float64
	hash   uint64 // of msg; 0 until first needed
}

// queue is a FIFO of messages on one reliable connection.
type queue struct {
	items []pending
	head  int
}

func (q *queue) len() int { return len(q.items) - q.head }

func (q *queue) push(p pending) { q.items = append(q.items, p) }

func (q *queue) pop() pending {
	p := q.items[q.head]
	q.items[q.head] = pending{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return p
}

func (q *queue) clear() {
	clear(q.items)
	q.items, q.head = q.items[:0], 0
}

type timer struct {
	name     string
	nameHash uint64
	weight   float64
	armed    bool
	periodic bool
}

type node struct {
	svc      Service
	timers   []timer // sorted by name
	app      []any
	appNext  int
	connErrs []NodeID
	hash     uint64
	dirty    bool
}

// world is everything a snapshot copies.
type world struct {
	nodes      []node
	conns      []queue // index from*n + to
	dgrams     []pending
	monotone   uint64
	step       int
	resets     int
	breaks     int
	drops      int
	choices    []Choice
	stepStarts []int32 // index into choices where each step began
	lastEvent  Event
}

// Options configure a Sim.
type Options struct {
	// Chooser answers every choice point. Default: NewRandom(0).
	Chooser Chooser
	// Logger, when set, receives a line for each transition's begin and
	// end, every send, timer and choice, and the service's annotations.
	// When nil, logging costs nothing.
	Logger *zerolog.Logger
	// NoFailures turns failure events off whatever the config allows.
	// See SetFailures.
	NoFailures bool
	// FailuresUntil, when positive, turns failure events off from that
	// step on (the "gusto" of the original tool: failures during the
	// bounded search, none during the random walks that follow). It is part
	// of an execution's description: replay needs the same value.
	FailuresUntil int
}

// Sim is the deterministic network simulator: every node of a system, the
// network between them, timers, failures, randomness and time. An
// execution is fully determined by the answers its chooser gives, so
// replaying the recorded choices reproduces it exactly.
//
// A Sim is not safe for concurrent use; Clone gives each goroutine its own.
type Sim struct {
	cfg      *Config
	weights  Weights
	n        int
	w        world
	chooser  Chooser
	log      *zerolog.Logger
	failures bool
	until    int

	ready      []Event
	readyW     []float64
	readyValid bool
	ctx        Context
	enc        encoder

	booting   bool          // Start runs on the initial state (New, Reset)
	progress  atomic.Uint64 // odd while a handler runs; see Guard
	abandoned atomic.Bool
	err       error // a bad choice seen inside a handler
}

// New builds the initial state of cfg: every node's struct from
// cfg.Service, Start run on each in order, the driver's requests queued.
// Start's effects (sends, timers, choices) are part of the initial state.
func New(cfg *Config, opts Options) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Sim{cfg: cfg, weights: cfg.Weights.withDefaults(), n: cfg.Nodes, chooser: opts.Chooser, log: opts.Logger, failures: !opts.NoFailures, until: opts.FailuresUntil}
	if s.chooser == nil {
		s.chooser = NewRandom(0)
	}
	s.ctx.s = s
	s.w.nodes = make([]node, s.n)
	s.w.conns = make([]queue, s.n*s.n)
	for i := range s.w.nodes {
		s.initNode(NodeID(i))
	}
	s.booting = true
	defer func() { s.booting = false }()
	for i := range s.w.nodes {
		if err := s.run(NodeID(i), Event{Kind: EvReset, Node: NodeID(i)}, func(ctx *Context) { s.w.nodes[i].svc.Start(ctx) }); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Sim) initNode(id NodeID) {
	nd := &s.w.nodes[id]
	nd.svc = s.cfg.Service(id)
	if nd.svc == nil {
		panic(fmt.Sprintf("sim: Config.Service returned nil for node %d", id))
	}
	for i := range nd.timers {
		nd.timers[i].armed = false
	}
	nd.app = nil
	if s.cfg.App != nil {
		nd.app = s.cfg.App(id)
	}
	nd.appNext = 0
	nd.connErrs = nd.connErrs[:0]
	nd.dirty = true
}

// Config returns the configuration the simulator runs.
func (s *Sim) Config() *Config { return s.cfg }

// Nodes returns the number of nodes.
func (s *Sim) Nodes() int { return s.n }

// Steps returns the number of transitions executed so far.
func (s *Sim) Steps() int { return s.w.step }

// Choices returns the choice points answered so far, in order. The slice
// is the simulator's own: copy it to keep it.
func (s *Sim) Choices() []Choice { return s.w.choices }

// ChoiceValues returns a copy of the answers given so far: the sequence
// that replays this execution.
func (s *Sim) ChoiceValues() []int32 { return ChoiceValues(s.w.choices) }

// ChoiceValues returns the answers of a choice log.
func ChoiceValues(cs []Choice) []int32 {
	out := make([]int32, len(cs))
	for i, c := range cs {
		out[i] = c.Value
	}
	return out
}

// StepStart returns the index in Choices at which step i began (i may equal
// Steps(), giving the current length): Choices()[:StepStart(i)] replays the
// execution up to the state after i steps.
func (s *Sim) StepStart(i int) int {
	if i >= len(s.w.stepStarts) {
		return len(s.w.choices)
	}
	return int(s.w.stepStarts[i])
}

// LastEvent returns the event the last step executed.
func (s *Sim) LastEvent() Event { return s.w.lastEvent }

// SetChooser replaces the chooser for the choice points that follow.
func (s *Sim) SetChooser(c Chooser) { s.chooser = c }

// SetLogger turns logging on (l non-nil) or off.
func (s *Sim) SetLogger(l *zerolog.Logger) { s.log = l }

// SetFailures turns injected failures on or off for the steps that follow;
// the per-execution bounds of the config still apply.
func (s *Sim) SetFailures(on bool) {
	s.failures = on
	s.readyValid = false
}

// SetFailuresUntil turns failures off from step n on (0: no such limit);
// see Options.FailuresUntil.
func (s *Sim) SetFailuresUntil(n int) {
	s.until = n
	s.readyValid = false
}

// FailuresUntil returns the step from which failures are off (0: none).
func (s *Sim) FailuresUntil() int { return s.until }

// Service returns node id's current service struct.
func (s *Sim) Service(id NodeID) Service { return s.w.nodes[id].svc }

// TimerArmed reports whether node id's timer is scheduled.
func (s *Sim) TimerArmed(id NodeID, name string) bool {
	for _, t := range s.w.nodes[id].timers {
		if t.name == name {
			return t.armed
		}
	}
	return false
}

// InFlight returns the number of messages and datagrams in flight.
func (s *Sim) InFlight() int {
	n := len(s.w.dgrams)
	for i := range s.w.conns {
		n += s.w.conns[i].len()
	}
	return n
}

// Ready returns the pending events in their canonical order: answer i of
// the next event choice runs Ready()[i]. The slice is valid until the next
// step.
func (s *Sim) Ready() []Event {
	s.buildReady()
	return s.ready
}

func (s *Sim) buildReady() {
	if s.readyValid {
		return
	}
	s.ready, s.readyW = s.ready[:0], s.readyW[:0]
	add := func(e Event, w float64) {
		s.ready = append(s.ready, e)
		s.readyW = append(s.readyW, w)
	}
	nodes := s.w.nodes
	for i := range nodes {
		nd := &nodes[i]
		if nd.appNext < len(nd.app) {
			add(Event{Kind: EvApp, Node: NodeID(i), Msg: nd.app[nd.appNext]}, s.weights.App)
		}
	}
	for i := range nodes {
		if len(nodes[i].connErrs) > 0 {
			add(Event{Kind: EvConnError, Node: NodeID(i), Peer: nodes[i].connErrs[0]}, s.weights.Message)
		}
	}
	for c := range s.w.conns {
		q := &s.w.conns[c]
		if q.len() > 0 {
			p := &q.items[q.head]
			add(Event{Kind: EvMessage, Node: p.to, Peer: p.from, Msg: p.msg, ref: c}, p.weight)
		}
	}
	reorder := s.cfg.Failures.Reorder
	for d := range s.w.dgrams {
		p := &s.w.dgrams[d]
		if !reorder && s.earlierDatagram(d) {
			continue
		}
		add(Event{Kind: EvDatagram, Node: p.to, Peer: p.from, Msg: p.msg, ref: d}, p.weight)
	}
	for i := range nodes {
		for t := range nodes[i].timers {
			tm := &nodes[i].timers[t]
			if tm.armed {
				add(Event{Kind: EvTimer, Node: NodeID(i), Timer: tm.name, ref: t}, tm.weight)
			}
		}
	}
	if s.failures && (s.until <= 0 || s.w.step < s.until) {
		f := &s.cfg.Failures
		if s.w.drops < f.Drops {
			for d := range s.w.dgrams {
				p := &s.w.dgrams[d]
				add(Event{Kind: EvDrop, Node: p.to, Peer: p.from, Msg: p.msg, ref: d}, s.weights.Failure)
			}
		}
		if s.w.breaks < f.Breaks {
			for a := 0; a < s.n; a++ {
				for b := a + 1; b < s.n; b++ {
					if s.w.conns[a*s.n+b].len() > 0 || s.w.conns[b*s.n+a].len() > 0 {
						add(Event{Kind: EvBreak, Node: NodeID(a), Peer: NodeID(b)}, s.weights.Failure)
					}
				}
			}
		}
		if s.w.resets < f.Resets {
			for i := range nodes {
				add(Event{Kind: EvReset, Node: NodeID(i)}, s.weights.Failure)
			}
		}
	}
	s.readyValid = true
}

// earlierDatagram reports whether a datagram sent earlier on the same pair
// is still in flight (without reordering only the oldest is deliverable).
func (s *Sim) earlierDatagram(d int) bool {
	p := &s.w.dgrams[d]
	for e := 0; e < d; e++ {
		if q := &s.w.dgrams[e]; q.from == p.from && q.to == p.to {
			return true
		}
	}
	return false
}

// logStep is the step number logs show: transition N counts from 1 (it
// leads to the state after N steps, the numbering of critical steps and of
// mdb), and Start at boot is step 0.
func (s *Sim) logStep() int {
	if s.booting {
		return 0
	}
	return s.w.step + 1
}

// choose asks the chooser and records the answer.
func (s *Sim) choose(kind ChoiceKind, n int, weights []float64) (int, error) {
	v := s.chooser.Choose(kind, n, weights)
	if v < 0 || v >= n {
		return 0, &BadChoiceError{Index: len(s.w.choices), Step: s.w.step, Kind: kind, N: n, Value: v}
	}
	s.w.choices = append(s.w.choices, Choice{Kind: kind, N: int32(n), Value: int32(v)})
	if s.log != nil && kind != ChooseEvent {
		s.log.Debug().Int("step", s.logStep()).Str("choice", kind.String()).Int("n", n).Int("value", v).Msg("choice")
	}
	return v, nil
}

// Step chooses one ready event and executes it. It returns false with a
// nil error when nothing is ready (the system is quiescent: nothing will
// ever happen again). An error means the execution cannot go on: a handler
// panicked (ErrHandlerPanic) or the chooser answered impossibly
// (ErrBadChoice).
func (s *Sim) Step() (bool, error) {
	s.buildReady()
	if len(s.ready) == 0 {
		return false, nil
	}
	s.w.stepStarts = append(s.w.stepStarts, int32(len(s.w.choices)))
	i, err := s.choose(ChooseEvent, len(s.ready), s.readyW)
	if err != nil {
		s.w.stepStarts = s.w.stepStarts[:len(s.w.stepStarts)-1]
		return false, err
	}
	return true, s.execute(s.ready[i])
}

// StepEvent executes ready event i as the next step, recording the choice
// as if the chooser had answered i. Used by debuggers to branch.
func (s *Sim) StepEvent(i int) error {
	s.buildReady()
	if i < 0 || i >= len(s.ready) {
		return &BadChoiceError{Index: len(s.w.choices), Step: s.w.step, Kind: ChooseEvent, N: len(s.ready), Value: i}
	}
	s.w.stepStarts = append(s.w.stepStarts, int32(len(s.w.choices)))
	s.w.choices = append(s.w.choices, Choice{Kind: ChooseEvent, N: int32(len(s.ready)), Value: int32(i)})
	return s.execute(s.ready[i])
}

func (s *Sim) execute(ev Event) error {
	s.readyValid = false
	s.w.lastEvent = ev
	nd := &s.w.nodes[ev.Node]
	var err error
	switch ev.Kind {
	case EvApp:
		nd.appNext++
		err = s.run(ev.Node, ev, func(ctx *Context) { nd.svc.HandleApp(ctx, ev.Msg) })
	case EvMessage:
		p := s.w.conns[ev.ref].pop()
		err = s.run(ev.Node, ev, func(ctx *Context) { nd.svc.HandleMessage(ctx, p.from, p.msg) })
	case EvDatagram:
		p := s.removeDatagram(ev.ref)
		err = s.run(ev.Node, ev, func(ctx *Context) { nd.svc.HandleMessage(ctx, p.from, p.msg) })
	case EvTimer:
		tm := &nd.timers[ev.ref]
		if !tm.periodic {
			tm.armed = false
		}
		err = s.run(ev.Node, ev, func(ctx *Context) { nd.svc.HandleTimer(ctx, ev.Timer) })
	case EvConnError:
		copy(nd.connErrs, nd.connErrs[1:])
		nd.connErrs = nd.connErrs[:len(nd.connErrs)-1]
		err = s.run(ev.Node, ev, func(ctx *Context) { nd.svc.HandleConnError(ctx, ev.Peer) })
	case EvReset:
		s.w.resets++
		s.initNode(ev.Node)
		err = s.run(ev.Node, ev, func(ctx *Context) { s.w.nodes[ev.Node].svc.Start(ctx) })
	case EvBreak:
		s.w.breaks++
		a, b := ev.Node, ev.Peer
		s.w.conns[int(a)*s.n+int(b)].clear()
		s.w.conns[int(b)*s.n+int(a)].clear()
		s.w.nodes[a].connErrs = append(s.w.nodes[a].connErrs, b)
		s.w.nodes[b].connErrs = append(s.w.nodes[b].connErrs, a)
		s.logEvent(ev)
	case EvDrop:
		s.w.drops++
		s.removeDatagram(ev.ref)
		s.logEvent(ev)
	}
	s.w.step++
	return err
}

func (s *Sim) removeDatagram(d int) pending {
	p := s.w.dgrams[d]
	copy(s.w.dgrams[d:], s.w.dgrams[d+1:])
	s.w.dgrams[len(s.w.dgrams)-1] = pending{}
	s.w.dgrams = s.w.dgrams[:len(s.w.dgrams)-1]
	return p
}

func (s *Sim) logEvent(ev Event) {
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(ev.Node)).Str("event", ev.Kind.String()).Msg(ev.String())
	}
}

// run executes one handler on node id, turning a panic into an error.
func (s *Sim) run(id NodeID, ev Event, h func(*Context)) (err error) {
	s.w.nodes[id].dirty = true
	s.ctx.node = id
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(id)).Str("event", ev.Kind.String()).Msg("begin " + ev.String())
	}
	s.progress.Add(1)
	defer func() {
		s.progress.Add(1)
		if r := recover(); r != nil {
			if s.err != nil { // a bad choice inside the handler
				err, s.err = s.err, nil
				return
			}
			if r == errAbandoned {
				err = ErrHang
				return
			}
			err = &HandlerPanicError{Step: s.w.step, Event: ev.String(), Value: r, Stack: string(debug.Stack())}
			if s.log != nil {
				s.log.Error().Int("step", s.logStep()).Int("node", int(id)).Interface("panic", fmt.Sprint(r)).Msg("panic in handler")
			}
			return
		}
		if s.log != nil {
			s.log.Info().Int("step", s.logStep()).Int("node", int(id)).Msg("end")
		}
	}()
	h(&s.ctx)
	return nil
}

// timerIndex finds or adds node id's timer, keeping timers sorted by name.
func (s *Sim) timerIndex(id NodeID, name string) int {
	nd := &s.w.nodes[id]
	i := sort.Search(len(nd.timers), func(i int) bool { return nd.timers[i].name >= name })
	if i < len(nd.timers) && nd.timers[i].name == name {
		return i
	}
	w := s.weights.Timer
	if tw, ok := s.weights.Timers[name]; ok {
		w = tw
	}
	nd.timers = append(nd.timers, timer{})
	copy(nd.timers[i+1:], nd.timers[i:])
	nd.timers[i] = timer{name: name, nameHash: hashString(name), weight: w}
	return i
}

func (s *Sim) messageWeight(m Message) float64 {
	if len(s.weights.Messages) > 0 {
		if w, ok := s.weights.Messages[MessageName(m)]; ok {
			return w
		}
	}
	return s.weights.Message
}

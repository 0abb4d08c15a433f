package engine

import (
	"fmt"
	"slices"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/internal/hook"
)

// Recording is an execution as the sequence of handler calls it made: every
// transition's event in order, and the answers its handlers got from Rand
// and Elapsed (boot included), in order. Bare re-runs it without the
// checker.
type Recording struct {
	Events  []Event
	Answers []int32
}

// Record replays choices on cfg (with opts' failure settings) until they run
// out and returns the execution's recording. It is for measuring, not for
// searching: it keeps every event.
func Record(cfg *sim.Config, choices []int32, opts Options) (*Recording, error) {
	r := NewRecorded(choices)
	opts.Chooser, opts.Logger = r, nil
	s, err := New(cfg, opts)
	if err != nil {
		return nil, err
	}
	rec := &Recording{}
	for r.Used() < len(choices) {
		ok, err := s.Step()
		if err != nil {
			return nil, fmt.Errorf("record step %d: %w", s.Steps(), err)
		}
		if !ok {
			break
		}
		rec.Events = append(rec.Events, s.LastEvent())
	}
	for _, c := range s.w.choices {
		if c.Kind != ChooseEvent {
			rec.Answers = append(rec.Answers, c.Value)
		}
	}
	return rec, nil
}

// Bare runs a Recording's handlers straight from a loop, with no checker
// around them: no ready list, no event choice, no network queues, no
// property checks, no hashing, no choice log, no watchdog. It is the
// baseline against which the checker's overhead is measured (services/bench).
//
// What it keeps is what a handler can observe, so that every handler takes
// the same path as in the checked execution and leaves the same state:
// fresh structs from sim.Config.Service at boot and reset, Start, the recorded
// messages, timer names and driver requests, the recorded answers of Rand
// and Elapsed, Monotone's counter, Step, and which timers are armed (for
// TimerScheduled). Sends go nowhere; logging is off.
//
// A Bare is not safe for concurrent use.
type Bare struct {
	cfg      *sim.Config
	nodes    []sim.Service
	ctxs     []*sim.Context
	timers   [][]bareTimer
	ans      []int32
	pos      int
	step     int
	monotone uint64
	booting  bool
}

type bareTimer struct {
	name            string
	armed, periodic bool
}

// NewBare returns a bare runner for cfg.
func NewBare(cfg *sim.Config) (*Bare, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bare{cfg: cfg, nodes: make([]sim.Service, cfg.Nodes), timers: make([][]bareTimer, cfg.Nodes)}
	rt := (*bareRuntime)(b)
	b.ctxs = make([]*sim.Context, cfg.Nodes)
	for i := range b.ctxs {
		b.ctxs[i] = hook.NewContext(rt, i).(*sim.Context)
	}
	return b, nil
}

// Service returns node id's struct after the last Run.
func (b *Bare) Service(id sim.NodeID) sim.Service { return b.nodes[id] }

// Run boots fresh nodes (sim.Config.Service and Start on each, in order, as
// New does) and calls the handler of every recorded event in order. Break
// and drop events run no handler. A handler panic, or an answer the
// recording lacks, ends the run with an error.
func (b *Bare) Run(rec *Recording) (err error) {
	b.ans, b.pos = rec.Answers, 0
	b.step, b.monotone = 0, 0
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("engine: bare run at step %d: %v", b.step, r)
		}
		b.booting = false
	}()
	b.booting = true
	for i := range b.nodes {
		b.boot(sim.NodeID(i))
	}
	b.booting = false
	for i := range rec.Events {
		ev := &rec.Events[i]
		ctx, svc := b.ctxs[ev.Node], b.nodes[ev.Node]
		switch ev.Kind {
		case EvApp:
			svc.HandleApp(ctx, ev.Msg)
		case EvMessage, EvDatagram:
			svc.HandleMessage(ctx, ev.Peer, ev.Msg)
		case EvTimer:
			ts := b.timers[ev.Node]
			for j := range ts {
				if ts[j].name == ev.Timer && !ts[j].periodic {
					ts[j].armed = false
				}
			}
			svc.HandleTimer(ctx, ev.Timer)
		case EvConnError:
			svc.HandleConnError(ctx, ev.Peer)
		case EvReset:
			b.boot(ev.Node)
		}
		b.step++
	}
	return nil
}

func (b *Bare) boot(id sim.NodeID) {
	b.nodes[id] = b.cfg.Service(id)
	b.timers[id] = b.timers[id][:0]
	b.nodes[id].Start(b.ctxs[id])
}

// answer is the next recorded answer of a choice point among n.
func (b *Bare) answer(n int) int {
	if b.pos >= len(b.ans) {
		panic(fmt.Sprintf("the recorded answers ran out at choice %d", b.pos))
	}
	v := int(b.ans[b.pos])
	b.pos++
	if v < 0 || v >= n {
		panic(fmt.Sprintf("recorded answer %d does not fit a choice among %d", v, n))
	}
	return v
}

// bareRuntime is a Bare as its handlers' Contexts see it: what a handler
// can observe is kept, effects go nowhere.
type bareRuntime Bare

var _ hook.Runtime = (*bareRuntime)(nil)

func (r *bareRuntime) Check()     {}
func (r *bareRuntime) Nodes() int { return len(r.nodes) }
func (r *bareRuntime) LogStep() int {
	if r.booting {
		return 0
	}
	return r.step + 1
}
func (r *bareRuntime) Steps() int    { return r.step }
func (r *bareRuntime) InFlight() int { return 0 }

func (r *bareRuntime) Send(from, to int, _ any, _ bool) {
	if to < 0 || to >= len(r.nodes) {
		panic(fmt.Sprintf("sim: node %d sends to unknown node %d", from, to))
	}
}

func (r *bareRuntime) SetTimer(node int, name string, periodic bool) {
	ts := r.timers[node]
	for j := range ts {
		if ts[j].name == name {
			ts[j].armed, ts[j].periodic = true, periodic
			return
		}
	}
	r.timers[node] = append(ts, bareTimer{name: name, armed: true, periodic: periodic})
}

func (r *bareRuntime) CancelTimer(node int, name string) {
	ts := r.timers[node]
	for j := range ts {
		if ts[j].name == name {
			ts[j].armed = false
		}
	}
}

func (r *bareRuntime) TimerScheduled(node int, name string) bool {
	i := slices.IndexFunc(r.timers[node], func(t bareTimer) bool { return t.name == name })
	return i >= 0 && r.timers[node][i].armed
}

func (r *bareRuntime) Rand(_, n int) int {
	if n == 1 {
		return 0
	}
	return (*Bare)(r).answer(n)
}
func (r *bareRuntime) Elapsed(int) bool       { return (*Bare)(r).answer(2) == 1 }
func (r *bareRuntime) Monotone() uint64       { r.monotone++; return r.monotone }
func (r *bareRuntime) Log(int) *zerolog.Event { return nil }

// Notify does nothing: monitors are the checker's, and no handler can
// observe them.
func (r *bareRuntime) Notify(int, any)           {}
func (r *bareRuntime) Monitor(int) (any, string) { return nil, "" }

// Invoke and Return record nothing: a handler cannot observe the history.
func (r *bareRuntime) Invoke(int, int, any) {}
func (r *bareRuntime) Return(int, int, any) {}

package sim

import (
	"fmt"
	"slices"
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
func Record(cfg *Config, choices []int32, opts Options) (*Recording, error) {
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
// fresh structs from Config.Service at boot and reset, Start, the recorded
// messages, timer names and driver requests, the recorded answers of Rand
// and Elapsed, Monotone's counter, Step, and which timers are armed (for
// TimerScheduled). Sends go nowhere; logging is off.
//
// A Bare is not safe for concurrent use.
type Bare struct {
	cfg    *Config
	s      Sim // what the contexts point to: node count, step, Monotone
	nodes  []Service
	timers [][]bareTimer
	ans    []int32
	pos    int
}

type bareTimer struct {
	name            string
	armed, periodic bool
}

// NewBare returns a bare runner for cfg.
func NewBare(cfg *Config) (*Bare, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bare{cfg: cfg, nodes: make([]Service, cfg.Nodes), timers: make([][]bareTimer, cfg.Nodes)}
	b.s.cfg, b.s.n = cfg, cfg.Nodes
	b.s.ctx.s, b.s.ctx.bare = &b.s, b
	return b, nil
}

// Service returns node id's struct after the last Run.
func (b *Bare) Service(id NodeID) Service { return b.nodes[id] }

// Run boots fresh nodes (Config.Service and Start on each, in order, as
// New does) and calls the handler of every recorded event in order. Break
// and drop events run no handler. A handler panic, or an answer the
// recording lacks, ends the run with an error.
func (b *Bare) Run(rec *Recording) (err error) {
	s := &b.s
	ctx := &s.ctx
	b.ans, b.pos = rec.Answers, 0
	s.w.step, s.w.monotone = 0, 0
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sim: bare run at step %d: %v", s.w.step, r)
		}
		s.booting = false
	}()
	s.booting = true
	for i := range b.nodes {
		b.boot(NodeID(i))
	}
	s.booting = false
	for i := range rec.Events {
		ev := &rec.Events[i]
		ctx.node = ev.Node
		svc := b.nodes[ev.Node]
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
		s.w.step++
	}
	return nil
}

func (b *Bare) boot(id NodeID) {
	b.nodes[id] = b.cfg.Service(id)
	b.timers[id] = b.timers[id][:0]
	b.s.ctx.node = id
	b.nodes[id].Start(&b.s.ctx)
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

func (b *Bare) setTimer(id NodeID, name string, periodic bool) {
	ts := b.timers[id]
	for j := range ts {
		if ts[j].name == name {
			ts[j].armed, ts[j].periodic = true, periodic
			return
		}
	}
	b.timers[id] = append(ts, bareTimer{name: name, armed: true, periodic: periodic})
}

func (b *Bare) cancelTimer(id NodeID, name string) {
	ts := b.timers[id]
	for j := range ts {
		if ts[j].name == name {
			ts[j].armed = false
		}
	}
}

func (b *Bare) timerArmed(id NodeID, name string) bool {
	i := slices.IndexFunc(b.timers[id], func(t bareTimer) bool { return t.name == name })
	return i >= 0 && b.timers[id][i].armed
}

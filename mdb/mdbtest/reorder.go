package mdbtest

import (
	"fmt"
	"sync"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// ReorderName is the name the reordering fixture is registered under.
const ReorderName = "mdbtest-reorder"

// Put is the pusher's datagram; every retransmission carries the same one.
type Put struct{ N int }

// Pusher is node 0 of the reordering fixture.
type Pusher struct {
	sim.Base
	Resent int
}

// HandleApp sends Put{N: 1} and arms the retransmission timer.
func (p *Pusher) HandleApp(ctx *sim.Context, req any) {
	ctx.SendDatagram(1, Put{N: 1})
	ctx.SetTimer("retx")
}

// HandleTimer sends the same Put again, twice at most.
func (p *Pusher) HandleTimer(ctx *sim.Context, name string) {
	if p.Resent < 2 {
		p.Resent++
		ctx.SendDatagram(1, Put{N: 1})
		ctx.SetTimer("retx")
	}
}

// Taker is node 1 of the reordering fixture.
type Taker struct {
	sim.Base
	Got int
}

// HandleMessage counts the Puts.
func (t *Taker) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) { t.Got++ }

// ReorderConfig builds the reordering fixture's config: datagrams may
// arrive in any order, and one may be duplicated.
func ReorderConfig() *sim.Config {
	return &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &Pusher{}
			}
			return &Taker{}
		},
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"push"}
			}
			return nil
		},
		Liveness: []sim.Property{{Name: "GotAll", Check: func(v *sim.View) bool { return sim.Node[Taker](v, 1).Got == 4 }}},
		Failures: sim.Failures{Duplicates: 1, Reorder: true},
	}
}

var reorderOnce sync.Once

// RegisterReorder registers the reordering fixture; calling it again does
// nothing.
func RegisterReorder() {
	reorderOnce.Do(func() {
		sim.Register(&sim.System{
			Name:  ReorderName,
			Doc:   "mdb test fixture: equal datagrams that overtake each other, and a copy taken before its original",
			Build: func(sim.Params) (*sim.Config, error) { return ReorderConfig(), nil },
		})
	})
}

// Reorder returns the reordering fixture's path of 7 steps, as a liveness
// trace without a critical step: node 0 sends Put{N: 1} (step 1) and sends
// it again (2); the datagram of step 1 is duplicated (3); node 1 takes the
// datagram of step 2 (4) and the copy (5), each ahead of a datagram sent
// before it, then the datagram of step 1 (6); node 0 sends Put{N: 1} a
// third time (7), still in flight at the end.
func Reorder() (*trace.Trace, error) {
	RegisterReorder()
	type pick struct {
		kind         engine.EventKind
		sent, copied int // the step that sent it (Cause + 1); that made the copy (-1: none)
	}
	// A timer's cause is the step that armed it.
	script := []pick{{engine.EvApp, 0, -1}, {engine.EvTimer, 1, -1}, {engine.EvDuplicate, 1, -1},
		{engine.EvDatagram, 2, -1}, {engine.EvDatagram, 1, 3}, {engine.EvDatagram, 1, -1}, {engine.EvTimer, 2, -1}}
	s, err := engine.New(ReorderConfig(), engine.Options{})
	if err != nil {
		return nil, fmt.Errorf("mdbtest: %w", err)
	}
	for n, want := range script {
		i := -1
		for j, ev := range s.Ready() {
			copied := ev.CopiedAt()
			if copied >= 0 {
				copied++
			}
			if ev.Kind == want.kind && int(ev.Cause)+1 == want.sent && copied == want.copied {
				i = j
				break
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("mdbtest: step %d: no %v sent at step %d is ready: %v", n+1, want.kind, want.sent, s.Ready())
		}
		if err := s.StepEvent(i); err != nil {
			return nil, fmt.Errorf("mdbtest: step %d: %w", n+1, err)
		}
	}
	return &trace.Trace{Tool: "mdbtest", System: ReorderName, Choices: s.ChoiceValues(), Steps: s.Steps(),
		Kind: trace.KindLiveness, Property: "GotAll", Critical: -1}, nil
}

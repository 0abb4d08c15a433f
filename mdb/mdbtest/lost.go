package mdbtest

import (
	"fmt"
	"sync"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// LostName is the name the lost-messages fixture is registered under.
const LostName = "mdbtest-lost"

// Say is the talkers' message, sent reliably or as a datagram.
type Say struct{ N int }

// say is one send of a talker's request.
type say struct {
	to       sim.NodeID
	n        int
	datagram bool
}

// talks are the sends of each request of the lost-messages fixture's
// drivers. A reliable message and a datagram with equal payloads travel
// side by side, so that what loses one and not the other is told apart.
var talks = map[string][]say{
	"first":  {{1, 1, false}, {1, 1, true}, {2, 2, true}, {2, 3, false}},
	"reply":  {{0, 4, false}, {0, 4, true}, {1, 5, true}},
	"second": {{1, 6, false}, {1, 6, true}},
	"third":  {{2, 7, false}, {2, 8, true}, {1, 9, false}},
}

// Talker is every node of the lost-messages fixture: each driver request
// sends its messages (talks), and a node counts what it receives.
type Talker struct {
	sim.Base
	Got int
}

// HandleApp sends the request's messages.
func (t *Talker) HandleApp(ctx *sim.Context, req any) {
	for _, s := range talks[req.(string)] {
		if s.datagram {
			ctx.SendDatagram(s.to, Say{N: s.n})
		} else {
			ctx.Send(s.to, Say{N: s.n})
		}
	}
}

// HandleMessage counts the Says.
func (t *Talker) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) { t.Got++ }

// LostConfig builds the lost-messages fixture's config: three talkers, of
// which node 0 makes requests "first", "second" and "third" and node 2
// "reply"; one reset, crash, connection break and partition may happen.
func LostConfig() *sim.Config {
	return &sim.Config{
		Nodes:   3,
		Service: func(sim.NodeID) sim.Service { return &Talker{} },
		App: func(id sim.NodeID) []any {
			switch id {
			case 0:
				return []any{"first", "second", "third"}
			case 2:
				return []any{"reply"}
			}
			return nil
		},
		KeepDriver: true,
		Liveness:   []sim.Property{{Name: "AllHeard", Check: func(v *sim.View) bool { return sim.Node[Talker](v, 1).Got == 4 }}},
		Failures:   sim.Failures{Resets: 1, Crashes: 1, Breaks: 1, Partitions: 1},
	}
}

var lostOnce sync.Once

// RegisterLost registers the lost-messages fixture; calling it again does
// nothing.
func RegisterLost() {
	lostOnce.Do(func() {
		sim.Register(&sim.System{
			Name:  LostName,
			Doc:   "mdb test fixture: messages lost to a connection break, a partition and a crash, and kept across a reset",
			Build: func(sim.Params) (*sim.Config, error) { return LostConfig(), nil },
		})
	})
}

// Lost returns the lost-messages fixture's path of 13 steps, as a
// liveness trace without a critical step:
//
//  1. node 0 ("first") sends Say{N: 1} to node 1 reliably and as a
//     datagram, datagram Say{N: 2} and Say{N: 3} to node 2;
//  2. node 2 ("reply") sends Say{N: 4} to node 0 reliably and as a
//     datagram, and datagram Say{N: 5} to node 1;
//  3. the connection between nodes 0 and 1 breaks, losing the reliable
//     Say{N: 1} of step 1;
//  4. node 1 receives the datagram Say{N: 1}, which the break spared;
//  5. the network partitions, node 1 cut off: datagram Say{N: 5} is lost;
//  6. node 0 ("second") sends Say{N: 6} to node 1 reliably, held by the
//     partition, and as a datagram, lost as it is sent;
//  7. the partition heals;
//  8. node 2 resets: what is in flight to and from it stays;
//  9. node 2 receives Say{N: 3}, sent to it before the reset;
//  10. node 2 crashes: datagram Say{N: 2} to it and the reliable Say{N: 4}
//     from it are lost, the datagram Say{N: 4} from it is not;
//  11. node 1 receives the Say{N: 6} the partition held;
//  12. node 0 receives the datagram Say{N: 4} of the crashed node;
//  13. node 0 ("third") sends Say{N: 7} and datagram Say{N: 8} to the
//     crashed node 2, both lost as they are sent, and Say{N: 9} to node 1,
//     in flight at the end.
func Lost() (*trace.Trace, error) {
	RegisterLost()
	type pick struct {
		kind engine.EventKind
		node int // the node it happens at (for a break its lower end; -1: the only one of its kind)
		sent int // for a delivery, the step that sent it (Cause + 1)
	}
	script := []pick{{engine.EvApp, 0, 0}, {engine.EvApp, 2, 0}, {engine.EvBreak, 0, 0}, {engine.EvDatagram, 1, 1},
		{engine.EvPartition, 1, 0}, {engine.EvApp, 0, 0}, {engine.EvHeal, -1, 0}, {engine.EvReset, 2, 0},
		{engine.EvMessage, 2, 1}, {engine.EvCrash, 2, 0}, {engine.EvMessage, 1, 6}, {engine.EvDatagram, 0, 2},
		{engine.EvApp, 0, 0}}
	s, err := engine.New(LostConfig(), engine.Options{})
	if err != nil {
		return nil, fmt.Errorf("mdbtest: %w", err)
	}
	for n, want := range script {
		i := -1
		for j, ev := range s.Ready() {
			if ev.Kind != want.kind || want.node >= 0 && int(ev.Node) != want.node {
				continue
			}
			if (ev.Kind == engine.EvMessage || ev.Kind == engine.EvDatagram) && int(ev.Cause)+1 != want.sent {
				continue
			}
			if ev.Kind == engine.EvPartition && ev.Side() != 1<<1 {
				continue
			}
			i = j
			break
		}
		if i < 0 {
			return nil, fmt.Errorf("mdbtest: step %d: no %v at node %d is ready: %v", n+1, want.kind, want.node, s.Ready())
		}
		if err := s.StepEvent(i); err != nil {
			return nil, fmt.Errorf("mdbtest: step %d: %w", n+1, err)
		}
	}
	return &trace.Trace{Tool: "mdbtest", System: LostName, Choices: s.ChoiceValues(), Steps: s.Steps(),
		Kind: trace.KindLiveness, Property: "AllHeard", Critical: -1}, nil
}

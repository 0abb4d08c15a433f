package mdb_test

import (
	"os"
	"strings"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// Asker sends one Ask when its driver says so and never asks again: if the
// connection breaks before the Reply arrives, it waits forever.
type Asker struct {
	sim.Base
	Asked, Answered bool
}

// Ask and Reply are the messages.
type (
	Ask   struct{ ID int }
	Reply struct{ ID int }
)

func (a *Asker) HandleApp(ctx *sim.Context, req any) {
	a.Asked = true
	ctx.Send(1, Ask{ID: 7})
}

func (a *Asker) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Ask:
		ctx.Send(from, Reply{ID: m.ID})
	case Reply:
		a.Answered = true
	}
}

func init() {
	sim.Register(&sim.System{
		Name: "mdbexample-ask",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &Asker{} },
				App: func(id sim.NodeID) []any {
					if id == 0 {
						return []any{"ask"}
					}
					return nil
				},
				Liveness: []sim.Property{{Name: "Answered", Check: func(v *sim.View) bool {
					return sim.Node[Asker](v, 0).Answered
				}}},
				Failures: sim.Failures{Breaks: 1},
			}, nil
		},
	})
}

// path runs the ready events whose descriptions start as given, in order.
func path(events ...string) *trace.Trace {
	sys, _ := sim.Lookup("mdbexample-ask")
	cfg, _, _ := sys.Config(nil)
	s, _ := engine.New(cfg, engine.Options{})
	for _, want := range events {
		for i, ev := range s.Ready() {
			if strings.HasPrefix(ev.String(), want) {
				_ = s.StepEvent(i)
				break
			}
		}
	}
	return &trace.Trace{System: "mdbexample-ask", Choices: s.ChoiceValues(), Steps: s.Steps(), Critical: -1}
}

// Example opens an error path whose critical step is a connection break and
// the live path that shares its first two steps, then jumps to the critical step,
// diffs it against the live path (seed 003 Figure 3) and draws the event
// graph (Figure 4).
func Example() {
	dead := path("node 0 handles", "node 1 receives", "connection between", "node 0 learns", "node 1 learns")
	dead.Kind, dead.Property, dead.Critical, dead.Condition = "liveness", "Answered", 3, "C1"
	live := path("node 0 handles", "node 1 receives", "node 0 receives")
	live.Kind, live.Shared = "live", 2

	s, err := mdb.New(dead, live, mdb.Options{Out: os.Stdout})
	if err != nil {
		panic(err)
	}
	s.Intro()
	_ = s.RunScript(strings.NewReader("j crit; filediff; events connerror; g 1 3; q"), true)
	// Output:
	// liveness violation of Answered (system mdbexample-ask)
	// error path: 5 steps, critical step 3 (C1: dead from there on)
	// live path: 3 steps, shares 2 with the error path; filediff compares them
	// step 0/5: initial state
	// (mdb 0) j crit
	// step 3/5 [critical]: connection between node 0 and node 1 breaks
	// (mdb 3) filediff
	// the paths part after step 2:
	//   error step 3: connection between node 0 and node 1 breaks
	//   live step 3: node 0 receives Reply{ID: 7} from node 1
	// --- error step 3
	// +++ live step 3
	// node 0 (Asker):
	//   Asked: true
	// - Answered: false
	// + Answered: true
	//   timers: []
	// network:
	// - connerror at 0: peer 1
	// - connerror at 1: peer 0
	// same: node 1 (Asker)
	// (mdb 3) events connerror
	// 2 steps:
	//       4  node 0 learns its connection to node 1 broke
	//       5  node 1 learns its connection to node 0 broke [end]
	// (mdb 3) g 1 3
	// event graph of the error path, steps 1-3
	//          node 0 (Asker)  node 1 (Asker)
	//       1         A               |         node 0 handles app request "ask"
	//                 |               |           sends Ask{ID: 7} to node 1
	//       2         o----- Ask ----->         node 1 receives Ask{ID: 7} from node 0 (sent at step 1)
	//                 |               |           sends Reply{ID: 7} to node 0
	// *     3         x~~~~ break ~~~~x         connection between node 0 and node 1 breaks (1 message lost)
	//                 |               |           Reply{ID: 7} from node 1 to node 0, sent at step 2, lost when the connection broke at step 3
	// o-->: message  o..x: dropped  x~~x: break  T: timer  A: app request  X: reset  !: connection error  *: critical  >: current
	// (mdb 3) q
}

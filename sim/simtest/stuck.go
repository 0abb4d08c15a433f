package simtest

import (
	"time"

	"github.com/macemc/macemc/sim"
)

// Stuck is the name of simtest-stuck.
const Stuck = "simtest-stuck"

// parented is a node of simtest-stuck: its request makes the other node
// its parent, so that after both requests the two are each other's.
type parented struct {
	sim.Base
	Parent int
}

// Start makes the node a root.
func (p *parented) Start(ctx *sim.Context) { p.Parent = -1 }

// HandleApp adopts the other node as the parent.
func (p *parented) HandleApp(ctx *sim.Context, _ any) { p.Parent = 1 - int(ctx.Self()) }

func init() {
	sim.Register(&sim.System{
		Name: Stuck,
		Doc:  "test system: a safety property that follows parent pointers to a root loops forever once the two nodes are each other's parent",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &parented{} },
				App:     func(sim.NodeID) []any { return []any{"adopt"} },
				Safety: []sim.Property{{Name: "ReachesRoot", Doc: "following parents from node 0 reaches a root (an unbounded loop: the bug is the property's)", Check: func(v *sim.View) bool {
					// So that a test's goroutines do not spin for the
					// rest of the test binary, the loop gives up after a
					// second of wall-clock time, far past the watchdog's
					// timeout in the tests (100 ms).
					start := time.Now()
					for p := 0; p != -1 && time.Since(start) < time.Second; {
						p = sim.Node[parented](v, sim.NodeID(p)).Parent
					}
					return true
				}}},
			}, nil
		},
	})
}

package simtest

import (
	"runtime"

	"github.com/macemc/macemc/sim"
)

// Goexit is the name of simtest-goexit.
const Goexit = "simtest-goexit"

// goexiter is a node of simtest-goexit: its handler of the request ends its
// goroutine, as testing.T's FailNow does, instead of returning.
type goexiter struct {
	sim.Base
	Asked bool
}

// HandleApp calls runtime.Goexit.
func (g *goexiter) HandleApp(ctx *sim.Context, _ any) {
	g.Asked = true
	runtime.Goexit()
}

func init() {
	sim.Register(&sim.System{
		Name: Goexit,
		Doc:  "test system: the handler of the request calls runtime.Goexit (as t.FailNow does)",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &goexiter{} },
				App: func(id sim.NodeID) []any {
					if id == 1 {
						return []any{"fail"}
					}
					return nil
				},
			}, nil
		},
	})
}

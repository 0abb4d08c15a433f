package simtest

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// Hidden is the name of simtest-hidden.
const Hidden = "simtest-hidden"

// hello is what the greeters of simtest-hidden send the elector.
type hello struct{}

// greeter is node 0 or 2 of simtest-hidden: it greets node 1 when it boots.
type greeter struct{ sim.Base }

// Start greets node 1.
func (g *greeter) Start(ctx *sim.Context) { ctx.Send(1, hello{}) }

// elector is node 1 of simtest-hidden. It queues the greeters in the order
// their greetings arrive and, when its timer fires, elects the first. Where
// it keeps the queue is the mode: a buffered channel ("chan"), a closure
// that returns the first greeter ("func") or a slice ("slice"). The two
// orders of the greetings reach states that differ only in the queue, so
// a hash that cannot read the queue takes the second for the first and
// cuts the path that elects node 2.
type elector struct {
	sim.Base
	mode   string
	Queue  chan sim.NodeID
	First  func() sim.NodeID
	List   []sim.NodeID
	Leader sim.NodeID
	Greets int
}

// Start makes the queue.
func (e *elector) Start(ctx *sim.Context) {
	e.Queue, e.Leader = make(chan sim.NodeID, 2), -1
}

// HandleMessage queues the greeter; the second greeting sets the timer.
func (e *elector) HandleMessage(ctx *sim.Context, from sim.NodeID, _ sim.Message) {
	switch e.mode {
	case "chan":
		e.Queue <- from
	case "func":
		if e.First == nil {
			e.First = func() sim.NodeID { return from }
		}
	default:
		e.List = append(e.List, from)
	}
	if e.Greets++; e.Greets == 2 {
		ctx.SetTimer("elect")
	}
}

// HandleTimer elects the first greeter.
func (e *elector) HandleTimer(ctx *sim.Context, _ string) {
	switch e.mode {
	case "chan":
		e.Leader = <-e.Queue
	case "func":
		e.Leader = e.First()
	default:
		e.Leader = e.List[0]
	}
}

func init() {
	sim.Register(&sim.System{
		Name:   Hidden,
		Doc:    "test system: node 1 keeps a queue in a channel, a closure or a slice; electing node 2 is the bug",
		Params: []sim.ParamSpec{{Name: "mode", Kind: sim.ParamString, Default: "chan", Doc: "where node 1 keeps its queue: chan, func or slice"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			mode := p.String("mode")
			switch mode {
			case "chan", "func", "slice":
			default:
				return nil, fmt.Errorf("%w: mode %q (chan, func or slice)", sim.ErrBadParam, mode)
			}
			return &sim.Config{
				Nodes: 3,
				Service: func(id sim.NodeID) sim.Service {
					if id == 1 {
						return &elector{mode: mode}
					}
					return &greeter{}
				},
				Safety: []sim.Property{{Name: "NodeTwoNeverLeads", Check: func(v *sim.View) bool {
					return sim.Node[elector](v, 1).Leader != 2
				}}},
			}, nil
		},
	})
}

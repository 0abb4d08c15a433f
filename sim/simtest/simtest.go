package simtest

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/macemc/macemc/sim"
)

// The names the systems are registered under.
const (
	Panic  = "simtest-panic"
	Hang   = "simtest-hang"
	Leak   = "simtest-leak"
	Quiet  = "simtest-quiet"
	Escape = "simtest-escape"
)

// Hit is what node 0 sends node 1 in simtest-panic.
type Hit struct{ N int }

// panicker is a node of simtest-panic.
type panicker struct {
	sim.Base
	Sent, Got int
}

// HandleApp sends the next Hit.
func (p *panicker) HandleApp(ctx *sim.Context, _ any) {
	p.Sent++
	ctx.Send(1, Hit{N: p.Sent})
}

// HandleMessage panics on the second Hit.
func (p *panicker) HandleMessage(_ *sim.Context, _ sim.NodeID, _ sim.Message) {
	p.Got++
	if p.Got == 2 {
		panic("second hit")
	}
}

// hanger is the node of simtest-hang.
type hanger struct {
	sim.Base
	Asked bool
}

// Start arms the timer.
func (h *hanger) Start(ctx *sim.Context) { ctx.SetTimer("t") }

// HandleApp notes the request.
func (h *hanger) HandleApp(_ *sim.Context, _ any) { h.Asked = true }

// HandleTimer loops forever after the request; the watchdog unwinds it at
// its next Context call.
func (h *hanger) HandleTimer(ctx *sim.Context, _ string) {
	for h.Asked {
		ctx.Self()
	}
}

// Escapes waits for the goroutines simtest-escape's handlers start: a test
// that runs it calls Escapes.Wait before it ends.
var Escapes sync.WaitGroup

// escaper is the node of simtest-escape.
type escaper struct {
	sim.Base
	N int
}

// HandleApp starts a goroutine that outlives the handler (it touches
// nothing, so that the race detector has nothing to say).
func (e *escaper) HandleApp(*sim.Context, any) {
	e.N++
	Escapes.Go(func() { time.Sleep(20 * time.Millisecond) })
}

// ticks is what simtest-leak leaks: it outlives every execution.
var ticks atomic.Int64

// leaker is the node of simtest-leak.
type leaker struct {
	sim.Base
	Seen int64
}

// Start arms the periodic timer.
func (l *leaker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

// HandleTimer records the package-level counter.
func (l *leaker) HandleTimer(_ *sim.Context, _ string) { l.Seen = ticks.Add(1) }

// Ask is node 0's request in simtest-quiet, Answer node 1's reply.
type (
	Ask    struct{}
	Answer struct{}
)

// asker is a node of simtest-quiet: node 0 asks once and never again.
type asker struct {
	sim.Base
	Answered bool
}

// HandleApp asks node 1.
func (a *asker) HandleApp(ctx *sim.Context, _ any) { ctx.Send(1, Ask{}) }

// HandleMessage answers an Ask and notes an Answer.
func (a *asker) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case Ask:
		ctx.Send(from, Answer{})
	case Answer:
		a.Answered = true
	}
}

func init() {
	sim.Register(&sim.System{
		Name: Panic,
		Doc:  "test system: node 1 panics on the second message",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &panicker{} },
				App: func(id sim.NodeID) []any {
					if id == 0 {
						return []any{"hit", "hit"}
					}
					return nil
				},
			}, nil
		},
	})
	sim.Register(&sim.System{
		Name: Hang,
		Doc:  "test system: a timer handler that never returns after the request",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   1,
				Service: func(sim.NodeID) sim.Service { return &hanger{} },
				App:     func(sim.NodeID) []any { return []any{"ask"} },
			}, nil
		},
	})
	sim.Register(&sim.System{
		Name: Quiet,
		Doc:  "test system: a request lost when its connection breaks is never asked again",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &asker{} },
				App: func(id sim.NodeID) []any {
					if id == 0 {
						return []any{"ask"}
					}
					return nil
				},
				Liveness: []sim.Property{{Name: "Answered", Check: func(v *sim.View) bool { return sim.Node[asker](v, 0).Answered }}},
				Failures: sim.Failures{Breaks: 1},
			}, nil
		},
	})
	sim.Register(&sim.System{
		Name: Escape,
		Doc:  "test system: the handler of the request starts a goroutine that is still running when it returns",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   1,
				Service: func(sim.NodeID) sim.Service { return &escaper{} },
				App:     func(sim.NodeID) []any { return []any{"go"} },
			}, nil
		},
	})
	sim.Register(&sim.System{
		Name: Leak,
		Doc:  "test system: state leaks from one execution into the next",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &leaker{} }}, nil
		},
	})
}

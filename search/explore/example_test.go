package explore_test

import (
	"fmt"

	"context"

	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// lazy acknowledges a request only if its timer fires before the request
// arrives; otherwise it never does: a liveness bug.
type lazy struct {
	sim.Base
	Ready, Acked, Dead bool
}

func (l *lazy) Start(ctx *sim.Context) {
	if ctx.Self() == 1 {
		ctx.SetTimer("ready")
	}
}
func (l *lazy) HandleTimer(ctx *sim.Context, _ string) { l.Ready = true }
func (l *lazy) HandleApp(ctx *sim.Context, req any)    { ctx.Send(1, "request") }
func (l *lazy) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if m == "request" {
		if l.Ready {
			ctx.Send(from, "ack")
		}
		return
	}
	l.Acked = true
}

// Example searches a two-node system and finds its liveness violation.
func Example() {
	cfg := &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &lazy{} },
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"go"}
			}
			return nil
		},
		Liveness: []sim.Property{{Name: "Acked", Check: func(v *sim.View) bool { return sim.Node[lazy](v, 0).Acked }}},
	}
	res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: dfs.Strategy{}, Seed: 1, Workers: 1, WalkDepth: 100})
	if err != nil {
		panic(err)
	}
	v := res.Violations[0]
	fmt.Println(res.Verdict, v.Property, v.Outcome, "after", v.Steps, "steps")
	// Output: liveness Acked quiescent after 3 steps
}

package lin_test

import (
	"fmt"

	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Example checks a register's history in which a read returns a value
// older than a write that completed before it, and prints a minimal part
// of it that no order of operations explains.
func Example() {
	type write struct{ V int }
	type read struct{}
	model := &sim.Model{
		Init: func() any { return 0 },
		Apply: func(state, op any) (any, any) {
			if w, ok := op.(write); ok {
				return w.V, "ok"
			}
			return state, state
		},
	}
	h := []sim.HistoryEvent{
		{Kind: sim.Invocation, Client: 0, Value: write{1}, Step: 1},
		{Kind: sim.Invocation, Client: 2, Value: read{}, Step: 2},
		{Kind: sim.Response, Client: 0, Value: "ok", Step: 3},
		{Kind: sim.Invocation, Client: 1, Value: read{}, Step: 4},
		{Kind: sim.Response, Client: 1, Value: 0, Step: 5},
	}
	c := lin.New(model, 0)
	fmt.Println(c.Check(lin.Key(h), h))
	fmt.Print(engine.HistoryText(c.Minimize(h)))
	// Output:
	// illegal
	// step 1  node 0  client 0 invokes write{V: 1}
	// step 3  node 0  client 0 returns "ok"
	// step 4  node 0  client 1 invokes read{}
	// step 5  node 0  client 1 returns 0
}

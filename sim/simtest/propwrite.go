package simtest

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/macemc/macemc/sim"
)

// PropertyWrite is the name of simtest-propwrite.
const PropertyWrite = "simtest-propwrite"

// tally is the node of simtest-propwrite: it counts the requests it
// handled, and its property reads the count through a method that fills a
// cache in the node's state the first time, as a hurried user's accessor
// does.
type tally struct {
	sim.Base
	Handled int
	Cached  bool
	Total   int
}

// HandleApp counts a request, which client 0 invokes and gets back.
func (t *tally) HandleApp(ctx *sim.Context, req any) {
	t.Handled++
	ctx.Invoke(0, req)
	ctx.Return(0, "ok")
}

// Reads is the monitor of simtest-propwrite's mode monitor, which the
// property writes when it reads it.
type Reads struct{ N int }

// Handle implements sim.Monitor.
func (*Reads) Handle(any) error { return nil }

// HotReads is the liveness monitor of simtest-propwrite's mode hot: its
// Hot counts its calls.
type HotReads struct{ N int }

// Handle implements sim.Monitor.
func (*HotReads) Handle(any) error { return nil }

// Hot implements sim.LivenessMonitor, writing the monitor.
func (m *HotReads) Hot() bool {
	m.N++
	return false
}

// total is the accessor the property calls: it caches, writing the node.
func (t *tally) total() int {
	if !t.Cached {
		t.Cached, t.Total = true, t.Handled
	}
	return t.Total
}

func init() {
	sim.Register(&sim.System{
		Name:   PropertyWrite,
		Doc:    "test system: a property reads the node through an accessor that fills a cache in the node's state (mode cache) or indexes past a slice once a request was handled (mode panic)",
		Params: []sim.ParamSpec{{Name: "mode", Kind: sim.ParamString, Default: "cache", Doc: "cache, panic, monitor (the property counts its reads in a monitor), history (it writes the clients' history), when (the driver request's condition writes the node), whenother (node 0's condition writes node 1), many (six properties, each slow once), hot (a liveness monitor's Hot writes it) or slow (it sleeps a second once a request was handled)"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			check := func(v *sim.View) bool { return sim.Node[tally](v, 0).total() <= 2 }
			switch p.String("mode") {
			case "panic":
				check = func(v *sim.View) bool {
					seen := []int{}
					n := sim.Node[tally](v, 0).Handled
					return n == 0 || seen[n-1] >= 0
				}
			case "monitor":
				check = func(v *sim.View) bool {
					sim.MonitorOf[Reads](v).N++
					return sim.Node[tally](v, 0).Handled <= 2
				}
			case "history":
				check = func(v *sim.View) bool {
					if h := v.History(); len(h) > 0 {
						h[0].Value = 42
					}
					return sim.Node[tally](v, 0).Handled <= 2
				}
			case "when", "whenother":
				check = func(v *sim.View) bool { return sim.Node[tally](v, 0).Handled <= 2 }
			case "slow":
				// The first check once a request was handled sleeps a
				// second; every later one is quick.
				slept := new(atomic.Bool)
				check = func(v *sim.View) bool {
					if sim.Node[tally](v, 0).Handled == 1 && !slept.Swap(true) {
						time.Sleep(time.Second)
					}
					return true
				}
			}
			app := []any{1, 2}
			nodes := 1
			switch p.String("mode") {
			case "when":
				// The driver's condition counts its calls in the node.
				app[0] = sim.Request{Req: 1, Name: "first", When: func(v *sim.View) bool {
					sim.Node[tally](v, 0).Total++
					return true
				}}
			case "whenother":
				// Node 0's driver condition counts its calls in node 1.
				nodes = 2
				app[0] = sim.Request{Req: 1, Name: "first", When: func(v *sim.View) bool {
					sim.Node[tally](v, 1).Total++
					return true
				}}
			}
			monitors := []sim.MonitorSpec{{Name: "Reads", New: func() sim.Monitor { return &Reads{} }}}
			if p.String("mode") == "hot" {
				check = func(v *sim.View) bool { return sim.Node[tally](v, 0).Handled <= 2 }
				monitors = append(monitors, sim.MonitorSpec{Name: "HotReads", New: func() sim.Monitor { return &HotReads{} }})
			}
			safety := []sim.Property{{Name: "AtMostTwo", Check: check}}
			if p.String("mode") == "many" {
				// Six properties whose first check once a request was
				// handled takes 40ms each: each within a 100ms
				// timeout, 240ms together.
				safety = nil
				for i := range 6 {
					slept := new(atomic.Bool)
					safety = append(safety, sim.Property{Name: fmt.Sprintf("Slow%d", i), Check: func(v *sim.View) bool {
						if sim.Node[tally](v, 0).Handled == 1 && !slept.Swap(true) {
							time.Sleep(40 * time.Millisecond)
						}
						return true
					}})
				}
			}
			return &sim.Config{
				Nodes:   nodes,
				Service: func(sim.NodeID) sim.Service { return &tally{} },
				App: func(id sim.NodeID) []any {
					if id > 0 {
						return nil
					}
					return app
				},
				Safety:   safety,
				Monitors: monitors,
			}, nil
		},
	})
}

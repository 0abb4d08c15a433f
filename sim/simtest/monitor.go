package simtest

import (
	"fmt"
	"sync/atomic"

	"github.com/macemc/macemc/sim"
)

// Monitored is the name of simtest-monitor.
const Monitored = "simtest-monitor"

// Ping is what node 0 of simtest-monitor sends node 1.
type Ping struct{ N int }

// pinger is a node of simtest-monitor: node 0 sends a Ping for each of its
// two requests, node 1 notifies the monitor of each Ping it gets.
type pinger struct {
	sim.Base
	Sent int
}

// HandleApp sends the next Ping.
func (p *pinger) HandleApp(ctx *sim.Context, _ any) {
	p.Sent++
	ctx.Send(1, Ping{N: p.Sent})
}

// HandleMessage tells the monitor.
func (p *pinger) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) { ctx.Notify(m) }

// monitorCalls counts the calls of every Pings monitor in the process:
// what the faulty modes read, so that no two replays agree.
var monitorCalls atomic.Int64

// Pings is simtest-monitor's liveness monitor: hot until both Pings have
// arrived. Its mode makes it misbehave: "panic" panics at the second Ping,
// "drift" adds the process's count of its calls (mod 2) to its state, "hot"
// answers Hot by that count.
type Pings struct {
	Got   int
	Drift int64
	mode  string
}

// Handle implements sim.Monitor.
func (m *Pings) Handle(ev any) error {
	if _, ok := ev.(Ping); !ok {
		return nil
	}
	m.Got++
	switch {
	case m.mode == "panic" && m.Got == 2:
		panic("the second ping")
	case m.mode == "drift":
		m.Drift += monitorCalls.Add(1) % 2
	}
	return nil
}

// Hot implements sim.LivenessMonitor.
func (m *Pings) Hot() bool {
	if m.mode == "hot" {
		return monitorCalls.Add(1)%2 == 0
	}
	return m.Got < 2
}

func init() {
	sim.Register(&sim.System{
		Name:   Monitored,
		Doc:    "test system: a liveness monitor of node 1's pings that panics, drifts between replays or answers Hot at random",
		Params: []sim.ParamSpec{{Name: "mode", Kind: sim.ParamString, Default: "panic", Doc: "panic (Handle panics at the second ping), drift (Handle's state differs between replays), hot (Hot differs between replays) or ok"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			mode := p.String("mode")
			switch mode {
			case "panic", "drift", "hot", "ok":
			default:
				return nil, fmt.Errorf("%w: mode %q (panic, drift, hot or ok)", sim.ErrBadParam, mode)
			}
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &pinger{} },
				App: func(id sim.NodeID) []any {
					if id == 0 {
						return []any{"ping", "ping"}
					}
					return nil
				},
				Monitors: []sim.MonitorSpec{{Name: "Pings", New: func() sim.Monitor { return &Pings{mode: mode} }}},
			}, nil
		},
	})
}

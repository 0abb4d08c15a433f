package transport

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "transport"

// params are the system's parameters with their defaults.
var params = []sim.ParamSpec{
	{Name: "nodes", Kind: sim.ParamInt, Default: "2", Doc: "number of nodes; node 0 sends to every other node", Min: sim.Bound(2), Max: sim.Bound(64)},
	{Name: "messages", Kind: sim.ParamInt, Default: "2", Doc: "messages node 0's application sends to each receiver", Min: sim.Bound(1), Max: sim.Bound(1000)},
	{Name: "retries", Kind: sim.ParamInt, Default: "1", Doc: "SYN retransmissions before a connection attempt is abandoned", Min: sim.Bound(0), Max: sim.Bound(1000)},
	{Name: "drops", Kind: sim.ParamInt, Default: "1", Doc: "datagram drops per execution", Min: sim.Bound(0), Max: sim.Bound(1000)},
	{Name: "resets", Kind: sim.ParamInt, Default: "0", Doc: "node resets per execution", Min: sim.Bound(0), Max: sim.Bound(1000)},
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "attach a monotone connection identifier to packets (the fix of seed 003 §5)"},
}

// AllAcked is the liveness property of seed 003 Table 1: eventually no
// node has messages in flight. A node counts as done only after its test
// application has handed the transport every message the driver asks for,
// so that the initial state, before anything was sent, is not live.
var AllAcked = sim.Property{
	Name: "AllAcked",
	Doc:  "eventually every message sent is acknowledged: no node has messages in flight",
	Check: func(v *sim.View) bool {
		return sim.All(v, func(_ sim.NodeID, n *Node) bool { return n.Done() && n.InflightSize() == 0 })
	},
}

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	nodes, messages := p.Int("nodes"), p.Int("messages")
	if nodes < 2 {
		return nil, fmt.Errorf("nodes=%d: need a sender and at least one receiver", nodes)
	}
	if messages < 1 || p.Int("retries") < 0 || p.Int("drops") < 0 || p.Int("resets") < 0 {
		return nil, fmt.Errorf("messages must be positive and retries, drops, resets not negative")
	}
	fixed, retries := p.Bool("fixed"), p.Int("retries")
	requests := func(id sim.NodeID) []any {
		if id != 0 {
			return nil
		}
		var reqs []any
		for i := range messages {
			for to := 1; to < nodes; to++ {
				reqs = append(reqs, SendRequest{To: sim.NodeID(to), Msg: fmt.Sprintf("m%d", i)})
			}
		}
		return reqs
	}
	return &sim.Config{
		Nodes: nodes,
		Service: func(id sim.NodeID) sim.Service {
			return &Node{
				tr:  Transport{Fixed: fixed, MaxRetries: retries},
				app: testApp{expected: len(requests(id))},
			}
		},
		App:      requests,
		Liveness: []sim.Property{AllAcked},
		Failures: sim.Failures{Drops: p.Int("drops"), Resets: p.Int("resets"), Reorder: true},
	}, nil
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "MaceTransport: reliable in-order messages over datagrams; stale SYN liveness bug (seed 003 §5)",
		Params: params,
		Build:  Build,
	})
}

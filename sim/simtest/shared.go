package simtest

import (
	"fmt"
	"slices"

	"github.com/macemc/macemc/sim"
)

// Shared is the name of simtest-shared.
const Shared = "simtest-shared"

// Entries is what node 0 of simtest-shared sends node 1: a slice, as a
// log-shipping protocol's append request holds.
type Entries struct{ Vals []int }

// shipper is a node of simtest-shared. Node 0 sends its log to node 1 when
// it boots and, on its timer (or at once, in mode "same-handler"),
// overwrites the log in place (as a log truncated on a conflict is); node
// 1 keeps what it received.
type shipper struct {
	sim.Base
	mode string
	Log  []int
	Got  []int
}

// Start sends node 0's log: the slice itself, or a copy in mode "copy";
// as a datagram in mode "datagram".
func (n *shipper) Start(ctx *sim.Context) {
	if ctx.Self() != 0 {
		return
	}
	n.Log = append(make([]int, 0, 4), 1, 2, 3)
	m := Entries{Vals: n.Log}
	if n.mode == "copy" {
		m.Vals = slices.Clone(n.Log)
	}
	if n.mode == "datagram" {
		ctx.SendDatagram(1, m)
	} else {
		ctx.Send(1, m)
	}
	if n.mode == "same-handler" {
		n.Log[0] = 9
		return
	}
	ctx.SetTimer("overwrite")
}

// HandleMessage keeps the entries: the message's slice itself in mode
// "keep", a copy otherwise.
func (n *shipper) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if n.mode == "keep" {
		n.Got = m.(Entries).Vals
		return
	}
	n.Got = slices.Clone(m.(Entries).Vals)
}

// HandleTimer overwrites the log in place.
func (n *shipper) HandleTimer(ctx *sim.Context, name string) {
	n.Log = append(n.Log[:0], 9, 9, 9)
}

func init() {
	sim.Register(&sim.System{
		Name: Shared,
		Doc:  "test system: a message that shares a slice with its sender's log, which the sender overwrites",
		Params: []sim.ParamSpec{{Name: "mode", Kind: sim.ParamString, Default: "send",
			Doc: "send (the message holds node 0's log itself), datagram (the same as a datagram), same-handler (node 0 overwrites its log in the handler that sent it), keep (as send, and node 1 keeps the message's slice, not a copy) or copy (node 0 sends a copy: nothing is shared)"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			mode := p.String("mode")
			if !slices.Contains([]string{"send", "datagram", "same-handler", "keep", "copy"}, mode) {
				return nil, fmt.Errorf("mode %q: want send, datagram, same-handler, keep or copy", mode)
			}
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &shipper{mode: mode} },
				Safety: []sim.Property{{Name: "GotWhatWasSent", Doc: "node 1 holds the log node 0 sent", Check: func(v *sim.View) bool {
					got := sim.Node[shipper](v, 1).Got
					return got == nil || got[0] == 1
				}}},
			}, nil
		},
	})
}

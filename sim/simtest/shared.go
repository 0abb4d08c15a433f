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

// sharedModes are simtest-shared's modes: the first five share memory
// through a message (or share none), the others through objects its
// Build makes once.
var sharedModes = []string{"send", "datagram", "same-handler", "keep", "copy", "boot", "driver", "monitor", "executions"}

// shipper is a node of simtest-shared. Node 0 sends its log to node 1 when
// it boots and, on its timer (or at once, in mode "same-handler"),
// overwrites the log in place (as a log truncated on a conflict is); node
// 1 keeps what it received. In the modes that share an object Build made,
// node 0 sends nothing, and its timer adds one to its log's first entry.
type shipper struct {
	sim.Base
	mode string
	Log  []int
	Got  []int
}

// built reports whether mode shares an object Build made.
func built(mode string) bool {
	return mode == "boot" || mode == "driver" || mode == "monitor" || mode == "executions"
}

// Start sends node 0's log: the slice itself, or a copy in mode "copy";
// as a datagram in mode "datagram". In mode "monitor" it notifies the
// monitor of its log instead.
func (n *shipper) Start(ctx *sim.Context) {
	if ctx.Self() != 0 {
		return
	}
	if built(n.mode) {
		if n.mode == "monitor" {
			n.Log = []int{1, 2, 3}
			ctx.Notify(Entries{Vals: n.Log})
		}
		ctx.SetTimer("overwrite")
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

// HandleApp keeps the driver's entries as they are: node 0 as its log,
// the others as what they got.
func (n *shipper) HandleApp(ctx *sim.Context, req any) {
	if ctx.Self() == 0 {
		n.Log = req.(Entries).Vals
		return
	}
	n.Got = req.(Entries).Vals
}

// HandleTimer overwrites the log in place, or adds one to its first entry
// in the modes that share an object Build made.
func (n *shipper) HandleTimer(ctx *sim.Context, name string) {
	if built(n.mode) {
		if len(n.Log) > 0 {
			n.Log[0]++
		}
		return
	}
	n.Log = append(n.Log[:0], 9, 9, 9)
}

// keeper is simtest-shared's monitor in mode "monitor": it keeps the
// entries it is notified of as they are, not a copy.
type keeper struct{ Seen []int }

// Handle keeps the entries' slice.
func (k *keeper) Handle(ev any) error {
	k.Seen = ev.(Entries).Vals
	return nil
}

func init() {
	sim.Register(&sim.System{
		Name: Shared,
		Doc:  "test system: a message that shares a slice with its sender's log, which the sender overwrites; or a slice Build made once that nodes, a monitor or executions share",
		Params: []sim.ParamSpec{{Name: "mode", Kind: sim.ParamString, Default: "send",
			Doc: "send (the message holds node 0's log itself), datagram (the same as a datagram), same-handler (node 0 overwrites its log in the handler that sent it), " +
				"keep (as send, and node 1 keeps the message's slice, not a copy), copy (node 0 sends a copy: nothing is shared), " +
				"boot (Config.Service gives both nodes one log, which node 0's timer changes), driver (Config.App gives both nodes one slice, node 0 keeps it as its log), " +
				"monitor (node 0 notifies the monitor of its log, which the monitor keeps) or executions (Config.Service gives node 0 of every execution one log)"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			mode := p.String("mode")
			if !slices.Contains(sharedModes, mode) {
				return nil, fmt.Errorf("mode %q: want one of %v", mode, sharedModes)
			}
			once := []int{1, 2, 3}
			cfg := &sim.Config{
				Nodes: 2,
				Service: func(id sim.NodeID) sim.Service {
					n := &shipper{mode: mode}
					if mode == "boot" || mode == "executions" && id == 0 {
						n.Log = once
					}
					return n
				},
				Safety: []sim.Property{{Name: "GotWhatWasSent", Doc: "node 1 holds the log node 0 sent", Check: func(v *sim.View) bool {
					got := sim.Node[shipper](v, 1).Got
					return got == nil || got[0] == 1 || built(mode)
				}}},
			}
			switch mode {
			case "driver":
				cfg.App = func(sim.NodeID) []any { return []any{Entries{Vals: once}} }
			case "monitor":
				cfg.Monitors = []sim.MonitorSpec{{Name: "Keeper", New: func() sim.Monitor { return &keeper{} }}}
			}
			return cfg, nil
		},
	})
}

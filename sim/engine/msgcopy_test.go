package engine_test

import (
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// note is a pointer message its receivers mark.
type note struct{ Seen bool }

// marker sends one *note (node 0: to nodes 1 and 2 the same pointer, or one
// datagram to node 1); a receiver counts the notes it got unmarked and
// marks them, as a node that owns what it received may.
type marker struct {
	sim.Base
	datagram bool
	Fresh    int
}

func (m *marker) Start(ctx *sim.Context) {
	if ctx.Self() != 0 {
		return
	}
	n := &note{}
	if m.datagram {
		ctx.SendDatagram(1, n)
		return
	}
	ctx.Send(1, n)
	ctx.Send(2, n)
}

func (m *marker) HandleMessage(_ *sim.Context, _ sim.NodeID, msg sim.Message) {
	n := msg.(*note)
	if !n.Seen {
		m.Fresh++
	}
	n.Seen = true
}

// TestEveryReceiverGetsItsOwnCopy: a network delivers a copy of what was
// sent to each receiver and for each duplicate, so marking one delivery
// leaves the others unmarked, although the sender sent one pointer.
func TestEveryReceiverGetsItsOwnCopy(t *testing.T) {
	for _, datagram := range []bool{false, true} {
		cfg := &sim.Config{Nodes: 3, Service: func(sim.NodeID) sim.Service { return &marker{datagram: datagram} }}
		if datagram {
			cfg.Failures.Duplicates = 1
		}
		// Deliver everything, the duplicate first when there is one (a
		// duplicate event is listed after the delivery it copies).
		s := mustNew(t, cfg, engine.Options{Chooser: chooserFunc(func(_ engine.ChoiceKind, n int, _ []float64) int { return n - 1 })})
		if err := stepAll(s, 10); err != nil {
			t.Fatal(err)
		}
		fresh := s.Service(1).(*marker).Fresh + s.Service(2).(*marker).Fresh
		if fresh != 2 {
			t.Errorf("datagram %v: %d fresh deliveries, want 2 (each its own copy)", datagram, fresh)
		}
	}
}

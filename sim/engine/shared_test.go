package engine_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// entries is a message that holds a slice, as a log-shipping protocol's
// append request does.
type entries struct{ Vals []int }

// shipper sends a slice of its log to node 1 when it boots and, on its
// timer, overwrites the log in place (as a log truncated on a conflict
// is); how it shares memory with the message or with node 1 is mode's.
type shipper struct {
	sim.Base
	mode string
	Log  []int
	Got  []int
}

func (n *shipper) Start(ctx *sim.Context) {
	if ctx.Self() != 0 {
		return
	}
	n.Log = append(make([]int, 0, 4), 1, 2, 3)
	m := entries{Vals: n.Log}
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

func (n *shipper) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if n.mode == "keep" {
		n.Got = m.(entries).Vals // kept, not copied: shared with node 0
		return
	}
	n.Got = slices.Clone(m.(entries).Vals)
}

func (n *shipper) HandleTimer(ctx *sim.Context, name string) {
	n.Log = append(n.Log[:0], 9, 9, 9)
}

// TestMemorySharedThroughMessages: the determinism checks report a message
// its sender changed after sending it (a network would have delivered what
// was sent) and a node whose state another node's handler changed (they
// share memory), naming the nodes, the steps and the field that changed
// (compared with the next replay, which has not taken the step yet); a
// sender that sends a copy passes. Each path: the boot sends, then the
// timer (step 1) and the delivery (step 2), or the delivery first.
func TestMemorySharedThroughMessages(t *testing.T) {
	for _, c := range []struct {
		mode       string
		timerFirst bool
		want       error
	}{
		{mode: "later", timerFirst: true, want: &engine.MessageChangedError{From: 0, To: 1, Sent: 0, Delivered: 2, Message: "entries"}},
		{mode: "datagram", timerFirst: true, want: &engine.MessageChangedError{From: 0, To: 1, Sent: 0, Delivered: 2, Message: "entries"}},
		{mode: "same-handler", want: &engine.MessageChangedError{From: 0, To: 1, Sent: 0, Delivered: 1, Message: "entries"}},
		{mode: "keep", want: &engine.SharedStateError{Node: 1, By: 0, Step: 2, Field: ".Got[0]", Detail: "1 in one, 9 in the other"}},
		{mode: "copy", timerFirst: true},
		{mode: "copy"},
		// Delivered before the overwrite: the message is what was sent.
		{mode: "later"},
	} {
		cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &shipper{mode: c.mode} }}
		s := mustNew(t, cfg, engine.Options{})
		for s.Steps() < 2 {
			ready := s.Ready()
			if len(ready) == 0 {
				break
			}
			i := slices.IndexFunc(ready, func(ev engine.Event) bool { return (ev.Kind == engine.EvTimer) == c.timerFirst })
			if err := s.StepEvent(max(i, 0)); err != nil {
				t.Fatalf("%s: step: %v", c.mode, err)
			}
		}
		err := engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{})
		if c.want == nil {
			if err != nil {
				t.Errorf("%s (timer first %v): %v", c.mode, c.timerFirst, err)
			}
			continue
		}
		if !errors.Is(err, engine.ErrEscape) || !errors.Is(err, engine.ErrNondeterministic) {
			t.Errorf("%s: got %v, want an escape", c.mode, err)
			continue
		}
		var mc *engine.MessageChangedError
		var ss *engine.SharedStateError
		var got error
		switch {
		case errors.As(err, &mc):
			got = mc
		case errors.As(err, &ss):
			got = ss
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %T %v, want %+v", c.mode, err, err, c.want)
		}
	}
}

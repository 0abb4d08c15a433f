package engine_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/simtest"
)

// TestMemorySharedThroughMessages: the determinism checks report a message
// its sender changed after sending it (a network would have delivered what
// was sent) and a node whose state another node's handler changed (they
// share memory), naming the nodes, the steps and the field that changed
// (compared with the next replay, which has not taken the step yet); a
// sender that sends a copy passes. Each path: the boot sends, then the
// timer (step 1) and the delivery (step 2), or the delivery first.
func TestMemorySharedThroughMessages(t *testing.T) {
	shared, err := sim.Lookup(simtest.Shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode       string
		timerFirst bool
		want       error
	}{
		{mode: "send", timerFirst: true, want: &engine.MessageChangedError{From: 0, To: 1, Sent: 0, Delivered: 2, Message: "Entries", Field: ".Vals[0]", Detail: "1 in one, 9 in the other"}},
		{mode: "datagram", timerFirst: true, want: &engine.MessageChangedError{From: 0, To: 1, Sent: 0, Delivered: 2, Message: "Entries", Field: ".Vals[0]", Detail: "1 in one, 9 in the other"}},
		{mode: "same-handler", want: &engine.MessageChangedError{From: 0, To: 1, Sent: 0, Delivered: 1, Message: "Entries"}},
		{mode: "keep", want: &engine.SharedStateError{Node: 1, By: 0, Step: 2, Field: ".Got[0]", Detail: "1 in one, 9 in the other"}},
		{mode: "copy", timerFirst: true},
		{mode: "copy"},
		// Delivered before the overwrite: the message is what was sent.
		{mode: "send"},
	} {
		cfg, _, err := shared.Config(map[string]string{"mode": c.mode})
		if err != nil {
			t.Fatal(err)
		}
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
		err = engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{})
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

// counted is a node that shares its counter with every other node of its
// config (made once in the config, as a user's Build might).
type counted struct {
	sim.Base
	ID sim.NodeID
	C  *struct{ N int }
}

func (n *counted) Start(ctx *sim.Context) {
	if n.ID == 0 {
		ctx.SetTimer("inc")
	}
}

func (n *counted) HandleTimer(*sim.Context, string) { n.C.N++ }

// TestMemorySharedByEveryReplay: memory two nodes share that every replay
// shares too (an object the config made once) is reported with its field,
// although no replay still holds the value from before the step.
func TestMemorySharedByEveryReplay(t *testing.T) {
	c := &struct{ N int }{}
	cfg := &sim.Config{Nodes: 2, Service: func(id sim.NodeID) sim.Service { return &counted{ID: id, C: c} }}
	s := mustNew(t, cfg, engine.Options{})
	walk(t, s, 1)
	err := engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{})
	var ss *engine.SharedStateError
	if !errors.As(err, &ss) || ss.Node != 1 || ss.By != 0 || ss.Step != 1 || ss.Field != ".C.N" {
		t.Fatalf("got %v, want node 1's .C.N changed by node 0's handler at step 1", err)
	}
}

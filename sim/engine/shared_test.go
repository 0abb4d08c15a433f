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
// although no replay still holds the value from before the step, and as
// shared from the start, where each node holds it; not with values that
// every replay changed.
func TestMemorySharedByEveryReplay(t *testing.T) {
	c := &struct{ N int }{}
	cfg := &sim.Config{Nodes: 2, Service: func(id sim.NodeID) sim.Service { return &counted{ID: id, C: c} }}
	s := mustNew(t, cfg, engine.Options{})
	walk(t, s, 1)
	err := engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{})
	var ss *engine.SharedStateError
	if !errors.As(err, &ss) {
		t.Fatalf("got %v, want a SharedStateError", err)
	}
	want := &engine.SharedStateError{Node: 1, By: 0, Step: 1, Field: ".C.N",
		Origin: engine.OriginService, Shared: ".C", ByShared: ".C", Object: "*struct { N int }"}
	if !reflect.DeepEqual(ss, want) {
		t.Fatalf("got %+v, want %+v", ss, want)
	}
}

// TestMemorySharedFromBuild: the determinism check names how memory that
// simtest-shared's Build made once came to be shared: Config.App handing
// it to both nodes, a monitor keeping an event's slice (changed by a
// handler that notified it of nothing), every execution's node 0 holding
// it. Each path: the driver's requests first, then node 0's timer.
func TestMemorySharedFromBuild(t *testing.T) {
	shared, err := sim.Lookup(simtest.Shared)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode string
		want error
	}{
		{"driver", &engine.SharedStateError{Node: 1, By: 0, Step: 3, Field: ".Got[0]",
			Origin: engine.OriginDriver, Shared: ".Got", ByShared: "request 0.Vals", Object: "[]int"}},
		{"monitor", &engine.SharedStateError{Node: -1, Monitor: "Keeper", By: 0, Step: 1, Field: ".Seen[0]", Detail: "1 in one, 2 in the other"}},
		{"executions", &engine.EscapeError{Node: 0, Step: 1, Detail: "its state changed while none of its handlers ran: its .Log is one []int with node 0's .Log in every other execution " +
			"of the system in this process (the replays of the path, a search's workers), made once (by Build or a package variable) and reached by each (through Config.Service, " +
			"a driver request of Config.App, or a package variable a handler reads), so what one execution writes the others read; executions share nothing: " +
			"have Config.Service make each node its own state and Config.App each node's requests afresh, and keep package variables out of nodes' states"}},
	} {
		cfg, _, err := shared.Config(map[string]string{"mode": c.mode})
		if err != nil {
			t.Fatal(err)
		}
		s := mustNew(t, cfg, engine.Options{})
		for {
			ready := s.Ready()
			if len(ready) == 0 {
				break
			}
			i := slices.IndexFunc(ready, func(ev engine.Event) bool { return ev.Kind != engine.EvTimer })
			if err := s.StepEvent(max(i, 0)); err != nil {
				t.Fatalf("%s: step: %v", c.mode, err)
			}
		}
		err = engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{})
		var ss *engine.SharedStateError
		var esc *engine.EscapeError
		var got error
		switch {
		case errors.As(err, &ss):
			got = ss
		case errors.As(err, &esc):
			got = esc
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %T %v,\nwant %+v", c.mode, err, err, c.want)
		}
	}
}

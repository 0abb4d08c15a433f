package engine_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// valueNode has state and handlers with value receivers.
type valueNode struct {
	sim.Base
	Count int
}

func (v valueNode) Start(*sim.Context)                                  {}
func (v valueNode) HandleMessage(*sim.Context, sim.NodeID, sim.Message) {}

// TestServiceErrors: a Config.Service that returns nil or a struct value,
// or panics, is an error from New that names the node, not a panic.
func TestServiceErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		svc  func(sim.NodeID) sim.Service
		want string
	}{
		{"nil", func(sim.NodeID) sim.Service { return nil }, "sim: sim.Config.Service returned nil for node 0"},
		{"value", func(sim.NodeID) sim.Service { return valueNode{} },
			"sim: sim.Config.Service returned a engine_test.valueNode value for node 0, not a pointer: its handlers would run on a copy of the node, " +
				"and every change they made to it would be lost; return &valueNode{...} and give the handlers pointer receivers"},
		{"panic", func(id sim.NodeID) sim.Service {
			if id == 1 {
				panic("no settings for node 1")
			}
			return &valueNode{}
		}, "sim: sim.Config.Service panicked for node 1: no settings for node 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := engine.New(&sim.Config{Nodes: 2, Service: tc.svc}, engine.Options{})
			var se *engine.ServiceError
			if s != nil || !errors.As(err, &se) || !errors.Is(err, sim.ErrBadConfig) || err.Error() != tc.want {
				t.Fatalf("got %v, %v; want %s", s, err, tc.want)
			}
		})
	}
}

// TestValueReceivers names the handlers a node type declares with value
// receivers, not those sim.Base gives it nor those with pointer receivers.
func TestValueReceivers(t *testing.T) {
	if got := engine.ValueReceivers(&valueNode{}); !slices.Equal(got, []string{"Start", "HandleMessage"}) {
		t.Errorf("valueNode: %v", got)
	}
	if got := engine.ValueReceivers(&ctxKeeper{}); got != nil {
		t.Errorf("ctxKeeper (pointer receivers): %v", got)
	}
}

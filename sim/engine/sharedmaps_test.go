package engine_test

import (
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// mapHolder holds maps: Own made for each node, Nested's values possibly
// one map shared by every simulator.
type mapHolder struct {
	sim.Base
	Own    map[string]int
	Nested map[string]map[int]int
}

// TestSharedMap: a map the nodes of two simulators both reach is named by
// its node and path, found under another map too; maps made for each
// node are not.
func TestSharedMap(t *testing.T) {
	once := map[int]int{1: 1}
	for _, c := range []struct {
		name   string
		shared bool
		path   string
	}{{"own maps", false, ""}, {"one map under another", true, `.Nested["b"]`}} {
		cfg := &sim.Config{Nodes: 2, Service: func(id sim.NodeID) sim.Service {
			h := &mapHolder{Own: map[string]int{"x": 1}, Nested: map[string]map[int]int{"a": {2: 2}, "b": {3: 3}}}
			if c.shared && id == 1 {
				h.Nested["b"] = once
			}
			return h
		}}
		a := mustNew(t, cfg, engine.Options{})
		b := mustNew(t, cfg, engine.Options{})
		node, path, ok := engine.SharedMap(a, b)
		if ok != c.shared || ok && (node != 1 || path != c.path) {
			t.Errorf("%s: node %d path %q shared %v", c.name, node, path, ok)
		}
	}
}

// registry stands for a library value whose canonical form leaves out a
// map every holder shares (a protobuf message's pointer into the process's
// type registry).
type registry struct {
	Name  string
	types map[string]int
}

// withRegistry holds a registry.
type withRegistry struct {
	sim.Base
	Reg registry
}

var globalTypes = map[string]int{"t": 1}

func init() { sim.RegisterCanonical(func(r *registry) any { return r.Name }) }

// TestSharedMapBehindCanonicalForm: a map inside a value with a canonical
// form is no state, shared or not (raftkv warned on every run of a map in
// protobuf's type registry, and ran on one worker).
func TestSharedMapBehindCanonicalForm(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service {
		return &withRegistry{Reg: registry{Name: "r", types: globalTypes}}
	}}
	if node, path, ok := engine.SharedMap(mustNew(t, cfg, engine.Options{}), mustNew(t, cfg, engine.Options{})); ok {
		t.Errorf("node %d's %s reported shared", node, path)
	}
}

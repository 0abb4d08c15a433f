package sim_test

import (
	"reflect"
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestWeightsWithDefaults: each zero class weight takes the default, each
// set one stays, and the per-timer and per-message weights are kept.
func TestWeightsWithDefaults(t *testing.T) {
	d := sim.DefaultWeights
	if got := (sim.Weights{}).WithDefaults(); got.App != d.App || got.Message != d.Message || got.Timer != d.Timer || got.Failure != d.Failure {
		t.Errorf("zero weights: %+v", got)
	}
	set := sim.Weights{App: 1, Message: 2, Timer: 3, Failure: 4, Timers: map[string]float64{"t": 5}, Messages: map[string]float64{"M": 6}}
	if got := set.WithDefaults(); !reflect.DeepEqual(got, set) {
		t.Errorf("set weights changed: %+v", got)
	}
	for name, w := range map[string]sim.Weights{"app": {Message: 2, Timer: 3, Failure: 4}, "message": {App: 1, Timer: 3, Failure: 4},
		"timer": {App: 1, Message: 2, Failure: 4}, "failure": {App: 1, Message: 2, Timer: 3}} {
		got := w.WithDefaults()
		want := sim.Weights{App: 1, Message: 2, Timer: 3, Failure: 4}
		switch name {
		case "app":
			want.App = d.App
		case "message":
			want.Message = d.Message
		case "timer":
			want.Timer = d.Timer
		case "failure":
			want.Failure = d.Failure
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s unset: %+v, want %+v", name, got, want)
		}
	}
}

// TestWhereFailuresHappen: without filters every node and link may fail;
// with them only those named, a link in either direction.
func TestWhereFailuresHappen(t *testing.T) {
	var all sim.Failures
	if !all.NodeMayFail(3) || !all.LinkMayFail(0, 2) {
		t.Error("no filter, but a node or link may not fail")
	}
	f := sim.Failures{Nodes: []sim.NodeID{1}, Links: []sim.Link{{0, 1}}}
	for _, c := range []struct {
		a, b sim.NodeID
		want bool
	}{{0, 1, true}, {1, 0, true}, {0, 2, false}, {2, 1, false}} {
		if got := f.LinkMayFail(c.a, c.b); got != c.want {
			t.Errorf("link %d-%d may fail: %v", c.a, c.b, got)
		}
	}
	if !f.NodeMayFail(1) || f.NodeMayFail(0) {
		t.Error("the node filter is not applied")
	}
}

// TestPartitionSidesEdges: two nodes split one way; one node, or more
// than MaxPartitionNodes, cannot split; a given side that holds every node
// or none splits nothing; 64 nodes split each node off.
func TestPartitionSidesEdges(t *testing.T) {
	var f sim.Failures
	if got := f.PartitionSides(2); !reflect.DeepEqual(got, []uint64{1}) {
		t.Errorf("2 nodes: %v", got)
	}
	if f.PartitionSides(1) != nil || f.PartitionSides(sim.MaxPartitionNodes+1) != nil {
		t.Error("1 node or too many nodes split")
	}
	f.Splits = [][]sim.NodeID{{0, 1}, {}, {1}}
	if got := f.PartitionSides(2); !reflect.DeepEqual(got, []uint64{2}) {
		t.Errorf("a side of every node or none kept: %v", got)
	}
	f.Splits = nil
	sides := f.PartitionSides(64)
	if len(sides) != 64 {
		t.Fatalf("64 nodes: %d sides", len(sides))
	}
	for i, m := range sides {
		if m != 1<<i {
			t.Errorf("64 nodes: side %d is %#x", i, m)
		}
	}
}

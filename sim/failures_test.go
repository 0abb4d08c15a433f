package sim_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/macemc/macemc/sim"
)

func TestParseFailures(t *testing.T) {
	base := sim.Failures{Resets: 1, Drops: 2}
	f, err := sim.ParseFailures(base, "crashes=1, partitions=2,duplicates=3,pernode=1,nodes=1+2,links=0-1+2-1,splits=0/1+2,reorder=true")
	if err != nil {
		t.Fatal(err)
	}
	want := sim.Failures{Resets: 1, Drops: 2, Crashes: 1, Partitions: 2, Duplicates: 3, PerNode: 1, Reorder: true,
		Nodes: []sim.NodeID{1, 2}, Links: []sim.Link{{0, 1}, {2, 1}}, Splits: [][]sim.NodeID{{0}, {1, 2}}}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
	if s := f.String(); s != "resets=1,crashes=1,breaks=0,drops=2,duplicates=3,partitions=2,reorder=true,pernode=1,nodes=1+2,links=0-1+2-1,splits=0/1+2" {
		t.Fatalf("String: %s", s)
	}
	// "all" and "default" clear the filters.
	if g, err := sim.ParseFailures(f, "nodes=all,links=all,splits=default"); err != nil || g.Nodes != nil || g.Links != nil || g.Splits != nil {
		t.Fatalf("clearing filters: %+v %v", g, err)
	}
	for _, bad := range []string{"crashes", "crashes=-1", "crashes=x", "wings=2", "nodes=a", "links=0", "links=0-x", "splits=", "reorder=maybe",
		"resets=1,resets=2", "resets=1,resets=1", "links=0-0", "nodes=0+0", "splits=1+1/2"} {
		if _, err := sim.ParseFailures(base, bad); !errors.Is(err, sim.ErrBadFailures) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestPartitionSides(t *testing.T) {
	var f sim.Failures
	// Three nodes: each node alone.
	if got := f.PartitionSides(3); !reflect.DeepEqual(got, []uint64{1, 2, 4}) {
		t.Fatalf("3 nodes: %v", got)
	}
	// Four: each node alone, then the halves holding node 0.
	if got := f.PartitionSides(4); !reflect.DeepEqual(got, []uint64{1, 2, 4, 8, 3, 5, 9}) {
		t.Fatalf("4 nodes: %v", got)
	}
	// Given splits, a side and its complement listed once.
	f.Splits = [][]sim.NodeID{{0, 1}, {2}, {2, 3}}
	if got := f.PartitionSides(4); !reflect.DeepEqual(got, []uint64{3, 4}) {
		t.Fatalf("given: %v", got)
	}
	// Bad filters are config errors.
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &sim.Base{} }, Failures: sim.Failures{Nodes: []sim.NodeID{2}}}
	if err := cfg.Validate(); !errors.Is(err, sim.ErrBadConfig) {
		t.Fatal(err)
	}
}

// FuzzParseFailures: no input panics, and what parses prints back to a
// specification that parses to the same failures.
func FuzzParseFailures(f *testing.F) {
	for _, s := range []string{"", "resets=1", "crashes=1,partitions=1,nodes=0+1,links=0-1", "splits=0+1/2,reorder=true", "pernode=2,duplicates=9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := sim.ParseFailures(sim.Failures{}, spec)
		if err != nil {
			return
		}
		b, err := sim.ParseFailures(sim.Failures{}, a.String())
		if err != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q -> %q -> %+v, %v", spec, a.String(), b, err)
		}
	})
}

package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

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
		"resets=1,resets=2", "resets=1,resets=1", "links=0-0", "nodes=0+0", "splits=1+1/2", "links=0-1+1-0", "links=0-1+0-1", "splits=1/1", "splits=0+1/1+0", " "} {
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

// TestFaults runs testdata/faults.txt: each
//
//	faults
//	base: SPEC
//	spec: SPEC
//	nodes: N
//
// applies spec (ParseFailures; a value in double quotes is unquoted) to
// the failures base gives (none by default) and prints the result or the
// error, then what CheckFilters says of it, and with nodes, what
// Config.Validate says of a system of N nodes with those failures. go test
// ./sim -rewrite regenerates the file.
func TestFaults(t *testing.T) {
	datadriven.RunTest(t, "testdata/faults.txt", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "faults" {
			td.Fatalf(t, "unknown command %q", td.Cmd)
		}
		var base, spec string
		nodes := 0
		for _, line := range strings.Split(td.Input, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				td.Fatalf(t, "%q is not KEY: VALUE", line)
			}
			v = strings.TrimSpace(v)
			if strings.HasPrefix(v, `"`) {
				var err error
				if v, err = strconv.Unquote(v); err != nil {
					td.Fatalf(t, "%s: %v", k, err)
				}
			}
			switch k {
			case "base":
				base = v
			case "spec":
				spec = v
			case "nodes":
				n, err := strconv.Atoi(v)
				if err != nil {
					td.Fatalf(t, "nodes: %v", err)
				}
				nodes = n
			default:
				td.Fatalf(t, "unknown key %q", k)
			}
		}
		b, err := sim.ParseFailures(sim.Failures{}, base)
		if err != nil {
			td.Fatalf(t, "base: %v", err)
		}
		f, err := sim.ParseFailures(b, spec)
		if err != nil {
			if !errors.Is(err, sim.ErrBadFailures) {
				t.Errorf("%v does not wrap ErrBadFailures", err)
			}
			return fmt.Sprintf("parse: %v\n", err)
		}
		var out strings.Builder
		fmt.Fprintf(&out, "parsed: %s\n", f)
		if err := sim.CheckFilters(f, spec); err != nil {
			if !errors.Is(err, sim.ErrBadFailures) {
				t.Errorf("%v does not wrap ErrBadFailures", err)
			}
			fmt.Fprintf(&out, "filters: %v\n", err)
		} else {
			out.WriteString("filters: ok\n")
		}
		if nodes > 0 {
			cfg := &sim.Config{Nodes: nodes, Service: func(sim.NodeID) sim.Service { return &sim.Base{} }, Failures: f}
			if err := cfg.Validate(); err != nil {
				fmt.Fprintf(&out, "config of %d nodes: %v\n", nodes, err)
			} else {
				fmt.Fprintf(&out, "config of %d nodes: ok\n", nodes)
			}
		}
		return out.String()
	})
}

// TestFailuresNamedTwice: a system's own Failures that name a node, a link
// (in either direction) or a side twice are config errors, as they are in
// ParseFailures' form: ParseFailures(Failures{}, f.String()) then always
// gives f back.
func TestFailuresNamedTwice(t *testing.T) {
	for _, f := range []sim.Failures{
		{Resets: 1, Nodes: []sim.NodeID{1, 1}},
		{Drops: 1, Links: []sim.Link{{0, 1}, {1, 0}}},
		{Drops: 1, Links: []sim.Link{{0, 2}, {0, 2}}},
		{Partitions: 1, Splits: [][]sim.NodeID{{2, 0}, {0, 2}}},
		{Partitions: 1, Splits: [][]sim.NodeID{{1}, {0, 2}}},
	} {
		cfg := &sim.Config{Nodes: 3, Service: func(sim.NodeID) sim.Service { return &sim.Base{} }, Failures: f}
		if err := cfg.Validate(); !errors.Is(err, sim.ErrBadConfig) || !strings.Contains(err.Error(), "twice") && !strings.Contains(err.Error(), "same partition") {
			t.Errorf("%s: %v", f, err)
		}
	}
}

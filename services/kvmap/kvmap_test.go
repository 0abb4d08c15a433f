package kvmap

import (
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/search/searchtest"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
)

// The nodes of the default system: replicas 0-2 (0 leads), the writer
// (client 0, home 0) and the readers (client 1, home 1; client 2, home 2).
const (
	writer  sim.NodeID = 3
	reader2 sim.NodeID = 5
)

// stale is the bug: the write of x=1 is chosen with replica 1 and
// acknowledged; client 2 then reads x at replica 2, which has not heard.
var stale = []struct {
	what string
	m    servicetest.Match
}{
	{"replica 1 promises", servicetest.Message(1, Leader, "Prepare")},
	{"the leader has a majority", servicetest.Message(Leader, 1, "Promise")},
	{"client 0 puts x=1", servicetest.App(writer)},
	{"the leader proposes it in slot 0", servicetest.Message(Leader, writer, "Request")},
	{"replica 1 accepts", servicetest.Message(1, Leader, "Accept")},
	{"slot 0 is chosen and applied", servicetest.Message(Leader, 1, "Accepted")},
	{"client 0's put returns", servicetest.Message(writer, Leader, "Reply")},
	{"client 2 gets x", servicetest.App(reader2)},
	{"replica 2 answers", servicetest.Message(2, reader2, "Request")},
	{"client 2's get returns", servicetest.Message(reader2, 2, "Reply")},
}

// TestStaleRead scripts the bug, and shows the fix on the same schedule:
// replica 2 asks the leader for its commit index and answers once it
// applied slot 0.
func TestStaleRead(t *testing.T) {
	cfg := servicetest.Config(t, SystemName)
	s := servicetest.New(t, cfg, 1)
	for _, st := range stale {
		servicetest.Step(t, s, st.what, st.m)
	}
	if v := lin.New(cfg.Model, 0).CheckSim(s); v != lin.Illegal {
		t.Fatalf("buggy: %s\n%s", v, s.HistoryText())
	}

	cfg = servicetest.Config(t, SystemName, servicetest.Params("fixed", true))
	s = servicetest.New(t, cfg, 1)
	for _, st := range stale[:9] {
		servicetest.Step(t, s, st.what, st.m)
	}
	servicetest.Step(t, s, "the leader gives its commit index", servicetest.Message(Leader, 2, "ReadIndex"))
	if r := s.Service(2).(*Replica); r.Applied != 0 {
		t.Fatalf("replica 2 applied %d slots before it heard from the leader", r.Applied)
	}
	// The leader's answer comes after its Prepare, Accept and Commit on the
	// same connection: replica 2 learns slot 0 first.
	for _, m := range []string{"Prepare", "Accept", "Commit", "ReadIndexAck"} {
		servicetest.Step(t, s, "replica 2 receives "+m, servicetest.Message(2, Leader, m))
	}
	servicetest.Step(t, s, "client 2's get returns", servicetest.Message(reader2, 2, "Reply"))
	h := s.History()
	if last := h[len(h)-1]; last.Value != 1 {
		t.Fatalf("fixed: client 2 read %v, want 1", last.Value)
	}
	if v := lin.New(cfg.Model, 0).CheckSim(s); v != lin.Ok {
		t.Fatalf("fixed: %s", v)
	}
}

// TestSearch: the search reports the stale read, with dfs and with dpor;
// with two keys (checked apart) too; the fix is linearizable in every
// execution of a writer and a reader.
func TestSearch(t *testing.T) {
	sys := servicetest.CheckParams(t, SystemName, map[string]string{"fixed": "false", "replicas": "3", "reads": "2", "writes": "1", "keys": "1"})
	for _, c := range []struct {
		strategy string
		params   map[string]string
	}{{"dfs", nil}, {"dpor", nil}, {"dpor", map[string]string{"writes": "2", "keys": "2", "reads": "1"}}} {
		rep, err := search.Run(t.Context(), sys, search.Options{Strategy: c.strategy, Params: c.params, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Kind != search.KindLinearizability || len(f.History.Minimal) != 4 {
			t.Fatalf("%s %v: finding %+v", c.strategy, c.params, f)
		}
	}
	// Two writers and a reader on the fixed map run 220,000 paths; the
	// command-line tests search its default harness (two readers).
	rep := searchtest.Check(t, sys, search.Options{Strategy: "dpor", Params: map[string]string{"fixed": "true", "reads": "1"}, Seed: 1, Workers: 1})
	if rep.Stats.Stop.String() != "exhausted" || rep.Lin.Illegal != 0 || rep.Lin.Unknown != 0 {
		t.Errorf("fixed: stopped %s, %+v", rep.Stats.Stop, rep.Lin)
	}
}

// TestModel: the map's model checks operations per key.
func TestModel(t *testing.T) {
	s, _ := Model.Apply(Model.Init(), Put{Key: "x", Value: 1})
	if _, r := Model.Apply(s, Get{Key: "x"}); r != 1 {
		t.Fatalf("get x after put x=1: %v", r)
	}
	if _, r := Model.Apply(s, Get{Key: "y"}); r != 0 {
		t.Fatalf("get y: %v", r)
	}
	if _, r := Model.Apply(Model.Init(), Get{Key: "x"}); r != 0 {
		t.Fatal("put changed the state it was given")
	}
	if Model.Partition(Put{Key: "x"}) != "x" || Model.Partition(Get{Key: "y"}) != "y" {
		t.Fatal("partition")
	}
	if got := Model.DescribeState(s); got != "{x: 1}" {
		t.Fatalf("DescribeState %q", got)
	}
}

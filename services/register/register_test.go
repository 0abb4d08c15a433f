package register

import (
	"context"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/search/searchtest"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// The nodes of the default system: replicas 0-2, then the writer (client
// 0, majority {0, 1}) and the readers (client 1, {1, 2}; client 2, {2, 0}).
const (
	writer  sim.NodeID = 3
	reader1 sim.NodeID = 4
	reader2 sim.NodeID = 5
)

// inversion is the new-old inversion of the buggy variant: the write of 1
// reaches replica 1 only; client 1 reads it there; client 2, after it,
// reads replicas 2 and 0, where it has not arrived.
var inversion = []struct {
	what string
	m    servicetest.Match
}{
	{"client 0 writes 1", servicetest.App(writer)},
	{"replica 0 answers the query", servicetest.Message(0, writer, "Query")},
	{"replica 1 answers the query", servicetest.Message(1, writer, "Query")},
	{"the writer hears replica 0", servicetest.Message(writer, 0, "QueryAck")},
	{"the writer hears replica 1 and stores", servicetest.Message(writer, 1, "QueryAck")},
	{"replica 1 stores 1", servicetest.Message(1, writer, "Store")},
	{"client 1 reads", servicetest.App(reader1)},
	{"replica 1 answers with 1", servicetest.Message(1, reader1, "Query")},
	{"replica 2 answers with 0", servicetest.Message(2, reader1, "Query")},
	{"client 1 hears replica 1", servicetest.Message(reader1, 1, "QueryAck")},
	{"client 1 hears replica 2", servicetest.Message(reader1, 2, "QueryAck")},
	{"client 2 reads", servicetest.App(reader2)},
	{"replica 2 answers with 0", servicetest.Message(2, reader2, "Query")},
	{"replica 0 answers with 0", servicetest.Message(0, reader2, "Query")},
	{"client 2 hears replica 2", servicetest.Message(reader2, 2, "QueryAck")},
	{"client 2 hears replica 0", servicetest.Message(reader2, 0, "QueryAck")},
}

// TestNewOldInversion scripts the bug: with reads that do not write back,
// client 1 returns 1 and then client 2 returns 0 while the write is in
// progress, which no order of the operations explains. With write-back
// (correct), client 1 does not return before it stored 1 on {1, 2}.
func TestNewOldInversion(t *testing.T) {
	for _, variant := range []string{"buggy", "correct"} {
		cfg := servicetest.Config(t, SystemName, servicetest.Params("variant", variant))
		s := servicetest.New(t, cfg, 1)
		steps := inversion
		if variant == "correct" {
			steps = steps[:11]
		}
		for _, st := range steps {
			servicetest.Step(t, s, st.what, st.m)
		}
		c := lin.New(cfg.Model, 0)
		switch v := c.CheckSim(s); {
		case variant == "buggy" && v != lin.Illegal:
			t.Fatalf("buggy: the inversion's history is %s:\n%s", v, s.HistoryText())
		case variant == "correct":
			if v != lin.Ok {
				t.Fatalf("correct: %s", v)
			}
			if cl := s.Service(reader1).(*Client); cl.Phase != Storing {
				t.Fatalf("correct: client 1 is %s after its query round, want storing (write-back)", cl.Phase)
			}
		}
	}
}

// TestVariants: an exhausted search of each variant with dpor, on small
// harnesses: the buggy ones are reported with the operations of their bug,
// the correct one is linearizable in every execution, also with two
// concurrent writers.
func TestVariants(t *testing.T) {
	for _, tc := range []struct {
		variant, reads, writes string
		want                   []string // in the minimal history
	}{
		{"buggy", "2", "1", []string{"client 1 returns 1", "client 2 returns 0"}},
		{"noquorum", "1", "1", []string{`client 0 returns "ok"`, "client 1 invokes Read{}", "client 1 returns 0"}},
	} {
		rep, err := search.Run(context.Background(), system(t), search.Options{Params: map[string]string{"variant": tc.variant, "reads": tc.reads, "writes": tc.writes},
			Strategy: "dpor", Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		f := rep.First()
		if f == nil || f.Kind != search.KindLinearizability {
			t.Fatalf("%s: finding %+v", tc.variant, f)
		}
		min := engine.HistoryText(f.History.Minimal)
		for _, w := range tc.want {
			if !strings.Contains(min, w) {
				t.Errorf("%s: the minimal history lacks %q:\n%s", tc.variant, w, min)
			}
		}
	}
	rep := searchtest.Check(t, system(t), search.Options{Params: map[string]string{"variant": "correct", "reads": "1", "writes": "2"}, Strategy: "dpor", Seed: 1, Workers: 1})
	if rep.Stats.Stop.String() != "exhausted" || rep.Lin.Distinct == 0 || rep.Lin.Unknown != 0 {
		t.Errorf("correct: stopped %s, %+v", rep.Stats.Stop, rep.Lin)
	}
}

func system(t *testing.T) *sim.System {
	return servicetest.CheckParams(t, SystemName, map[string]string{"variant": "buggy", "replicas": "3", "reads": "2", "writes": "1"})
}

// TestBadParams: parameters out of range are refused.
func TestBadParams(t *testing.T) {
	sys := system(t)
	for _, p := range []map[string]string{{"variant": "nope"}, {"replicas": "2"}, {"reads": "5"}, {"writes": "0"}} {
		if _, _, err := sys.Config(p); err == nil {
			t.Errorf("%v accepted", p)
		}
	}
}

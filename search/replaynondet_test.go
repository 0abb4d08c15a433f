package search_test

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
)

// flaky switches flakyNode's nondeterminism on; flakyCalls is what it
// reads then.
var (
	flaky      atomic.Bool
	flakyCalls atomic.Int64
)

// flakyNode counts its ticks, and while flaky is set adds a count of the
// process's calls: replays differ only while it is set.
type flakyNode struct {
	sim.Base
	Ticks int64
}

func (n *flakyNode) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (n *flakyNode) HandleTimer(*sim.Context, string) {
	n.Ticks++
	if flaky.Load() {
		n.Ticks += flakyCalls.Add(1) % 2
	}
}

// TestReplayOfNondeterminismThatDoesNotRecur: a trace of nondeterminism
// whose cause is gone replays whole without differing, and the replay
// says so (it asked to replay the whole trace, which it had just done).
func TestReplayOfNondeterminismThatDoesNotRecur(t *testing.T) {
	sys := &sim.System{Name: "searchtest-flaky", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &flakyNode{} }}, nil
	}}
	flaky.Store(true)
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, MaxPaths: 10, Out: t.TempDir()})
	flaky.Store(false)
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f == nil || f.Kind != search.KindNondeterminism {
		t.Fatalf("finding %+v", f)
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	tr.Sys = sys
	r, err := search.Replay(tr, -1, nil)
	if err != nil || r.Reproduced || r.Steps != r.Total {
		t.Fatalf("replay: %v, reproduced %v, %d of %d steps", err, r.Reproduced, r.Steps, r.Total)
	}
	var out bytes.Buffer
	if err := r.WriteText(&out, "error.trace", ""); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, "replay the whole trace") || !strings.Contains(s, "did not show this time") {
		t.Errorf("replay's text:\n%s", s)
	}
}

// TestReplayOfAMonitorPanic: the trace of a monitor whose Handle panicked
// replays to that panic (before, "not reproduced", the monitor holding).
func TestReplayOfAMonitorPanic(t *testing.T) {
	rep, err := search.Run(context.Background(), system(t, simtest.Monitored), search.Options{Params: map[string]string{"mode": "panic"}, Seed: 1, Workers: 1, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f == nil || f.Kind != search.KindHandlerPanic || f.Property != "Pings" {
		t.Fatalf("finding %+v", f)
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil || !r.Reproduced {
		t.Fatalf("replay: %v, reproduced %v", err, r.Reproduced)
	}
	for _, p := range r.Properties {
		if p.Name == "Pings" && p.Holds {
			t.Errorf("the panicked monitor's property holds: %+v", p)
		}
	}
}

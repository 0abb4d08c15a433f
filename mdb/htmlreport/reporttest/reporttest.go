package reporttest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/search"
	_ "github.com/macemc/macemc/services/all" // the example systems
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// Example is one example system's finding: the search that finds it (fixed
// seed, path budget and d_max) and what it must find.
type Example struct {
	Name   string
	System string
	// Options are the example's own options; Search adds the budget.
	Options search.Options
	// Verdict and Kind are what report.json must say.
	Verdict, Kind string
}

// Examples are the findings of every example system (seed 003's four
// paper systems, seed 000's four, storage, and seed 004's two systems
// checked by their clients' history), one each. Every example
// runs on one worker with d_max 2,000, k = 10 and, unless it says
// otherwise, 3,000 paths; the doomed path is minimized, as the command
// line does.
var Examples = []Example{
	{Name: "transport", System: "transport", Options: search.Options{Properties: []string{"AllAcked"}, Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "randtree", System: "randtree", Options: search.Options{Seed: 8, MaxPaths: 10000}, Verdict: "liveness", Kind: "dead"},
	{Name: "chord", System: "chord", Options: search.Options{Properties: []string{"AllNodes"}, Seed: 2}, Verdict: "liveness", Kind: "dead"},
	{Name: "chord-safety", System: "chord", Options: search.Options{Seed: 1}, Verdict: "safety", Kind: "safety"},
	{Name: "pastry", System: "pastry", Options: search.Options{Properties: []string{"AllNodes"}, Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "storage", System: "storage", Options: search.Options{Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "failuredetector", System: "failuredetector", Options: search.Options{Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "scheduler", System: "scheduler", Options: search.Options{Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "philosophers", System: "philosophers", Options: search.Options{Lasso: search.LassoOptions{On: true}, Seed: 1}, Verdict: "liveness", Kind: "lasso"},
	{Name: "proposers", System: "proposers", Options: search.Options{Lasso: search.LassoOptions{On: true, Partial: true}, Seed: 1}, Verdict: "liveness", Kind: "lasso"},
	{Name: "kvmap", System: "kvmap", Options: search.Options{Seed: 1}, Verdict: "safety", Kind: "linearizability"},
	{Name: "register", System: "register", Options: search.Options{Seed: 1, MaxPaths: 20000}, Verdict: "safety", Kind: "linearizability"},
}

// Search runs the example's search (search.Run) with its budget, writing
// into dir, and fails tb unless it finds the example's verdict and kind.
func Search(tb testing.TB, dir string, ex Example) {
	tb.Helper()
	o := ex.Options
	o.Workers, o.WalkDepth, o.Walks, o.Minimize, o.Out = 1, 2000, 10, true, dir
	if o.MaxPaths == 0 {
		o.MaxPaths = 3000
	}
	run(tb, ex.System, o, ex.Verdict, ex.Kind)
}

// Search20000 writes the result directory of transport's stale-SYN bug
// with the default d_max of 20,000: a 20,000-step dead path.
func Search20000(tb testing.TB, dir string) {
	tb.Helper()
	run(tb, "transport", search.Options{Seed: 1, Workers: 1, Minimize: true, Out: dir}, "liveness", "dead")
}

// run runs search.Run on the registered system and fails tb unless its
// first finding has the verdict and kind.
func run(tb testing.TB, system string, o search.Options, verdict, kind string) {
	tb.Helper()
	sys, err := sim.Lookup(system)
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := search.Run(context.Background(), sys, o)
	if err != nil {
		tb.Fatalf("search %s: %v", system, err)
	}
	got := "nothing"
	if f := rep.First(); f != nil {
		got = rep.Verdict.String() + " " + f.Kind.String()
	}
	if got != verdict+" "+kind {
		tb.Fatalf("search %s (seed %d, %d paths): found %s, want %s %s", system, o.Seed, o.MaxPaths, got, verdict, kind)
	}
}

// Faults writes into dir the error.trace of a transport path with every
// kind of network failure (--faults crashes=1,partitions=1,duplicates=1):
// node 0 sends SYN 2001 (step 1), the datagram is duplicated (2), node 1
// takes one copy and sends its Ack (3), the network partitions, losing the
// other copy and the Ack (4), and heals (5), node 0 retransmits (6) and
// crashes (7), node 1 takes the retransmission and its Ack is lost to the
// crashed node (8). It returns the trace.
func Faults(tb testing.TB, dir string) *trace.Trace {
	tb.Helper()
	t := &trace.Trace{Tool: trace.ToolVersion, System: "transport", Params: map[string]string{}, Faults: "drops=0,crashes=1,partitions=1,duplicates=1",
		Properties: []string{"AllAcked"}, Kind: trace.KindLiveness, Property: "AllAcked", Critical: -1, WalkDepth: 100}
	cfg, err := t.Config()
	if err != nil {
		tb.Fatal(err)
	}
	ch := &scripted{want: []engine.EventKind{engine.EvApp, engine.EvDuplicate, engine.EvDatagram, engine.EvPartition, engine.EvHeal,
		engine.EvTimer, engine.EvCrash, engine.EvDatagram}}
	s, err := engine.New(cfg, engine.Options{Chooser: ch})
	if err != nil {
		tb.Fatal(err)
	}
	for range ch.want {
		if ok, err := s.Step(); err != nil || !ok {
			tb.Fatalf("step %d: %v (nothing to run: %v)", s.Steps()+1, err, !ok)
		}
	}
	if ch.err != nil {
		tb.Fatal(ch.err)
	}
	t.Choices, t.Steps = s.ChoiceValues(), s.Steps()
	if err := t.Write(filepath.Join(dir, "error.trace")); err != nil {
		tb.Fatal(err)
	}
	return t
}

// scripted runs the first ready event of each kind in turn.
type scripted struct {
	want []engine.EventKind
	pos  int
	err  error
}

func (c *scripted) Choose(engine.ChoiceKind, int, []float64) int { return 0 }

func (c *scripted) ChooseEvent(ready []engine.Event, _ []float64) int {
	if c.pos < len(c.want) {
		k := c.want[c.pos]
		c.pos++
		for i, e := range ready {
			if e.Kind == k {
				return i
			}
		}
		if c.err == nil {
			c.err = fmt.Errorf("step %d: no %v event is ready: %v", c.pos, k, ready)
		}
	}
	return 0
}

// Package reporttest makes result directories of every example system's
// finding, with small fixed budgets, for the tests of the report page (the
// structural tests of htmlreport and the browser test in
// htmlreport/browsertest).
//
// # Usage
//
//	for _, ex := range reporttest.Examples {
//		dir := t.TempDir()
//		reporttest.Search(t, dir, ex)
//		err := htmlreport.WriteDir(dir, htmlreport.Options{})
//	}
package reporttest

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all" // the example systems
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// Example is one example system's finding: the search that finds it (fixed
// seed, path budget and d_max) and what it must find.
type Example struct {
	Name string
	Args []string
	// Verdict and Kind are what report.json must say.
	Verdict, Kind string
}

// budget is every example's budget: one worker, d_max 2,000, k = 10.
var budget = []string{"--workers", "1", "--walk-depth", "2000", "--walks", "10", "--max-paths", "3000"}

// Examples are the findings of every example system (seed 003's four
// paper systems, seed 000's four, storage, and seed 004's two systems
// checked by their clients' history), one each.
var Examples = []Example{
	{Name: "transport", Args: []string{"--system", "transport", "--property", "AllAcked", "--seed", "3"}, Verdict: "liveness", Kind: "dead"},
	{Name: "randtree", Args: []string{"--system", "randtree", "--seed", "1", "--max-paths", "10000"}, Verdict: "liveness", Kind: "dead"},
	{Name: "chord", Args: []string{"--system", "chord", "--property", "AllNodes", "--seed", "1"}, Verdict: "liveness", Kind: "dead"},
	{Name: "chord-safety", Args: []string{"--system", "chord", "--seed", "1"}, Verdict: "safety", Kind: "safety"},
	{Name: "pastry", Args: []string{"--system", "pastry", "--property", "AllNodes", "--seed", "1"}, Verdict: "liveness", Kind: "dead"},
	{Name: "storage", Args: []string{"--system", "storage", "--seed", "1"}, Verdict: "liveness", Kind: "dead"},
	{Name: "failuredetector", Args: []string{"--system", "failuredetector", "--seed", "1"}, Verdict: "liveness", Kind: "dead"},
	{Name: "scheduler", Args: []string{"--system", "scheduler", "--seed", "1"}, Verdict: "liveness", Kind: "dead"},
	{Name: "philosophers", Args: []string{"--system", "philosophers", "--lasso", "--seed", "1"}, Verdict: "liveness", Kind: "lasso"},
	{Name: "proposers", Args: []string{"--system", "proposers", "--lasso", "--partial-hash", "--seed", "1"}, Verdict: "liveness", Kind: "lasso"},
	{Name: "kvmap", Args: []string{"--system", "kvmap", "--seed", "1"}, Verdict: "safety", Kind: "linearizability"},
	{Name: "register", Args: []string{"--system", "register", "--seed", "1", "--max-paths", "20000"}, Verdict: "safety", Kind: "linearizability"},
}

// Search runs `macemc search` in process with the example's arguments and
// budget, writing into dir, and fails tb unless it reports a violation.
func Search(tb testing.TB, dir string, ex Example) {
	tb.Helper()
	var out, errs bytes.Buffer
	app := &cli.App{Name: "macemc", Stdout: &out, Stderr: &errs}
	args := append(append([]string{"search", "--out", dir}, budget...), ex.Args...) // the example's own flags last: they win
	if code := app.Run(args); code != cli.ExitViolation {
		tb.Fatalf("macemc %v: exit %d, want %d (a violation)\n%s%s", args, code, cli.ExitViolation, out.String(), errs.String())
	}
}

// Search20000 writes the result directory of transport's stale-SYN bug
// with the default d_max of 20,000: a 20,000-step dead path.
func Search20000(tb testing.TB, dir string) {
	tb.Helper()
	var out, errs bytes.Buffer
	app := &cli.App{Name: "macemc", Stdout: &out, Stderr: &errs}
	args := []string{"search", "--out", dir, "--system", "transport", "--seed", "3", "--workers", "1", "--walk-depth", "20000"}
	if code := app.Run(args); code != cli.ExitViolation {
		tb.Fatalf("macemc %v: exit %d\n%s%s", args, code, out.String(), errs.String())
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
		Properties: []string{"AllAcked"}, Kind: "liveness", Property: "AllAcked", Critical: -1, WalkDepth: 100}
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

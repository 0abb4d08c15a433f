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
	"context"
	"testing"

	"github.com/macemc/macemc/search"
	_ "github.com/macemc/macemc/services/all" // the example systems
	"github.com/macemc/macemc/sim"
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
// paper systems, seed 000's four, and storage), one each. Every example
// runs on one worker with d_max 2,000, k = 10 and, unless it says
// otherwise, 3,000 paths; the doomed path is minimized, as the command
// line does.
var Examples = []Example{
	{Name: "transport", System: "transport", Options: search.Options{Properties: []string{"AllAcked"}, Seed: 3}, Verdict: "liveness", Kind: "dead"},
	{Name: "randtree", System: "randtree", Options: search.Options{Seed: 1, MaxPaths: 10000}, Verdict: "liveness", Kind: "dead"},
	{Name: "chord", System: "chord", Options: search.Options{Properties: []string{"AllNodes"}, Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "chord-safety", System: "chord", Options: search.Options{Seed: 1}, Verdict: "safety", Kind: "safety"},
	{Name: "pastry", System: "pastry", Options: search.Options{Properties: []string{"AllNodes"}, Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "storage", System: "storage", Options: search.Options{Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "failuredetector", System: "failuredetector", Options: search.Options{Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "scheduler", System: "scheduler", Options: search.Options{Seed: 1}, Verdict: "liveness", Kind: "dead"},
	{Name: "philosophers", System: "philosophers", Options: search.Options{Lasso: search.LassoOptions{On: true}, Seed: 1}, Verdict: "liveness", Kind: "lasso"},
	{Name: "proposers", System: "proposers", Options: search.Options{Lasso: search.LassoOptions{On: true, Partial: true}, Seed: 1}, Verdict: "liveness", Kind: "lasso"},
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
	run(tb, "transport", search.Options{Seed: 3, Workers: 1, Minimize: true, Out: dir}, "liveness", "dead")
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

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
	"testing"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all" // the example systems
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
// paper systems, seed 000's four, and storage), one each.
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

package mdb_test

import (
	"context"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/register"
	"github.com/macemc/macemc/sim"
)

// historyOutput writes the result directory of the buggy register's
// linearizability violation, found by DPOR (seed 1, one worker), for the
// session of testdata/history.txt: the history command shows the clients'
// history up to the current step, the events the step recorded, the
// operations pending, and the verdict.
func historyOutput(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sys, err := sim.Lookup(register.SystemName)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Params: map[string]string{"variant": "buggy"}, Strategy: "dpor", Seed: 1, Out: dir, Workers: 1})
	if err != nil || rep.First() == nil || rep.First().Kind != search.KindLinearizability {
		t.Fatalf("search: %v, %+v", err, rep.First())
	}
	if first := rep.First().History.Events[0]; first.Step != 1 {
		t.Fatalf("the history starts at step %d, want 1", first.Step)
	}
	return dir
}

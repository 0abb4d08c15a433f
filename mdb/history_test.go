package mdb_test

import (
	"context"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/register"
	"github.com/macemc/macemc/sim"
)

// TestHistory: on a linearizability violation of the buggy register, the
// history command shows the clients' history up to the current step, the
// events the step recorded, the operations pending, and the verdict.
func TestHistory(t *testing.T) {
	dir := t.TempDir()
	sys, err := sim.Lookup(register.SystemName)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Params: map[string]string{"variant": "buggy"}, Strategy: "dpor", Seed: 1, Out: dir, Workers: 1})
	if err != nil || rep.First() == nil {
		t.Fatalf("search: %v, %v", err, rep.First())
	}
	s := open(t, dir, "", mdb.Options{})
	s.run("home")
	mustContain(t, s.run("history"), "no client history at step 0")
	s.run("end")
	out := s.run("history")
	mustContain(t, out, "client 1 returns 1", "client 2 returns 0", "NOT LINEARIZABLE; a minimal part that is not:\n  step")
	mustNotContain(t, out, "pending: client 1", "pending: client 2")
	first := rep.First().History.Events[0]
	s.run("j 1")
	out = s.run("history")
	mustContain(t, out, "history at step 1 (1 events):", "client 0 invokes Write{Value: 1}  <-",
		"pending: client 0's Write{Value: 1} (invoked at step 1)", "linearizable (operations still pending may take effect or not)")
	if first.Step != 1 {
		t.Fatalf("the history starts at step %d", first.Step)
	}
	mustContain(t, s.run("history all"), "client 2 returns 0", "NOT LINEARIZABLE")
	mustContain(t, s.fail("history bogus"), "usage: history [all]")
}

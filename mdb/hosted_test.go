package mdb_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/sim/simtest"
)

// TestHungHandlerTrace: the trace of a handler that did not return ends
// before the hung step; mdb says which step hangs, and a branch that runs
// it again stops with the watchdog's error instead of hanging the session.
func TestHungHandlerTrace(t *testing.T) {
	tr, err := simtest.HangTrace(50 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "error.trace")
	if err := tr.Write(file); err != nil {
		t.Fatal(err)
	}
	ts := open(t, file, "", mdb.Options{})
	ts.Intro()
	mustContain(t, ts.out.String(), "a handler did not return", "error path: 1 steps, the handler of step 2 does not return")
	mustContain(t, ts.fail("j crit"), "the path ends before the hung step 2")
	ts.run("end")
	mustContain(t, ts.fail("B 0"), "step 2: sim: the handler of node 0 did not return within 50ms at step 2")
	mustContain(t, ts.fail("r 5"), "cannot go on after step 1")
	// The branch keeps the state before the hung step, and a branch from
	// an earlier step still runs.
	mustContain(t, ts.run("state 0"), "Asked: true")
	ts.run("path error")
	ts.run("home")
	ts.run("B 0")
	ts.at(1, "b2")
}

// TestC2NamesNoStep: a C2 answer is where the critical-transition search
// stopped for lack of evidence, not a bug location: mdb marks no step
// critical and j crit says so.
func TestC2NamesNoStep(t *testing.T) {
	dir, f := writeFixture(t)
	tr := *f.Error
	tr.Condition = "C2"
	if err := tr.Write(filepath.Join(dir, "error.trace")); err != nil {
		t.Fatal(err)
	}
	ts := open(t, dir, "", mdb.Options{})
	ts.Intro()
	intro := ts.out.String()
	mustContain(t, intro, "no critical transition found within the search depth (C2")
	mustNotContain(t, intro, "critical step")
	mustContain(t, ts.fail("j crit"), "no critical transition was found within the search depth")
	mustContain(t, ts.run("i"), "critical step: none found within the search depth (C2")
	mustNotContain(t, ts.run("j "+itoa(tr.Critical)), "[critical")
}

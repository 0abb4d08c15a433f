package mdb_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// Stall is a service whose handler never returns on the third message of
// a ping-pong.
type Stall struct {
	sim.Base
	N int
}

func (s *Stall) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, 1)
	}
}

func (s *Stall) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	s.N = m.(int)
	if s.N == 3 {
		select {} // the watchdog gives up on it
	}
	ctx.Send(from, s.N+1)
}

func init() {
	sim.Register(&sim.System{Name: "mdbtest-stall", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &Stall{} },
			Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return false }}}}, nil
	}})
}

// TestHungHandlerTrace: the trace of a handler that did not return ends
// before the hung step; mdb says which step hangs, and a branch that runs
// it again stops with the watchdog's error instead of hanging the session.
func TestHungHandlerTrace(t *testing.T) {
	sys, err := sim.Lookup("mdbtest-stall")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 50 * time.Millisecond
	s, err := engine.NewGuarded(cfg, engine.Options{}, timeout)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Guard(timeout, func() error {
		for {
			if _, err := s.Step(); err != nil {
				return err
			}
		}
	})
	var hang *engine.HangError
	if !errors.As(err, &hang) || hang.Step != 2 {
		t.Fatalf("want a hang after 2 steps, got %v", err)
	}
	tr := &trace.Trace{System: "mdbtest-stall", Choices: hang.Choices, Steps: hang.Step, Kind: "safety", Property: walks.HangProperty,
		Critical: -1, HandlerTimeout: timeout}
	file := filepath.Join(t.TempDir(), "error.trace")
	if err := tr.Write(file); err != nil {
		t.Fatal(err)
	}
	ts := open(t, file, "", mdb.Options{})
	ts.Intro()
	mustContain(t, ts.out.String(), "a handler did not return", "error path: 2 steps, the handler of step 3 does not return")
	mustContain(t, ts.fail("j crit"), "the path ends before the hung step 3")
	ts.run("end")
	mustContain(t, ts.fail("B 0"), "step 3: sim: the handler of node 1 did not return within 50ms at step 3")
	mustContain(t, ts.fail("R"), "cannot go on after step 2")
	// The branch keeps the state before the hung step, and a branch from
	// an earlier step still runs.
	mustContain(t, ts.run("state 0"), "N: 2")
	ts.run("path error")
	ts.run("j 1")
	ts.run("B 0")
	ts.at(2, "b2")
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

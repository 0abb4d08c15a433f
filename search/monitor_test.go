package search_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// jobs is a monitor that fails when a job completes that was never issued.
type jobs struct{ Issued map[int]bool }

type issued struct{ ID int }
type completed struct{ ID int }

func (j *jobs) Handle(ev any) error {
	switch e := ev.(type) {
	case issued:
		j.Issued[e.ID] = true
	case completed:
		if !j.Issued[e.ID] {
			return fmt.Errorf("job %d completed but never issued", e.ID)
		}
	}
	return nil
}

// worker completes job 2 without issuing it, at its second request.
type worker struct {
	sim.Base
	Done int
}

func (w *worker) HandleApp(ctx *sim.Context, req any) {
	w.Done++
	if w.Done == 1 {
		ctx.Notify(issued{ID: 1})
	}
	ctx.Notify(completed{ID: w.Done})
}

var monitored = &sim.System{
	Name: "searchtest-monitored",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &worker{} },
			App:      func(sim.NodeID) []any { return []any{1, 2} },
			Monitors: []sim.MonitorSpec{{Name: "Jobs", New: func() sim.Monitor { return &jobs{Issued: map[int]bool{}} }}},
		}, nil
	},
}

// TestMonitorFailureIsInTheFinding: the violation of a monitor's property
// carries the assertion's text (before, it was only in error.log).
func TestMonitorFailureIsInTheFinding(t *testing.T) {
	rep, err := search.Run(context.Background(), monitored, search.Options{Seed: 1, MaxPaths: 100})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	var me *engine.MonitorError
	if f == nil || f.Property != "Jobs" || !errors.As(f.Err, &me) || me.Failure != "job 2 completed but never issued" || me.Step != 2 {
		t.Fatalf("finding %+v", f)
	}
}

// TestAlsoViolated: a safety violation lists the other safety properties
// and monitor assertions that fail in the same state, the monitor's with
// its message (a user's monitor said more than the property met first).
func TestAlsoViolated(t *testing.T) {
	twice := func(v *sim.View) bool { return sim.Node[worker](v, 0).Done < 2 }
	sys := &sim.System{Name: "searchtest-also", Build: func(p sim.Params) (*sim.Config, error) {
		cfg, err := monitored.Build(p)
		if err != nil {
			return nil, err
		}
		cfg.Safety = []sim.Property{{Name: "OneJob", Check: twice}, {Name: "AtMostOne", Check: twice}, {Name: "Fine", Check: func(*sim.View) bool { return true }}}
		return cfg, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 100})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Property != "OneJob" || f.Steps != 2 {
		t.Fatalf("finding %+v", f)
	}
	want := []string{"AtMostOne", "Jobs: job 2 completed but never issued"}
	if strings.Join(f.AlsoViolated, "; ") != strings.Join(want, "; ") {
		t.Errorf("also violated %q, want %q", f.AlsoViolated, want)
	}
	var b strings.Builder
	rep.WriteSummary(&b)
	if !strings.Contains(b.String(), "\n  also failing in that state: Jobs: job 2 completed but never issued\n") {
		t.Errorf("summary:\n%s", b.String())
	}
}

// silent has no properties at all.
var silent = &sim.System{
	Name: "searchtest-silent",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &worker{} }, App: func(sim.NodeID) []any { return []any{1} }}, nil
	},
}

// TestWarningsShowWhenNothingIsFound: the report of a run that found
// nothing still prints its warnings (they were printed only under a
// finding), here that the system has no properties to check.
func TestWarningsShowWhenNothingIsFound(t *testing.T) {
	rep, err := search.Run(context.Background(), silent, search.Options{Seed: 1, MaxPaths: 10})
	if err != nil || rep.First() != nil {
		t.Fatal(err, rep.First())
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "nothing found within this budget\nwarning: the system has no safety or liveness properties") {
		t.Errorf("text:\n%s", b.String())
	}
}

// bootCompleter completes a job at boot that was never issued.
type bootCompleter struct{ sim.Base }

func (b *bootCompleter) Start(ctx *sim.Context) { ctx.Notify(completed{ID: 7}); ctx.SetTimer("t") }

// TestMonitorFailureAtBoot: an assertion that fails while the nodes boot
// breaks the monitor's property in the initial state, step 0 (it was
// found after the first step and said "by step 1").
func TestMonitorFailureAtBoot(t *testing.T) {
	sys := &sim.System{
		Name: "searchtest-boot-monitored",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:    1,
				Service:  func(sim.NodeID) sim.Service { return &bootCompleter{} },
				Monitors: []sim.MonitorSpec{{Name: "Jobs", New: func() sim.Monitor { return &jobs{Issued: map[int]bool{}} }}},
			}, nil
		},
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 100})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	var me *engine.MonitorError
	if f == nil || f.Property != "Jobs" || f.Steps != 0 || !errors.As(f.Err, &me) || me.Step != 0 {
		t.Fatalf("finding %+v, want Jobs broken at step 0", f)
	}
}

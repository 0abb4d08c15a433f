package search_test

import (
	"context"
	"errors"
	"github.com/macemc/macemc/sim/engine"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// chooser draws a number at boot and has something to do afterwards only
// for 0: the other answers leave the system quiescent with no step run.
type chooser struct {
	sim.Base
	X int
}

func (c *chooser) Start(ctx *sim.Context) {
	if c.X = ctx.Rand(3); c.X == 0 {
		ctx.SetTimer("t")
	}
}

func (c *chooser) HandleTimer(*sim.Context, string) {}

// bootChoice is dead from the start when node 0 draws 2.
var bootChoice = &sim.System{
	Name: "boot-choice",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    1,
			Service:  func(sim.NodeID) sim.Service { return &chooser{} },
			Liveness: []sim.Property{{Name: "NotTwo", Check: func(v *sim.View) bool { return sim.Node[chooser](v, 0).X != 2 }}},
		}, nil
	},
}

// TestBootChoicesWithNoStep: every answer of a choice made at boot is a
// path, those that run no step included, whatever the number of workers.
// With two workers the paths of 0 steps after the first were lost and the
// search said liveness holds.
func TestBootChoicesWithNoStep(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		rep, err := search.Run(context.Background(), bootChoice, search.Options{Seed: 1, WalkDepth: 100, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Property != "NotTwo" {
			t.Errorf("workers %d: found %+v, want NotTwo (stop %v, %d paths)", workers, f, rep.Stats.Stop, rep.Stats.Paths)
		}
	}
}

// drawer draws X at boot and never runs again.
type drawer struct {
	sim.Base
	X int
}

func (d *drawer) Start(ctx *sim.Context) { d.X = ctx.Rand(2) }

// counter counts its two requests.
type counter struct {
	sim.Base
	N int
}

func (c *counter) HandleApp(*sim.Context, any) { c.N++ }

// drawnThenCounted breaks NotOneTwo when node 0 drew 1 and node 1 counted
// both its requests.
var drawnThenCounted = &sim.System{
	Name: "drawn-then-counted",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes: 2,
			Service: func(id sim.NodeID) sim.Service {
				if id == 0 {
					return &drawer{}
				}
				return &counter{}
			},
			App: func(id sim.NodeID) []any {
				if id == 1 {
					return []any{"a", "b"}
				}
				return nil
			},
			Safety: []sim.Property{{Name: "NotOneTwo", Check: func(v *sim.View) bool {
				return sim.Node[drawer](v, 0).X != 1 || sim.Node[counter](v, 1).N != 2
			}}},
		}, nil
	},
}

// TestBootChoicesHashedApart: the paths that start from another initial
// state (node 0 drew 1) hash their states as their own. The part hashes
// of the first path's initial state were restored onto them, so node 0,
// which never runs again, hashed as if it had drawn 0, every state of
// those paths was taken for one seen before, and the search exhausted
// without the violation.
func TestBootChoicesHashedApart(t *testing.T) {
	for _, workers := range []int{1, 2} {
		rep, err := search.Run(context.Background(), drawnThenCounted, search.Options{Seed: 1, WalkDepth: 100, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Property != "NotOneTwo" || f.Steps != 2 {
			t.Errorf("workers %d: found %+v, want NotOneTwo at step 2 (stop %v, %d paths)", workers, f, rep.Stats.Stop, rep.Stats.Paths)
		}
	}
}

// badStart is unsafe in its initial state only: its Start breaks
// NeverBad, its first tick mends it.
type badStart struct {
	sim.Base
	Bad bool
}

func (b *badStart) Start(ctx *sim.Context)           { b.Bad = true; ctx.SetPeriodic("tick") }
func (b *badStart) HandleTimer(*sim.Context, string) { b.Bad = false }

var unsafeStart = &sim.System{
	Name: "unsafe-start",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:   1,
			Service: func(sim.NodeID) sim.Service { return &badStart{} },
			Safety:  []sim.Property{{Name: "NeverBad", Check: func(v *sim.View) bool { return !sim.Node[badStart](v, 0).Bad }}},
		}, nil
	},
}

// TestUnsafeInitialState: safety holds in every state, the initial one
// too; every strategy reports the violation at step 0. Only the states
// after a step were checked: every search ended with nothing found.
func TestUnsafeInitialState(t *testing.T) {
	for _, strategy := range []string{"dfs", "walk", "random", "pct", "delay", "dpor"} {
		rep, err := search.Run(context.Background(), unsafeStart, search.Options{Seed: 1, WalkDepth: 400, Strategy: strategy, MaxPaths: 20})
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Property != "NeverBad" || f.Steps != 0 {
			t.Errorf("%s: found %+v, want NeverBad at step 0 (stop %v, %d paths)", strategy, f, rep.Stats.Stop, rep.Stats.Paths)
		}
		// report.json says steps 0 (it left the key out).
		if data, err := rep.MarshalJSON(); err != nil || !strings.Contains(string(data), `"steps":0`) {
			t.Errorf("%s: report.json %s (%v) has no steps 0", strategy, data, err)
		}
	}
}

// TestBootChoicesTurnTheGraphOff: the explored state graph has one initial
// state, so with several (node 0 draws at boot) it is off, and the report
// says so instead of proving liveness from it (its transitions out of the
// other initial states were recorded as the first one's).
func TestBootChoicesTurnTheGraphOff(t *testing.T) {
	live := *drawnThenCounted
	live.Build = func(p sim.Params) (*sim.Config, error) {
		cfg, err := drawnThenCounted.Build(p)
		if err == nil {
			cfg.Safety = nil
			cfg.Liveness = []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool { return sim.Node[counter](v, 1).N == 2 }}}
		}
		return cfg, err
	}
	rep, err := search.Run(context.Background(), &live, search.Options{Seed: 1, WalkDepth: 100})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() != nil || rep.Stats.Graph != nil || !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "choose while they boot") }) {
		t.Errorf("finding %+v, graph %+v, warnings %q; want none, none and the boot-choice warning", rep.First(), rep.Stats.Graph, rep.Warnings)
	}
}

// TestLivenessPanicWhenQuiescent: a liveness property that panics in the
// state where the system fell quiescent is reported as the property's
// panic (as a walk reports it), not as a suspected liveness violation
// whose critical transition then failed on the same panic.
func TestLivenessPanicWhenQuiescent(t *testing.T) {
	sys := &sim.System{
		Name: "quiescent-panic",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   1,
				Service: func(sim.NodeID) sim.Service { return &counter{} },
				App:     func(sim.NodeID) []any { return []any{"a"} },
				Liveness: []sim.Property{{Name: "Indexes", Check: func(v *sim.View) bool {
					var none []int
					return sim.Node[counter](v, 0).N == 0 || none[0] > 0
				}}},
			}, nil
		},
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, WalkDepth: 100})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Kind != search.KindHandlerPanic || f.Property != "Indexes" || !errors.Is(f.Err, engine.ErrPropertyPanic) || f.Critical != nil {
		t.Fatalf("finding %+v, want the property's panic", f)
	}
}

// TestWalksDrawBootChoices: --strategy walk answers the choices the nodes
// make at boot at random, as its walks answer every later one (it
// answered 0, so a bug behind any other answer was never found).
func TestWalksDrawBootChoices(t *testing.T) {
	rep, err := search.Run(context.Background(), drawnThenCounted, search.Options{Seed: 1, Strategy: "walk", WalkDepth: 100, MaxPaths: 50})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f == nil || f.Property != "NotOneTwo" {
		t.Errorf("found %+v, want NotOneTwo (stop %v, %d paths)", f, rep.Stats.Stop, rep.Stats.Paths)
	}
}

// muteBoot is a node that draws at boot whether it will answer.
type muteBoot struct {
	sim.Base
	Mute, Answered bool
}

func (m *muteBoot) Start(ctx *sim.Context)           { m.Mute = ctx.Rand(2) == 1; ctx.SetTimer("answer") }
func (m *muteBoot) HandleTimer(*sim.Context, string) { m.Answered = !m.Mute }

// TestDeadFromTheBootChoice: a path whose boot choice made a dead initial
// state says so, not that the system as configured never becomes live
// (the other answer does).
func TestDeadFromTheBootChoice(t *testing.T) {
	sys := &sim.System{
		Name: "mute-boot",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:    1,
				Service:  func(sim.NodeID) sim.Service { return &muteBoot{} },
				Liveness: []sim.Property{{Name: "Answered", Check: func(v *sim.View) bool { return sim.Node[muteBoot](v, 0).Answered }}},
			}, nil
		},
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, WalkDepth: 100})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Critical == nil {
		t.Fatalf("finding %+v, want one with a critical transition", f)
	}
	// The graph is off for it: the report says so, violation or not.
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "choose while they boot") }) {
		t.Errorf("warnings %q lack the graph's", rep.Warnings)
	}
	if f.Critical.Step != 0 || !strings.Contains(f.Critical.Explain, "the choices at boot decided it") {
		t.Fatalf("critical %+v", f.Critical)
	}
}

// leaseWaiter takes over once its lease has expired, checking on a timer.
type leaseWaiter struct {
	sim.Base
	Since sim.Time
	Owner bool
}

func (l *leaseWaiter) Start(ctx *sim.Context) { l.Since = ctx.Now(); ctx.SetPeriodic("check") }

func (l *leaseWaiter) HandleTimer(ctx *sim.Context, _ string) {
	if !l.Owner && ctx.Elapsed(l.Since, time.Second) {
		l.Owner = true
		ctx.CancelTimer("check")
	}
}

// TestWaitingForATimeoutIsNoLivelock: a node that checks until its lease
// expires is live (time passes), though the cycle in which Elapsed answers
// "not yet" forever is fair to every event source: such a cycle is unfair
// to time and proves nothing. It was reported as a proven livelock.
func TestWaitingForATimeoutIsNoLivelock(t *testing.T) {
	sys := &sim.System{
		Name: "lease-waiter",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:    1,
				Service:  func(sim.NodeID) sim.Service { return &leaseWaiter{} },
				Liveness: []sim.Property{{Name: "Owner", Check: func(v *sim.View) bool { return sim.Node[leaseWaiter](v, 0).Owner }}},
			}, nil
		},
	}
	for _, o := range []search.Options{{Seed: 1, WalkDepth: 200}, {Seed: 1, WalkDepth: 200, Lasso: search.LassoOptions{On: true}, Strategy: "walk", MaxPaths: 200}} {
		rep, err := search.Run(context.Background(), sys, o)
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f != nil {
			t.Errorf("strategy %q: found %+v (lasso %+v), want nothing", o.Strategy, f, f.Lasso)
		}
	}
}

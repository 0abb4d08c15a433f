package lasso_test

import (
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks/lasso"
)

// fixedWaiter waits for a fixed deadline (Since never moves) on its
// periodic timer; told "elapsed", it is done.
type fixedWaiter struct {
	sim.Base
	Since sim.Time
	Done  bool
}

func (w *fixedWaiter) Start(ctx *sim.Context) { ctx.SetPeriodic("wait") }

func (w *fixedWaiter) HandleTimer(ctx *sim.Context, _ string) {
	if !w.Done && ctx.Elapsed(w.Since, 10*time.Second) {
		w.Done = true
	}
}

// alternator's periodic timer asks the clock and flips Phase when told
// "not yet" in phase 0 and "elapsed" in phase 1: a node that both waits
// and lets time pass in its cycle. It is never done.
type alternator struct {
	sim.Base
	Phase int
	Done  bool
}

func (a *alternator) Start(ctx *sim.Context) { ctx.SetPeriodic("wait") }

func (a *alternator) HandleTimer(ctx *sim.Context, _ string) {
	if e := ctx.Elapsed(sim.Time{}, time.Second); e == (a.Phase == 1) {
		a.Phase = 1 - a.Phase
	}
}

// watcher's periodic timer asks the clock and changes nothing.
type watcher struct{ sim.Base }

func (w *watcher) Start(ctx *sim.Context) { ctx.SetPeriodic("watch") }

func (w *watcher) HandleTimer(ctx *sim.Context, _ string) { ctx.Elapsed(sim.Time{}, time.Second) }

// turns runs node 0's and node 1's timers in turn and answers node 1's
// clock questions "elapsed", node 0's "not yet" (a fixedWaiter's every
// time, an alternator's in phase 0; "elapsed" in its phase 1).
type turns struct {
	s    **engine.Sim
	next sim.NodeID // the node whose timer runs next
	ran  sim.NodeID // the node whose handler runs
}

func (c *turns) ChooseEvent(ready []engine.Event, _ []float64) int {
	for i, ev := range ready {
		if ev.Kind == engine.EvTimer && ev.Node == c.next {
			c.ran, c.next = c.next, 1-c.next
			return i
		}
	}
	return 0
}

func (c *turns) Choose(kind engine.ChoiceKind, n int, _ []float64) int {
	if kind != engine.ChooseTime || n < 2 || c.ran == 1 {
		return n - 1 // node 1: "elapsed"
	}
	// Node 0: an alternator is told what flips it, a fixed waiter "not
	// yet".
	if a := sim.Node[alternator]((*c.s).View(), 0); a != nil && a.Phase == 1 {
		return 1
	}
	return 0
}

// TestTimeIsFairPerNode: a cycle in which node 0 waits for its fixed
// deadline and is told "not yet" at every turn while node 1 is told
// "elapsed" is unfair to node 0's deadline, so no lasso (a trial's
// "deadline" and a correct lease beside an unrelated node that asks the
// clock were "proven" livelocks when the rule was one for the whole
// cycle); when node 0 is told "elapsed" in the cycle too, the cycle is
// fair to time and a lasso.
func TestTimeIsFairPerNode(t *testing.T) {
	for _, c := range []struct {
		name  string
		node0 func() sim.Service
		lasso bool
	}{
		{"fixed deadline", func() sim.Service { return &fixedWaiter{} }, false},
		{"node 0 lets time pass too", func() sim.Service { return &alternator{} }, true},
	} {
		cfg := &sim.Config{
			Nodes: 2,
			Service: func(id sim.NodeID) sim.Service {
				if id == 0 {
					return c.node0()
				}
				return &watcher{}
			},
			Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
				if w := sim.Node[fixedWaiter](v, 0); w != nil {
					return w.Done
				}
				return sim.Node[alternator](v, 0).Done
			}}},
		}
		var s *engine.Sim
		ch := &turns{s: &s}
		s, err := engine.New(cfg, engine.Options{Chooser: ch})
		if err != nil {
			t.Fatal(err)
		}
		for s.Steps() < 40 {
			if _, err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if live(t, s) {
			t.Fatalf("%s: setup: live after %d steps", c.name, s.Steps())
		}
		f, err := lasso.Analyze(cfg, engine.Options{}, s.ChoiceValues(), 0, lasso.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := f != nil && f.Kind == lasso.KindLasso; got != c.lasso {
			t.Errorf("%s: lasso %v (%+v), want %v", c.name, got, f, c.lasso)
		}
		// A node told "elapsed" at some asks and "not yet" at others may
		// be waiting on a fixed deadline while time passes for another:
		// its lasso is no proof, and says why.
		if c.lasso && f != nil && (f.Proof() || len(f.Waiting) != 1 || f.Waiting[0] != 0 || !strings.Contains(f.Note(), "node 0 asks the clock in the cycle")) {
			t.Errorf("%s: proof %v, waiting %v:\n%s", c.name, f.Proof(), f.Waiting, f.Note())
		}
	}
}

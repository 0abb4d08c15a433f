package explore_test

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// fourObserver reports a verdict at the first state in which node 0's
// counter is 4 (its "rand" request added one) and node 1's is 3.
type fourObserver struct {
	prop  sim.Property
	step  int
	count int
}

func newFourObserver() walks.Observer {
	return &fourObserver{prop: sim.Property{Name: "Four", Check: func(v *sim.View) bool {
		return sim.Node[counter](v, 0).N == 4 && sim.Node[counter](v, 1).N == 3
	}}}
}

func (o *fourObserver) Observe(s *engine.Sim) bool {
	o.count++
	if ok, _ := s.Holds(&o.prop); ok {
		o.step = s.Steps()
		return false
	}
	return true
}

func (o *fourObserver) Verdict() (string, any) { return "Four", o.step }

// TestObservedViolations: a walk its observer ends with a verdict is a
// violation, committed in path order with the observer's detail, the same
// for any number of workers; its choices replay to the observed state.
func TestObservedViolations(t *testing.T) {
	cfg := counterConfig(2, 3)
	run := func(workers, max int) *explore.Result {
		res, err := run(explore.Config{System: cfg, DepthStep: 3, WalkDepth: 50, Seed: 3, Workers: workers, MaxViolations: max, Observe: newFourObserver})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a := run(1, 3)
	if a.Verdict != explore.Liveness || len(a.Violations) != 3 || a.Stats.Stop != explore.StopViolation {
		t.Fatalf("verdict %v, %d violations, stop %s", a.Verdict, len(a.Violations), a.Stats.Stop)
	}
	for i, v := range a.Violations {
		if v.Outcome != walks.Observed || v.Property != "Four" || v.Observed != v.Steps {
			t.Errorf("violation %d: %v %q detail %v steps %d", i, v.Outcome, v.Property, v.Observed, v.Steps)
		}
		if i > 0 && v.Path <= a.Violations[i-1].Path {
			t.Errorf("violations out of path order: %d then %d", a.Violations[i-1].Path, v.Path)
		}
		s, err := engine.Replay(cfg, v.Choices, v.Steps, engine.Options{FailuresUntil: v.FailuresUntil})
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.Holds(&newFourObserver().(*fourObserver).prop); !ok {
			t.Errorf("violation %d does not replay to the observed state", i)
		}
	}
	for _, w := range []int{2, 4} {
		b := run(w, 3)
		for i := range a.Violations {
			if b.Violations[i].Path != a.Violations[i].Path || !slices.Equal(b.Violations[i].Choices, a.Violations[i].Choices) {
				t.Errorf("workers %d: violation %d at path %d, want %d", w, i, b.Violations[i].Path, a.Violations[i].Path)
			}
		}
	}
}

// TestObserverWithoutVerdict: an observer that stops walks without a
// verdict reports nothing.
func TestObserverWithoutVerdict(t *testing.T) {
	stop := func() walks.Observer { return walks.ObserveFunc(func(s *engine.Sim) bool { return s.Steps() < 4 }) }
	res, err := run(explore.Config{System: counterConfig(2, 3), DepthStep: 3, MaxDepth: 6, WalkDepth: 50, Seed: 3, Workers: 2, Observe: stop})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != explore.None || len(res.Violations) != 0 || res.Stats.Walks == 0 {
		t.Errorf("verdict %v, %d violations, %d walks", res.Verdict, len(res.Violations), res.Stats.Walks)
	}
}

// committing counts the walks whose paths were committed.
type committing struct {
	walks.Observer
	commits *atomic.Int64
}

func (c committing) Commit() { c.commits.Add(1) }

// TestCommitterAndRounds: an observer that is a Committer is told about
// exactly the committed paths that walked (Stats.Walks), and the rounds
// the statistics report are those of the committed paths, not of the
// paths the coordinator ran ahead to: both the same for any workers.
func TestCommitterAndRounds(t *testing.T) {
	var first explore.Stats
	for _, w := range []int{1, 2, 4} {
		var commits atomic.Int64
		obs := func() walks.Observer { return committing{Observer: newFourObserver(), commits: &commits} }
		res, err := run(explore.Config{System: counterConfig(2, 3), DepthStep: 1, WalkDepth: 50, Seed: 3, Workers: w, MaxViolations: 2, Observe: obs})
		if err != nil {
			t.Fatal(err)
		}
		st := res.Stats
		if commits.Load() != st.Walks || st.Walks == 0 {
			t.Errorf("workers %d: %d commits, %d walks", w, commits.Load(), st.Walks)
		}
		if w == 1 {
			first = st
			continue
		}
		if st.Rounds != first.Rounds || st.Depth != first.Depth || st.DeepestComplete != first.DeepestComplete || st.Paths != first.Paths || st.Walks != first.Walks {
			t.Errorf("workers %d: rounds %d depth %d complete %d paths %d walks %d; 1 worker: %d %d %d %d %d", w,
				st.Rounds, st.Depth, st.DeepestComplete, st.Paths, st.Walks, first.Rounds, first.Depth, first.DeepestComplete, first.Paths, first.Walks)
		}
	}
}

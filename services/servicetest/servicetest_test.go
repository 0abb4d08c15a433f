package servicetest_test

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// toy is a two-node system: each node handles two application requests,
// adding 1+Rand(3) to its count and noting whether a second had elapsed,
// then nothing is left to happen. Live: node 0's count is at least want.
type toy struct {
	sim.Base
	Count   int
	Elapsed []bool
}

func (n *toy) HandleApp(ctx *sim.Context, _ any) {
	n.Count += 1 + ctx.Rand(3)
	n.Elapsed = append(n.Elapsed, ctx.Elapsed(ctx.Now(), time.Second))
}

const toyName = "servicetest-toy"

func init() {
	sim.Register(&sim.System{
		Name:   toyName,
		Params: []sim.ParamSpec{{Name: "want", Kind: sim.ParamInt, Default: "2"}, {Name: "fixed", Kind: sim.ParamBool, Default: "false"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			want := p.Int("want")
			return &sim.Config{
				Nodes:    2,
				Service:  func(sim.NodeID) sim.Service { return &toy{} },
				App:      func(sim.NodeID) []any { return []any{"add", "add"} },
				Safety:   []sim.Property{{Name: "Small", Check: func(v *sim.View) bool { return sim.Node[toy](v, 0).Count <= 6 }}},
				Liveness: []sim.Property{{Name: "Enough", Check: func(v *sim.View) bool { return sim.Node[toy](v, 0).Count >= want }}},
			}, nil
		},
	})
}

func TestConfigAndParams(t *testing.T) {
	if got, want := servicetest.Params("n", 3, "fixed", true), map[string]string{"n": "3", "fixed": "true"}; !maps.Equal(got, want) {
		t.Errorf("Params: %v, want %v", got, want)
	}
	servicetest.CheckParams(t, toyName, map[string]string{"want": "2", "fixed": "false"})
	cfg := servicetest.Variant(t, toyName, true, map[string]string{"want": "7"})
	if cfg.Nodes != 2 {
		t.Errorf("nodes %d", cfg.Nodes)
	}
}

func TestScriptAndScripted(t *testing.T) {
	cfg := servicetest.Config(t, toyName)
	ch := &servicetest.Scripted{Rand: []int{2, 0}, Elapsed: []bool{true}, Then: engine.NewRandom(0)}
	sc := servicetest.NewScript(t, servicetest.NewWith(t, cfg, engine.Options{Chooser: ch}))
	sc.Do("node 0's first request", servicetest.App(0))
	sc.Do("node 0's second request", servicetest.App(0))
	if sc.Last() != 2 || sc.State(0).Steps() != 0 || sc.State(2).Steps() != 2 {
		t.Fatalf("script states: last %d", sc.Last())
	}
	n := sim.Node[toy](sc.Sim.View(), 0)
	if n.Count != 3+1 || !slices.Equal(n.Elapsed, []bool{true, false}) {
		t.Errorf("node 0: count %d, elapsed %v", n.Count, n.Elapsed)
	}
	if sim.Node[toy](sc.State(1).View(), 0).Count != 3 {
		t.Error("the snapshot after step 1 changed")
	}
	if servicetest.TryStep(t, sc.Sim, servicetest.App(0)) {
		t.Error("node 0 had a third request")
	}
}

func TestWalkQuiescence(t *testing.T) {
	// want=100 is never reached: the walk falls quiescent after 4 steps.
	never := servicetest.Config(t, toyName, map[string]string{"want": "100"})
	r := servicetest.Walker{}.Walk(t, servicetest.New(t, never, 1), 50, 0)
	if r.Live != -1 || r.End != 4 {
		t.Errorf("stuck walk: %+v", r)
	}
	// want=1 holds after the first step, but a walk that must see a
	// failure first never counts it, unless quiescence is checked.
	easy := servicetest.Config(t, toyName, map[string]string{"want": "1"})
	if r := (servicetest.Walker{}).Walk(t, servicetest.New(t, easy, 1), 50, 1); r.Live != -1 {
		t.Errorf("QuiescentStuck: %+v", r)
	}
	if r := (servicetest.Walker{Quiescent: servicetest.QuiescentCheck}).Walk(t, servicetest.New(t, easy, 1), 50, 1); r.Live != 4 {
		t.Errorf("QuiescentCheck: %+v", r)
	}
	if r := (servicetest.Walker{}).Walk(t, servicetest.New(t, easy, 1), 50, 0); r.Live != 1 || r.Taken() != 1 {
		t.Errorf("live walk: %+v", r)
	}
	// Node 0's first request is one of the first three steps.
	rs := servicetest.Walker{}.Walks(t, easy, servicetest.Batch{Walks: 5, Budget: 10})
	if sum := rs.Summary(); len(rs) != 5 || sum.Walks != 5 || sum.Stuck != 0 || sum.Max > 3 {
		t.Errorf("walks: %+v, summary %v", rs, rs.Summary())
	}
}

// latch is a two-node system with a critical transition: node 1's
// application sends node 0 a Lock, node 0's application sets Set. A Lock
// that arrives before Set locks node 0 for good. Live: Set and not Locked.
type latch struct {
	sim.Base
	Set, Locked bool
}

// Lock asks node 0 to lock unless it is set.
type Lock struct{}

func (n *latch) HandleApp(ctx *sim.Context, _ any) {
	if ctx.Self() == 1 {
		ctx.Send(0, Lock{})
		return
	}
	n.Set = true
}

func (n *latch) HandleMessage(_ *sim.Context, _ sim.NodeID, _ sim.Message) {
	if !n.Set {
		n.Locked = true
	}
}

const latchName = "servicetest-latch"

func init() {
	sim.Register(&sim.System{
		Name: latchName,
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &latch{} },
				App:     func(sim.NodeID) []any { return []any{"go"} },
				Liveness: []sim.Property{{Name: "SetOpen", Check: func(v *sim.View) bool {
					n := sim.Node[latch](v, 0)
					return n.Set && !n.Locked
				}}},
			}, nil
		},
	})
}

// TestJudge: in the latch, node 1 sending its Lock is transient (node 0
// can still set itself first) and node 0 taking the Lock is the critical
// transition, by each probe, by the exhaustive profile and by
// critical.Find.
func TestJudge(t *testing.T) {
	s := servicetest.New(t, servicetest.Config(t, latchName), 0)
	servicetest.Step(t, s, "node 1 sends Lock", servicetest.App(1))
	servicetest.Step(t, s, "node 0 takes the Lock", servicetest.Message(0, 1, "Lock"))
	j := servicetest.Judge{WalkDepth: 20, Dead: 10, Transient: 10, Search: 10, Seed: 1}
	c := j.Config(t, s)
	if c.Steps != 2 || c.DInit != 0 || !c.Options.NoFailures || len(c.Choices) != len(s.ChoiceValues()) {
		t.Errorf("config: steps %d d_init %d options %+v", c.Steps, c.DInit, c.Options)
	}
	if !j.IsTransient(t, s, 1) || j.IsDead(t, s, 1) || !j.IsDead(t, s, 2) || !j.IsCritical(t, s, 2) || j.IsCritical(t, s, 1) {
		t.Error("probes disagree with the latch")
	}
	probes := j.Profile(t, s, 2, func(int) int { return 10 })
	if got := servicetest.CriticalOfProbes(probes); got != 2 {
		t.Errorf("CriticalOfProbes: %d, want 2 (%+v)", got, probes)
	}
	j.CheckCritical(t, s, 2)
	if res := j.Find(t, s); res.Step != 2 || res.Event.Node != 0 || res.Event.Kind != engine.EvMessage {
		t.Errorf("Find: step %d %s", res.Step, res.EventText)
	}
	if got := servicetest.CriticalOfProbes([]critical.Probe{{Recovers: true}, {}, {Recovers: true}, {}, {}}); got != 3 {
		t.Errorf("CriticalOfProbes: %d, want 3", got)
	}
}

func TestSummarize(t *testing.T) {
	s := servicetest.Summarize([]int{9, 1, 5, 3, 7})
	if s.Walks != 5 || s.Stuck != 0 || s.Median != 5 || s.P99 != 9 || s.Max != 9 {
		t.Errorf("summary %+v", s)
	}
	if s := servicetest.Summarize(nil); s != (servicetest.Summary{}) {
		t.Errorf("empty summary %+v", s)
	}
}

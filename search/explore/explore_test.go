package explore_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// counter: each node's driver bumps its counter Steps times; node 0 also
// has a one-shot timer that sets Flag. A tiny system whose execution tree
// is easy to enumerate by brute force.
type counter struct {
	sim.Base
	N    int
	Flag bool
}

func (c *counter) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.SetTimer("flag")
	}
}
func (c *counter) HandleApp(ctx *sim.Context, req any) {
	c.N++
	if req == "rand" {
		c.N += ctx.Rand(2)
	}
}
func (c *counter) HandleTimer(ctx *sim.Context, name string) { c.Flag = true }

func counterConfig(nodes, reqs int) *sim.Config {
	return &sim.Config{
		Nodes:   nodes,
		Service: func(sim.NodeID) sim.Service { return &counter{} },
		App: func(id sim.NodeID) []any {
			var r []any
			for i := 0; i < reqs; i++ {
				if i == 1 {
					r = append(r, "rand")
				} else {
					r = append(r, "inc")
				}
			}
			return r
		},
	}
}

// bruteForce lists every choice sequence of executions cut at depth steps
// (or earlier at quiescence), by trying every answer at every choice point.
func bruteForce(t *testing.T, cfg *sim.Config, depth int) []string {
	var out []string
	var rec func(prefix []int32)
	rec = func(prefix []int32) {
		// Find the arity of the next choice point by replaying prefix and
		// asking one more choice with a chooser that records n.
		probe := &arityProbe{seq: prefix}
		s, err := engine.New(cfg, engine.Options{Chooser: probe})
		if err != nil {
			t.Fatal(err)
		}
		for probe.n == 0 && s.Steps() < depth {
			ok, err := s.Step()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
		}
		if probe.n == 0 { // reached the depth or quiescence without a new choice
			out = append(out, fmt.Sprint(prefix))
			return
		}
		for v := int32(0); v < int32(probe.n); v++ {
			rec(append(slices.Clone(prefix), v))
		}
	}
	rec(nil)
	sort.Strings(out)
	return out
}

type arityProbe struct {
	seq []int32
	pos int
	n   int
}

func (a *arityProbe) Choose(_ engine.ChoiceKind, n int, _ []float64) int {
	if a.pos < len(a.seq) {
		a.pos++
		return int(a.seq[a.pos-1])
	}
	if a.n == 0 {
		a.n = n
	}
	return 0
}

func TestBoundedSearchEnumeratesExactlyTheTree(t *testing.T) {
	for _, tc := range []struct{ nodes, reqs, depth int }{{2, 2, 3}, {2, 3, 5}, {3, 2, 4}} {
		cfg := counterConfig(tc.nodes, tc.reqs)
		want := bruteForce(t, cfg, tc.depth)
		var got []string
		c := explore.Config{System: cfg, DepthStep: tc.depth, MaxDepth: tc.depth, NoHashing: true, WalkDepth: tc.depth, Workers: 1}
		explore.SetPathHook(&c, func(choices []int32) { got = append(got, fmt.Sprint(choices)) })
		_, err := run(c)
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(got)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%+v: search ran %d paths, brute force has %d\nsearch: %v\nbrute:  %v", tc, len(got), len(want), got, want)
		}
	}
}

func TestHashingPrunesRepeatedStates(t *testing.T) {
	cfg := counterConfig(2, 2)
	plain, err := run(explore.Config{System: cfg, DepthStep: 4, MaxDepth: 4, NoHashing: true, WalkDepth: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	hashed, err := run(explore.Config{System: cfg, DepthStep: 4, MaxDepth: 4, WalkDepth: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if hashed.Stats.Pruned == 0 || hashed.Stats.Paths >= plain.Stats.Paths {
		t.Errorf("hashing should cut paths: plain %d paths, hashed %d paths (%d pruned)", plain.Stats.Paths, hashed.Stats.Paths, hashed.Stats.Pruned)
	}
	if hashed.Stats.DistinctStates == 0 {
		t.Error("no distinct states counted")
	}
}

// diamond: the driver of node 0 has one "long" request that takes the
// system into state X via three steps (a, b, c timers), and node 1's
// single request reaches an X in one step. From X, three more steps break
// the safety property. (The two X states differ in the drivers' positions,
// so this is no diamond for pruning: TestPruneKeepsTheShallowerOccurrence
// has one.)
type diamond struct {
	sim.Base
	X   bool
	Cnt int
}

func (d *diamond) HandleApp(ctx *sim.Context, req any) {
	switch req {
	case "long1", "long2":
		d.Cnt++
		if d.Cnt == 2 {
			d.Cnt = 0
			ctx.Send(0, "x")
		}
	case "short":
		ctx.Send(0, "x")
	}
}

func (d *diamond) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	switch m {
	case "x":
		if !d.X {
			d.X = true
			ctx.SetTimer("t1")
		}
	}
}

func (d *diamond) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case "t1":
		ctx.SetTimer("t2")
	case "t2":
		ctx.SetTimer("t3")
	case "t3":
		d.Cnt = 99
	}
}

func diamondConfig() *sim.Config {
	return &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &diamond{} },
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"long1", "long2"}
			}
			return []any{"short"}
		},
		Safety: []sim.Property{{Name: "NotBroken", Check: func(v *sim.View) bool {
			return sim.Node[diamond](v, 0).Cnt != 99
		}}},
	}
}

// stuck never becomes live: Live requires Done, which nothing sets; its
// periodic timer keeps it busy forever.
type stuck struct {
	sim.Base
	Ticks int
	Done  bool
}

func (s *stuck) Start(ctx *sim.Context)                    { ctx.SetPeriodic("tick") }
func (s *stuck) HandleTimer(ctx *sim.Context, name string) { s.Ticks = (s.Ticks + 1) % 3 }
func (s *stuck) HandleApp(ctx *sim.Context, req any) {
	if ctx.Rand(4) != 0 {
		s.Done = true
	}
}

func stuckConfig() *sim.Config {
	return &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &stuck{} },
		App:     func(id sim.NodeID) []any { return []any{"go"} },
		Liveness: []sim.Property{{Name: "AllDone", Check: func(v *sim.View) bool {
			return sim.All(v, func(_ sim.NodeID, s *stuck) bool { return s.Done })
		}}},
	}
}

func TestLivenessViolationIsReproducible(t *testing.T) {
	run := func(workers int) *explore.Result {
		res, err := run(explore.Config{System: stuckConfig(), WalkDepth: 300, Seed: 7, Workers: workers, MaxPaths: 2000})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b, c := run(1), run(1), run(2)
	if a.Verdict != explore.Liveness || a.Violations[0].Property != "AllDone" || a.Violations[0].Outcome != walks.Dead {
		t.Fatalf("want a liveness violation of AllDone, got %v %+v", a.Verdict, a.Stats)
	}
	for _, o := range []*explore.Result{b, c} {
		if o.Verdict != a.Verdict || o.Violations[0].Path != a.Violations[0].Path || !slices.Equal(o.Violations[0].Choices, a.Violations[0].Choices) {
			t.Errorf("runs differ: path %d vs %d", a.Violations[0].Path, o.Violations[0].Path)
		}
	}
	// The recorded choices replay to the same non-live end state.
	v := a.Violations[0]
	s, err := engine.Replay(stuckConfig(), v.Choices, v.Steps, engine.Options{FailuresUntil: v.FailuresUntil})
	if err != nil {
		t.Fatal(err)
	}
	if live, _ := s.AllHold(stuckConfig().Liveness); live {
		t.Error("replayed violation ends live")
	}
}

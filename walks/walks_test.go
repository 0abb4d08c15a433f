package walks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// counter ticks a periodic timer; it is live once N reaches Goal. A driver
// request "break" sets N past Limit (a safety violation) and "freeze" stops
// the timer forever (quiescent, never live).
type counter struct {
	sim.Base
	N, Goal, Limit int
}

func (c *counter) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (c *counter) HandleTimer(ctx *sim.Context, name string) {
	if c.N < c.Goal {
		c.N++
	}
}
func (c *counter) HandleApp(ctx *sim.Context, req any) {
	switch req {
	case "break":
		c.N = c.Limit + 1
	case "freeze":
		ctx.CancelTimer("tick")
		c.Goal = -1
	}
}

func config(goal int, reqs ...any) *sim.Config {
	return &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &counter{Goal: goal, Limit: 100} },
		App:     func(sim.NodeID) []any { return reqs },
		Safety:  []sim.Property{{Name: "Bounded", Check: func(v *sim.View) bool { return sim.Node[counter](v, 0).N <= 100 }}},
		Liveness: []sim.Property{{Name: "Reached", Check: func(v *sim.View) bool {
			c := sim.Node[counter](v, 0)
			return c.Goal >= 0 && c.N >= c.Goal
		}}},
	}
}

func walk(t *testing.T, cfg *sim.Config, c walks.Config) walks.Result {
	t.Helper()
	s, err := engine.New(cfg, engine.Options{Chooser: walks.NewChooser(1, false)})
	if err != nil {
		t.Fatal(err)
	}
	c.Safety, c.Liveness = cfg.Safety, cfg.Liveness
	return walks.Walk(s, &c)
}

func TestWalkOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   *sim.Config
		c     walks.Config
		want  walks.Outcome
		steps int
		prop  string
	}{
		{"live at the goal", config(5), walks.Config{MaxSteps: 100}, walks.Live, 5, ""},
		{"liveness only beyond the depth", config(5), walks.Config{MaxSteps: 100, LiveAfter: 8}, walks.Live, 9, ""},
		{"dead at d_max", config(500), walks.Config{MaxSteps: 50}, walks.Dead, 50, "Reached"},
		{"unsafe", config(5, "break"), walks.Config{MaxSteps: 100}, walks.Unsafe, 1, "Bounded"},
		{"quiescent and not live", config(5, "freeze"), walks.Config{MaxSteps: 100}, walks.Quiescent, 1, "Reached"},
		// Quiescent at d_max itself is quiescent, not dead: one step
		// more of d_max said so.
		{"quiescent at d_max", config(5, "freeze"), walks.Config{MaxSteps: 1}, walks.Quiescent, 1, "Reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := walk(t, tc.cfg, tc.c)
			if r.Outcome != tc.want || r.Steps != tc.steps || r.Property != tc.prop {
				t.Errorf("got %v after %d steps (%q), want %v after %d (%q)", r.Outcome, r.Steps, r.Property, tc.want, tc.steps, tc.prop)
			}
			if r.Outcome.Violation() != (tc.want == walks.Dead || tc.want == walks.Unsafe || tc.want == walks.Quiescent) {
				t.Errorf("Violation() = %v for %v", r.Outcome.Violation(), r.Outcome)
			}
		})
	}
}

func TestWalkWithoutLivenessOnlyChecksSafety(t *testing.T) {
	cfg := config(500)
	cfg.Liveness = nil
	if r := walk(t, cfg, walks.Config{MaxSteps: 30}); r.Outcome != walks.Finished || r.Steps != 30 {
		t.Errorf("got %v after %d steps, want finished after 30", r.Outcome, r.Steps)
	}
}

func TestObserveStopsTheWalk(t *testing.T) {
	calls := 0
	r := walk(t, config(500), walks.Config{MaxSteps: 100, Observe: walks.ObserveFunc(func(s *engine.Sim) bool { calls++; return s.Steps() < 7 })})
	if r.Outcome != walks.Stopped || r.Steps != 7 || calls != 8 {
		t.Errorf("got %v after %d steps and %d calls, want stopped after 7 steps and 8 calls", r.Outcome, r.Steps, calls)
	}
}

func TestHandlerPanicFailsTheWalk(t *testing.T) {
	cfg := config(5, "panic")
	cfg.Service = func(sim.NodeID) sim.Service { return &panicker{} }
	r := walk(t, cfg, walks.Config{MaxSteps: 100})
	if r.Outcome != walks.Failed || r.Property != walks.PanicProperty || r.Err == nil || !strings.Contains(r.Err.Error(), "boom") {
		t.Errorf("got %v %q %v", r.Outcome, r.Property, r.Err)
	}
}

// TestPropertyPanicFailsTheWalk: a safety or liveness property that
// panics ends the walk Failed at the step it panicked, naming it, with the
// *engine.PropertyPanicError holding the panic's value; the properties
// before it were checked and held.
func TestPropertyPanicFailsTheWalk(t *testing.T) {
	for _, tc := range []struct {
		name      string
		safety    bool
		liveAfter int
		step      int
	}{
		{"safety", true, 0, 3},
		{"liveness", false, 0, 3},
		{"liveness at the start", false, -1, 0},
		{"liveness only beyond the depth", false, 6, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config(500)
			checked := 0
			holds := sim.Property{Name: "Holds", Check: func(*sim.View) bool { checked++; return true }}
			bad := sim.Property{Name: "Bad", Check: func(v *sim.View) bool {
				if sim.Node[counter](v, 0).N >= tc.step { // a tick a step
					panic("bad property")
				}
				return tc.safety
			}}
			if tc.safety {
				cfg.Safety = []sim.Property{holds, bad}
			} else {
				cfg.Liveness = []sim.Property{holds, bad}
			}
			r := walk(t, cfg, walks.Config{MaxSteps: 100, LiveAfter: tc.liveAfter})
			var pe *engine.PropertyPanicError
			if r.Outcome != walks.Failed || r.Steps != tc.step || r.Property != "Bad" || !errors.As(r.Err, &pe) ||
				pe.Property != "Bad" || pe.Step != tc.step || pe.Value != "bad property" || !errors.Is(r.Err, engine.ErrPropertyPanic) {
				t.Fatalf("got %v after %d steps (%q), %v; want failed after %d (\"Bad\") with its panic", r.Outcome, r.Steps, r.Property, r.Err, tc.step)
			}
			if checked == 0 {
				t.Error("the property before the one that panicked was not checked")
			}
		})
	}
}

// TestObserverPanicIsNotAFinding: Walk recovers only what the properties
// it checks panic with; an observer's panic goes on up.
func TestObserverPanicIsNotAFinding(t *testing.T) {
	defer func() {
		if r := recover(); r != "observer" {
			t.Errorf("recovered %v, want the observer's panic", r)
		}
	}()
	walk(t, config(500), walks.Config{MaxSteps: 100, Observe: walks.ObserveFunc(func(s *engine.Sim) bool {
		if s.Steps() == 2 {
			panic("observer")
		}
		return true
	})})
	t.Error("Walk returned")
}

type panicker struct{ sim.Base }

func (p *panicker) HandleApp(*sim.Context, any) { panic("boom") }

func TestSeedForSpreadsAndRepeats(t *testing.T) {
	seen := map[uint64]bool{}
	for i := uint64(0); i < 1000; i++ {
		s := walks.SeedFor(7, i)
		if seen[s] {
			t.Fatalf("SeedFor(7, %d) repeats", i)
		}
		seen[s] = true
		if walks.SeedFor(7, i) != s {
			t.Fatal("SeedFor is not a function of its arguments")
		}
	}
	if walks.SeedFor(7, 0) == walks.SeedFor(8, 0) {
		t.Error("different run seeds give the same walk seed")
	}
}

func TestTune(t *testing.T) {
	res, err := walks.Tune(walks.TuneConfig{System: config(20), Depth: 3, Samples: 200, MaxSteps: 1000, Seed: 1, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The counter needs exactly 20 ticks; with only the timer ready every
	// sample is live at step 20.
	if len(res.Steps) != 200 || res.Percentile(50) != 20 || res.Percentile(100) != 20 {
		t.Errorf("steps %v, p50 %d", res.Steps[:5], res.Percentile(50))
	}
	if res.Suggest() != 160 {
		t.Errorf("suggested d_max %d, want 8x20", res.Suggest())
	}
	one, _ := walks.Tune(walks.TuneConfig{System: config(20), Depth: 3, Samples: 200, MaxSteps: 1000, Seed: 1, Workers: 1})
	if len(one.Steps) != len(res.Steps) || one.Percentile(90) != res.Percentile(90) {
		t.Error("Tune depends on the number of workers")
	}
	svg := string(res.SVG("counter <20>"))
	if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "counter &lt;20&gt;") || !strings.Contains(svg, "polyline") {
		t.Errorf("svg: %.200s", svg)
	}
	if !strings.Contains(svg, `<g id="dmax">`) || !strings.Contains(svg, "suggested d_max = 160") || strings.Contains(svg, "walk-bound") {
		t.Errorf("the svg does not mark the suggested d_max 160 (alone): %s", svg)
	}
	page, err := res.HTML("counter <20>")
	if err != nil || !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "suggested --walk-depth 160") ||
		!strings.Contains(string(page), "<td>p50</td><td>20</td>") || strings.Contains(string(page), "counter <20>") {
		t.Errorf("tune page (%v):\n%s", err, page)
	}
	// A cancelled context stops the sampling, with its error (the tune
	// command did not handle Ctrl-C).
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := walks.Tune(walks.TuneConfig{System: config(5000), Depth: 3, Samples: 1000, MaxSteps: 100000, Seed: 1, Context: cancelled}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled tune: %v", err)
	}
	never, _ := walks.Tune(walks.TuneConfig{System: config(5000), Depth: 3, Samples: 10, MaxSteps: 100, Seed: 1})
	if len(never.Steps) != 0 || never.Percentile(50) != -1 || never.Suggest() != 0 {
		t.Errorf("a system that never turns live: %+v", never)
	}
	if svg := string(never.SVG("never")); !strings.Contains(svg, "10 walks not live within 100 steps") || strings.Contains(svg, "dmax") {
		t.Errorf("the svg of a system that never turns live: %s", svg)
	}
	// Some samples never live within MaxSteps: the slowest is slower than
	// that, so no d_max follows from the others.
	some := &walks.TuneResult{Steps: []int{5, 9, 16}, Samples: 10, MaxSteps: 100, Depth: 3}
	var text strings.Builder
	if err := some.WriteText(&text, "some"); err != nil || some.Suggest() != 0 || some.Never() != 7 ||
		!strings.Contains(text.String(), "no suggested --walk-depth: 7 walks never turned live within 100 steps") || strings.Contains(text.String(), "suggested --walk-depth 1") {
		t.Errorf("suggested %d (%v):\n%s", some.Suggest(), err, text.String())
	}
	if page, err := some.HTML("some"); err != nil || !strings.Contains(string(page), "no suggestion: 7 walks never turned live") {
		t.Errorf("tune page (%v):\n%s", err, page)
	}
	// Samples that broke a safety property are not "never" live: they
	// stopped (the chord tune of the quick start showed 132 of them as
	// "never (within 20000)" beside a suggested d_max).
	unsafe := &walks.TuneResult{Steps: []int{5, 9, 16}, Samples: 10, Unsafe: 7, MaxSteps: 100, Depth: 3}
	text.Reset()
	if err := unsafe.WriteText(&text, "unsafe"); err != nil || !strings.Contains(text.String(), "  p50        - (broke a safety property first)\n") ||
		strings.Contains(text.String(), "never") || !strings.Contains(text.String(), "suggested --walk-depth 130") {
		t.Errorf("(%v):\n%s", err, text.String())
	}
	if page, err := unsafe.HTML("unsafe"); err != nil || !strings.Contains(string(page), "<td>p50</td><td>- (broke a safety property first)</td>") {
		t.Errorf("tune page (%v):\n%s", err, page)
	}
	both := &walks.TuneResult{Steps: []int{5, 9, 16}, Samples: 10, Unsafe: 3, MaxSteps: 100, Depth: 3}
	text.Reset()
	if err := both.WriteText(&text, "both"); err != nil || !strings.Contains(text.String(), "  p50        never within 100, or broke a safety property first\n") {
		t.Errorf("(%v):\n%s", err, text.String())
	}
	text.Reset()
	if err := some.WriteText(&text, "some"); err != nil || !strings.Contains(text.String(), "  p50        never (within 100)\n") {
		t.Errorf("(%v):\n%s", err, text.String())
	}
	if _, err := walks.Tune(walks.TuneConfig{System: &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &counter{} }}}); err != walks.ErrNoLiveness {
		t.Errorf("no liveness property: %v", err)
	}
}

// verdictObserver stops the walk at step At with a verdict, or without
// one when Prop and Detail are empty.
type verdictObserver struct {
	At     int
	Prop   string
	Detail any
	asked  int
}

func (o *verdictObserver) Observe(s *engine.Sim) bool { return s.Steps() < o.At }
func (o *verdictObserver) Verdict() (string, any) {
	o.asked++
	return o.Prop, o.Detail
}

func TestObserverVerdict(t *testing.T) {
	o := &verdictObserver{At: 9, Prop: "Nine", Detail: []int{9}}
	r := walk(t, config(500), walks.Config{MaxSteps: 100, Liveness: config(500).Liveness, Observe: o})
	if r.Outcome != walks.Observed || r.Steps != 9 || r.Property != "Nine" || o.asked != 1 || !r.Outcome.Violation() {
		t.Fatalf("got %+v (verdict asked %d times), want observed after 9 steps", r, o.asked)
	}
	if d, ok := r.Observed.([]int); !ok || d[0] != 9 {
		t.Errorf("detail %v", r.Observed)
	}
	if r.Outcome.String() != "observed" {
		t.Errorf("outcome name %q", r.Outcome)
	}
	// No verdict: the walk is merely stopped, no violation.
	o = &verdictObserver{At: 4}
	r = walk(t, config(500), walks.Config{MaxSteps: 100, Observe: o})
	if r.Outcome != walks.Stopped || r.Steps != 4 || r.Observed != nil || r.Outcome.Violation() {
		t.Errorf("got %+v, want stopped after 4 steps", r)
	}
	// A walk that ends on its own never asks for a verdict.
	o = &verdictObserver{At: 1000, Prop: "never"}
	r = walk(t, config(20), walks.Config{MaxSteps: 100, Liveness: config(20).Liveness, Observe: o})
	if r.Outcome != walks.Live || o.asked != 0 {
		t.Errorf("got %+v, verdict asked %d times", r, o.asked)
	}
}

// TestTuneDepthZero: a depth of 0 walks from the initial state, failures
// off (it ran from depth 15, the default it took 0 for, and said so
// nowhere): the counter of 2 ticks is live at step 2 in every sample. With
// a periphery, failures are on there, and a crash before the second tick
// keeps a sample from ever being live.
func TestTuneDepthZero(t *testing.T) {
	cfg := config(2)
	cfg.Failures = sim.Failures{Crashes: 1}
	tune := func(depth int) *walks.TuneResult {
		res, err := walks.Tune(walks.TuneConfig{System: cfg, Depth: depth, Samples: 200, MaxSteps: 100, Seed: 1, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Depth != depth {
			t.Errorf("depth %d: the result says depth %d", depth, res.Depth)
		}
		return res
	}
	if res := tune(0); len(res.Steps) != 200 || res.Steps[0] != 2 || res.Percentile(100) != 2 {
		t.Errorf("depth 0: steps %v, want 200 samples live at step 2", res.Steps)
	}
	if res := tune(15); res.Never() == 0 {
		t.Errorf("depth 15: every sample turned live (%v): no failure in the periphery", res.Steps)
	}
	if _, err := walks.Tune(walks.TuneConfig{System: cfg, Depth: -1}); err == nil || !strings.Contains(err.Error(), "depth -1") {
		t.Errorf("depth -1: %v", err)
	}
}

package critical_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// The flags system: one node whose one-shot timers "a" and "b" set flags
// A and B, timers "n1", "n2", "n3" only count (noise), and a periodic
// "tick" makes it Done (live) unless it is poisoned. Its one application
// request poisons it when A and B are set: Done is cleared and tick
// cancelled, so nothing can make it live again. A doomed path needs a, b
// and then the request: the 1-minimal doomed path is [a, b, poison] (or
// [b, a, poison]), whatever noise E had.
type Flags struct {
	sim.Base
	A, B, Poisoned, Done bool
	Noise                int
}

// Start arms the timers.
func (f *Flags) Start(ctx *sim.Context) {
	for _, t := range []string{"a", "b", "n1", "n2", "n3"} {
		ctx.SetTimer(t)
	}
	ctx.SetPeriodic("tick")
}

// HandleTimer sets the flags.
func (f *Flags) HandleTimer(ctx *sim.Context, name string) {
	switch name {
	case "a":
		f.A = true
	case "b":
		f.B = true
	case "tick":
		if !f.Poisoned {
			f.Done = true
		}
	default:
		f.Noise++
	}
}

// HandleApp poisons the node once both flags are set.
func (f *Flags) HandleApp(ctx *sim.Context, req any) {
	if f.A && f.B {
		f.Poisoned, f.Done = true, false
		ctx.CancelTimer("tick")
	}
}

func flagsConfig() *sim.Config {
	return &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &Flags{} },
		App:     func(sim.NodeID) []any { return []any{"poison"} },
		Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool {
			return sim.Node[Flags](v, 0).Done
		}}},
	}
}

// scripted runs cfg through the named events ("app" for the request, else
// a timer name) and returns the choices and the length.
func scripted(t *testing.T, cfg *sim.Config, events ...string) ([]int32, int) {
	t.Helper()
	s, err := engine.New(cfg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range events {
		i := slices.IndexFunc(s.Ready(), func(e engine.Event) bool {
			return name == "app" && e.Kind == engine.EvApp || e.Kind == engine.EvTimer && e.Timer == name
		})
		if i < 0 {
			t.Fatalf("event %s is not ready after %d steps", name, s.Steps())
		}
		if err := s.StepEvent(i); err != nil {
			t.Fatal(err)
		}
	}
	return s.ChoiceValues(), s.Steps()
}

// TestBelowDInitAfterLivePrefix: E is live at step 1 (tick), then poisoned
// at step 5, and d_init is 6. No walk recovers from d_init, and Algorithm 3
// answers (6, C2). Searching again from the initial state (the CLI's old
// fallback) is refused: E is live after state 0 (ErrNotDead). Find
// searches below d_init from E's last live state, 4, and answers C1 at the
// poison without probing state 0.
func TestBelowDInitAfterLivePrefix(t *testing.T) {
	cfg := flagsConfig()
	choices, n := scripted(t, cfg, "tick", "a", "n1", "b", "app", "n2", "n3")
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, DInit: 6, WalkDepth: 400, Walks: 20, Seed: 1, ConfirmWalks: 500, ConfirmBudget: 20_000}
	res := find(t, c)
	if res.Step != 5 || res.Condition != critical.C1 || !res.AtDInit || !res.Below || res.EventText != "node 0 handles app request \"poison\"" {
		t.Fatalf("got (%d, %v) at d_init %v below %v: %s", res.Step, res.Condition, res.AtDInit, res.Below, res.EventText)
	}
	var probes []int
	for _, p := range res.Probes {
		if p.Phase != critical.PhaseConfirm {
			probes = append(probes, p.Step)
		}
	}
	if !slices.Equal(probes, []int{6, 5}) {
		t.Errorf("probes %v, want [6 5]: d_init, then between the live state 4 and d_init", probes)
	}
	// State 4 is live itself: nothing to sample there (a walk counts only
	// the live states after its start, and may find none).
	if conf := res.Confidence; conf == nil || conf.Before.Step != 4 || !conf.Before.Live || conf.Before.Walks != 0 || conf.Thin ||
		!strings.Contains(conf.String(), "state 4 is live itself") {
		t.Errorf("confidence %+v\n%s", res.Confidence, res.Confidence)
	}
	c.DInit = 0
	var nd *critical.NotDeadError
	if _, err := critical.Find(context.Background(), c); !errors.As(err, &nd) || nd.Step != 1 {
		t.Errorf("from the initial state: %v, want live at step 1", err)
	}
}

// TestBelowDInitFromStart: no live state in the prefix; state 0 recovers,
// so the binary search runs between 0 and d_init.
func TestBelowDInitFromStart(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 60, poison: 7}, 2000, 2000)
	c.DInit = 12
	res := find(t, c)
	if res.Step != 7 || res.Condition != critical.C1 || !res.AtDInit || !res.Below {
		t.Fatalf("got (%d, %v) at d_init %v below %v", res.Step, res.Condition, res.AtDInit, res.Below)
	}
	var probes []int
	for _, p := range res.Probes {
		if p.Phase != critical.PhaseConfirm {
			probes = append(probes, p.Step)
			if p.Step < 12 && p.Phase != critical.PhaseBelow {
				t.Errorf("probe %+v below d_init in phase %v", p, p.Phase)
			}
		}
	}
	// d_init 12 dead, 0 recovers, then (0+12)/2 = 6, 9, 7 dead.
	if !slices.Equal(probes, []int{12, 0, 6, 9, 7}) {
		t.Errorf("probes %v", probes)
	}
	if !strings.Contains(res.Explain(), "below d_init") {
		t.Errorf("Explain does not say the search went below d_init:\n%s", res.Explain())
	}
}

// TestExponentialBound pins line 7 of Algorithm 3, d_curr > d_max/2, and
// Find's probe of state d_max/2 there (a deviation, see Find): with the
// poison at 20, phase 1 probes 0, 1, 2, ..., 16 (all recover). With d_max
// = 64, 2·32 = 64 is not above 64, so 32 is probed (dead); with d_max = 63
// it is above, and Algorithm 3 would answer (32, C2), leaving 17-31
// unprobed: Find probes 31 (dead) instead, and both answer C1 at 20. With
// d_max = 39, state 19 is probed and recovers: (32, C2), Algorithm 3's.
func TestExponentialBound(t *testing.T) {
	for _, tc := range []struct {
		dmax, last, step int
		cond             critical.Condition
	}{{64, 32, 20, critical.C1}, {63, 31, 20, critical.C1}, {65, 32, 20, critical.C1}, {39, 19, 32, critical.C2}} {
		c := algorithm3(poisonConfig(t, poisonSys{apps: 100, poison: 20}, 100, tc.dmax))
		res := find(t, c)
		last := -1
		for _, p := range res.Probes {
			if p.Phase == critical.PhaseExponential {
				last = p.Step
			}
		}
		if res.Step != tc.step || res.Condition != tc.cond || last != tc.last {
			t.Errorf("d_max %d: got (%d, %v), last exponential probe %d; want (%d, %v), %d; probes %+v", tc.dmax, res.Step, res.Condition, last, tc.step, tc.cond, tc.last, res.Probes)
		}
	}
}

// TestConfidenceWorkers: Find's probes and confidence, and Confirm's, are
// the same for 1, 2 and 4 workers, where recovery before the poison is
// weak (the tick's weight is 2 against 40 for requests) and the budget
// ends the samples.
func TestConfidenceWorkers(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 60, poison: 40, tick: 2}, 2000, 2000)
	c.Seed = 7
	var first critical.Result
	var firstConf *critical.Confidence
	for i, w := range []int{1, 2, 4} {
		c.Workers = w
		res := find(t, c)
		conf, err := critical.Confirm(context.Background(), c, res.Step)
		if err != nil {
			t.Fatal(err)
		}
		if res.Confidence == nil || !res.Confidence.At.Budget || conf.Before.Recovered == 0 || conf.At.Recovered != 0 {
			t.Fatalf("workers %d: confidence %+v, Confirm %+v", w, res.Confidence, conf)
		}
		res.Confidence.At.Elapsed, res.Confidence.Before.Elapsed = 0, 0
		conf.At.Elapsed, conf.Before.Elapsed = 0, 0
		if i == 0 {
			first, firstConf = res, conf
			continue
		}
		if !reflect.DeepEqual(stripTimes(res.Probes), stripTimes(first.Probes)) || !reflect.DeepEqual(res.Confidence, first.Confidence) || res.Step != first.Step {
			t.Errorf("workers %d: Find differs:\n%+v\n%+v", w, res.Confidence, first.Confidence)
		}
		if !reflect.DeepEqual(conf, firstConf) {
			t.Errorf("workers %d: Confirm differs:\n%+v\n%+v", w, conf, firstConf)
		}
	}
	// Confirm counts every walk at the critical state: a state that
	// recovers is reported with its recoveries, and the evidence is thin.
	conf, err := critical.Confirm(context.Background(), c, 38)
	if err != nil {
		t.Fatal(err)
	}
	if conf.At.Recovered == 0 || !conf.Thin || !strings.Contains(conf.String(), "not dead") {
		t.Errorf("Confirm(38): %+v\n%s", conf, conf)
	}
}

// TestConfidenceThin checks the figures and the thin rule.
func TestConfidenceThin(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 100, poison: 40}, 2000, 2000)
	for _, tc := range []struct {
		budget             int64
		walks              int
		upperLo, upperHigh float64
		thin               bool
	}{
		{120_000, 62, 0.0471, 0.0473, false}, // 1 - 0.05^(1/62) = 4.72%
		{100_000, 52, 0.0559, 0.0561, true},  // 5.60%: above ThinUpper
		{40_000, 21, 0.1328, 0.1330, true},   // 13.29%
	} {
		c.ConfirmBudget = tc.budget
		conf, err := critical.Confirm(context.Background(), c, 40)
		if err != nil {
			t.Fatal(err)
		}
		if conf.Thin != tc.thin || conf.At.Walks != tc.walks || conf.Upper95 < tc.upperLo || conf.Upper95 > tc.upperHigh || conf.At.Recovered != 0 || conf.Chance > 1e-9 {
			t.Errorf("budget %d: %+v", tc.budget, conf)
		}
		want := "The evidence is strong."
		if tc.thin {
			want = fmt.Sprintf("The evidence is thin (%d walks from state 40 leave a 95%% bound of %.1f%% on its recovery, above 5.0%%: strong evidence needs 59 walks without a recovery): ", tc.walks, 100*conf.Upper95)
		}
		if !strings.Contains(conf.String(), want) {
			t.Errorf("budget %d: the text lacks %q:\n%s", tc.budget, want, conf)
		}
	}
	if up := func(n float64) float64 { return 1 - math.Pow(0.05, 1/n) }; up(critical.ThinWalks) > critical.ThinUpper || up(critical.ThinWalks-1) <= critical.ThinUpper {
		t.Errorf("ThinWalks %d is not the fewest walks with a bound at most ThinUpper", critical.ThinWalks)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if conf, err := critical.Confirm(ctx, c, 40); !errors.Is(err, context.Canceled) || conf == nil || !conf.Partial || !conf.Thin {
		t.Errorf("cancelled: %+v %v", conf, err)
	}
}

// TestMinimizeFlags: E runs noise around the two flags; ddmin keeps
// exactly a, b and the poison, proves 1-minimality, and the minimized path
// replays to a dead state. The result is the same for 1 and 4 workers.
func TestMinimizeFlags(t *testing.T) {
	cfg := flagsConfig()
	choices, n := scripted(t, cfg, "n1", "a", "n2", "b", "n3", "app")
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 400, Walks: 20, Seed: 1, ConfirmWalks: 500, ConfirmBudget: 20_000}
	res := find(t, c)
	if res.Step != 6 || res.Condition != critical.C1 {
		t.Fatalf("got (%d, %v)", res.Step, res.Condition)
	}
	var first *critical.Minimized
	for _, w := range []int{1, 4} {
		c.Workers = w
		m, err := critical.Minimize(context.Background(), c, res.Step, critical.MinimizeConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if m.Steps != 3 || !slices.Equal(m.Kept, []int{2, 4, 6}) || !m.Minimal || m.Stop != "" || m.From != 6 {
			t.Fatalf("workers %d: %+v", w, m)
		}
		var names []string
		for _, e := range m.Events {
			names = append(names, e.String())
		}
		if want := []string{"node 0 timer a fires", "node 0 timer b fires", "node 0 handles app request \"poison\""}; !slices.Equal(names, want) {
			t.Errorf("events %q, want %q", names, want)
		}
		s, err := engine.Replay(cfg, m.Choices, m.Steps, m.Options)
		if err != nil {
			t.Fatal(err)
		}
		if f := sim.Node[Flags](s.View(), 0); !f.Poisoned || f.Noise != 0 {
			t.Errorf("minimized path ends in %+v", f)
		}
		mc := c
		mc.Choices, mc.Steps, mc.WalkDepth, mc.Options = m.Choices, m.Steps, m.WalkDepth, m.Options
		if p, _, err := critical.Recovers(context.Background(), mc, m.Steps); err != nil || p.Recovers {
			t.Errorf("minimized path's end recovers: %+v %v", p, err)
		}
		if m.After.Recovers || !m.Before.Recovers || m.AfterConfirm.Walks == 0 {
			t.Errorf("judging walks: before %+v after %+v confirm %+v", m.Before, m.After, m.AfterConfirm)
		}
		m.Elapsed = 0
		m.Before.Elapsed, m.After.Elapsed, m.AfterConfirm.Elapsed, m.Check.Elapsed = 0, 0, 0, 0
		if first == nil {
			first = m
		} else if !reflect.DeepEqual(m, first) {
			t.Errorf("workers %d: %+v\nvs %+v", w, m, first)
		}
	}
	tr := first.Trace(&trace.Trace{System: "flags", WalkDepth: 400})
	if tr.Kind != "minimized" || tr.Critical != 3 || tr.Condition != "C1" || tr.Steps != 3 || !strings.Contains(tr.Note, "1-minimal") {
		t.Errorf("trace %+v", tr)
	}
}

// TestMinimizeOneMinimal checks 1-minimality from outside on the flags
// system with more noise: dropping any kept transition but the last
// leaves a path whose end is not poisoned (it recovers), and the
// minimized path is shorter than E's prefix.
func TestMinimizeOneMinimal(t *testing.T) {
	cfg := flagsConfig()
	choices, n := scripted(t, cfg, "n1", "n2", "b", "n3", "a", "app")
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 400, Walks: 20, Seed: 3, ConfirmWalks: 500, ConfirmBudget: 20_000}
	m, err := critical.Minimize(context.Background(), c, 6, critical.MinimizeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Minimal || !slices.Equal(m.Kept, []int{3, 5, 6}) {
		t.Fatalf("%+v", m)
	}
	for drop := range m.Steps - 1 {
		var names []string
		for i, e := range m.Events {
			if i == drop {
				continue
			}
			if e.Kind == engine.EvApp {
				names = append(names, "app")
			} else {
				names = append(names, e.Timer)
			}
		}
		ch, k := scripted(t, cfg, names...)
		s, err := engine.Replay(cfg, ch, k, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sim.Node[Flags](s.View(), 0).Poisoned {
			t.Errorf("without %s the path is still doomed: not 1-minimal", m.Events[drop])
		}
	}
}

// TestMinimizeBudgets: a budget too small for ddmin leaves the shortest
// path found so far, which passes the test, and says why it stopped; a
// cancelled context returns a Partial result; a step that is not the
// critical transition is refused.
func TestMinimizeBudgets(t *testing.T) {
	cfg := flagsConfig()
	choices, n := scripted(t, cfg, "n1", "a", "n2", "b", "n3", "app")
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 400, Walks: 20, Seed: 1, ConfirmWalks: 500, ConfirmBudget: 20_000}
	m, err := critical.Minimize(context.Background(), c, 6, critical.MinimizeConfig{MaxTests: 2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Minimal || m.Stop != "tests" || m.Tests > 3 || m.Steps > 6 || m.Kept[len(m.Kept)-1] != 6 {
		t.Errorf("MaxTests 2: %+v", m)
	}
	m, err = critical.Minimize(context.Background(), c, 6, critical.MinimizeConfig{Budget: 1})
	if err != nil || m.Minimal || m.Stop != "budget" {
		t.Errorf("Budget 1: %+v %v", m, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := critical.Minimize(ctx, c, 6, critical.MinimizeConfig{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// Step 5 (timer n3) is not critical: the state after it recovers.
	if _, err := critical.Minimize(context.Background(), c, 5, critical.MinimizeConfig{}); !errors.Is(err, critical.ErrNotDead) {
		t.Errorf("not the critical step: %v", err)
	}
	if _, err := critical.Minimize(context.Background(), c, 0, critical.MinimizeConfig{}); !errors.Is(err, critical.ErrBadConfig) {
		t.Errorf("step 0: %v", err)
	}
}

// TestMinimizeBudgetCoversTheCheck: the budget bounds the whole
// minimization, the test of E's own prefix and the check of ddmin's result
// with fresh walks included (they once came on top: a budget of 1 still
// ran a confirmation sample of E's end), give or take the walk that
// crosses it and a replay. A shorter path is the result only once its
// check ran; when the budget ends before it (4,000 transitions here,
// half of them kept back for the check, which needs more than that), the
// result is E's own prefix, and the note says why. The results are the
// same for 1 and 4 workers.
func TestMinimizeBudgetCoversTheCheck(t *testing.T) {
	cfg := flagsConfig()
	choices, n := scripted(t, cfg, "n1", "a", "n2", "b", "n3", "app")
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 400, Walks: 20, Seed: 1, ConfirmWalks: 500, ConfirmBudget: 20_000}
	for _, budget := range []int64{1, 100, 1000, 4000, 5000, 100_000} {
		var first *critical.Minimized
		for _, w := range []int{1, 4} {
			c.Workers = w
			m, err := critical.Minimize(context.Background(), c, 6, critical.MinimizeConfig{Budget: budget})
			if err != nil {
				t.Fatalf("budget %d: %v", budget, err)
			}
			if most := budget + int64(c.WalkDepth) + 2*6; m.Transitions > most {
				t.Errorf("budget %d, workers %d: %d transitions, more than %d", budget, w, m.Transitions, most)
			}
			if m.Steps < 6 && m.Check.Walks == 0 {
				t.Errorf("budget %d, workers %d: a %d-step path without its check", budget, w, m.Steps)
			}
			if !m.Minimal && m.Stop != "budget" {
				t.Errorf("budget %d, workers %d: stop %q", budget, w, m.Stop)
			}
			m.Elapsed = 0
			m.Before.Elapsed, m.After.Elapsed, m.AfterConfirm.Elapsed, m.Check.Elapsed = 0, 0, 0, 0
			if first == nil {
				first = m
			} else if !reflect.DeepEqual(m, first) {
				t.Errorf("budget %d, workers %d: %+v\nvs %+v", budget, w, m, first)
			}
		}
		switch budget {
		case 1:
			// Not even E's own prefix is tested.
			if first.Tests != 0 || first.Steps != 6 {
				t.Errorf("budget 1: %+v", first)
			}
		case 4000:
			note := first.Trace(&trace.Trace{}).Note
			if first.Unchecked != 4 || first.Steps != 6 || !strings.Contains(note, "the budget ended before the check with fresh walks of the 4-step path ddmin found") {
				t.Errorf("budget 4000: unchecked %d, steps %d, note %q", first.Unchecked, first.Steps, note)
			}
		case 100_000:
			if !first.Minimal || first.Steps != 3 || first.Check.Walks == 0 {
				t.Errorf("budget 100000: %+v", first)
			}
		}
	}
}

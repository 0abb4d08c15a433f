package critical_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// Budgets: d_max 2000 (200-400 for the C2 cases), k 20, seed 1 unless a
// test says otherwise; a dead probe costs at most k·d_max = 40,000 steps,
// a confirmation sample at most 2000 walks and ConfirmBudget = 100,000
// steps plus one walk.

func find(t *testing.T, c critical.Config) critical.Result {
	t.Helper()
	res, err := critical.Find(context.Background(), c)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	return res
}

func poisonConfig(t testing.TB, p poisonSys, steps, dmax int) critical.Config {
	cfg := p.config()
	choices, n := deadPath(t, cfg, steps, engine.Options{})
	return critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: dmax, Walks: 20, Seed: 1, ConfirmWalks: 2000, ConfirmBudget: 100_000}
}

// algorithm3 turns confirmation off: Find answers as Algorithm 3 alone.
func algorithm3(c critical.Config) critical.Config {
	c.ConfirmWalks = -1
	return c
}

// TestFindCriticalStep checks that Find returns exactly the poison step
// with C1, for several steps and d_init values.
func TestFindCriticalStep(t *testing.T) {
	for _, tc := range []struct{ poison, dinit int }{
		{1, 0}, {2, 0}, {3, 0}, {17, 0}, {17, 2}, {40, 0}, {40, 5}, {150, 0}, {150, 100},
	} {
		p := poisonSys{apps: tc.poison + 50, poison: tc.poison}
		c := poisonConfig(t, p, 2000, 2000)
		c.DInit = tc.dinit
		res := find(t, c)
		if res.Step != tc.poison || res.Condition != critical.C1 {
			t.Errorf("poison %d, d_init %d: got (%d, %v), want (%d, C1); probes %+v", tc.poison, tc.dinit, res.Step, res.Condition, tc.poison, res.Probes)
			continue
		}
		want := engine.Event{Kind: engine.EvApp, Node: 0, Msg: Req{N: tc.poison, Poison: true}}
		if !res.HasEvent || res.Event.Kind != want.Kind || res.Event.Msg != want.Msg || res.EventText != want.String() {
			t.Errorf("poison %d: event %q (%v), want %q", tc.poison, res.EventText, res.HasEvent, want.String())
		}
		if res.Live == nil || res.Live.Shared != tc.poison-1 || res.Live.From != tc.poison-1 {
			t.Errorf("poison %d: live alternative %+v, want one sharing %d steps", tc.poison, res.Live, tc.poison-1)
		}
		if res.ESteps != 2000 || res.Unsafe != 0 {
			t.Errorf("poison %d: ESteps %d, Unsafe %d", tc.poison, res.ESteps, res.Unsafe)
		}
		ex := res.Explain()
		for _, s := range []string{"step " + strconv.Itoa(tc.poison), "C1", want.String(), "k = 20", "d_max = 2000"} {
			if !strings.Contains(ex, s) {
				t.Errorf("poison %d: Explain lacks %q:\n%s", tc.poison, s, ex)
			}
		}
		if strings.Contains(ex, "broke a safety property") {
			t.Errorf("poison %d: Explain speaks of unsafe walks, and there were none:\n%s", tc.poison, ex)
		}
	}
}

// TestFindProbeSequence checks the probes are exactly Algorithm 3's, and
// that confirmation adds its two samples after them.
func TestFindProbeSequence(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 100, poison: 40}, 2000, 2000)
	confirmed := find(t, c)
	c = algorithm3(c)
	res := find(t, c)
	var got []int
	var phases []int
	for _, p := range res.Probes {
		got = append(got, p.Step)
		phases = append(phases, int(p.Phase))
	}
	// Phase 1: 0 (d_init), then 1 (max(2·0, 1)), 2, 4, ..., 64 dead.
	// Phase 2 between 32 and 64: 48 dead, 40 dead, 36, 38, 39 recover.
	want := []int{0, 1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 39}
	wantPh := []int{1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2}
	if !slices.Equal(got, want) || !slices.Equal(phases, wantPh) {
		t.Errorf("probes %v phases %v, want %v %v", got, phases, want, wantPh)
	}
	for _, p := range res.Probes {
		if p.Recovers != (p.Step < 40) {
			t.Errorf("probe %+v", p)
		}
		if !p.Recovers && (p.Walks != 20 || p.Witness != -1) {
			t.Errorf("dead probe %+v should count all k walks", p)
		}
	}
	if res.Confidence != nil {
		t.Errorf("Algorithm 3 alone has no confidence: %+v", res.Confidence)
	}
	// With confirmation: the same probes, then state 40 (none of the
	// walks recovers; the budget of 100,000 steps ends the sample after
	// 51 walks of 1960 steps) and state 39 (every walk recovers at once).
	n := len(res.Probes)
	if !reflect.DeepEqual(stripTimes(confirmed.Probes[:n]), stripTimes(res.Probes)) || len(confirmed.Probes) != n+2 {
		t.Fatalf("confirmed probes %+v", confirmed.Probes)
	}
	at, before := confirmed.Probes[n], confirmed.Probes[n+1]
	if at.Step != 40 || at.Phase != critical.PhaseConfirm || at.Recovers || at.Walks != 52 || !at.Budget || at.Transitions != 52*1960 {
		t.Errorf("confirmation at 40: %+v", at)
	}
	// At 39 most walks recover at once: the sample ends at the 50th.
	if before.Step != 39 || before.Recovered != critical.ConfirmRecoveries || before.Walks != 55 || before.Budget || !before.Recovers {
		t.Errorf("confirmation at 39: %+v", before)
	}
	// 52 walks leave a bound of 5.6% on state 40's recovery: above
	// ThinUpper, so the evidence is thin although state 39 recovers at once.
	conf := confirmed.Confidence
	if conf == nil || conf.At != at || conf.Before != before || !conf.Thin || conf.BeforeRate < 0.9 || conf.Chance > 1e-9 || conf.Upper95 > 0.06 {
		t.Errorf("confidence %+v", conf)
	}
}

// TestFindMessageCritical checks a critical transition that is a message
// delivery, after the poisoning request.
func TestFindMessageCritical(t *testing.T) {
	cfg := messageConfig(30, 10)
	choices, n := deadPath(t, cfg, 2000, engine.Options{})
	res := find(t, critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 2000, Walks: 20, Seed: 1})
	if res.Step != 31 || res.Condition != critical.C1 {
		t.Fatalf("got (%d, %v), want (31, C1)", res.Step, res.Condition)
	}
	if want := "node 1 receives Cancel{} from node 0"; res.EventText != want {
		t.Errorf("event %q, want %q", res.EventText, want)
	}
}

// TestFindC2Recoverable: a system recoverable all along yields C2 with
// d_curr > d_max/2.
func TestFindC2Recoverable(t *testing.T) {
	// No poison; E runs only the 150 requests, never the tick.
	c := poisonConfig(t, poisonSys{apps: 150}, 150, 200)
	res := find(t, c)
	if res.Condition != critical.C2 || res.AtDInit || res.Step != 128 || res.Step <= c.WalkDepth/2 {
		t.Fatalf("got (%d, %v, AtDInit %v), want (128, C2)", res.Step, res.Condition, res.AtDInit)
	}
	for _, p := range res.Probes {
		if !p.Recovers {
			t.Errorf("probe %+v did not recover", p)
		}
	}
	if len(res.Probes) != 9 { // 0 1 2 4 8 16 32 64, and d_max/2 = 100
		t.Errorf("%d probes, want 9", len(res.Probes))
	}
	if res.Live == nil || res.Live.From != 100 {
		t.Errorf("live alternative %+v, want one from state 100", res.Live)
	}
	ex := res.Explain()
	for _, s := range []string{"C2", "--walk-depth", "lasso", "state 100", "d_max/2 = 100"} {
		if !strings.Contains(ex, s) {
			t.Errorf("Explain lacks %q:\n%s", s, ex)
		}
	}
}

// TestFindDeadFromStart: no walk recovers from d_init, nor from state 0
// below it, nor from state 0 in its confirmation sample (250 walks of 400
// steps, the budget of 100,000 transitions): (d_init, C2).
func TestFindDeadFromStart(t *testing.T) {
	for _, dinit := range []int{0, 5} {
		c := poisonConfig(t, poisonSys{apps: 50, startPoisoned: true}, 400, 400)
		c.DInit = dinit
		res := find(t, c)
		if res.Step != dinit || res.Condition != critical.C2 || !res.AtDInit || res.Below {
			t.Fatalf("d_init %d: got (%d, %v, AtDInit %v, Below %v)", dinit, res.Step, res.Condition, res.AtDInit, res.Below)
		}
		probes := []int{dinit}
		if dinit > 0 {
			probes = append(probes, 0) // the lower bound below d_init
		}
		var got []int
		for i, p := range res.Probes {
			got = append(got, p.Step)
			if confirm := i == len(res.Probes)-1; p.Recovers || p.Phase == critical.PhaseConfirm != confirm ||
				!confirm && p.Walks != 20 || confirm && (p.Step != 0 || p.Walks != 250 || !p.Budget) {
				t.Errorf("d_init %d: probe %+v", dinit, p)
			}
		}
		probes = append(probes, 0) // the confirmation of state 0
		if !slices.Equal(got, probes) || res.Live != nil || res.Confidence != nil {
			t.Errorf("d_init %d: probes %+v live %+v", dinit, res.Probes, res.Live)
		}
		if res.HasEvent != (dinit > 0) {
			t.Errorf("d_init %d: HasEvent %v", dinit, res.HasEvent)
		}
		ex := res.Explain()
		for _, s := range []string{"C2 at d_init", "--walk-depth", "inspect that state", "nor did any of 250 more walks from the initial state (its confirmation sample)"} {
			if !strings.Contains(ex, s) {
				t.Errorf("Explain lacks %q:\n%s", s, ex)
			}
		}
	}
}

// TestFindQuiescentE: E ends quiescent (the poison cancels the only
// timer) before d_max/2; probes past its end are dead without walking.
func TestFindQuiescentE(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 30, poison: 20, oneShot: true}, 2000, 2000)
	if c.Steps != 30 {
		t.Fatalf("E has %d steps, want 30 (quiescent)", c.Steps)
	}
	res := find(t, c)
	if res.Step != 20 || res.Condition != critical.C1 {
		t.Fatalf("got (%d, %v), want (20, C1); probes %+v", res.Step, res.Condition, res.Probes)
	}
	if p := res.Probes[6]; p.Step != 32 || p.Walks != 0 || p.Recovers {
		t.Errorf("probe beyond E: %+v", p)
	}
}

func stripTimes(ps []critical.Probe) []critical.Probe {
	out := slices.Clone(ps)
	for i := range out {
		out[i].Elapsed = 0
	}
	return out
}

// TestWorkersDeterminism: the answer, the probes, the witnesses and the
// live alternative are the same with 1 and 4 workers. Recovery is only
// likely a few steps before the poison here (tick weight 2 against 40 for
// requests), so witnesses are often not walk 0.
func TestWorkersDeterminism(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 60, poison: 40, tick: 2}, 2000, 2000)
	c.Seed = 7
	var results []critical.Result
	for _, w := range []int{1, 4, 4, 2} {
		c.Workers = w
		results = append(results, find(t, c))
	}
	a := results[0]
	nontrivial := false
	for _, p := range a.Probes {
		if p.Witness > 0 {
			nontrivial = true
		}
	}
	if !nontrivial {
		t.Errorf("every witness is walk 0; the test shows nothing: %+v", a.Probes)
	}
	for i, b := range results[1:] {
		if a.Step != b.Step || a.Condition != b.Condition || a.EventText != b.EventText {
			t.Errorf("run %d: (%d, %v) vs (%d, %v)", i+1, b.Step, b.Condition, a.Step, a.Condition)
		}
		if !reflect.DeepEqual(stripTimes(a.Probes), stripTimes(b.Probes)) {
			t.Errorf("run %d: probes differ:\n%+v\n%+v", i+1, b.Probes, a.Probes)
		}
		if !reflect.DeepEqual(a.Live, b.Live) {
			t.Errorf("run %d: live alternatives differ", i+1)
		}
		if a.Explain() != b.Explain() {
			t.Errorf("run %d: explanations differ", i+1)
		}
	}
	// Single probes too.
	for _, i := range []int{30, 36, 38, 39, 40} {
		c.Workers = 1
		p1, alt1, err1 := critical.Recovers(context.Background(), c, i)
		c.Workers = 4
		p4, alt4, err4 := critical.Recovers(context.Background(), c, i)
		if err1 != nil || err4 != nil {
			t.Fatal(err1, err4)
		}
		p1.Elapsed, p4.Elapsed = 0, 0
		if p1 != p4 || !reflect.DeepEqual(alt1, alt4) {
			t.Errorf("Recovers(%d): %+v vs %+v", i, p1, p4)
		}
	}
}

// checkAlternative replays the live alternative and checks it is live and
// shares exactly Shared steps with E.
func checkAlternative(t *testing.T, c critical.Config, alt *critical.Alternative) {
	t.Helper()
	s, err := alt.Replay(c.Sim)
	if err != nil {
		t.Fatalf("replay alternative: %v", err)
	}
	if s.Steps() != alt.Steps {
		t.Errorf("replayed %d steps, want %d", s.Steps(), alt.Steps)
	}
	if live, err := s.AllHold(c.Sim.Liveness); !live || err != nil {
		t.Errorf("alternative not live after %d steps (%v)", alt.Steps, err)
	}
	e, err := engine.Replay(c.Sim, c.Choices, c.Steps, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	if alt.Shared < alt.From {
		t.Errorf("Shared %d < From %d", alt.Shared, alt.From)
	}
	n := e.StepStart(alt.Shared)
	if !slices.Equal(alt.Choices[:n], c.Choices[:n]) {
		t.Errorf("alternative differs from E within its %d shared steps", alt.Shared)
	}
	// The next step differs: its choices are not all equal.
	if alt.Shared < alt.Steps && alt.Shared < c.Steps {
		m := e.StepStart(alt.Shared + 1)
		if len(alt.Choices) >= m && slices.Equal(alt.Choices[:m], c.Choices[:m]) {
			t.Errorf("alternative shares step %d too", alt.Shared+1)
		}
	}
}

// TestLiveAlternative: the live alternative replays to a live state and
// shares Shared steps with E.
func TestLiveAlternative(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 100, poison: 40}, 2000, 2000)
	res := find(t, c)
	if res.Live == nil {
		t.Fatal("no live alternative")
	}
	checkAlternative(t, c, res.Live)
	if res.Live.FailuresFrom != 0 {
		t.Errorf("FailuresFrom %d", res.Live.FailuresFrom)
	}
	// With weak recovery, walks often repeat E's next requests before
	// ticking: Shared may exceed From.
	c = poisonConfig(t, poisonSys{apps: 60, poison: 40, tick: 2}, 2000, 2000)
	c.Seed = 7
	res = find(t, c)
	if res.Live == nil {
		t.Fatal("no live alternative")
	}
	checkAlternative(t, c, res.Live)
	// As a trace.
	tr := res.Live.Trace(&trace.Trace{System: "poison", Depth: 0, WalkDepth: 2000})
	if tr.Kind != "live" || tr.Shared != res.Live.Shared || tr.Steps != res.Live.Steps {
		t.Errorf("trace %+v", tr)
	}
}

// TestRecovers checks single probes on both sides of the critical step.
func TestRecovers(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 100, poison: 40}, 2000, 2000)
	p, alt, err := critical.Recovers(context.Background(), c, 39)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Recovers || p.Witness < 0 || p.Walks != p.Witness+1 || alt == nil || p.Phase != 0 {
		t.Fatalf("Recovers(39): %+v %+v", p, alt)
	}
	checkAlternative(t, c, alt)
	p, alt, err = critical.Recovers(context.Background(), c, 40)
	if err != nil {
		t.Fatal(err)
	}
	if p.Recovers || p.Witness != -1 || p.Walks != 20 || alt != nil {
		t.Fatalf("Recovers(40): %+v %+v", p, alt)
	}
}

// TestWalkFailures: with failures off in E's walks (gusto) a node reset
// cannot undo the poison: C1. Allowing failures in recovery walks lets a
// reset recover every state: C2, and the live alternative records where
// failures came back on.
func TestWalkFailures(t *testing.T) {
	p := poisonSys{apps: 20, poison: 10, resets: 1, failureWeight: 100}
	cfg := p.config()
	opts := engine.Options{FailuresUntil: 1}
	choices, n := deadPath(t, cfg, 400, opts)
	c := critical.Config{Sim: cfg, Options: opts, Choices: choices, Steps: n, WalkDepth: 400, Walks: 20, Seed: 3}
	res := find(t, c)
	if res.Step != 10 || res.Condition != critical.C1 {
		t.Fatalf("gusto: got (%d, %v), want (10, C1)", res.Step, res.Condition)
	}
	c.WalkFailures = true
	res = find(t, c)
	if res.Condition != critical.C2 || res.AtDInit {
		t.Fatalf("walk failures: got (%d, %v), want C2 beyond d_max/2", res.Step, res.Condition)
	}
	if res.Live == nil || res.Live.FailuresFrom != res.Live.From {
		t.Fatalf("live alternative %+v", res.Live)
	}
	checkAlternative(t, c, res.Live)
}

// TestNoFailuresInsideTheWindow: E's bounded part allows failures up to
// step 15 and the poison comes at step 10; a reset would undo it, but a
// recovery walk injects no failure (gusto), from a state inside that
// window too, so the answer is the poison, C1 at 10. When walks kept
// failures on up to step 15, the states 10 to 14 recovered by a reset and
// step 15, an ordinary request where the window closes, was named.
func TestNoFailuresInsideTheWindow(t *testing.T) {
	p := poisonSys{apps: 40, poison: 10, resets: 1, failureWeight: 100}
	cfg := p.config()
	opts := engine.Options{FailuresUntil: 15}
	choices, n := deadPath(t, cfg, 400, opts)
	c := critical.Config{Sim: cfg, Options: opts, Choices: choices, Steps: n, DInit: 15, WalkDepth: 400, Walks: 20, Seed: 3, ConfirmWalks: 2000, ConfirmBudget: 100_000}
	res := find(t, c)
	if res.Step != 10 || res.Condition != critical.C1 {
		t.Fatalf("got (%d, %v), want (10, C1); probes %+v", res.Step, res.Condition, res.Probes)
	}
	if res.Live == nil {
		t.Fatal("no live alternative")
	}
	checkAlternative(t, c, res.Live)
}

// TestUnsafeWalks: recovery walks that break safety or panic do not count
// as recovering, and the result says so.
func TestUnsafeWalks(t *testing.T) {
	for _, p := range []poisonSys{
		{apps: 50, poison: 10, safetyNotDone: true},
		{apps: 50, poison: 10, panicOnTick: true},
	} {
		c := poisonConfig(t, p, 400, 400)
		res := find(t, c)
		if res.Step != 0 || res.Condition != critical.C2 || !res.AtDInit {
			t.Errorf("%+v: got (%d, %v)", p, res.Step, res.Condition)
		}
		if res.Unsafe == 0 || res.UnsafeProperty == "" || !strings.Contains(res.Explain(), "safety") {
			t.Errorf("%+v: Unsafe %d %q\n%s", p, res.Unsafe, res.UnsafeProperty, res.Explain())
		}
		// A handler's panic is a failure of the system's code: the note
		// says the walks told nothing, and names it.
		if failed := p.panicOnTick; failed != (res.Failed > 0) || failed && (!strings.Contains(res.FailedError, "panic in handler") ||
			!strings.Contains(res.Explain(), "ended in a failure of the system's code")) {
			t.Errorf("%+v: Failed %d %q\n%s", p, res.Failed, res.FailedError, res.Explain())
		}
	}
}

// TestHangingWalks: a recovery walk whose handler hangs is abandoned by
// the watchdog and counts as not recovering (budget: k = 4, 50 ms timeout,
// and 4 walks confirming that state 0 does not recover).
func TestHangingWalks(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 50, poison: 10, hangOnTick: true}, 400, 400)
	c.Walks, c.HandlerTimeout, c.ConfirmWalks = 4, 50*time.Millisecond, 4
	res := find(t, c)
	if res.Step != 0 || res.Condition != critical.C2 || res.Unsafe != 8 || res.UnsafeProperty != "handler did not return" || res.Failed != 8 {
		t.Errorf("got (%d, %v) unsafe %d %q, failed %d", res.Step, res.Condition, res.Unsafe, res.UnsafeProperty, res.Failed)
	}
}

// TestBadCopies: a recovery walk whose copy of its start state is not that
// state is no evidence: Find stops with the copy's error instead of
// counting the walk as not recovering and answering on it. The service
// keeps a count every simulator shares, so a copy by replay does not reach
// the state it copies; checked copies (engine.Options.CheckCopies) tell.
func TestBadCopies(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 50, poison: 10, globalCount: true}, 400, 400)
	c.Options.CheckCopies = true
	res, err := critical.Find(context.Background(), c)
	if !errors.Is(err, engine.ErrCopy) || !strings.Contains(err.Error(), "a recovery walk could not start from its state") {
		t.Fatalf("Find on bad copies: (%d, %v), %v", res.Step, res.Condition, err)
	}
}

// TestProgress: Progress sees every probe, in order.
func TestProgress(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 30, poison: 5}, 400, 400)
	var seen []critical.Probe
	c.Progress = func(p critical.Probe) { seen = append(seen, p) }
	res := find(t, c)
	if !reflect.DeepEqual(seen, res.Probes) {
		t.Errorf("progress %+v, probes %+v", seen, res.Probes)
	}
	if res.WalksRun < len(res.Probes) || res.Transitions < res.ESteps {
		t.Errorf("WalksRun %d Transitions %d", res.WalksRun, res.Transitions)
	}
}

// TestErrors checks the sentinel errors.
func TestErrors(t *testing.T) {
	good := poisonConfig(t, poisonSys{apps: 100, poison: 40}, 2000, 2000)

	// E is live after d_init: the tick fires at step 11.
	cfg := poisonSys{apps: 10}.config()
	choices, n := deadPath(t, cfg, 20, engine.Options{})
	_, err := critical.Find(context.Background(), critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 400})
	var nd *critical.NotDeadError
	if !errors.Is(err, critical.ErrNotDead) || !errors.As(err, &nd) || nd.Step != 11 {
		t.Errorf("live E: %v", err)
	}

	for name, mod := range map[string]func(*critical.Config){
		"nil system":   func(c *critical.Config) { c.Sim = nil },
		"d_init>=dmax": func(c *critical.Config) { c.DInit = 2000 },
		"d_init>E":     func(c *critical.Config) { c.Steps = 10; c.DInit = 11 },
		"no liveness": func(c *critical.Config) {
			s := *c.Sim
			s.Liveness = nil
			c.Sim = &s
		},
	} {
		c := good
		mod(&c)
		if _, err := critical.Find(context.Background(), c); !errors.Is(err, critical.ErrBadConfig) {
			t.Errorf("%s: %v, want ErrBadConfig", name, err)
		}
	}

	bad := good
	bad.Choices = slices.Clone(good.Choices)
	bad.Choices[3] = 7
	if _, err := critical.Find(context.Background(), bad); !errors.Is(err, critical.ErrReplay) || !errors.Is(err, engine.ErrBadChoice) {
		t.Errorf("bad choice: %v", err)
	}

	// E of 50 requests, not quiescent, with d_max 2000: the search needs
	// state 64.
	short := poisonConfig(t, poisonSys{apps: 100, poison: 90}, 50, 2000)
	if _, err := critical.Find(context.Background(), short); !errors.Is(err, critical.ErrShort) {
		t.Errorf("short E: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := good
	res, err := critical.Find(ctx, c)
	if !errors.Is(err, context.Canceled) || !res.Partial {
		t.Errorf("cancelled: %v (partial %v)", err, res.Partial)
	}
	if _, _, err := critical.Recovers(ctx, c, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Recovers: %v", err)
	}
}

// TestConditionString checks the names.
func TestConditionString(t *testing.T) {
	if critical.C1.String() != "C1" || critical.C2.String() != "C2" || critical.Condition(0).String() != "unknown" {
		t.Error("Condition.String")
	}
}

// TestPremature: with weak recovery and k = 20 (seed 7) Algorithm 3
// reports state 38 dead although the live alternative passes through it:
// the result flags it. Confirmation takes state 38 as recoverable and
// finds the true critical transition, 40, as more walks per probe do.
func TestPremature(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 60, poison: 40, tick: 2}, 2000, 2000)
	c.Seed = 7
	res := find(t, algorithm3(c))
	if res.Step != 38 || !res.Premature || !strings.Contains(res.Explain(), "near dead") {
		t.Fatalf("got step %d premature %v:\n%s", res.Step, res.Premature, res.Explain())
	}
	c.ConfirmBudget = 120_000 // 62 walks from state 40: a bound of 4.7%, strong
	res = find(t, c)
	if res.Step != 40 || res.Premature || len(res.Refined) == 0 || res.Refined[0] != 38 || res.Confidence == nil || res.Confidence.Thin {
		t.Errorf("confirmed: step %d premature %v refined %v confidence %+v", res.Step, res.Premature, res.Refined, res.Confidence)
	}
	c.Walks = 200
	res = find(t, algorithm3(c))
	if res.Step != 40 || res.Premature {
		t.Errorf("k = 200: step %d premature %v", res.Step, res.Premature)
	}
}

// TestLiveStateIsNotDead checks that a state that is live itself
// recovers: in a system live only while exactly one request has been
// handled and no tick has come, E is live at state 1 and every state after
// it is dead (the next request or tick ends liveness). Recovers(1) is
// true, with no walk needed beyond it (counting only the states after a
// walk's start, no walk recovered and state 1 looked dead), and Find,
// from d_init 1 (a state the search's walk did not check), names step 2.
func TestLiveStateIsNotDead(t *testing.T) {
	cfg := poisonSys{apps: 50}.config()
	cfg.Liveness = []sim.Property{{Name: "OneRequest", Check: func(v *sim.View) bool {
		n := sim.Node[Node](v, 0)
		return n.Apps == 1 && !n.Done
	}}}
	choices, n := deadPath(t, cfg, 2000, engine.Options{})
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, DInit: 1, WalkDepth: 2000, Walks: 20, Seed: 1, ConfirmWalks: 2000, ConfirmBudget: 100_000}
	p, alt, err := critical.Recovers(context.Background(), c, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Recovers || p.Walks != 1 || p.LiveAt != 1 || alt == nil || alt.Steps != 1 || alt.Shared != 1 {
		t.Errorf("Recovers(1): %+v %+v, want recovered by walk 0 in its start state", p, alt)
	}
	if p, _, err = critical.Recovers(context.Background(), c, 2); err != nil || p.Recovers {
		t.Errorf("Recovers(2): %+v, %v; want dead", p, err)
	}
	res := find(t, c)
	if res.Step != 2 || res.Condition != critical.C1 || res.Below {
		t.Fatalf("got (%d, %v, below %v), want (2, C1) above d_init; probes %+v", res.Step, res.Condition, res.Below, res.Probes)
	}
	// No live alternative: the explanation says why and what to compare
	// instead (a trial's mdb filediff found no live path and no reason).
	if ex := res.Explain(); res.Live != nil || !strings.Contains(ex, "There is no live alternative to compare with: state 1 is live itself; compare it with state 2 (mdb: d 1 2).") {
		t.Errorf("live alternative %+v:\n%s", res.Live, ex)
	}
}

// TestForcedCycleIsDeadForCertain: from the poisoned state of a node whose
// last request was the poison, only its tick can run, and the tick changes
// nothing: the one execution from there goes round forever. The probe
// says so after one step (Cycles), where the walk ran to d_max before, and
// the confirmation calls the state dead for certain.
func TestForcedCycleIsDeadForCertain(t *testing.T) {
	c := poisonConfig(t, poisonSys{apps: 5, poison: 5}, 2000, 2000)
	p, _, err := critical.Recovers(context.Background(), c, 5)
	if err != nil {
		t.Fatal(err)
	}
	if p.Recovers || !p.Forced || !p.Cycles || p.Quiescent || p.Walks != 1 || p.Transitions > 2 {
		t.Fatalf("Recovers(5): %+v, want one forced walk that cycles within 2 steps", p)
	}
	res := find(t, c)
	if res.Step != 5 || res.Condition != critical.C1 || res.Confidence == nil || !res.Confidence.At.Cycles ||
		!strings.Contains(res.Explain(), "goes round forever: state 5 is dead for certain") || strings.Contains(res.Explain(), "taken for dead") {
		t.Fatalf("got (%d, %v), confidence %+v:\n%s", res.Step, res.Condition, res.Confidence, res.Explain())
	}
}

// noise is a node whose periodic timer changes nothing.
type noise struct{ sim.Base }

func (n *noise) Start(ctx *sim.Context)         { ctx.SetPeriodic("noise") }
func (*noise) HandleTimer(*sim.Context, string) {}

// worker counts its periodic work; the system is live once it reached 50.
type worker struct {
	sim.Base
	Done int
}

func (w *worker) Start(ctx *sim.Context)           { ctx.SetPeriodic("work") }
func (w *worker) HandleTimer(*sim.Context, string) { w.Done++ }

// TestUnchangedStateIsNotCritical: E is node 0's no-op timer over and over,
// so every state of E is the initial state again; a walk from state i has
// d_max - i steps for its 50 works, so deeper states recover less often,
// and Algorithm 3's walks call some noise step critical. A state that is
// the state before it again recovers as that one does: none of them is
// critical, and the answer is C2 (raise d_max), not a C1 at a step that
// changed nothing.
func TestUnchangedStateIsNotCritical(t *testing.T) {
	cfg := &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &noise{}
			}
			return &worker{}
		},
		Liveness: []sim.Property{{Name: "Worked", Check: func(v *sim.View) bool { return sim.Node[worker](v, 1).Done >= 50 }}},
	}
	choices, n := deadPath(t, cfg, 100, engine.Options{})
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 100, Walks: 20, Seed: 1, ConfirmWalks: 2000, ConfirmBudget: 100_000}
	res := find(t, c)
	if res.Condition != critical.C2 || len(res.Unchanged) == 0 {
		t.Fatalf("got (%d, %v), unchanged %v; want C2 with unchanged candidates; probes %+v", res.Step, res.Condition, res.Unchanged, res.Probes)
	}
	if ex := res.Explain(); !strings.Contains(ex, "the state before it again") {
		t.Errorf("the explanation does not say why:\n%s", ex)
	}
}

// racer becomes live at once when its fast timer fires first, and only
// after Need ticks when its slow one does.
type racer struct {
	sim.Base
	Slow, Done  bool
	Count, Need int
	// Stop, when not 0, ends the ticks at Stop (short of Need): the slow
	// branch then falls quiescent without a live state.
	Stop int
}

func (r *racer) Start(ctx *sim.Context) { ctx.SetTimer("a-slow"); ctx.SetTimer("b-fast") }

func (r *racer) HandleTimer(ctx *sim.Context, name string) {
	switch {
	case name == "b-fast" && !r.Slow:
		r.Done = true
	case name == "a-slow" && !r.Done:
		r.Slow = true
		ctx.SetPeriodic("tick")
	case name == "tick":
		if r.Count++; r.Count >= r.Need {
			r.Done = true
		}
		if r.Count == r.Stop {
			ctx.CancelTimer("tick")
		}
	}
}

// TestSlowProgressIsSaid: after the slow timer wins, the system needs 3000
// ticks, more than d_max = 2000 allows: Algorithm 3 calls step 1 critical,
// and the answer says that the dead path kept reaching new states (its
// tick count grows), so it may be slow rather than stuck.
func TestSlowProgressIsSaid(t *testing.T) {
	cfg := &sim.Config{
		Nodes:    1,
		Service:  func(sim.NodeID) sim.Service { return &racer{Need: 3000} },
		Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[racer](v, 0).Done }}},
	}
	choices, n := deadPath(t, cfg, 2000, engine.Options{})
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 2000, Walks: 20, Seed: 1, ConfirmWalks: 2000, ConfirmBudget: 100_000}
	res := find(t, c)
	if res.Step != 1 || res.Condition != critical.C1 || res.NewStates != 1000 || !strings.Contains(res.Explain(), "may be making slow progress") {
		t.Fatalf("got (%d, %v), new states %d:\n%s", res.Step, res.Condition, res.NewStates, res.Explain())
	}
	// A stuck system's dead path comes back to its states: no such note.
	c = poisonConfig(t, poisonSys{apps: 100, poison: 40}, 2000, 2000)
	if res := find(t, c); res.NewStates != 0 {
		t.Errorf("the poisoned node's dead path: %d new states", res.NewStates)
	}
	// A dead path that falls quiescent has nothing left to run, however
	// new its last states were: no such note either.
	cfg.Service = func(sim.NodeID) sim.Service { return &racer{Need: 3000, Stop: 2500} }
	choices, n = deadPath(t, cfg, 3000, engine.Options{})
	c = critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 3000, Walks: 20, Seed: 1, ConfirmWalks: 2000, ConfirmBudget: 100_000}
	if res := find(t, c); res.Step != 1 || res.NewStates != 0 || strings.Contains(res.Explain(), "slow progress") {
		t.Errorf("a quiescent dead path of %d steps: step %d, %d new states:\n%s", n, res.Step, res.NewStates, res.Explain())
	}
}

// TestConfirmWalksFollowTheBudget: the walks from the flags system's
// state after the poison take three steps each (the noise timers, in any
// order) and fall quiescent, so a budget counted in transitions alone let
// a confirmation sample run 10,000 of them, each from a copy of the state.
// The sample's walks are bounded too: ten per d_max of its budget, at least
// DefaultConfirmWalks (600 with the default budget of 60 walks of d_max),
// at most MaxConfirmWalks (also with no budget in transitions). Find and
// Confirm count the same walks.
func TestConfirmWalksFollowTheBudget(t *testing.T) {
	cfg := flagsConfig()
	choices, n := scripted(t, cfg, "a", "b", "app", "n1", "n2", "n3")
	for _, tc := range []struct {
		budget int64
		walks  int
		cut    bool // the budget in transitions ends the sample
	}{
		{0, critical.DefaultConfirmWalks, false},
		{2 * critical.ConfirmWalkLengths * 400, 2 * critical.DefaultConfirmWalks, false},
		{1000, 334, true},
		{-1, critical.MaxConfirmWalks, false},
	} {
		c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 400, Walks: 20, Seed: 1, ConfirmBudget: tc.budget}
		res := find(t, c)
		if res.Step != 3 || res.Condition != critical.C1 || res.Confidence == nil {
			t.Fatalf("budget %d: got (%d, %v), confidence %+v", tc.budget, res.Step, res.Condition, res.Confidence)
		}
		at := res.Confidence.At
		if at.Walks != tc.walks || at.Budget != tc.cut || at.Forced || at.Recovered != 0 {
			t.Errorf("budget %d: %d walks (budget ended %v, forced %v), want %d (%v)", tc.budget, at.Walks, at.Budget, at.Forced, tc.walks, tc.cut)
		}
		conf, err := critical.Confirm(context.Background(), c, 3)
		if err != nil {
			t.Fatal(err)
		}
		if conf.At.Walks != at.Walks || conf.Before.Walks != res.Confidence.Before.Walks {
			t.Errorf("budget %d: Confirm counted %d and %d walks, Find %d and %d", tc.budget, conf.Before.Walks, conf.At.Walks, res.Confidence.Before.Walks, at.Walks)
		}
	}
}

package lasso_test

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/services/philosophers"
	"github.com/macemc/macemc/services/proposers"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/lasso"
	"github.com/macemc/macemc/walks/lasso/lassotest"
)

// registered builds a registered system's config.
func registered(t testing.TB, name string, params map[string]string) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(name)
	if err != nil {
		t.Fatalf("system %s: %v", name, err)
	}
	cfg, _, err := sys.Config(params)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// diners is the example dining philosophers (services/philosophers): n
// philosophers who put their first fork back when the second is busy, a
// livelock; fixed, they pick forks up in a global order.
func diners(t testing.TB, n int, fixed bool) *sim.Config {
	return registered(t, philosophers.SystemName, map[string]string{"n": strconv.Itoa(n), "fixed": strconv.FormatBool(fixed)})
}

// duel is the example Paxos duel (services/proposers): two proposers
// outbid each other with ever higher ballots; fixed, the lower-ranked one
// defers.
func duel(t testing.TB, fixed bool) *sim.Config {
	return registered(t, proposers.SystemName, map[string]string{"fixed": strconv.FormatBool(fixed)})
}

// hunt runs up to n seeded walks of up to maxSteps steps with a monitor
// and returns the monitor and the walks' outcomes.
func hunt(t testing.TB, cfg *sim.Config, o lasso.Options, n, maxSteps int) (*lasso.Monitor, []walks.Result, []*engine.Sim) {
	t.Helper()
	m := lasso.NewMonitor(o)
	var res []walks.Result
	var sims []*engine.Sim
	for i := range n {
		s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(7, uint64(i)))})
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, walks.Walk(s, &walks.Config{MaxSteps: maxSteps, Liveness: cfg.Liveness, Safety: cfg.Safety, Observe: m.Observer()}))
		sims = append(sims, s)
	}
	return m, res, sims
}

func lassos(m *lasso.Monitor) []*lasso.Finding {
	var out []*lasso.Finding
	for _, f := range m.Findings() {
		if f.Kind == lasso.KindLasso {
			out = append(out, f)
		}
	}
	return out
}

type source struct {
	kind       engine.EventKind
	node, peer sim.NodeID
	timer      string
}

func sourceOf(e engine.Event) source {
	k := source{kind: e.Kind, node: e.Node, timer: e.Timer}
	if e.Kind == engine.EvMessage || e.Kind == engine.EvDatagram {
		k.peer = e.Peer
	}
	return k
}

func live(t testing.TB, s *engine.Sim) bool {
	ok, err := s.AllHold(s.Config().Liveness)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// checkExactLasso checks a finding independently of the detector: the
// state after Stem steps and after Steps steps are equal (same hash and
// same text), no state in between is live, every event source enabled in
// the cycle runs in it, and running the cycle's choices once more from
// its end comes back to the same state again.
func checkExactLasso(t *testing.T, cfg *sim.Config, f *lasso.Finding) {
	t.Helper()
	if f.Kind != lasso.KindLasso || f.Hashing != lasso.Exact || !f.Proof() || f.Replays != lasso.DefaultReplays {
		t.Fatalf("finding %+v", f)
	}
	s, err := engine.Replay(cfg, f.Choices, f.Stem, engine.Options{FailuresUntil: f.FailuresUntil})
	if err != nil {
		t.Fatal(err)
	}
	start, startText := s.Hash(), s.NetworkText()
	s.SetChooser(engine.NewRecorded(f.Choices[len(s.Choices()):]))
	enabled, ran := map[source]bool{}, map[source]bool{}
	for s.Steps() < f.Steps {
		if live(t, s) {
			t.Fatalf("state %d of the cycle is live", s.Steps())
		}
		for _, e := range s.Ready() {
			if !e.Kind.IsFailure() {
				enabled[sourceOf(e)] = true
			}
		}
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
		ran[sourceOf(s.LastEvent())] = true
	}
	if s.Hash() != start || s.NetworkText() != startText {
		t.Fatalf("state %d differs from state %d", f.Steps, f.Stem)
	}
	for k := range enabled {
		if !ran[k] {
			t.Fatalf("unfair cycle: %+v enabled but never run", k)
		}
	}
	if len(f.Events) != f.CycleLen || f.CycleLen != f.Steps-f.Stem || len(f.Cycle()) != f.CycleLen || f.Cycle()[0] != f.Stem+1 {
		t.Fatalf("cycle bookkeeping: %d events, stem %d, steps %d, cycle %v", len(f.Events), f.Stem, f.Steps, f.Cycle())
	}
	// Once more round the cycle: the same choices, the same state.
	cyc := f.Choices[s.StepStart(f.Stem):s.StepStart(f.Steps)]
	s.SetChooser(engine.NewRecorded(cyc))
	for s.Steps() < f.Steps+f.CycleLen {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if s.Hash() != start {
		t.Fatalf("a second round of the cycle ends elsewhere")
	}
}

// unroll returns the choices of the lasso's stem followed by its cycle
// repeated until the execution has at least steps steps.
func unroll(t *testing.T, cfg *sim.Config, f *lasso.Finding, steps int) ([]int32, int) {
	t.Helper()
	s, err := engine.Replay(cfg, f.Choices, f.Steps, engine.Options{FailuresUntil: f.FailuresUntil})
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Clone(f.Choices[:s.StepStart(f.Steps)])
	cyc := f.Choices[s.StepStart(f.Stem):s.StepStart(f.Steps)]
	n := f.Steps
	for n < steps {
		out = append(out, cyc...)
		n += f.CycleLen
	}
	return out, n
}

// TestPhilosophersLasso: the livelock of 2 and 3 philosophers is found as
// a confirmed exact lasso, and the critical-transition search on the
// lasso repeated past d_max/2 finds no dead state (C2): there is no
// critical transition.
func TestPhilosophersLasso(t *testing.T) {
	for _, n := range []int{2, 3} {
		cfg := diners(t, n, false)
		m, res, _ := hunt(t, cfg, lasso.Options{}, 60, 500)
		fs := lassos(m)
		if len(fs) == 0 {
			t.Fatalf("n=%d: no lasso in 60 walks (%+v)", n, m.Stats())
		}
		st := m.Stats()
		stopped := 0
		for _, r := range res {
			if r.Outcome == walks.Stopped {
				stopped++
			}
		}
		if int64(stopped) != st.Confirmed || int64(len(fs)) != st.Confirmed || st.Discarded != 0 {
			t.Errorf("n=%d: %d walks stopped, %d findings, stats %+v", n, stopped, len(fs), st)
		}
		t.Logf("n=%d: %d of 60 walks found a lasso; first: stem %d, cycle %d; %+v", n, len(fs), fs[0].Stem, fs[0].CycleLen, st)
		for _, f := range fs[:min(len(fs), 5)] {
			checkExactLasso(t, cfg, f)
		}
		f := fs[0]
		const dmax = 200
		choices, steps := unroll(t, cfg, f, dmax)
		cr, err := critical.Find(context.Background(), critical.Config{Sim: cfg, Choices: choices, Steps: steps, DInit: f.Stem, WalkDepth: dmax, Walks: 10, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatalf("n=%d: critical.Find: %v", n, err)
		}
		if cr.Condition != critical.C2 || cr.AtDInit {
			t.Errorf("n=%d: critical transition %d %v (at d_init %v), want C2 beyond d_max/2:\n%s", n, cr.Step, cr.Condition, cr.AtDInit, cr.Explain())
		}
	}
}

// TestFixedPhilosophersClean: with a resource hierarchy there is no fair
// hot cycle: no lasso in many walks, though hot cycles that starve a
// source are seen (a philosopher retrying a fork whose holder does not
// get to run).
func TestFixedPhilosophersClean(t *testing.T) {
	for _, n := range []int{2, 3} {
		for _, h := range []lasso.Hashing{lasso.Exact, lasso.Partial} {
			m, _, _ := hunt(t, diners(t, n, true), lasso.Options{Hash: h}, 300, 500)
			st := m.Stats()
			if st.Confirmed != 0 || len(m.Findings()) != 0 {
				t.Errorf("n=%d %v: fixed philosophers report %d lassos: %+v", n, h, st.Confirmed, m.Findings()[0])
			}
			if st.Unfair == 0 {
				t.Errorf("n=%d %v: no unfair cycle seen: %+v", n, h, st)
			}
		}
	}
}

// TestNodeFairnessIsTooWeak shows why fairness is per event source by
// default: in the fixed philosophers a fork can answer one philosopher's
// retries forever while the other philosopher's Release waits on another
// connection into the same fork. Every node runs, so seed 000's per-node
// fairness reports a lasso that no fair network would produce.
func TestNodeFairnessIsTooWeak(t *testing.T) {
	cfg := diners(t, 2, true)
	m, _, _ := hunt(t, cfg, lasso.Options{Fairness: lasso.NodeFairness}, 300, 500)
	fs := lassos(m)
	if len(fs) == 0 {
		t.Fatalf("node fairness found no (spurious) lasso: %+v", m.Stats())
	}
	f := fs[0]
	// The cycle starves a source that is enabled throughout it.
	s, err := engine.Replay(cfg, f.Choices, f.Stem, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetChooser(engine.NewRecorded(f.Choices[len(s.Choices()):]))
	enabled, ran := map[source]bool{}, map[source]bool{}
	for s.Steps() < f.Steps {
		for _, e := range s.Ready() {
			enabled[sourceOf(e)] = true
		}
		s.Step()
		ran[sourceOf(s.LastEvent())] = true
	}
	starved := 0
	for k := range enabled {
		if !ran[k] {
			starved++
		}
	}
	if starved == 0 {
		t.Errorf("the node-fair lasso starves no source: %+v", f)
	}
	if f.Proof() || !strings.Contains(f.Note(), "under node fairness only") {
		t.Errorf("a node-fair lasso is no proof: proof %v, note %q", f.Proof(), f.Note())
	}
	t.Logf("node fairness: lasso of %d steps starving %d sources (%v)", f.CycleLen, starved, f.Events)
}

// TestUnfairCycleNotReported: two nodes play ping-pong forever while the
// third node's request, which would make the system live, waits. The
// state repeats every two steps and no state is live, but the cycle is
// not fair, so it is never reported, whichever fairness.
func TestUnfairCycleNotReported(t *testing.T) {
	cfg := lassotest.Starve(1e-6)
	for _, fair := range []lasso.Fairness{lasso.SourceFairness, lasso.NodeFairness} {
		m, res, _ := hunt(t, cfg, lasso.Options{Fairness: fair}, 20, 2000)
		st := m.Stats()
		if st.Confirmed != 0 || len(m.Findings()) != 0 {
			t.Fatalf("%v: unfair ping-pong reported as a lasso: %+v", fair, m.Findings()[0])
		}
		if st.Unfair == 0 || st.Repeats == 0 {
			t.Errorf("%v: no unfair repeat seen: %+v", fair, st)
		}
		if res[0].Outcome != walks.Dead {
			t.Errorf("%v: walk 0 ended %v, want dead (the request starves)", fair, res[0].Outcome)
		}
	}
	// With a weight that lets the request run, every walk turns live.
	_, res, _ := hunt(t, lassotest.Starve(8), lasso.Options{}, 20, 2000)
	for i, r := range res {
		if r.Outcome != walks.Live {
			t.Errorf("walk %d: %v", i, r.Outcome)
		}
	}
}

// TestPartialHashFindsGrowingCounters: proposers outbid each other with
// ever larger ballots, so the exact state never repeats and exact hashing
// finds nothing; partial hashing (the nodes' LassoKeys, which leave the
// ballots out, and pending message types) sees the cycle and replay
// confirms it. The fixed variant has none.
func TestPartialHashFindsGrowingCounters(t *testing.T) {
	m, _, _ := hunt(t, duel(t, false), lasso.Options{}, 400, 500)
	if st := m.Stats(); st.Confirmed != 0 || st.Repeats != 0 {
		t.Errorf("exact hashing: %+v", st)
	}
	m, _, _ = hunt(t, duel(t, false), lasso.Options{Hash: lasso.Partial}, 400, 500)
	fs := lassos(m)
	if len(fs) == 0 {
		t.Fatalf("partial hashing found no lasso: %+v", m.Stats())
	}
	f := fs[0]
	if f.Hashing != lasso.Partial || f.Proof() || f.Property != proposers.ValueChosen.Name {
		t.Errorf("finding %+v", f)
	}
	// The cycle's events are the duel: prepares, promises, accepts and
	// nacks, and the ballots grow from round to round.
	names := map[string]bool{}
	for _, e := range f.Events {
		names[sim.MessageName(e.Msg)] = true
	}
	for _, want := range []string{"Prepare", "Promise", "Accept", "Nack"} {
		if !names[want] {
			t.Errorf("cycle lacks %s: %v", want, f.Events)
		}
	}
	t.Logf("partial: %d of 400 walks; first stem %d cycle %d; %+v", len(fs), f.Stem, f.CycleLen, m.Stats())
	m, _, _ = hunt(t, duel(t, true), lasso.Options{Hash: lasso.Partial}, 400, 500)
	if st := m.Stats(); st.Confirmed != 0 {
		t.Errorf("fixed proposers: %+v", st)
	}
}

// TestCustomKey: a user projection (here: which nodes' phases, ignoring
// the ballots) works like partial hashing; a projection that sees nothing
// at all makes every pair of states a candidate, and replay discards the
// cycles that do not repeat.
func TestCustomKey(t *testing.T) {
	key := func(s *engine.Sim) uint64 {
		var h uint64 = 1
		for _, e := range s.Ready() {
			h = h*31 + lasso.Signature(e)
		}
		return h
	}
	m, _, _ := hunt(t, duel(t, false), lasso.Options{Key: key}, 400, 500)
	fs := lassos(m)
	if len(fs) == 0 || fs[0].Hashing != lasso.Custom {
		t.Fatalf("custom key: %+v", m.Stats())
	}
	// Everything looks the same, and replaying 150 rounds of any cycle of
	// the slow ball (live after 200 passes) reaches a live state.
	m, _, _ = hunt(t, lassotest.Slow(200), lasso.Options{Key: func(*engine.Sim) uint64 { return 0 }, Replays: 150}, 3, 1000)
	if st := m.Stats(); st.Confirmed != 0 || st.Discarded == 0 {
		t.Errorf("constant key: %+v", st)
	}
}

// TestSpinAndAnalyze: with Spin a confirmed lasso takes over the walk,
// which repeats the cycle until its bound and ends Dead; Analyze finds the
// lasso again in the recorded path and sees the rest of it repeat the
// cycle.
func TestSpinAndAnalyze(t *testing.T) {
	cfg := diners(t, 2, false)
	m, res, sims := hunt(t, cfg, lasso.Options{OnLasso: lasso.Spin}, 40, 300)
	fs := m.Findings()
	if len(fs) == 0 {
		t.Fatal("no lasso")
	}
	dead := 0
	for i, r := range res {
		if r.Outcome != walks.Dead {
			continue
		}
		dead++
		if r.Steps != 300 {
			t.Errorf("walk %d: dead after %d steps", i, r.Steps)
		}
		f, err := lasso.Analyze(cfg, engine.Options{}, sims[i].ChoiceValues(), 0, lasso.Options{})
		if err != nil || f == nil {
			t.Fatalf("walk %d: Analyze: %v, %v", i, f, err)
		}
		checkExactLasso(t, cfg, f)
		if f.Steps+f.Spun < 300-f.CycleLen {
			t.Errorf("walk %d: cycle %d-%d repeated for only %d steps after it", i, f.Stem, f.Steps, f.Spun)
		}
	}
	if int64(dead) != m.Stats().Confirmed || m.Stats().Refuted != 0 {
		t.Errorf("%d dead walks, stats %+v", dead, m.Stats())
	}
	// The fixed system's paths contain none.
	fixed := diners(t, 2, true)
	_, res, sims = hunt(t, fixed, lasso.Options{}, 5, 300)
	for i := range res {
		if f, err := lasso.Analyze(fixed, engine.Options{}, sims[i].ChoiceValues(), 0, lasso.Options{}); err != nil || f != nil {
			t.Errorf("fixed walk %d: %v %v", i, f, err)
		}
	}
}

// TestWalkFrom: walks from a state of the livelock find a lasso; walks
// from a live end of the fixed system do not.
func TestWalkFrom(t *testing.T) {
	cfg := diners(t, 3, false)
	f, n, err := lasso.WalkFrom(lasso.WalkConfig{System: cfg, Walks: 50, MaxSteps: 500, Seed: 3})
	if err != nil || f == nil {
		t.Fatalf("WalkFrom: %v %v after %d walks", f, err, n)
	}
	checkExactLasso(t, cfg, f)
	f, n, err = lasso.WalkFrom(lasso.WalkConfig{System: diners(t, 3, true), Walks: 50, MaxSteps: 500, Seed: 3})
	if err != nil || f != nil || n != 50 {
		t.Fatalf("fixed: %v %v %d", f, err, n)
	}
}

// TestTemperature: the temperature method raises alarms on the
// philosophers' livelock, and on a slow but live system, where every
// alarm is false: the execution becomes live after it. Lasso detection
// with exact hashing reports nothing there; partial hashing is fooled by
// the growing count for RT rounds, and Spin then refutes it.
func TestTemperature(t *testing.T) {
	m, _, _ := hunt(t, diners(t, 2, false), lasso.Options{NoLasso: true, Temperature: 30}, 100, 500)
	if st := m.Stats(); st.Alarms == 0 || st.Confirmed != 0 || st.States != 0 {
		t.Errorf("philosophers: %+v", st)
	}
	slow := lassotest.Slow(200)
	m, res, _ := hunt(t, slow, lasso.Options{NoLasso: true, Temperature: 50, OnAlarm: lasso.Continue}, 3, 1000)
	st := m.Stats()
	if st.Alarms != 3 || st.Recovered != 3 {
		t.Errorf("slow: %+v", st)
	}
	for _, f := range m.Findings() {
		if f.Kind != lasso.KindTemperature || f.Steps != 50 || f.LiveAt != 200 || f.Threshold != 50 {
			t.Errorf("alarm %+v", f)
		}
	}
	for _, r := range res {
		if r.Outcome != walks.Live || r.Steps != 200 {
			t.Errorf("slow walk: %+v", r)
		}
	}
	// Stop ends the walk at the alarm.
	_, res, _ = hunt(t, slow, lasso.Options{NoLasso: true, Temperature: 50}, 1, 1000)
	if res[0].Outcome != walks.Stopped || res[0].Steps != 50 {
		t.Errorf("stop at alarm: %+v", res[0])
	}
	m, _, _ = hunt(t, slow, lasso.Options{}, 3, 1000)
	if st := m.Stats(); st.Confirmed != 0 || st.Repeats != 0 {
		t.Errorf("exact lasso on slow: %+v", st)
	}
	m, res, _ = hunt(t, slow, lasso.Options{Hash: lasso.Partial, OnLasso: lasso.Spin}, 3, 1000)
	st = m.Stats()
	if st.Confirmed != 3 || st.Refuted != 3 {
		t.Errorf("partial lasso on slow: %+v", st)
	}
	for _, f := range m.Findings() {
		if !f.Refuted || f.RefutedAt != 200 {
			t.Errorf("finding %+v", f)
		}
	}
	if res[0].Outcome != walks.Live {
		t.Errorf("spun walk: %+v", res[0])
	}
}

// TestDeterministic: the same walks make the same findings.
func TestDeterministic(t *testing.T) {
	run := func() []*lasso.Finding {
		m, _, _ := hunt(t, diners(t, 3, false), lasso.Options{}, 30, 500)
		return m.Findings()
	}
	a, b := run(), run()
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Errorf("findings differ between runs: %d vs %d", len(a), len(b))
	}
}

// TestReport: with Report a confirmed lasso's walk repeats the cycle up to
// Until and then ends Observed with the finding as its verdict; with
// Until 0 it ends at once. An alarm's walk goes on to its first live state
// and ends Observed there with the alarm (LiveAt set). A partial lasso that
// stops repeating is refuted and reported no more.
func TestReport(t *testing.T) {
	cfg := diners(t, 2, false)
	for _, until := range []int{300, 0} {
		m, res, _ := hunt(t, cfg, lasso.Options{OnLasso: lasso.Report, Until: until}, 40, 300)
		observed := 0
		for i, r := range res {
			if r.Outcome != walks.Observed {
				if r.Outcome != walks.Live {
					t.Errorf("until %d, walk %d: %v", until, i, r.Outcome)
				}
				continue
			}
			observed++
			f, ok := r.Observed.(*lasso.Finding)
			if !ok || f.Kind != lasso.KindLasso || r.Property != f.Property || f.Property != philosophers.EveryoneEats.Name {
				t.Fatalf("until %d, walk %d: verdict %q %+v", until, i, r.Property, r.Observed)
			}
			checkExactLasso(t, cfg, f)
			want := max(until, f.Steps)
			if r.Steps != want || f.Spun != want-f.Steps {
				t.Errorf("until %d, walk %d: ended at %d, lasso to %d repeated %d steps", until, i, r.Steps, f.Steps, f.Spun)
			}
		}
		if st := m.Stats(); observed == 0 || int64(observed) != st.Confirmed || st.Refuted != 0 {
			t.Errorf("until %d: %d walks observed, stats %+v", until, observed, st)
		}
	}

	slow := lassotest.Slow(200)
	for _, until := range []int{1000, 0} {
		m, res, _ := hunt(t, slow, lasso.Options{NoLasso: true, Temperature: 50, OnAlarm: lasso.Report, Until: until}, 3, 1000)
		for i, r := range res {
			f, ok := r.Observed.(*lasso.Finding)
			wantSteps, wantLive := 200, 200
			if until == 0 {
				wantSteps, wantLive = 50, 0
			}
			if r.Outcome != walks.Observed || !ok || f.Kind != lasso.KindTemperature || f.Steps != 50 || r.Steps != wantSteps || f.LiveAt != wantLive {
				t.Errorf("until %d, walk %d: %+v, alarm %+v", until, i, r, f)
			}
		}
		if st := m.Stats(); st.Alarms != 3 {
			t.Errorf("until %d: %+v", until, st)
		}
	}

	m, res, _ := hunt(t, slow, lasso.Options{Hash: lasso.Partial, OnLasso: lasso.Report, Until: 1000}, 3, 1000)
	if st := m.Stats(); st.Confirmed != 3 || st.Refuted != 3 {
		t.Errorf("partial lasso on slow: %+v", st)
	}
	for i, r := range res {
		if r.Outcome != walks.Live {
			t.Errorf("refuted walk %d: %+v", i, r)
		}
	}
}

// TestSearchReports: handed to a search, detectors with Report make the
// first lasso in path order the search's violation, the same for any
// number of workers, with the walk's path the cycle unrolled to d_max.
func TestSearchReports(t *testing.T) {
	cfg := diners(t, 2, false)
	var first *lasso.Finding
	var path int64
	for _, workers := range []int{1, 4} {
		m := lasso.NewMonitor(lasso.Options{OnLasso: lasso.Report, Until: 300})
		res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: dfs.Strategy{}, WalkDepth: 300, Seed: 1, Workers: workers, Observe: m.Observer})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != explore.Liveness || len(res.Violations) != 1 {
			t.Fatalf("workers %d: verdict %v", workers, res.Verdict)
		}
		v := res.Violations[0]
		f, ok := v.Observed.(*lasso.Finding)
		if v.Outcome != walks.Observed || !ok || v.Property != f.Property || v.Steps != 300 || f.Steps+f.Spun != 300 {
			t.Fatalf("workers %d: %v %q steps %d, finding %+v", workers, v.Outcome, v.Property, v.Steps, v.Observed)
		}
		if !slices.Equal(v.Choices[:len(f.Choices)], f.Choices) {
			t.Errorf("workers %d: the finding's choices are not a prefix of the violation's", workers)
		}
		checkExactLasso(t, cfg, f)
		if first == nil {
			first, path = f, v.Path
		} else if v.Path != path || f.Stem != first.Stem || f.Steps != first.Steps {
			t.Errorf("workers %d: lasso %d+%d at path %d, want %d+%d at path %d", workers, f.Stem, f.CycleLen, v.Path, first.Stem, first.CycleLen, path)
		}
	}
}

// TestCommitted: a monitor that counts committed walks only sees nothing
// of a walk until its detector's Commit, then exactly what a monitor that
// counts as it goes saw; walks never committed are never counted.
func TestCommitted(t *testing.T) {
	cfg := diners(t, 2, false)
	live := lasso.NewMonitor(lasso.Options{})
	committed := lasso.NewMonitor(lasso.Options{})
	committed.Committed = true
	var detectors []*lasso.Detector
	for i := range 10 {
		for _, m := range []*lasso.Monitor{live, committed} {
			s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(7, uint64(i)))})
			if err != nil {
				t.Fatal(err)
			}
			obs := m.Observer()
			walks.Walk(s, &walks.Config{MaxSteps: 300, Liveness: cfg.Liveness, Observe: obs})
			if m == committed {
				detectors = append(detectors, obs.(*lasso.Detector))
			}
		}
	}
	if st := committed.Stats(); st != (lasso.Stats{}) || len(committed.Findings()) != 0 {
		t.Fatalf("before Commit: %+v, %d findings", st, len(committed.Findings()))
	}
	for _, d := range detectors {
		d.Commit()
	}
	if a, b := live.Stats(), committed.Stats(); a != b || a.Confirmed == 0 {
		t.Errorf("committed %+v, counted as they went %+v", b, a)
	}
	if a, b := live.Findings(), committed.Findings(); !reflect.DeepEqual(a, b) {
		t.Errorf("findings differ: %d vs %d", len(a), len(b))
	}
}

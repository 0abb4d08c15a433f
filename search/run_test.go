package search_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// poison: node 0's periodic timer counts to 3 (live); node 1's driver sends
// "poison", and if node 0 receives it before reaching 3 it stops counting
// forever: the critical transition is the early delivery of the poison.
type poison struct {
	sim.Base
	N        int
	Poisoned bool
	Fixed    bool `macemc:"-"`
	Panics   bool `macemc:"-"`
}

func (p *poison) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.SetPeriodic("tick")
	}
}

func (p *poison) HandleTimer(ctx *sim.Context, _ string) {
	if !p.Poisoned && p.N < 3 {
		p.N++
	}
}

func (p *poison) HandleApp(ctx *sim.Context, _ any) { ctx.Send(0, "poison") }

func (p *poison) HandleMessage(ctx *sim.Context, _ sim.NodeID, _ sim.Message) {
	if p.Panics {
		panic("poisoned")
	}
	if !p.Fixed && p.N < 3 {
		p.Poisoned = true
	}
}

var poisonSystem = &sim.System{
	Name: "searchtest-poison",
	Params: []sim.ParamSpec{
		{Name: "fixed", Kind: sim.ParamBool, Default: "false"},
		{Name: "panics", Kind: sim.ParamBool, Default: "false"},
	},
	Build: func(p sim.Params) (*sim.Config, error) {
		fixed, panics := p.Bool("fixed"), p.Bool("panics")
		return &sim.Config{
			Nodes:   2,
			Service: func(sim.NodeID) sim.Service { return &poison{Fixed: fixed, Panics: panics} },
			App: func(id sim.NodeID) []any {
				if id == 1 {
					return []any{"send"}
				}
				return nil
			},
			Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool { return sim.Node[poison](v, 0).N >= 3 }}},
			Weights:  sim.Weights{Timer: 8, Message: 1},
		}, nil
	},
}

func init() { sim.Register(poisonSystem) }

func run(t *testing.T, ctx context.Context, o search.Options) *search.Report {
	t.Helper()
	rep, err := search.Run(ctx, poisonSystem, o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A liveness violation comes back as a typed finding: kind dead, a C1
// critical transition at the poison's delivery, the live alternative,
// the files, and the command that replays it.
func TestRunFindsTypedLivenessViolation(t *testing.T) {
	dir := t.TempDir()
	rep := run(t, context.Background(), search.Options{Seed: 1, WalkDepth: 200, Workers: 1, Out: dir})
	f := rep.First()
	if rep.Verdict != search.VerdictLiveness || f == nil || f.Kind != search.KindDead || f.Certainty != search.Likely || f.Property != "Counted" {
		t.Fatalf("verdict %v, finding %+v", rep.Verdict, f)
	}
	c := f.Critical
	if c == nil || c.Condition != critical.C1 || !strings.Contains(c.Event, `node 0 receives "poison"`) || c.LiveSteps == 0 {
		t.Fatalf("critical %+v", c)
	}
	if rep.Stats.Stop != explore.StopViolation || rep.Incomplete {
		t.Errorf("stop %v incomplete %v", rep.Stats.Stop, rep.Incomplete)
	}
	for _, name := range []search.FileRole{search.FileErrorTrace, search.FileErrorLog, search.FileLiveTrace, search.FileLiveLog, search.FileReport} {
		if _, err := os.Stat(rep.Files[name]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if rep.Replay != "macemc replay --trace "+filepath.Join(dir, "error.trace")+" --log "+filepath.Join(dir, "error.log") {
		t.Errorf("replay command %q", rep.Replay)
	}
	if f.Minimized != nil || f.Min != nil || rep.Files[search.FileMinTrace] != "" {
		t.Errorf("minimized without Options.Minimize: %+v %v", f.Minimized, rep.Files)
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	if tr.Critical != c.Step || tr.Condition != "C1" || tr.Kind != "liveness" || tr.Property != "Counted" {
		t.Errorf("trace %+v", tr)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil || !r.Reproduced {
		t.Errorf("replay: %v %+v", err, r)
	}
	var j map[string]any
	data, _ := os.ReadFile(rep.Files[search.FileReport])
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	if j["verdict"] != "liveness" || j["kind"] != "dead" || j["certainty"] != "likely" || j["strategy"] != "dfs" {
		t.Errorf("report.json: %v", j)
	}
}

// The fix is clean: every path ends in a cycle back to a state of its own
// within the bound, so the reachable states are exhausted.
func TestRunFixedIsClean(t *testing.T) {
	rep := run(t, context.Background(), search.Options{Params: map[string]string{"fixed": "true"}, Seed: 1, Depth: 6, WalkDepth: 200})
	if rep.Verdict != search.VerdictNone || rep.First() != nil || rep.Stats.Stop != explore.StopExhausted || len(rep.Files) != 0 {
		t.Errorf("verdict %v stop %v files %v", rep.Verdict, rep.Stats.Stop, rep.Files)
	}
	if v := rep.GraphVerdict(); !strings.Contains(v, "among all reachable states (the search exhausted them)") {
		t.Errorf("graph verdict of an exhausted search: %q", v)
	}
}

// An exhausted search whose explored graph holds no fair cycle of hot
// states says liveness holds, but not when the graph's states are partial
// states (one stands for states that differ, hot or not as the first of
// them was); report.json keeps which.
func TestGraphVerdictPartial(t *testing.T) {
	for _, partial := range []bool{false, true} {
		o := search.Options{Params: map[string]string{"fixed": "true"}, Seed: 1, Depth: 6, WalkDepth: 200}
		o.Lasso.Partial = partial
		rep := run(t, context.Background(), o)
		holds := strings.Contains(rep.GraphVerdict(), "liveness holds")
		if rep.Stats.Stop != explore.StopExhausted || rep.GraphPartial != partial || holds == partial {
			t.Errorf("partial %v: stop %v, GraphPartial %v, verdict %q", partial, rep.Stats.Stop, rep.GraphPartial, rep.GraphVerdict())
		}
		b, err := rep.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := search.ReadReport(path)
		if err != nil {
			t.Fatal(err)
		}
		if back.GraphPartial != partial || back.GraphVerdict() != rep.GraphVerdict() {
			t.Errorf("partial %v: read back GraphPartial %v, verdict %q", partial, back.GraphPartial, back.GraphVerdict())
		}
	}
}

// A handler that panics is a safety finding with a trace that replays to
// the panic, not an error.
func TestRunHandlerPanicIsAFinding(t *testing.T) {
	dir := t.TempDir()
	rep := run(t, context.Background(), search.Options{Params: map[string]string{"panics": "true"}, Seed: 1, WalkDepth: 200, Out: dir})
	f := rep.First()
	if rep.Verdict != search.VerdictSafety || f == nil || f.Kind != search.KindHandlerPanic || f.Certainty != search.Certain || f.Property != walks.PanicProperty {
		t.Fatalf("verdict %v finding %+v", rep.Verdict, f)
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil || !r.Reproduced || r.Err == nil || !strings.Contains(r.Err.Error(), "poisoned") {
		t.Errorf("replay of the panic: %v %+v", err, r)
	}
	if data, err := os.ReadFile(rep.Files[search.FileErrorLog]); err != nil || !strings.Contains(string(data), "replay stopped at step") {
		t.Errorf("error.log: %v\n%s", err, data)
	}
}

// A handler that leaves a goroutine running is an escape: a finding of a
// nondeterministic service naming the node, whose trace replays to it.
func TestRunEscapeIsAFinding(t *testing.T) {
	defer simtest.Escapes.Wait()
	sys, err := sim.Lookup(simtest.Escape)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, WalkDepth: 100, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if rep.Verdict != search.VerdictNondeterministic || f == nil || f.Kind != search.KindEscape || f.Certainty != search.Certain || f.Node != 0 ||
		!errors.Is(f.Err, engine.ErrEscape) {
		t.Fatalf("verdict %v finding %+v", rep.Verdict, f)
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	if r, err := search.Replay(tr, -1, nil); err != nil || !r.Reproduced || !errors.Is(r.Err, engine.ErrEscape) {
		t.Errorf("replay: %v %+v", err, r)
	}
}

// Cancelling the run while the critical transition is searched keeps the
// violation: the report is marked incomplete, the critical search
// interrupted, and the error trace is written.
func TestRunCancelledKeepsWhatWasFound(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	o := search.Options{Seed: 1, WalkDepth: 200, Out: dir, Progress: func(p search.Progress) {
		if p.Phase == search.PhaseCritical {
			cancel()
		}
	}}
	rep := run(t, ctx, o)
	f := rep.First()
	if !rep.Incomplete || f == nil || f.Kind != search.KindDead || f.Critical == nil || !f.Critical.Interrupted {
		t.Fatalf("incomplete %v finding %+v", rep.Incomplete, f)
	}
	if _, err := os.Stat(rep.Files[search.FileErrorTrace]); err != nil {
		t.Errorf("no error trace after the interruption: %v", err)
	}
	data, _ := os.ReadFile(rep.Files[search.FileReport])
	if !strings.Contains(string(data), `"incomplete": true`) || !strings.Contains(string(data), `"interrupted": true`) {
		t.Errorf("report.json does not say it was interrupted:\n%s", data)
	}
}

// Cancelling before the search ends with nothing found reports the
// coverage so far, stop "interrupted".
func TestRunCancelledDuringSearch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := run(t, ctx, search.Options{Params: map[string]string{"fixed": "true"}, Seed: 1, WalkDepth: 200})
	if !rep.Incomplete || rep.Stats.Stop != explore.StopInterrupted || rep.First() != nil {
		t.Errorf("incomplete %v stop %v", rep.Incomplete, rep.Stats.Stop)
	}
}

// The report does not depend on the number of workers.
func TestRunReportIndependentOfWorkers(t *testing.T) {
	var first []byte
	for _, workers := range []int{1, 2, 4} {
		rep := run(t, context.Background(), search.Options{Seed: 3, WalkDepth: 300, Workers: workers, MaxViolations: 3})
		rep.SearchTime, rep.Elapsed, rep.Phases = 0, 0, nil
		rep.Stats.Elapsed, rep.Stats.VisitedBytes = 0, 0
		for i := range rep.Findings {
			if c := rep.Findings[i].Critical; c != nil {
				c.Elapsed = 0
			}
		}
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = data
		} else if string(data) != string(first) {
			t.Errorf("workers %d:\n%s\nwant\n%s", workers, data, first)
		}
	}
}

// Bad options are refused with the field, its flag and the values allowed.
func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		o     search.Options
		field string
		want  string
	}{
		{search.Options{WalkDepth: -1}, "WalkDepth", "1 to 10000000"},
		{search.Options{Workers: 5000}, "Workers", "0 (all cores) or 1 to 1024"},
		{search.Options{Strategy: "bfs"}, "Strategy", "delay, dfs, dpor, pct, random, walk"},
		{search.Options{HandlerTimeout: 1}, "HandlerTimeout", "1ms to 1h0m0s"},
		{search.Options{PrefixSteps: 30000}, "PrefixSteps", "0 (none) or 1 to 20000"},
		{search.Options{Prefix: "x.trace", PrefixSteps: 3}, "PrefixSteps", "exclude each other"},
		{search.Options{Lasso: search.LassoOptions{Temperature: -2}}, "Lasso.Temperature", "0 (off) or 1 to 20000"},
	} {
		err := tc.o.Validate()
		var oe *search.OptionError
		if !errors.As(err, &oe) || !errors.Is(err, search.ErrOptions) || oe.Field != tc.field || !strings.Contains(oe.Range, tc.want) {
			t.Errorf("%+v: %v, want field %s allowing %q", tc.o, err, tc.field, tc.want)
		}
	}
	o := search.Options{}
	if err := o.Validate(); err != nil || o.WalkDepth != search.DefaultWalkDepth || o.Strategy != "dfs" || o.Walks != search.DefaultWalks {
		t.Errorf("defaults: %v %+v", err, o)
	}
	if r, ok := search.Allowed("walk-depth"); !ok || r != "1 to 10000000" {
		t.Errorf("Allowed(walk-depth) = %q %v", r, ok)
	}
	// A strategy's option keyed as its flag is taken as its name; the
	// caller's map is left as it was.
	given := map[string]string{"pct-depth": "2", "--pct-steps": "30"}
	o = search.Options{Strategy: "pct", StrategyParams: given}
	if err := o.Validate(); err != nil || !maps.Equal(o.StrategyParams, map[string]string{"depth": "2", "steps": "30"}) || len(given) != 2 || given["pct-depth"] != "2" {
		t.Errorf("prefixed strategy options: %v, %v (given %v)", err, o.StrategyParams, given)
	}
	o = search.Options{Strategy: "pct", StrategyParams: map[string]string{"pct-nope": "2"}}
	var oe *search.OptionError
	if err := o.Validate(); !errors.As(err, &oe) || oe.Flag != "" || oe.Value != `"nope"` || !strings.Contains(oe.Range, "depth, steps, unit") {
		t.Errorf("an unknown prefixed option: %v", err)
	}
}

// A system that does not build, or unknown properties, are errors that
// tell the cases apart.
func TestRunErrors(t *testing.T) {
	_, err := search.Run(context.Background(), poisonSystem, search.Options{Params: map[string]string{"colour": "red"}})
	if !errors.Is(err, search.ErrSystem) || !errors.Is(err, sim.ErrUnknownParam) {
		t.Errorf("unknown parameter: %v", err)
	}
	_, err = search.Run(context.Background(), poisonSystem, search.Options{Properties: []string{"Nope"}})
	if !errors.Is(err, sim.ErrUnknownProperty) {
		t.Errorf("unknown property: %v", err)
	}
	_, err = search.Run(context.Background(), poisonSystem, search.Options{Prefix: filepath.Join(t.TempDir(), "missing.trace")})
	if !errors.Is(err, search.ErrInput) {
		t.Errorf("missing prefix: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	_, err = search.Run(context.Background(), poisonSystem, search.Options{Out: filepath.Join(file, "sub")})
	if !errors.Is(err, search.ErrOutput) {
		t.Errorf("output under a file: %v", err)
	}
}

// The walk strategy: every path is a walk from the initial state.
func TestRunWalkStrategy(t *testing.T) {
	rep := run(t, context.Background(), search.Options{Strategy: "walk", Seed: 1, WalkDepth: 200, MaxPaths: 200, Workers: 2})
	f := rep.First()
	if f == nil || f.Kind != search.KindDead || rep.Strategy != "walk" || rep.Stats.Pruned != 0 || f.Depth != 0 {
		t.Fatalf("walk strategy: %+v %+v", rep.Stats, f)
	}
	if !slices.Contains([]explore.Stop{explore.StopViolation}, rep.Stats.Stop) {
		t.Errorf("stop %v", rep.Stats.Stop)
	}
}

// TestCriticalOfMinimizedPath: the critical-transition search run again on
// min.trace names the minimized path's last step, and a path whose end is
// live, handed over as a minimized one, is refused with ErrNotDead.
func TestCriticalOfMinimizedPath(t *testing.T) {
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), poisonSystem, search.Options{Seed: 1, WalkDepth: 200, Workers: 1, Minimize: true, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() == nil || rep.Files[search.FileMinTrace] == "" || rep.Files[search.FileLiveTrace] == "" {
		t.Fatalf("want a violation with min.trace and live.trace: %+v", rep.Files)
	}
	min, err := trace.Read(rep.Files[search.FileMinTrace])
	if err != nil {
		t.Fatal(err)
	}
	liveBefore, err := os.ReadFile(rep.Files[search.FileLiveTrace])
	if err != nil {
		t.Fatal(err)
	}
	// Beside the search's files, as macemc critical writes by default.
	refined, err := search.RefineCritical(context.Background(), min, search.CriticalOptions{Workers: 1, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	if c := refined.Critical; c.Step != min.Steps || c.Condition != critical.C1 {
		t.Errorf("critical transition of the %d-step minimized path: step %d, %v", min.Steps, c.Step, c.Condition)
	}
	if want := filepath.Join(dir, "min-live.trace"); refined.Files[search.FileLiveTrace] != want || refined.Files[search.FileCritical] != filepath.Join(dir, "min-critical.json") {
		t.Errorf("files of the minimized path's search: %v", refined.Files)
	}
	if after, err := os.ReadFile(rep.Files[search.FileLiveTrace]); err != nil || !bytes.Equal(after, liveBefore) {
		t.Errorf("the search's live.trace changed (%v): it goes with error.trace", err)
	}
	live, err := trace.Read(rep.Files[search.FileLiveTrace])
	if err != nil {
		t.Fatal(err)
	}
	live.Kind = trace.KindMinimized
	_, err = search.RefineCritical(context.Background(), live, search.CriticalOptions{Workers: 1, Out: t.TempDir()})
	if !errors.Is(err, search.ErrNotDead) || !errors.Is(err, search.ErrInput) {
		t.Errorf("a live path as a minimized one: %v", err)
	}
}

// TestFaultsOverrideInEveryTrace: a run whose failures come from
// Options.Faults (--faults) records them in every trace it writes, the
// minimized path and the live alternative included, and in the live trace
// the critical subcommand writes: each replays.
func TestFaultsOverrideInEveryTrace(t *testing.T) {
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), poisonSystem, search.Options{Params: map[string]string{"fixed": "true"}, Faults: "crashes=1,nodes=0",
		Seed: 1, WalkDepth: 200, Workers: 1, Minimize: true, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Critical == nil || !strings.Contains(f.Critical.Event, "node 0 crashes") {
		t.Fatalf("want the crash of node 0 as the critical transition: %+v", f)
	}
	replays := func(file string) {
		t.Helper()
		tr, err := trace.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Faults != "crashes=1,nodes=0" {
			t.Errorf("%s: faults %q", file, tr.Faults)
		}
		if _, err := search.Replay(tr, -1, nil); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
	for _, name := range []search.FileRole{"error_trace", "live_trace", "min_trace"} {
		if rep.Files[name] == "" {
			t.Fatalf("no %s written: %v", name, rep.Files)
		}
		replays(rep.Files[name])
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	refined, err := search.RefineCritical(context.Background(), tr, search.CriticalOptions{Workers: 1, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	replays(refined.Files[search.FileLiveTrace])
}

// TestFaultsRangeNamesEverySetting: the range an unknown --faults setting
// is answered with names every setting sim.ParseFailures knows.
func TestFaultsRangeNamesEverySetting(t *testing.T) {
	_, err := sim.ParseFailures(sim.Failures{}, "nosuch=1")
	_, known, ok := strings.Cut(fmt.Sprint(err), "(known: ")
	if !ok {
		t.Fatalf("ParseFailures does not list its settings: %v", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(known, ")"), ", ") {
		if !strings.Contains(search.FaultsRange, " "+name) {
			t.Errorf("FaultsRange does not name %q: %s", name, search.FaultsRange)
		}
	}
}

// deadlineAt is a context whose deadline passes when done is closed.
type deadlineAt struct{ done chan struct{} }

func (d *deadlineAt) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (d *deadlineAt) Done() <-chan struct{}       { return d.done }
func (d *deadlineAt) Value(any) any               { return nil }
func (d *deadlineAt) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// TestTimeBoundsTheAnalysis: the time budget is given again to the
// analysis of the violation the search found; a critical-transition
// search that outlasts it stops as on Ctrl-C, keeping the bounds it had
// narrowed to, and the report warns that it is partial.
func TestTimeBoundsTheAnalysis(t *testing.T) {
	// transport's search finds its stale-SYN bug in about 10 ms, and
	// checks that its path (of d_max = 2,000 steps) replays
	// deterministically, with 2 replays, in less (64 replays of 20,000
	// steps used up a 1 s budget under -race on a loaded machine); with
	// k = 100,000 walks a probe, its critical transition takes far more
	// than the 1 s budget on any machine.
	sys, err := sim.Lookup("transport")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Properties: []string{"AllAcked"}, Time: time.Second, Walks: 100_000, WalkDepth: 2000, Workers: 1, Replays: 2})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Critical == nil || !f.Critical.Interrupted {
		t.Fatalf("want a finding whose critical transition was interrupted, got %+v", f)
	}
	if !strings.HasPrefix(f.Critical.Explain, "The time budget (--time) ran out before the critical transition was found.") {
		t.Errorf("explanation %q", f.Critical.Explain)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[len(rep.Warnings)-1], "the analysis of the violation stopped at the time budget (--time 1s") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	if rep.Incomplete || rep.Stats.Stop != explore.StopViolation {
		t.Errorf("the search itself was not cut short: incomplete %v, stop %v", rep.Incomplete, rep.Stats.Stop)
	}
	// The caller's deadline, without a time budget, is called so, and the
	// command that finishes the analysis names the trace. The deadline
	// passes once the critical-transition search has begun, however slow
	// the machine.
	ctx := &deadlineAt{done: make(chan struct{})}
	out := t.TempDir()
	var once sync.Once
	progress := func(pr search.Progress) {
		if pr.Phase == search.PhaseCritical {
			once.Do(func() { time.AfterFunc(100*time.Millisecond, func() { close(ctx.done) }) })
		}
	}
	rep, err = search.Run(ctx, sys, search.Options{Seed: 1, Properties: []string{"AllAcked"}, Walks: 100_000, Workers: 1, Out: out, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f == nil || f.Critical == nil || !strings.HasPrefix(f.Critical.Explain, "The run's context reached its deadline before the critical transition was found.") ||
		!strings.HasSuffix(f.Critical.Explain, "`macemc critical --trace "+filepath.Join(out, "error.trace")+"`.") {
		t.Errorf("finding %+v", f)
	}
}

// TestTimeBoundsTheChecks: --time bounds the check before the search,
// which the search then gets what is left of; when that check used all of
// it, the search ran no path and the report says that nothing was searched
// (NothingSearched, its last line, report.json's nothing_searched), with no
// checks after a search that did not run.
func TestTimeBoundsTheChecks(t *testing.T) {
	sys := &sim.System{Name: "alarmclock", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &simtest.SlowTicker{} }}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Time: 300 * time.Millisecond, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() != nil || rep.Stats.Stop != explore.StopTime || rep.Stats.Paths != 0 || !rep.NothingSearched() {
		t.Fatalf("want nothing searched, the search stopped by time, got %v, stop %v, %d paths, NothingSearched %v", rep.First(), rep.Stats.Stop, rep.Stats.Paths, rep.NothingSearched())
	}
	w := "the check that the system replays deterministically, before the search, used the whole time budget (--time 300ms) and stopped unfinished"
	if !slices.ContainsFunc(rep.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
		t.Errorf("no warning %q in %q", w, rep.Warnings)
	}
	if slices.ContainsFunc(rep.Warnings, func(s string) bool { return strings.HasPrefix(s, "the checks after the search") }) {
		t.Errorf("the checks after the search ran after a search of no path: %q", rep.Warnings)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\nNOTHING SEARCHED: the time budget ran out before the search finished a single path (the check before the search used all of it") {
		t.Errorf("the text does not say nothing was searched:\n%s", b.String())
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(js, []byte(`"nothing_searched":true`)) {
		t.Errorf("report.json has no nothing_searched: %s", js)
	}
}

// lateAlarm is simtest.SlowTicker on some executions only: at boot it draws
// a number (a choice of the execution), and on 1 of 2 its ticks sleep.
// The check before the search walks once (seed 1 draws 0 there: fast, and
// its replays alike), the search's one path takes the first choice, 0, and
// the checks after a search that found nothing walk 16 times more: some of
// those draw 1, and a walk of them takes seconds on any machine.
type lateAlarm struct {
	sim.Base
	Slow  bool
	Fired int
}

func (a *lateAlarm) Start(ctx *sim.Context) {
	a.Slow = ctx.Rand(2) == 1
	ctx.SetPeriodic("tick")
}

func (a *lateAlarm) HandleTimer(*sim.Context, string) {
	if a.Fired++; a.Slow {
		time.Sleep(simtest.SlowTickerPause)
	}
}

// TestTimeBoundsTheChecksAfter: --time bounds the checks after a search
// that found nothing, given the same time again, and they warn when cut
// short.
func TestTimeBoundsTheChecksAfter(t *testing.T) {
	sys := &sim.System{Name: "latealarm", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &lateAlarm{} }}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Time: 300 * time.Millisecond, MaxPaths: 1, Workers: 1, Replays: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() != nil || rep.Stats.Paths == 0 || rep.NothingSearched() {
		// The seeds of the walks decide which are slow: if this fails,
		// the check before the search drew the slow branch.
		t.Fatalf("want a search that ran and found nothing, got %v, %d paths, warnings %q", rep.First(), rep.Stats.Paths, rep.Warnings)
	}
	w := "the checks after the search for code that acts outside its handlers stopped at the time budget (--time 300ms"
	if !slices.ContainsFunc(rep.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
		t.Errorf("no warning %q in %q", w, rep.Warnings)
	}
}

// gossiper is node 0 of searchtest-alias: it sends node 1 its list of
// suspects every tick, the slice itself (the bug), and adds a suspect
// when its connection to node 2 breaks: only then does a message in
// flight change.
type gossiper struct {
	sim.Base
	ID       sim.NodeID
	Suspects []int
}

type suspects struct{ List []int }

func (g *gossiper) Start(ctx *sim.Context) {
	if g.ID == 0 {
		ctx.SetPeriodic("tick")
		ctx.Send(2, suspects{})
	}
}

func (g *gossiper) HandleTimer(ctx *sim.Context, _ string) {
	ctx.Send(1, suspects{List: g.Suspects[:len(g.Suspects):len(g.Suspects)]})
}

func (g *gossiper) HandleConnError(ctx *sim.Context, peer sim.NodeID) {
	if len(g.Suspects) > 0 {
		g.Suspects[0] = int(peer) // in place: the message sent before changes
	}
	g.Suspects = append(g.Suspects, int(peer))
}

var aliasSystem = &sim.System{
	Name: "searchtest-alias",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    3,
			Service:  func(id sim.NodeID) sim.Service { return &gossiper{ID: id, Suspects: []int{-1}} },
			Safety:   []sim.Property{{Name: "True", Check: func(*sim.View) bool { return true }}},
			Failures: sim.Failures{Breaks: 1},
		}, nil
	},
}

func init() { sim.Register(aliasSystem) }

// TestNothingFoundIsChecked: a search that finds nothing checks more walks
// (with failures) for a service that acts outside its handlers: a message
// that changes in flight only once a connection broke is reported, not
// "nothing found".
func TestNothingFoundIsChecked(t *testing.T) {
	rep, err := search.Run(context.Background(), aliasSystem, search.Options{Seed: 1, MaxPaths: 50, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	var mc *engine.MessageChangedError
	if f == nil || f.Kind != search.KindEscape || !errors.As(f.Err, &mc) {
		t.Fatalf("want the message changed in flight, got %+v", f)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[len(rep.Warnings)-1], "the search found nothing; the fault above was found after it, on walk ") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

// obligation is a liveness monitor in the style of seed 001: cold until a
// request, hot until its reply.
type obligation struct{ Open int }

func (o *obligation) Handle(ev any) error {
	switch ev.(string) {
	case "request":
		o.Open++
	case "reply":
		o.Open--
	}
	return nil
}

func (o *obligation) Hot() bool { return o.Open > 0 }

// A search that finds nothing on a system whose liveness monitor starts
// cold warns that obligations it takes on later are judged only on the
// prefixes that reach them.
func TestColdMonitorWarning(t *testing.T) {
	sys := &sim.System{
		Name: "searchtest-cold",
		Build: func(sim.Params) (*sim.Config, error) {
			cfg := &sim.Config{
				Nodes:    1,
				Service:  func(sim.NodeID) sim.Service { return &sim.Base{} },
				Monitors: []sim.MonitorSpec{{Name: "Replies", New: func() sim.Monitor { return &obligation{} }}},
			}
			cfg.AddMonitorProperties()
			return cfg, nil
		},
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() != nil || len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[len(rep.Warnings)-1], "liveness monitor Replies is cold in the initial state") {
		t.Errorf("finding %v, warnings %q", rep.First(), rep.Warnings)
	}
}

// liveAt2 is the safety bug of TestShortWalksWarning: node 0 counts its
// timer's firings; the property fails at the third.
type liveAt2 struct {
	sim.Base
	N int
}

func (l *liveAt2) Start(ctx *sim.Context)               { ctx.SetPeriodic("t") }
func (l *liveAt2) HandleTimer(_ *sim.Context, _ string) { l.N++ }

// TestShortWalksWarning: a walk search whose every state is live walks one
// step at a time and checks safety nowhere deeper: it says so, and random
// finds the bug the walks never reach.
func TestShortWalksWarning(t *testing.T) {
	sys := &sim.System{
		Name: "searchtest-alwayslive",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:    1,
				Service:  func(sim.NodeID) sim.Service { return &liveAt2{} },
				Safety:   []sim.Property{{Name: "FewTicks", Check: func(v *sim.View) bool { return sim.Node[liveAt2](v, 0).N < 3 }}},
				Liveness: []sim.Property{{Name: "Always", Check: func(*sim.View) bool { return true }}},
			}, nil
		},
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 100, Workers: 1, Strategy: "walk"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() != nil || len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[len(rep.Warnings)-1], "the walks took 1.0 steps on average") {
		t.Errorf("finding %v, warnings %q", rep.First(), rep.Warnings)
	}
	rep, err = search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 100, Workers: 1, Strategy: "random", NoCritical: true})
	if err != nil || rep.First() == nil || rep.First().Property != "FewTicks" {
		t.Errorf("random: %v, finding %v", err, rep.First())
	}
}

// locker is node 0 of TestHangCutBySearch: its request handler takes its
// lock and, on one of two answers, returns without unlocking it; its
// message handler then blocks for good.
type locker struct {
	sim.Base
	mu    sync.Mutex
	Count int
}

func (l *locker) HandleApp(ctx *sim.Context, _ any) {
	l.mu.Lock()
	l.Count++
	if ctx.Rand(2) == 1 {
		return
	}
	l.mu.Unlock()
}

func (l *locker) HandleMessage(*sim.Context, sim.NodeID, sim.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Count++
}

// poker sends node 0 a message on its request.
type poker struct{ sim.Base }

func (poker) HandleApp(ctx *sim.Context, _ any) { ctx.Send(0, "poke") }

// TestHangCutBySearch: a lock left held is no state, so the search takes
// the state after the request that forgot to unlock for the one after the
// request that did, and cuts the path that hangs; the checks around the
// search meet the hang, and it is the finding (it was dropped, and the
// report said liveness holds).
func TestHangCutBySearch(t *testing.T) {
	sys := &sim.System{
		Name: "searchtest-locker",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes: 2,
				Service: func(id sim.NodeID) sim.Service {
					if id == 0 {
						return &locker{}
					}
					return poker{}
				},
				App:      func(sim.NodeID) []any { return []any{"go"} },
				Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool { return sim.Node[locker](v, 0).Count >= 1 }}},
			}, nil
		},
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 2000, Workers: 1, HandlerTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f == nil || f.Kind != search.KindHandlerHang || len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[len(rep.Warnings)-1], "a lock a handler left held") {
		t.Fatalf("finding %+v, warnings %q", f, rep.Warnings)
	}
}

// report.json names the first finding's path, path 0 too.
func TestReportJSONNamesPathZero(t *testing.T) {
	rep := run(t, context.Background(), search.Options{Seed: 1, MaxPaths: 100, Workers: 1, NoCritical: true})
	f := rep.First()
	if f == nil {
		t.Fatal("no finding")
	}
	rep.Findings[0].Path = 0
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(b, &j); err != nil || j["path"] != float64(0) {
		t.Errorf("report.json path %v (%v)", j["path"], err)
	}
}

// memo is a package-level cache that handlers fill and read: it outlives
// an execution, so the first execution in the process runs otherwise
// than every later one.
var memo = map[int]string{}

// memoized tags itself from the cache, filling it on a miss.
type memoized struct {
	sim.Base
	Tag string
}

func (m *memoized) HandleApp(ctx *sim.Context, _ any) {
	if tag, ok := memo[int(ctx.Self())]; ok {
		m.Tag = tag
		return
	}
	m.Tag = "computed"
	memo[int(ctx.Self())] = "cached"
}

// TestCacheAcrossExecutions: a cache that handlers fill and read across
// executions is found before the search, with its node and field (the
// replays side by side all ran after it was filled, and agreed; a trial's
// search called the system "dead from the start", certain).
func TestCacheAcrossExecutions(t *testing.T) {
	clear(memo)
	sys := &sim.System{Name: "searchtest-memo", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &memoized{} },
			App: func(sim.NodeID) []any { return []any{"go"} },
			Liveness: []sim.Property{{Name: "Computed", Check: func(v *sim.View) bool {
				return sim.All(v, func(_ sim.NodeID, m *memoized) bool { return m.Tag == "computed" })
			}}},
		}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 1000, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var nd *engine.NondeterminismError
	if f := rep.First(); f == nil || f.Kind != search.KindNondeterminism || !errors.As(f.Err, &nd) || !nd.Across || nd.Path != ".Tag" {
		t.Fatalf("finding %+v", rep.First())
	}
}

// router reads a routing table that Build made once for every node, and
// changes it when Write is set.
type router struct {
	sim.Base
	Table map[int]int
	Write bool
	Hops  int
}

func (r *router) HandleApp(ctx *sim.Context, _ any) {
	r.Hops = r.Table[int(ctx.Self())]
	if r.Write {
		r.Table[int(ctx.Self())] = r.Hops + 1 // seen by every later execution
	}
}

func routerSystem(write bool) *sim.System {
	return &sim.System{Name: "searchtest-router", Build: func(sim.Params) (*sim.Config, error) {
		table := map[int]int{0: 1, 1: 2}
		return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &router{Table: table, Write: write} },
			App: func(sim.NodeID) []any { return []any{"go"} },
			Liveness: []sim.Property{{Name: "Routed", Check: func(v *sim.View) bool {
				return sim.All(v, func(_ sim.NodeID, r *router) bool { return r.Hops > 0 })
			}}},
		}, nil
	}}
}

// TestSharedMap: a map that Build made once and every execution's nodes
// hold is named before the search, which then runs on one worker (two
// simulators writing it side by side crash the process: "concurrent map
// writes"), with the report of one worker; a handler that writes it is a
// finding naming the field.
func TestSharedMap(t *testing.T) {
	one, err := search.Run(context.Background(), routerSystem(false), search.Options{Seed: 1, MaxPaths: 200, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	two, err := search.Run(context.Background(), routerSystem(false), search.Options{Seed: 1, MaxPaths: 200, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(two.Warnings, func(w string) bool {
		return strings.HasPrefix(w, "the nodes of every execution share one map, node 0's .Table") && strings.Contains(w, "the run used one worker")
	}) {
		t.Errorf("warnings %q", two.Warnings)
	}
	if one.First() != nil || two.First() != nil || one.Stats.Paths != two.Stats.Paths || one.Stats.DistinctStates != two.Stats.DistinctStates {
		t.Errorf("1 worker: %v, %d paths; 2: %v, %d paths", one.First(), one.Stats.Paths, two.First(), two.Stats.Paths)
	}
	rep, err := search.Run(context.Background(), routerSystem(true), search.Options{Seed: 1, MaxPaths: 200, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var nd *engine.NondeterminismError
	if f := rep.First(); f == nil || !errors.As(f.Err, &nd) || nd.Path != ".Hops" || !strings.Contains(nd.Detail, "one map, node 0's .Table") {
		t.Fatalf("a handler writing the shared map: %+v", rep.First())
	}
}

// ticking counts its timer's firings, and cancels the run (once armed)
// at the first firing after its arming.
type ticking struct{ sim.Base }

var tickRun struct {
	armed, cancelled atomic.Bool
	armedFor, after  atomic.Int64 // firings since the arming, after the cancel
	cancel           context.CancelFunc
}

func (ticking) Start(ctx *sim.Context) { ctx.SetPeriodic("t") }

// HandleTimer cancels at the 100th firing after the arming: in the first
// path's walk (the bounded part ends at its first step, a repeated state).
func (ticking) HandleTimer(*sim.Context, string) {
	switch {
	case tickRun.cancelled.Load():
		tickRun.after.Add(1)
	case tickRun.armed.Load() && tickRun.armedFor.Add(1) == 100:
		tickRun.cancelled.Store(true)
		tickRun.cancel()
	}
}

// TestCancelStopsAWalkAtItsNextStep: a walk looks at the run's context at
// every step, not every 1,024 (a Ctrl-C waited minutes for a walk whose
// handlers took seconds): once the run is cancelled, its walk runs no
// more than a step or two.
func TestCancelStopsAWalkAtItsNextStep(t *testing.T) {
	sys := &sim.System{Name: "searchtest-ticking", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return ticking{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tickRun.cancel = cancel
	progress := func(pr search.Progress) {
		if pr.Phase == search.PhaseSearch {
			tickRun.armed.Store(true)
		}
	}
	rep, err := search.Run(ctx, sys, search.Options{Seed: 1, Workers: 1, WalkDepth: 100_000, Progress: progress, NoCritical: true})
	if err != nil {
		t.Fatal(err)
	}
	if !tickRun.cancelled.Load() || !rep.Incomplete || tickRun.after.Load() > 2 {
		t.Errorf("cancelled %v, incomplete %v, %d firings after the cancel", tickRun.cancelled.Load(), rep.Incomplete, tickRun.after.Load())
	}
}

// slowCheckTicker ticks forever and is never live. Once checking is set, each
// tick sleeps: the determinism check of the violating path then takes far
// longer than any budget the test gives, and the search before it runs at
// full speed. The flag is a package variable, not state: no node reaches it.
type slowCheckTicker struct {
	sim.Base
	Ticks int
}

var (
	checking atomic.Bool
	slept    atomic.Int64
)

func (k *slowCheckTicker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (k *slowCheckTicker) HandleTimer(*sim.Context, string) {
	k.Ticks++
	if checking.Load() {
		slept.Add(1)
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCriticalNotSearchedWhenTheCheckUsedTheBudget: when the determinism
// check of the violating path uses the whole analysis budget, the critical
// transition's text says it was not searched and why, not "no probe had
// finished". The search's one walk of 2,000 ticks takes milliseconds; the
// check of it, at 10 ms a tick once it begins, would take 20 s a replay,
// against a budget of 2 s. Every replay of the analysis stops at the
// budget: at 10 ms a tick, at most 200 ticks fit in it, not the path's 2,000.
func TestCriticalNotSearchedWhenTheCheckUsedTheBudget(t *testing.T) {
	sys := &sim.System{Name: "neverlive", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &slowCheckTicker{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}}
	checking.Store(false)
	slept.Store(0)
	defer checking.Store(false)
	progress := func(p search.Progress) {
		if p.Phase == search.PhaseCheck {
			checking.Store(true)
		}
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, Time: 2 * time.Second, WalkDepth: 2_000, Command: "macemc", Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil {
		t.Fatalf("nothing found; phases %v", rep.Phases)
	}
	want := "The critical transition was not searched: the check that the violating path replays deterministically used the whole analysis budget"
	if f.Critical == nil || !strings.HasPrefix(f.Critical.Explain, want) {
		t.Fatalf("finding %+v, critical %+v", f, f.Critical)
	}
	if n := slept.Load(); n >= 1_000 {
		t.Errorf("the analysis ran %d ticks after the budget's 200", n)
	}
}

// chatty logs 200 KB at every tick and is never live: its log costs far
// more to write than any replay without logging.
type chatty struct {
	sim.Base
	Ticks int
}

var chattyBlob = strings.Repeat("b", 200_000)

func (c *chatty) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (c *chatty) HandleTimer(ctx *sim.Context, _ string) {
	c.Ticks++
	ctx.Log().Str("blob", chattyBlob).Msg("tick")
}

// TestTimeBoundsTheFiles: writing the logs and the report page gets the
// time budget once more; past it they are left out, with what writes them,
// and the traces and report.json are whole.
func TestTimeBoundsTheFiles(t *testing.T) {
	sys := &sim.System{Name: "chatty", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &chatty{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}}
	out := t.TempDir()
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, Time: 2 * time.Second, WalkDepth: 20_000, NoCritical: true, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() == nil || !rep.LogsSkipped || rep.Incomplete {
		t.Fatalf("finding %v, logs skipped %v, incomplete %v, phases %v", rep.First(), rep.LogsSkipped, rep.Incomplete, rep.Phases)
	}
	w := "writing the logs and the report page reached the time budget (--time 2s"
	if !slices.ContainsFunc(rep.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
		t.Errorf("no warning %q in %q", w, rep.Warnings)
	}
	for _, name := range []string{"error.trace", "report.json"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	for _, name := range []string{"error.log", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, name)); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want it left out", name, err)
		}
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "(logs not written: the time budget ended while they were written;") {
		t.Errorf("text:\n%s", b.String())
	}
}

// countingTicker counts its ticks in ticksSeen and calls onTick, so that a
// test sees how far a replay ran.
type countingTicker struct {
	sim.Base
	Ticks int
}

var (
	ticksSeen atomic.Int64
	onTick    func(n int64)
)

func (c *countingTicker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (c *countingTicker) HandleTimer(*sim.Context, string) {
	c.Ticks++
	if n := ticksSeen.Add(1); onTick != nil {
		onTick(n)
	}
}

// TestReplayStopsWhenCancelled: a replay whose context ends stops at the
// next step with the context's error, rather than running on to the end of
// a 20,000-step trace without logging (as ReplayLogContext did).
func TestReplayStopsWhenCancelled(t *testing.T) {
	sys := &sim.System{Name: "countingticker", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &countingTicker{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}}
	out := t.TempDir()
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, MaxPaths: 1, NoCritical: true, Out: out})
	if err != nil || rep.First() == nil || rep.First().Steps != search.DefaultWalkDepth {
		t.Fatalf("setup: %v, %+v", err, rep.First())
	}
	tr, err := trace.Read(filepath.Join(out, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	tr.Sys = sys
	for _, log := range []string{"", filepath.Join(t.TempDir(), "x.log")} {
		ctx, cancel := context.WithCancel(context.Background())
		ticksSeen.Store(0)
		onTick = func(n int64) {
			if n == 100 {
				cancel()
			}
		}
		if log == "" {
			_, err = search.ReplayContext(ctx, tr, -1, io.Discard)
		} else {
			_, err = search.ReplayLogContext(ctx, tr, -1, log)
		}
		onTick = nil
		if n := ticksSeen.Load(); !errors.Is(err, context.Canceled) || n > 101 {
			t.Errorf("log %q: error %v after %d ticks of the trace's %d steps, want it to stop at 100", log, err, n, tr.Steps)
		}
		cancel()
	}
}

// TestGraphLassoIsNoPath: a fair cycle found in the explored state graph
// takes a place in the order of the results, not a path of --max-paths:
// the search runs the paths it was given (it ran one fewer for each).
func TestGraphLassoIsNoPath(t *testing.T) {
	rep, err := search.Run(context.Background(), system(t, "philosophers"), search.Options{Seed: 4, MaxPaths: 20_000, MaxViolations: 5, NoCritical: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	graph := 0
	for _, f := range rep.Findings {
		if f.Lasso != nil && f.Lasso.Origin == search.OriginGraph {
			graph++
		}
	}
	if graph == 0 || rep.Stats.Paths != 20_000 || rep.Stats.Stop != explore.StopPaths {
		t.Errorf("%d graph lassos of %d findings, %d paths, stop %v; want a graph lasso, 20000 paths, stopped by paths", graph, len(rep.Findings), rep.Stats.Paths, rep.Stats.Stop)
	}
}

// lateSlow ticks forever and is never live; past its 1,000th tick (beyond
// the check before the search, whose walk is 1,000 steps) every tick
// computes for a while, so a search's first walk of d_max steps takes many
// seconds.
type lateSlow struct {
	sim.Base
	Ticks int
	Sum   uint64
}

func (l *lateSlow) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (l *lateSlow) HandleTimer(*sim.Context, string) {
	if l.Ticks++; l.Ticks > 1000 {
		for i := range 200_000 {
			l.Sum = l.Sum*31 + uint64(i)
		}
	}
}

// TestTimeStopsRunningWalks: a walk running when the search's time budget
// ends stops there, as on Ctrl-C, and its path is not counted; a walk of
// 20,000 slow steps ran on for many seconds past --time before, and was
// counted. Here no path finishes within the budget: nothing was searched.
func TestTimeStopsRunningWalks(t *testing.T) {
	sys := &sim.System{Name: "lateslow", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &lateSlow{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, Time: 500 * time.Millisecond, MaxPaths: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() != nil || rep.Stats.Paths != 0 || !rep.NothingSearched() || rep.Stats.Stop != explore.StopTime {
		t.Fatalf("finding %v, %d paths, nothing searched %v, stop %v, phases %v; want the walk stopped at the budget and no path counted",
			rep.First(), rep.Stats.Paths, rep.NothingSearched(), rep.Stats.Stop, rep.Phases)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "and the walk of the first path took longer than the") || rep.Stats.TimeCut != 1 {
		t.Errorf("text:\n%s", b.String())
	}
}

// mapHolder writes a map that Build made once and handed to every node.
type mapHolder struct {
	sim.Base
	M map[int]int
}

func (m *mapHolder) Start(ctx *sim.Context)                 { ctx.SetPeriodic("tick") }
func (m *mapHolder) HandleTimer(ctx *sim.Context, _ string) { m.M[int(ctx.Self())]++ }

// TestMapSharedAcrossExecutions: nodes that hold one map Build made are
// reported as sharing memory across executions, with advice about the map,
// not as replays that differ with advice about the time and files (a
// trial's finding).
func TestMapSharedAcrossExecutions(t *testing.T) {
	sys := &sim.System{Name: "mapholder", Build: func(sim.Params) (*sim.Config, error) {
		shared := map[int]int{}
		return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &mapHolder{M: shared} }}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, MaxPaths: 50})
	if err != nil {
		t.Fatal(err)
	}
	var nd *engine.NondeterminismError
	if f := rep.First(); f == nil || !errors.As(f.Err, &nd) || !nd.SharedMap || nd.Path != ".M" {
		t.Fatalf("finding %+v", rep.First())
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if !strings.Contains(text, "\nSERVICE SHARES MEMORY ACROSS EXECUTIONS: the nodes of every run hold one map, made once\n") ||
		!strings.Contains(text, "have Config.Service (or Start) make each node its own map") || strings.Contains(text, "time.Now") {
		t.Errorf("text:\n%s", text)
	}
}

// mapBroadcaster is node 0 of a system that, asked once, tells nodes 1 to
// 4 a decision in its map's order, each on a connection of its own.
type mapBroadcaster struct {
	sim.Base
	Peers map[sim.NodeID]bool
	Got   bool
}

func (b *mapBroadcaster) HandleApp(ctx *sim.Context, _ any) {
	for p := range b.Peers {
		ctx.Send(p, "decided")
	}
}

func (b *mapBroadcaster) HandleMessage(*sim.Context, sim.NodeID, sim.Message) { b.Got = true }

// TestSendOrderWarning: a handler that sends in a map's order leaves the
// same state in every replay, so the search finds nothing, but the
// report warns that its logs differ from run to run, naming the node, the
// step and the two orders.
func TestSendOrderWarning(t *testing.T) {
	sys := &sim.System{Name: "mapbroadcast", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 5,
			Service: func(id sim.NodeID) sim.Service {
				if id == 0 {
					return &mapBroadcaster{Peers: map[sim.NodeID]bool{1: true, 2: true, 3: true, 4: true}}
				}
				return &mapBroadcaster{}
			},
			App: func(id sim.NodeID) []any {
				if id == 0 {
					return []any{"decide"}
				}
				return nil
			},
			Liveness: []sim.Property{{Name: "AllGot", Check: func(v *sim.View) bool {
				for i := 1; i < v.Len(); i++ {
					if !v.Service(sim.NodeID(i)).(*mapBroadcaster).Got {
						return false
					}
				}
				return true
			}}}}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, MaxPaths: 100})
	if err != nil {
		t.Fatal(err)
	}
	const w = `node 0's handler at step 1 (node 0 handles app request "decide") did its actions in different orders in replays of the seeded walk of the check before the search, which is not saved: ` +
		`sends string to node 1, sends string to node 2, sends string to node 3, sends string to node 4. The states agree`
	if rep.First() != nil || !slices.ContainsFunc(rep.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
		t.Fatalf("finding %v, warnings %q", rep.First(), rep.Warnings)
	}
}

// tenCounter counts its driver's ten requests; it is live once it has
// counted them all, ten steps after the start at best.
type tenCounter struct {
	sim.Base
	Count int
}

func (c *tenCounter) HandleApp(*sim.Context, any) { c.Count++ }

// tenRequests is tenCounter's driver: ten requests.
func tenRequests(sim.NodeID) []any {
	reqs := make([]any, 10)
	for i := range reqs {
		reqs[i] = "count"
	}
	return reqs
}

// TestShortWalksAreNotDeadFromTheStart: when every walk from the initial
// state was cut by d_max still running (d_max 8 below the 10 steps of the
// shortest live execution), a dead path that fell quiescent (its node
// crashed) is not "dead from the start": C2 says to raise --walk-depth, as
// it does for a path that did not fall quiescent.
func TestShortWalksAreNotDeadFromTheStart(t *testing.T) {
	sys := &sim.System{Name: "tencounter", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &tenCounter{} },
			App:      tenRequests,
			Failures: sim.Failures{Crashes: 1},
			Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool { return v.Service(0).(*tenCounter).Count == 10 }}}}, nil
	}}
	for _, depth := range []int{8, 40} {
		// Seed 9's first walk crashes the node: a path that falls
		// quiescent.
		rep, err := search.Run(context.Background(), sys, search.Options{Seed: 9, Workers: 1, Strategy: "walk", WalkDepth: depth, MaxPaths: 200})
		if err != nil {
			t.Fatal(err)
		}
		f := rep.First()
		if f == nil || f.Critical == nil {
			t.Fatalf("d_max %d: finding %v", depth, f)
		}
		c := f.Critical
		switch {
		case f.Outcome != walks.Quiescent:
			t.Errorf("d_max %d: the path %s, not quiescent", depth, f.Outcome)
		case depth == 8 && (c.Condition != critical.C2 || strings.Contains(c.Explain, "Dead from the start")):
			t.Errorf("d_max 8, below the shortest live execution: %s %d: %s", c.Condition, c.Step, c.Explain)
		case depth == 40 && (c.Condition != critical.C1 || c.Step < 1 || c.Kind != "crash"):
			t.Errorf("d_max 40: want the crash, got %s at %d (%s): %s", c.Condition, c.Step, c.Kind, c.Explain)
		}
	}
}

// mapPicker keeps the first key its map's range gives: a 2-entry map's
// order changes between loops about one time in four or five.
type mapPicker struct {
	sim.Base
	Peers map[int]bool
	First int
}

func (m *mapPicker) HandleApp(*sim.Context, any) {
	for k := range m.Peers {
		m.First = k
		break
	}
}

// TestMapOrderIsNotStateAcrossExecutions: a handler that decides by a
// map's order makes the first run and the later replay of the check before
// the search differ, as state kept across executions would; the replays
// side by side differ too, and the finding says so, with their advice,
// not that of state kept across executions (a trial's 10 of 10 runs).
func TestMapOrderIsNotStateAcrossExecutions(t *testing.T) {
	sys := &sim.System{Name: "mappicker", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &mapPicker{Peers: map[int]bool{1: true, 2: true}} },
			App: func(sim.NodeID) []any {
				reqs := make([]any, 50)
				for i := range reqs {
					reqs[i] = "pick"
				}
				return reqs
			}}, nil
	}}
	for seed := range uint64(5) {
		rep, err := search.Run(context.Background(), sys, search.Options{Seed: seed, MaxPaths: 100, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		var nd *engine.NondeterminismError
		if f := rep.First(); f == nil || f.Kind != search.KindNondeterminism || !errors.As(f.Err, &nd) || nd.Across || nd.Path != ".First" {
			t.Fatalf("seed %d: finding %+v, %+v", seed, rep.First(), nd)
		}
	}
}

// TestProgressOnTheCallersGoroutine: Options.Progress runs on the
// goroutine that called Run, the search's reports included, so that a
// callback that calls runtime.Goexit (testing.T's Fatal) ends that
// goroutine, and one that panics panics there, where the caller can
// recover it; neither is taken for the system's fault (a trial's
// t.Fatal in Progress was reported as a certain hang of a correct system,
// and its panic killed the test binary).
func TestProgressOnTheCallersGoroutine(t *testing.T) {
	sys, err := sim.Lookup("transport")
	if err != nil {
		t.Fatal(err)
	}
	for _, how := range []string{"goexit", "panic"} {
		out := t.TempDir()
		returned, recoveredValue := false, any(nil)
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			defer func() { recoveredValue = recover() }()
			opts := search.Options{Seed: 1, Workers: 2, Time: time.Minute, Params: map[string]string{"fixed": "true"}, Out: out,
				Progress: func(p search.Progress) {
					if p.Phase == search.PhaseSearch && p.Stats.Paths > 0 {
						if how == "goexit" {
							runtime.Goexit()
						}
						panic("the caller's callback")
					}
				}}
			search.Run(context.Background(), sys, opts)
			returned = true
		}()
		<-ended
		if returned {
			t.Errorf("%s: Run returned", how)
		}
		if want := map[string]any{"goexit": nil, "panic": "the caller's callback"}[how]; recoveredValue != want {
			t.Errorf("%s: recovered %v, want %v", how, recoveredValue, want)
		}
		if _, err := os.Stat(filepath.Join(out, "error.trace")); err == nil {
			t.Errorf("%s: a finding was written", how)
		}
	}
}

// TestBadSystems: a system that cannot be built or whose nodes cannot be
// made is an ErrSystem error that names why, before the search writes or
// removes anything: a previous run's results in Out stay (a Service
// constructor that returned nil removed them, and a Build that was nil or
// panicked crashed Run).
func TestBadSystems(t *testing.T) {
	out := t.TempDir()
	good, err := sim.Lookup("transport")
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := search.Run(context.Background(), good, search.Options{Seed: 1, Workers: 1, Out: out, NoCritical: true}); err != nil || rep.First() == nil {
		t.Fatalf("the run whose results must stay: %v", err)
	}
	node := func(sim.NodeID) sim.Service { return &slowCheckTicker{} }
	build := func(service func(sim.NodeID) sim.Service) func(sim.Params) (*sim.Config, error) {
		return func(sim.Params) (*sim.Config, error) { return &sim.Config{Nodes: 2, Service: service}, nil }
	}
	for _, c := range []struct {
		sys  *sim.System
		want string
	}{
		{&sim.System{Name: "nobuild"}, "search: bad system: sim: bad config: system nobuild has no Build"},
		{&sim.System{Name: "buildpanics", Build: func(sim.Params) (*sim.Config, error) { panic("boom in Build") }},
			"search: bad system: system buildpanics: sim: bad config: Build panicked: boom in Build (at "},
		{&sim.System{Build: build(node)}, "search: bad system: the system has no Name"},
		{&sim.System{Name: "nilnode", Build: build(func(sim.NodeID) sim.Service { return nil })},
			"search: bad system: system nilnode: sim: sim.Config.Service returned nil for node 0"},
		{&sim.System{Name: "nodepanics", Build: build(func(sim.NodeID) sim.Service { panic("boom in Service") })},
			"search: bad system: system nodepanics: sim: sim.Config.Service panicked for node 0: boom in Service"},
	} {
		_, err := search.Run(context.Background(), c.sys, search.Options{Seed: 1, Workers: 1, Out: out})
		if !errors.Is(err, search.ErrSystem) || !errors.Is(err, sim.ErrBadConfig) && c.sys.Name != "" || !strings.HasPrefix(fmt.Sprint(err), c.want) {
			t.Errorf("%s: %v, want %q…", c.sys.Name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, "error.trace")); err != nil {
			t.Fatalf("%s: the previous run's results are gone: %v", c.sys.Name, err)
		}
	}
}

// wallTimer arms its timer with package time, not the simulator: the
// timer never fires in an execution.
type wallTimer struct {
	sim.Base
	Fired bool
}

func (w *wallTimer) Start(*sim.Context) { time.AfterFunc(time.Hour, func() {}) }

// TestDeadFromTheStartNamesWallClockTimers: a system whose nodes arm their
// timers with time.AfterFunc falls quiescent at once; the report is dead
// from the start, and its explanation names that mistake (a trial's
// election timer was reported with advice about drivers and budgets only).
func TestDeadFromTheStartNamesWallClockTimers(t *testing.T) {
	sys := &sim.System{Name: "searchtest-walltimer", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &wallTimer{} },
			App:      func(sim.NodeID) []any { return []any{"go"} },
			Liveness: []sim.Property{{Name: "Fired", Check: func(v *sim.View) bool { return v.Service(0).(*wallTimer).Fired }}}}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 1, Workers: 1, MaxPaths: 10})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Critical == nil || f.Critical.Step != 0 || !strings.Contains(f.Critical.Explain, "Dead from the start") || !strings.Contains(f.Critical.Explain, "time.AfterFunc") {
		t.Fatalf("finding %+v", f)
	}
}

// TestRecoveryWalksThatFailAreNoEvidence: a liveness property that panics
// in a state only recovery walks reach (the ninth request, which the
// search's crashed walk never got to) made every walk from the initial
// state "not recover", and the run said "dead from the start" for
// certain. A failed walk tells nothing: no such claim, and a warning names
// the failure.
func TestRecoveryWalksThatFailAreNoEvidence(t *testing.T) {
	sys := &sim.System{Name: "searchtest-ninepanic", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &tenCounter{} },
			App:      tenRequests,
			Failures: sim.Failures{Crashes: 1},
			Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool {
				n := v.Service(0).(*tenCounter).Count
				if n == 9 {
					panic("nine")
				}
				return n == 10
			}}}}, nil
	}}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 9, Workers: 1, Strategy: "walk", WalkDepth: 40, MaxPaths: 200})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil {
		t.Fatal("nothing found")
	}
	if f.Critical == nil {
		t.Fatalf("no critical transition (seed 9's first walk crashes the node, before the ninth request): %+v", f)
	}
	if strings.Contains(f.Critical.Explain, "Dead from the start") || !slices.ContainsFunc(rep.Warnings, func(w string) bool {
		return strings.Contains(w, "ended in a failure of the system's code that the search did not meet") && strings.Contains(w, "nine")
	}) {
		t.Errorf("critical %+v\nwarnings %q", f.Critical, rep.Warnings)
	}
}

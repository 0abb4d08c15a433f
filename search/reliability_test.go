package search_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	_ "github.com/macemc/macemc/services/philosophers"
	_ "github.com/macemc/macemc/services/transport"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

func system(t testing.TB, name string) *sim.System {
	t.Helper()
	sys, err := sim.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// transport7 is the run the determinism and interruption tests use:
// MaceTransport's stale-SYN bug, found on path 5 of seed 7, a dead state
// with critical transition C1 at step 8 (budget: the first violation).
func transport7(out string, workers int) search.Options {
	return search.Options{Seed: 7, Workers: workers, Out: out}
}

// reportMap reads dir's report.json as JSON's maps and values.
func reportMap(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// reportBytes returns report.json without the fields that measure time.
func reportBytes(t *testing.T, dir string) []byte {
	t.Helper()
	m := reportMap(t, dir)
	delete(m, "elapsed_s")
	delete(m, "search_s")
	delete(m, "phases_s")
	if c, ok := m["critical"].(map[string]any); ok {
		delete(c, "elapsed_s")
	}
	// Paths differ between the runs' output directories.
	delete(m, "files")
	delete(m, "replay")
	delete(m, "debug")
	out, _ := json.MarshalIndent(m, "", " ")
	return out
}

// TestReportsIndependentOfWorkers: the same system, parameters, seed and
// budget give the same report.json (every count; the times and the output
// paths aside) and byte-identical trace and log files, with 1 or 2
// workers, run after run: transport seed 7 stopping at its first violation
// (path 5, C1 at step 8), and with depth step 2 going on to 3 violations within 400 paths.
// d_max is 3,000 to keep the test quick; the finding is the same as with
// the default.
func TestReportsIndependentOfWorkers(t *testing.T) {
	sys := system(t, "transport")
	for _, base := range []search.Options{
		{Seed: 7, WalkDepth: 3000},
		{Seed: 7, WalkDepth: 3000, MaxViolations: 3, MaxPaths: 400, DepthStep: 2},
	} {
		var first []byte
		var firstFiles map[string][]byte
		for i, w := range []int{1, 2, 1, 2} {
			dir := t.TempDir()
			o := base
			o.Workers, o.Out = w, dir
			rep, err := search.Run(context.Background(), sys, o)
			if err != nil {
				t.Fatal(err)
			}
			if f := rep.First(); f == nil || f.Kind != search.KindDead || f.Critical == nil || f.Critical.Condition != critical.C1 {
				t.Fatalf("run %d (workers %d): %+v", i, w, f)
			}
			got := reportBytes(t, dir)
			files := map[string][]byte{}
			for _, name := range []string{"error.trace", "live.trace", "error.log", "live.log"} {
				b, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				files[name] = b
			}
			if first == nil {
				first, firstFiles = got, files
				if base.MaxViolations == 3 && len(rep.Findings) != 3 {
					t.Fatalf("%d findings, want 3", len(rep.Findings))
				}
				continue
			}
			if !bytes.Equal(got, first) {
				t.Errorf("run %d (workers %d): report.json differs:\n%s\nfirst:\n%s", i, w, got, first)
			}
			for name, b := range files {
				if !bytes.Equal(b, firstFiles[name]) {
					t.Errorf("run %d (workers %d): %s differs from the first run's", i, w, name)
				}
			}
		}
	}
}

// TestReadReport: a report read back from report.json marshals to the same
// bytes, for a dead-state finding with its critical transition (its
// confirmation and minimized path too) and for a lasso.
func TestReadReport(t *testing.T) {
	for _, c := range []struct {
		system string
		opts   search.Options
	}{
		{"transport", search.Options{Seed: 7, Workers: 1, WalkDepth: 3000, Minimize: true}},
		{"philosophers", search.Options{Seed: 1, Workers: 1, Lasso: search.LassoOptions{On: true}, MaxPaths: 2000, WalkDepth: 2000}},
		{"transport", search.Options{Seed: 1, Workers: 1, WalkDepth: 3000, WalkFailures: true, Minimize: true}},
		{"chord", search.Options{Seed: 1, Workers: 1, MaxPaths: 1000, WalkDepth: 2000}}, // a safety violation: its path's events
		{"scheduler", search.Options{Seed: 1, Workers: 1}},                              // a forced, quiescent critical state: dead for certain, read back so
	} {
		dir := t.TempDir()
		c.opts.Out = dir
		rep, err := search.Run(context.Background(), system(t, c.system), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.First() == nil {
			t.Fatalf("%s: nothing found", c.system)
		}
		path := filepath.Join(dir, "report.json")
		got, err := search.ReadReport(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(path)
		var buf bytes.Buffer
		if err := search.WriteJSON(filepath.Join(dir, "again.json"), got); err != nil {
			t.Fatal(err)
		}
		again, _ := os.ReadFile(filepath.Join(dir, "again.json"))
		buf.Write(again)
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: report.json read and written again differs:\n%s\nwant:\n%s", c.system, buf.Bytes(), want)
		}
		if got.WalkFailures != c.opts.WalkFailures || rep.WalkFailures != c.opts.WalkFailures || bytes.Contains(want, []byte(`"walk_failures"`)) != c.opts.WalkFailures {
			t.Errorf("%s: walk failures %v, read back as %v, ran with %v", c.system, rep.WalkFailures, got.WalkFailures, c.opts.WalkFailures)
		}
		if f := rep.First(); f.Kind == search.KindSafety && (len(f.Events) != f.Steps || !slices.Equal(got.First().Events, f.Events)) {
			t.Errorf("%s: the path's events %q (read back as %q) for a path of %d steps", c.system, f.Events, got.First().Events, f.Steps)
		}
		// The confidence reads back to the same words: a forced state
		// whose one execution falls quiescent is dead for certain, not
		// "within d_max".
		if cr := rep.First().Critical; cr != nil && cr.Confidence != nil {
			if back := got.First().Critical; back == nil || back.Confidence == nil || back.Confidence.String() != cr.Confidence.String() {
				t.Errorf("%s: confidence read back as %+v, ran %q", c.system, back, cr.Confidence.String())
			}
			if c.system == "scheduler" && !(cr.Confidence.At.Forced && cr.Confidence.At.Quiescent) {
				t.Errorf("scheduler: confidence %+v, want a forced state that falls quiescent", cr.Confidence.At)
			}
		} else if c.system == "scheduler" {
			t.Errorf("scheduler: no confidence: %+v", cr)
		}
		if got.First().Kind != rep.First().Kind || got.Stats.Paths != rep.Stats.Paths {
			t.Errorf("%s: read %v/%d, ran %v/%d", c.system, got.First().Kind, got.Stats.Paths, rep.First().Kind, rep.Stats.Paths)
		}
		if l := rep.First().Lasso; l != nil && (got.First().Lasso == nil || got.First().Lasso.Origin != l.Origin || l.Origin == 0) {
			t.Errorf("%s: the lasso's origin read back as %+v, ran %v", c.system, got.First().Lasso, l.Origin)
		}
		if rep.First().Lasso != nil {
			lassoOutOfBounds(t, want, rep.First().Steps)
		} else if c.system == "philosophers" {
			t.Error("philosophers: no lasso")
		}
		if rep.First().Minimized != nil && rep.First().Minimized.StepsAfter > 0 {
			minimizedAndGraphOutOfBounds(t, want)
		} else if c.system == "transport" {
			t.Error("transport: no minimized path")
		}
	}
	// Not a report, a directory, a FIFO, a huge file.
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, search.MaxReportSize+1); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"verdict": "liveness", "system": "x", "stop": "violation"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, fifo, big, bad, filepath.Join(dir, "missing.json")} {
		if _, err := search.ReadReport(p); !errors.Is(err, search.ErrReport) {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// refusesEach checks that ReadReport refuses the report data after each
// change, made one at a time to a fresh copy.
func refusesEach(t *testing.T, data []byte, changes map[string]func(j map[string]any)) {
	t.Helper()
	dir := t.TempDir()
	i := 0
	for what, change := range changes {
		var j map[string]any
		if err := json.Unmarshal(data, &j); err != nil {
			t.Fatal(err)
		}
		change(j)
		b, _ := json.Marshal(j)
		p := filepath.Join(dir, fmt.Sprintf("%d.json", i))
		i++
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := search.ReadReport(p); !errors.Is(err, search.ErrReport) {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// set returns a change that sets key of the section to v.
func set(section, key string, v any) func(j map[string]any) {
	return func(j map[string]any) { j[section].(map[string]any)[key] = v }
}

// lassoOutOfBounds checks that ReadReport refuses the report data with
// each count of its lasso out of bounds, one at a time.
func lassoOutOfBounds(t *testing.T, data []byte, steps int) {
	t.Helper()
	refusesEach(t, data, map[string]func(map[string]any){
		"stem -1": set("lasso", "stem", -1), "cycle -1": set("lasso", "cycle_length", -1), "stem past the end": set("lasso", "stem", steps+1),
		"cycle past the end": set("lasso", "cycle_length", steps+1), "confirmed -1": set("lasso", "confirmed_replays", -1),
		"repeated -1": set("lasso", "repeated_steps", -1),
	})
}

// minimizedAndGraphOutOfBounds checks that ReadReport refuses the report
// data with its minimized path not matching its length, or a negative
// count of its explored graph.
func minimizedAndGraphOutOfBounds(t *testing.T, data []byte) {
	t.Helper()
	drop := func(key string) func(j map[string]any) {
		return func(j map[string]any) {
			m := j["minimized"].(map[string]any)
			l := m[key].([]any)
			m[key] = l[:len(l)-1]
		}
	}
	changes := map[string]func(map[string]any){
		"a kept transition less": drop("kept"), "an event less": drop("events"),
		"kept ends before the critical transition": func(j map[string]any) {
			m := j["minimized"].(map[string]any)
			kept := m["kept"].([]any)
			kept[len(kept)-1] = m["steps_before"].(float64) + 1
		},
	}
	for _, key := range []string{"states", "transitions", "bytes", "checks", "rejected"} {
		changes["graph "+key+" -1"] = set("graph", key, -1)
	}
	refusesEach(t, data, changes)
}

// TestCheckOut: an output directory that cannot be made, or a result file
// that is a symlink, FIFO or directory, is refused before the search
// (ErrOutput), and nothing there is touched.
func TestCheckOut(t *testing.T) {
	sys := system(t, "transport")
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	withLink := filepath.Join(dir, "link")
	withFIFO := filepath.Join(dir, "fifo")
	for _, d := range []string{withLink, withFIFO} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(target, filepath.Join(withLink, "error.trace")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(withFIFO, "report.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{withLink, withFIFO, "/proc/macemc-out", filepath.Join(target, "sub")} {
		o := transport7(out, 1)
		rep, err := search.Run(context.Background(), sys, o)
		if !errors.Is(err, search.ErrOutput) || rep != nil {
			t.Errorf("--out %s: %v", out, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatal("the symlink's target changed")
	}
	if fi, err := os.Lstat(filepath.Join(withLink, "error.trace")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced or removed")
	}
	if fi, err := os.Lstat(filepath.Join(withFIFO, "report.json")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced or removed")
	}
	for _, d := range []string{withLink, withFIFO} {
		if es, _ := os.ReadDir(d); len(es) != 1 {
			t.Errorf("%s: probe or result files left: %v", d, es)
		}
	}
}

// TestMemoryBounds: a run estimated to need more than MaxMemory is refused
// with a MemoryError naming the part that does not fit; node counts make
// n*n queues.
func TestMemoryBounds(t *testing.T) {
	sys := system(t, "transport")
	wide := &sim.System{Name: "searchtest-wide", Params: []sim.ParamSpec{{Name: "nodes", Kind: sim.ParamInt, Default: "2"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			return &sim.Config{Nodes: p.Int("nodes"), Service: func(sim.NodeID) sim.Service { return &sim.Base{} }}, nil
		}}
	// A system that does not bound its node count: the simulator does.
	if _, err := search.Run(context.Background(), wide, search.Options{Params: map[string]string{"nodes": "100000"}}); !errors.Is(err, search.ErrSystem) || !strings.Contains(err.Error(), "1 to 1024") {
		t.Errorf("100000 nodes: %v", err)
	}
	if _, err := search.Run(context.Background(), wide, search.Options{Params: map[string]string{"nodes": "1024"}, Workers: 8}); !errors.Is(err, search.ErrOptions) || !strings.Contains(err.Error(), "1024 nodes make 1048576 connection queues") {
		t.Errorf("1024 nodes on 8 workers: %v", err)
	}
	for _, c := range []struct {
		opts search.Options
		why  string
	}{
		{search.Options{WalkDepth: search.MaxWalkDepth, Workers: search.MaxWorkers}, "--walk-depth"},
		{search.Options{MaxStates: search.MaxStatesBound, MaxMemory: 1 << 30}, "--max-states"},
		{search.Options{Graph: search.GraphOptions{MaxStates: search.MaxStatesBound}}, "--graph-states"},
	} {
		_, err := search.Run(context.Background(), sys, c.opts)
		var me *search.MemoryError
		if !errors.As(err, &me) || !errors.Is(err, search.ErrOptions) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%+v: %v", c.opts, err)
			continue
		}
		if me.Estimate.Total <= me.Limit {
			t.Errorf("refused an estimate %d under the limit %d", me.Estimate.Total, me.Limit)
		}
	}
	// The default run fits, and its estimate is the visited set's bound
	// (with two workers, speculation's tables beside it), the state
	// graph's and a little more.
	cfg, _, err := sys.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := search.Options{Workers: 2}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	e := search.EstimateMemory(cfg, &o)
	wantVisited := 144<<20 + explore.HintBytes(0) + explore.VisitedBytes(explore.GeneratorStates(0))
	if e.Visited != wantVisited || e.Graph != 300*search.DefaultGraphStates || e.Total > 512<<20 || e.Total < e.Visited+2*e.Graph {
		t.Errorf("default estimate %v", e)
	}
	o.Graph.Off = true
	if e := search.EstimateMemory(cfg, &o); e.Graph != 0 || e.Total > 256<<20 {
		t.Errorf("estimate without the graph %v", e)
	}
	// No limit.
	o = search.Options{MaxStates: search.MaxStatesBound, MaxMemory: -1, MaxPaths: 1}
	if _, err := search.Run(context.Background(), sys, o); err != nil {
		t.Errorf("no limit: %v", err)
	}
	for s, want := range map[string]int64{"4GiB": 4 << 30, "1.5 GiB": 3 << 29, "512M": 512 << 20, "100": 100, "none": -1} {
		if got, err := search.ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "-1G", "4XB", "1e3", "99999999999T", "G"} {
		if _, err := search.ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
}

// TestPrefixWithoutRoom: a prefix as long as d_max (an error trace of the
// same d_max, say) leaves walks no room: refused with a message naming
// --walk-depth, not an internal error of the critical-transition search.
func TestPrefixWithoutRoom(t *testing.T) {
	sys := system(t, "transport")
	dir := t.TempDir()
	if _, err := search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 3000, Out: dir}); err != nil {
		t.Fatal(err)
	}
	_, err := search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 3000, Prefix: filepath.Join(dir, "error.trace")})
	if !errors.Is(err, search.ErrInput) || !strings.Contains(err.Error(), "raise --walk-depth to 3010 or more") {
		t.Fatalf("%v", err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 8000, MaxPaths: 5, Prefix: filepath.Join(dir, "error.trace")})
	if err != nil || rep.Stats.Paths == 0 {
		t.Fatalf("with room: %v", err)
	}
	// A dead path is no live steady state: the search says so; the live
	// alternative is one.
	notLive := func(ws []string) bool {
		return slices.ContainsFunc(ws, func(w string) bool { return strings.Contains(w, "ends in a state that is not live") })
	}
	if !notLive(rep.Warnings) {
		t.Errorf("a dead prefix: warnings %q", rep.Warnings)
	}
	if rep, err := search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 8000, MaxPaths: 5, Prefix: filepath.Join(dir, "live.trace")}); err != nil {
		t.Errorf("a live prefix: %v", err)
	} else if notLive(rep.Warnings) {
		t.Errorf("a live prefix: warnings %q", rep.Warnings)
	}
	// The bound: the first round (5 steps) and a walk as long must fit
	// before d_max.
	if _, err := search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 3009, Prefix: filepath.Join(dir, "error.trace")}); !errors.Is(err, search.ErrInput) {
		t.Errorf("d_max 3009 after a prefix of 3000 steps: %v", err)
	}
	if _, err := search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 3010, MaxPaths: 1, NoCritical: true, Prefix: filepath.Join(dir, "error.trace")}); err != nil {
		t.Errorf("d_max 3010 after a prefix of 3000 steps: %v", err)
	}
	// A prefix of other faults is refused, naming both.
	_, err = search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 8000, MaxPaths: 5, Faults: "drops=0", Prefix: filepath.Join(dir, "error.trace")})
	if !errors.Is(err, search.ErrInput) || !strings.Contains(err.Error(), "(no --faults), not transport") || !strings.Contains(err.Error(), "(--faults drops=0)") {
		t.Errorf("a prefix of other faults: %v", err)
	}
	// A prefix whose replay leaves the states it recorded (another build
	// of the system would run its choices into another state) is refused.
	tr, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil || len(tr.States) < 8*11 {
		t.Fatalf("the trace records %d bytes of states (%v)", len(tr.States), err)
	}
	tr.States[8*10] ^= 1
	other := filepath.Join(t.TempDir(), "prefix.trace")
	if err := tr.Write(other); err != nil {
		t.Fatal(err)
	}
	_, err = search.Run(context.Background(), sys, search.Options{Seed: 7, WalkDepth: 8000, MaxPaths: 5, Prefix: other})
	if !errors.Is(err, search.ErrInput) || !strings.Contains(err.Error(), "its state after step 10 differs from the one the trace recorded") {
		t.Errorf("a prefix that is not the recorded execution: %v", err)
	}
}

// TestLinearizabilityReplays: a history that is not linearizable is a
// finding whose trace replays to the same verdict.
func TestLinearizabilityReplays(t *testing.T) {
	rep, err := search.Run(context.Background(), system(t, "register"), search.Options{Params: map[string]string{"variant": "noquorum"}, Seed: 1, Workers: 1, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Kind != search.KindLinearizability {
		t.Fatalf("finding %+v", f)
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil || !r.Reproduced {
		t.Fatalf("replay: %v %+v", err, r)
	}
	for _, p := range r.Properties {
		if p.Kind == "linearizability" && (p.Holds || p.Unknown) {
			t.Errorf("the replayed history holds: %+v", p)
		}
	}
}

// TestReportHistoryRoundTrip: a linearizability finding's history read
// back from report.json is the one written (ReadReport dropped it), and
// counts no search writes are refused: negative linearizability counts,
// more histories not linearizable than checked, a negative prefix, a
// depth bound past the largest, a critical step past the path's end.
func TestReportHistoryRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), system(t, "register"), search.Options{Params: map[string]string{"variant": "noquorum"}, Seed: 1, Workers: 1, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "report.json")
	back, err := search.ReadReport(file)
	if err != nil {
		t.Fatal(err)
	}
	want, got := rep.First().History, back.First().History
	if got == nil || len(got.Lines) == 0 || len(got.Lines) != len(want.Events) || len(got.MinimalLines) != len(want.Minimal) {
		t.Fatalf("history read back %+v, written %d events (%d minimal)", got, len(want.Events), len(want.Minimal))
	}
	again, err := back.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	if json.Unmarshal(data, &a) != nil || json.Unmarshal(again, &b) != nil || !reflect.DeepEqual(a["history"], b["history"]) || !reflect.DeepEqual(a["minimal_history"], b["minimal_history"]) {
		t.Errorf("the history does not survive a round trip")
	}
	for _, edit := range []func(m map[string]any){
		func(m map[string]any) { m["linearizability"].(map[string]any)["checked"] = -5 },
		func(m map[string]any) { m["linearizability"].(map[string]any)["not_linearizable"] = 1e9 },
		func(m map[string]any) { m["prefix_steps"] = -4 },
		func(m map[string]any) { m["depth_bound"] = 1 << 40 },
		func(m map[string]any) { m["steps"] = -1 },
	} {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		bad, _ := json.Marshal(m)
		path := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := search.ReadReport(path); !errors.Is(err, search.ErrReport) {
			t.Errorf("%s: read back (%v)", bad, err)
		}
	}
}

// TestReportTimesRoundTrip: times written as seconds read back to the same
// seconds (a truncated conversion lost a nanosecond now and then).
func TestReportTimesRoundTrip(t *testing.T) {
	for ns := int64(1); ns < 1e11; ns = ns*11/10 + 1 {
		r := search.Report{System: "s", Stats: explore.Stats{Stop: explore.StopPaths}, Elapsed: time.Duration(ns), SearchTime: time.Duration(ns / 2)}
		b, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		var back search.Report
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back.Elapsed != r.Elapsed || back.SearchTime != r.SearchTime {
			t.Fatalf("%v, %v read back as %v, %v", r.Elapsed, r.SearchTime, back.Elapsed, back.SearchTime)
		}
	}
}

// TestPhasesSayWhereTheTimeWent: a run's report times each phase in the
// order they ran, report.json keeps them, and the summary's total line
// lists them with the minimization apart from the critical transition.
func TestPhasesSayWhereTheTimeWent(t *testing.T) {
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), system(t, "transport"), search.Options{Seed: 7, WalkDepth: 3000, Out: dir, Minimize: true})
	if err != nil || rep.First() == nil || rep.First().Minimized == nil {
		t.Fatalf("setup: %v", err)
	}
	var names []string
	var sum time.Duration
	for _, pt := range rep.Phases {
		names = append(names, pt.Phase.String())
		if pt.Time < 0 {
			t.Errorf("phase %v: %v", pt.Phase, pt.Time)
		}
		sum += pt.Time
	}
	if got := strings.Join(names, " "); got != "precheck search check critical files" || sum > rep.Elapsed {
		t.Errorf("phases %q, %v in all of %v", got, sum, rep.Elapsed)
	}
	back, err := search.ReadReport(filepath.Join(dir, "report.json"))
	if err != nil || len(back.Phases) != len(rep.Phases) {
		t.Fatalf("report.json: %v, %d phases", err, len(back.Phases))
	}
	for i := range back.Phases {
		if d := back.Phases[i].Time - rep.Phases[i].Time; back.Phases[i].Phase != rep.Phases[i].Phase || d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("report.json's phase %d: %+v, the run's %+v", i, back.Phases[i], rep.Phases[i])
		}
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"precheck ", ", search ", ", determinism check ", ", critical transition ", ", minimization ", ", files "} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("the total line lacks %q:\n%s", w, b.String())
		}
	}
}

// TestReplayOfAC2Path: a C2 answer names no transition, in report.json
// (step -1, no event) and in replay's text, which printed the step where
// the search stopped as the critical transition.
func TestReplayOfAC2Path(t *testing.T) {
	dir := t.TempDir()
	rep, err := search.Run(context.Background(), system(t, "philosophers"), search.Options{Params: map[string]string{"n": "2", "fixed": "true"},
		Lasso: search.LassoOptions{NodeFairness: true}, Seed: 1, WalkDepth: 400, MaxPaths: 2000, Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.First().Critical
	if c == nil || c.Condition != critical.C2 || c.Step != -1 || c.Event != "" || c.Node != -1 {
		t.Fatalf("critical %+v, want C2 with no step or event", c)
	}
	tr, err := trace.Read(rep.Files[search.FileErrorTrace])
	if err != nil {
		t.Fatal(err)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b, "error.trace", ""); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "no critical transition found within the search depth (C2)") || strings.Contains(out, "critical transition: step") {
		t.Errorf("replay says:\n%s", out)
	}
}

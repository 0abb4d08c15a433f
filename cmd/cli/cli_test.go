package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
)

// poison: node 0's periodic timer counts to 3 (live); node 1's driver sends
// "poison", and if node 0 receives it before reaching 3 it stops counting
// forever. The critical transition is node 0 receiving the poison early.
type poison struct {
	sim.Base
	N        int
	Poisoned bool
	Fixed    bool
}

func (p *poison) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.SetPeriodic("tick")
	}
}

func (p *poison) HandleTimer(ctx *sim.Context, name string) {
	if !p.Poisoned && p.N < 3 {
		p.N++
	}
}

// poisonFlaky stands for a change to the code that makes it
// nondeterministic; poisonCalls is what it counts with.
var (
	poisonFlaky bool
	poisonCalls int
)

func (p *poison) HandleApp(ctx *sim.Context, req any) { ctx.Send(0, "poison") }

// poisonFixedInCode stands for a fix made in the code rather than by a
// parameter: a trace recorded before it is replayed by another build.
var poisonFixedInCode bool

func (p *poison) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if poisonFlaky {
		// Counts in a package variable: each call differs from the last.
		poisonCalls++
		p.N = 10 + poisonCalls
		return
	}
	if !p.Fixed && !poisonFixedInCode && p.N < 3 {
		p.Poisoned = true
	}
}

func init() {
	sim.Register(&sim.System{
		Name:   "clitest-poison",
		Doc:    "test system: a counter that a poison message can stop forever",
		Params: []sim.ParamSpec{{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "ignore poison"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			fixed := p.Bool("fixed")
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &poison{Fixed: fixed} },
				App: func(id sim.NodeID) []any {
					if id == 1 {
						return []any{"send"}
					}
					return nil
				},
				Liveness: []sim.Property{{Name: "Counted", Check: func(v *sim.View) bool { return sim.Node[poison](v, 0).N >= 3 }}},
				Safety:   []sim.Property{{Name: "Bounded", Check: func(v *sim.View) bool { return sim.Node[poison](v, 0).N <= 3 }}},
				// Ticks are likelier than the poison's delivery, so most
				// walks turn live and the poison's early arrival is rare.
				Weights: sim.Weights{Timer: 8, Message: 1},
			}, nil
		},
	})
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := &App{Name: "macemc", Stdout: &out, Stderr: &errb}
	code := app.Run(args)
	return code, out.String(), errb.String()
}

func TestSearchFindsReportsAndReplays(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "search", "--system", "clitest-poison", "--out", dir, "--seed", "1", "--depth", "1", "--walk-depth", "200", "--json")
	if code != ExitViolation {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, out)
	}
	for _, k := range []string{"verdict", "property", "seed", "paths", "transitions", "elapsed_s", "files", "critical"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	if rep["verdict"] != "liveness" || rep["property"] != "Counted" {
		t.Errorf("verdict %v property %v", rep["verdict"], rep["property"])
	}
	crit := rep["critical"].(map[string]any)
	if crit["condition"] != "C1" || !strings.Contains(crit["event"].(string), `node 0 receives "poison" from node 1`) {
		t.Errorf("critical transition: %v", crit)
	}
	for _, f := range []string{"error.trace", "error.log", "live.trace", "live.log", "report.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	// The replay command from the report reproduces the violation.
	replay := rep["replay"].(string)
	if !strings.HasPrefix(replay, "macemc replay --trace ") {
		t.Fatalf("replay command %q", replay)
	}
	code, out, errs = run(t, "replay", "--trace", filepath.Join(dir, "error.trace"), "--json")
	if code != ExitViolation || !strings.Contains(out, `"reproduced": true`) {
		t.Errorf("replay: exit %d\n%s%s", code, out, errs)
	}
	// --json says how many steps ran of how many the trace has.
	tr, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ = run(t, "replay", "--trace", filepath.Join(dir, "error.trace"), "--steps", "2", "--json")
	var counts struct{ Steps, Total int }
	if err := json.Unmarshal([]byte(out), &counts); err != nil || counts.Steps != 2 || counts.Total != tr.Steps {
		t.Errorf("replay --steps 2 --json: steps %d, total %d (want 2, %d), %v\n%s", counts.Steps, counts.Total, tr.Steps, err, out)
	}
	// The live alternative has no critical transition of its own: --json
	// gives the dead path's under names that say so.
	_, out, _ = run(t, "replay", "--trace", filepath.Join(dir, "live.trace"), "--json")
	var live struct {
		Kind, Condition   string
		Critical          int
		DeadPathCritical  int    `json:"dead_path_critical"`
		DeadPathCondition string `json:"dead_path_condition"`
	}
	if err := json.Unmarshal([]byte(out), &live); err != nil || live.Kind != "live" || live.Critical != -1 || live.Condition != "" ||
		live.DeadPathCritical != tr.Critical || live.DeadPathCondition != tr.Condition || tr.Critical < 0 {
		t.Errorf("replay of live.trace --json: %+v (the error trace's critical step %d, %s), %v\n%s", live, tr.Critical, tr.Condition, err, out)
	}
	// The error log is deterministic: replaying again writes the same
	// bytes, its "#" header and footer lines included.
	logPath := filepath.Join(t.TempDir(), "again.log")
	run(t, "replay", "--trace", filepath.Join(dir, "error.trace"), "--log", logPath)
	a, _ := os.ReadFile(filepath.Join(dir, "error.log"))
	b, _ := os.ReadFile(logPath)
	if !bytes.Equal(a, b) || len(b) == 0 {
		t.Errorf("replayed log differs from error.log: %d and %d bytes", len(b), len(a))
	}
	// critical re-runs on the trace with a larger k and agrees; a d_max
	// below the trace's length is raised to it, saying so.
	code, out, errs = run(t, "critical", "--trace", filepath.Join(dir, "error.trace"), "--walks", "40", "--walk-depth", "1", "--out", t.TempDir())
	note := fmt.Sprintf("macemc critical: note: --walk-depth 1 is too short for the trace's %d steps: the search used d_max = %d\n", tr.Steps, tr.Steps)
	if code != ExitViolation || !strings.Contains(out, "condition C1") || errs != note {
		t.Errorf("critical: exit %d\n%s%s", code, out, errs)
	}
	// --confirm-budget bounds its confirmation samples: one transition
	// takes one walk from each side.
	code, out, errs = run(t, "critical", "--trace", filepath.Join(dir, "error.trace"), "--confirm-budget", "1", "--json", "--out", t.TempDir())
	var refined struct {
		Confidence struct{ Walks int }
	}
	if err := json.Unmarshal([]byte(out), &refined); code != ExitViolation || err != nil || refined.Confidence.Walks != 1 {
		t.Errorf("critical --confirm-budget 1: exit %d, %v, confidence %+v\n%s%s", code, err, refined.Confidence, out, errs)
	}
	// Without --json the summary ends with the replay command.
	code, out, _ = run(t, "search", "--system", "clitest-poison", "--out", t.TempDir(), "--seed", "1", "--walk-depth", "200")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != ExitViolation || !strings.HasPrefix(lines[len(lines)-1], "replay: macemc replay --trace ") {
		t.Errorf("summary does not end with the replay command:\n%s", out)
	}
}

func TestFixedVariantIsClean(t *testing.T) {
	code, out, errs := run(t, "search", "--system", "clitest-poison", "--param", "fixed=true", "--out", t.TempDir(), "--depth", "10", "--walk-depth", "200")
	if code != ExitNone || !strings.Contains(out, "nothing found within this budget") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

func TestCorruptTraceIsRefused(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--out", dir, "--walk-depth", "200"); code != ExitViolation {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.trace")
	for name, content := range map[string][]byte{
		"truncated": data[:len(data)/2],
		"flipped":   append(append([]byte{}, data[:len(data)-3]...), data[len(data)-3]^0xff, 0, 0),
		"text":      []byte("hello, world\n"),
	} {
		os.WriteFile(bad, content, 0o644)
		code, _, errs := run(t, "replay", "--trace", bad)
		if code != ExitUsage || !strings.Contains(errs, "trace:") {
			t.Errorf("%s trace: exit %d: %s", name, code, errs)
		}
	}
	tr, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatalf("the good trace no longer reads: %v", err)
	}
	// A trace of a system this binary does not register: the message says
	// which binary replays it.
	tr.System = "clitest-unregistered"
	if err := tr.Write(bad); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"replay", "critical"} {
		code, out, errs := run(t, cmd, "--trace", bad)
		if code != ExitUsage || !strings.Contains(errs, `unknown system "clitest-unregistered"`) || !strings.Contains(errs, "a main package that imports the system's package and calls cli.Main") {
			t.Errorf("%s of an unregistered system: exit %d: %s", cmd, code, errs)
		}
		if out != "" {
			// replay logs to standard output: not a line of a log that
			// cannot be replayed.
			t.Errorf("%s of an unregistered system printed %q", cmd, out)
		}
	}
}

func TestListAndTune(t *testing.T) {
	code, out, _ := run(t, "list", "--json")
	if code != ExitNone || !strings.Contains(out, `"clitest-poison"`) || !strings.Contains(out, `"Counted"`) {
		t.Errorf("list --json: exit %d\n%s", code, out)
	}
	// The text lists strategy options with their ranges, as it does
	// systems' parameters.
	if code, out, _ := run(t, "list"); code != ExitNone || !strings.Contains(out, "--pct-steps=100 (int, 1 to ") {
		t.Errorf("list: exit %d, no range for --pct-steps\n%s", code, out)
	}
	dir := t.TempDir()
	svg := filepath.Join(dir, "tune.svg")
	code, out, errs := run(t, "tune", "--system", "clitest-poison", "--param", "fixed=true", "--samples", "50", "--walk-depth", "500", "--depth", "3", "--svg", svg, "--out", dir)
	if code != ExitNone || !strings.Contains(out, "p50") || !strings.Contains(out, "suggested --walk-depth") {
		t.Errorf("tune: exit %d\n%s%s", code, out, errs)
	}
	if data, err := os.ReadFile(svg); err != nil || !bytes.HasPrefix(data, []byte("<svg")) || !bytes.Contains(data, []byte(`id="dmax"`)) {
		t.Errorf("tune svg (with the suggested d_max marked): %v", err)
	}
	page := filepath.Join(dir, "tune.html")
	if data, err := os.ReadFile(page); err != nil || !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("suggested d_max = ")) || !strings.Contains(out, "plot: "+page) {
		t.Errorf("tune's page %s: %v\n%s", page, err, out)
	}
}

// A service whose replays diverge is a finding (exit 1) with the path
// that shows it, not a search: nothing found in it could be trusted.
func TestNondeterministicServiceIsReported(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "search", "--system", simtest.Leak, "--out", dir, "--json")
	if code != ExitViolation {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	// The report names the step, the event, the node and the field.
	if rep.Verdict != "nondeterministic" || rep.Kind != "nondeterminism" || rep.Files["error_trace"] == "" ||
		!strings.Contains(rep.Error, "differ in the state after step") || !strings.Contains(rep.Error, " field .") {
		t.Errorf("report %+v", rep)
	}
}

func TestCriticalInsideTheSearchDepth(t *testing.T) {
	// With the default depth (5) the poison usually arrives within the
	// bounded search: Algorithm 3 alone answers C2 at d_init, and the CLI
	// probes again from the initial state to find the C1 transition.
	code, out, errs := run(t, "search", "--system", "clitest-poison", "--out", t.TempDir(), "--seed", "1", "--walk-depth", "200", "--json")
	if code != ExitViolation {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Critical == nil || rep.Critical.Condition != "C1" || !strings.Contains(rep.Critical.Event, `receives "poison"`) {
		t.Fatalf("critical %+v", rep.Critical)
	}
	if rep.Critical.Step <= rep.Depth && rep.CriticalNote == "" {
		t.Errorf("critical step %d within the depth %d but no note says how it was found", rep.Critical.Step, rep.Depth)
	}
}

func TestStaleResultsAreReplaced(t *testing.T) {
	dir := t.TempDir()
	if code, _, _ := run(t, "search", "--system", "clitest-poison", "--out", dir, "--depth", "1", "--walk-depth", "200"); code != ExitViolation {
		t.Fatal("no violation to start from")
	}
	if _, err := os.Stat(filepath.Join(dir, "live.trace")); err != nil {
		t.Fatal("the first run wrote no live.trace")
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if code, _, _ := run(t, "search", "--system", "clitest-poison", "--param", "fixed=true", "--out", dir, "--depth", "3", "--walk-depth", "50"); code != ExitNone {
		t.Fatal("the fixed variant found something")
	}
	for _, f := range []string{"error.trace", "live.trace", "error.log", "live.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("stale %s left beside the new report", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Error("a file that is not macemc's was removed")
	}
}

func TestHandlerHangIsReported(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "search", "--system", simtest.Hang, "--out", dir, "--handler-timeout", "200ms", "--workers", "1", "--json")
	if code != ExitViolation {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != "safety" || rep.Property != "handler did not return" || !strings.Contains(rep.Error, "did not return within 200ms") {
		t.Errorf("report: %+v", rep)
	}
	if rep.Replay == "" || rep.Files["error_trace"] == "" {
		t.Errorf("no replay command or trace: %+v", rep.Files)
	}
}

// Report is what these tests read of report.json.
type Report struct {
	Verdict  string `json:"verdict"`
	Kind     string `json:"kind"`
	Property string `json:"property"`
	Error    string `json:"error"`
	Depth    int    `json:"depth"`
	Critical *struct {
		Step      int    `json:"step"`
		Condition string `json:"condition"`
		Event     string `json:"event"`
	} `json:"critical"`
	CriticalNote string            `json:"critical_note"`
	Files        map[string]string `json:"files"`
	Replay       string            `json:"replay"`
}

// TestReplayOfAChangedSystem: a trace replayed after the system's code
// changed says where the replay left the recorded execution and exits 2,
// instead of showing another execution as the recorded one ("not
// reproduced", exit 0, before traces recorded their states); critical
// refuses it the same way.
func TestReplayOfAChangedSystem(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--out", dir, "--seed", "1", "--walk-depth", "200"); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	errTrace := filepath.Join(dir, "error.trace")
	tr, err := trace.Read(errTrace)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.States) == 0 || tr.Build != trace.BuildID() {
		t.Fatalf("the search's trace records %d bytes of states, build %q", len(tr.States), tr.Build)
	}
	// The same build replays it as recorded.
	if code, out, errs := run(t, "replay", "--trace", errTrace, "--log", filepath.Join(t.TempDir(), "x.log")); code != ExitViolation || strings.Contains(out+errs, "not the recorded execution") {
		t.Fatalf("replay by the same build: exit %d\n%s%s", code, out, errs)
	}
	poisonFixedInCode = true
	defer func() { poisonFixedInCode = false }()
	code, out, errs := run(t, "replay", "--trace", errTrace, "--json")
	var r struct {
		Reproduced bool
		Diverged   struct {
			Step      int
			SameBuild bool `json:"same_build"`
			Text      string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("replay --json: %v\n%s%s", err, out, errs)
	}
	if code != ExitUsage || r.Reproduced || r.Diverged.Step != tr.Critical || !r.Diverged.SameBuild {
		t.Errorf("replay by a changed build: exit %d, %+v (the poison's delivery is step %d)\n%s%s", code, r, tr.Critical, out, errs)
	}
	yLog := filepath.Join(t.TempDir(), "y.log")
	code, out, _ = run(t, "replay", "--trace", errTrace, "--log", yLog)
	if code != ExitUsage || !strings.Contains(out, "the replay is not the recorded execution: its state after step") ||
		!strings.Contains(out, "not reproduced: Counted, but this replay is not the trace's execution") ||
		!strings.Contains(out, "replays of its choices in this process agree: what it depends on was otherwise when the trace was written") {
		t.Errorf("replay by a changed build: exit %d\n%s", code, out)
	}
	// The log says so where it happens, after the step's lines and
	// before the next step's, not only in the summary after the log.
	logText, err := os.ReadFile(yLog)
	if err != nil {
		t.Fatal(err)
	}
	notice := fmt.Sprintf("# the replay leaves the recorded execution here: its state after step %d differs", tr.Critical)
	at := strings.Index(string(logText), notice)
	before := string(logText[:max(at, 0)])
	if at < 0 || !strings.Contains(before, fmt.Sprintf(" step=%d\n", tr.Critical)) || strings.Contains(before, fmt.Sprintf(" step=%d\n", tr.Critical+1)) {
		t.Errorf("the log does not say where the replay left the recorded execution (%q after step %d's lines):\n%s", notice, tr.Critical, logText)
	}
	// Changed to count in a package variable: replays in this process
	// differ too, and say where.
	poisonFixedInCode, poisonFlaky = false, true
	defer func() { poisonFlaky = false }()
	code, out, _ = run(t, "replay", "--trace", errTrace, "--log", filepath.Join(t.TempDir(), "z.log"))
	if code != ExitUsage || !strings.Contains(out, "replays of its choices in this process differ too: ") || !strings.Contains(out, "node 0 (*cli.poison) field .N") {
		t.Errorf("replay by a nondeterministic build: exit %d\n%s", code, out)
	}
	poisonFixedInCode, poisonFlaky = true, false
	code, _, errs = run(t, "critical", "--trace", errTrace, "--out", t.TempDir())
	if code != ExitUsage || !strings.Contains(errs, "not the recorded execution") {
		t.Errorf("critical on a changed build: exit %d\n%s", code, errs)
	}
	code, _, errs = run(t, "report", dir, "--html", filepath.Join(t.TempDir(), "page.html"))
	if code != ExitUsage || !strings.Contains(errs, "not the recorded execution") {
		t.Errorf("report on a changed build: exit %d\n%s", code, errs)
	}
}

// TestNoBudgetNote: a search with progress shown and no budget says how it
// will end; one with a budget does not.
func TestNoBudgetNote(t *testing.T) {
	for _, c := range []struct {
		args []string
		note bool
	}{
		{[]string{"--progress", "lines"}, true},
		{[]string{"--progress", "lines", "--max-paths", "50"}, false},
		{[]string{"--progress", "lines", "--depth", "5"}, false},
		{[]string{"--progress", "none"}, false},
	} {
		args := append([]string{"search", "--system", "clitest-poison", "--seed", "1", "--walk-depth", "200", "--out", t.TempDir()}, c.args...)
		_, _, errs := run(t, args...)
		if got := strings.Contains(errs, "note: no budget given (--time or --max-paths): the search goes on until"); got != c.note {
			t.Errorf("%v: note %v, want %v\n%s", c.args, got, c.note, errs)
		}
		// The default dfs also ends where its deepening reaches half the
		// walk depth (stopped: depth), which the note left out.
		if c.note && !strings.Contains(errs, "until it has nothing left to explore, its depth bound reaches half of --walk-depth (100), its heap reaches --max-memory 4GiB, or Ctrl-C") {
			t.Errorf("%v: the note does not say how the search ends:\n%s", c.args, errs)
		}
	}
	_, _, errs := run(t, "search", "--system", "clitest-poison", "--seed", "1", "--walk-depth", "200", "--strategy", "random", "--progress", "lines", "--out", t.TempDir())
	if !strings.Contains(errs, "note: no budget given") || strings.Contains(errs, "depth bound") {
		t.Errorf("a strategy without deepening: %s", errs)
	}
}

// A replay's log is never written over a trace: not the trace replayed
// (--log given its path by mistake), nor another.
func TestReplayLogNeverReplacesATrace(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--out", dir, "--seed", "1", "--walk-depth", "200"); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	errTrace := filepath.Join(dir, "error.trace")
	for _, target := range []string{errTrace, filepath.Join(dir, "live.trace")} {
		code, out, errs := run(t, "replay", "--trace", errTrace, "--log", target)
		if code != ExitUsage || !strings.Contains(errs, "refusing to replace it: trace: the file is a macemc trace") {
			t.Errorf("--log %s: exit %d\n%s%s", filepath.Base(target), code, out, errs)
		}
		if _, err := trace.Read(target); err != nil {
			t.Errorf("%s was replaced: %v", filepath.Base(target), err)
		}
	}
}

// TestHelp: a command's --help, and help COMMAND, print its usage on
// stdout and exit 0 (it went to stderr, and help COMMAND printed the
// general usage).
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "replay"}, {"replay", "--help"}} {
		code, out, errs := run(t, args...)
		if code != ExitNone || !strings.HasPrefix(out, "Usage: macemc replay --trace FILE") || errs != "" {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
	}
	if code, _, errs := run(t, "help", "nope"); code != ExitUsage || !strings.Contains(errs, `unknown command "nope"`) {
		t.Errorf("help nope: exit %d, %s", code, errs)
	}
}

// TestCriticalTimeBudget: critical --time bounds the search as search
// --time does. When it runs out, the explanation (what stopped the search,
// how far its probes had got) is printed once (it was the headline and
// then again, indented, word for word), and no file is written. A budget
// of 1ns has run out before the first probe, whatever the machine.
func TestCriticalTimeBudget(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--out", dir, "--seed", "1", "--depth", "1", "--walk-depth", "200", "--no-critical"); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	out2 := t.TempDir()
	code, out, errs := run(t, "critical", "--trace", filepath.Join(dir, "error.trace"), "--time", "1ns", "--out", out2)
	const stopped = "The time budget (--time) ran out before the critical transition was found."
	if code != ExitViolation || strings.Count(out, stopped) != 1 || !strings.HasPrefix(out, stopped) ||
		!strings.Contains(out, "no file written: the search stopped at its time budget (--time 1ns)") ||
		!strings.Contains(out, "Re-run it on the trace with `macemc critical --trace "+filepath.Join(dir, "error.trace")+"`") {
		t.Errorf("critical --time 1ns: exit %d\n%s%s", code, out, errs)
	}
	for _, name := range []string{"critical.json", "live.trace", "live.log"} {
		if _, err := os.Stat(filepath.Join(out2, name)); err == nil {
			t.Errorf("critical --time 1ns wrote %s", name)
		}
	}
	// A budget that does not run out changes nothing.
	code, out, errs = run(t, "critical", "--trace", filepath.Join(dir, "error.trace"), "--time", "1h", "--out", out2)
	if code != ExitViolation || !strings.Contains(out, "condition C1") || strings.Contains(out, "time budget") {
		t.Errorf("critical --time 1h: exit %d\n%s%s", code, out, errs)
	}
}

// TestTuneDepthZero: tune --depth 0 walks from the initial state, and
// says so in its text and --json (it walked from depth 15, the library's
// default for 0, while --json said depth 0). The poison counter needs 3
// ticks: from the initial state a tenth of the samples are live by step
// 15, after a periphery of 15 none is before step 16.
func TestTuneDepthZero(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		depth, lo, hi int // p10's bounds
	}{{0, 3, 15}, {15, 16, 500}} {
		args := []string{"tune", "--system", "clitest-poison", "--param", "fixed=true", "--samples", "50", "--walk-depth", "500", "--depth", fmt.Sprint(tc.depth), "--html", "-", "--out", dir}
		code, out, errs := run(t, append(args, "--json")...)
		var res struct {
			Depth       int            `json:"depth"`
			Percentiles map[string]int `json:"percentiles"`
		}
		if err := json.Unmarshal([]byte(out), &res); code != ExitNone || err != nil {
			t.Fatalf("tune --depth %d --json: exit %d, %v\n%s%s", tc.depth, code, err, out, errs)
		}
		if p := res.Percentiles["p10"]; res.Depth != tc.depth || p < tc.lo || p > tc.hi {
			t.Errorf("tune --depth %d --json: depth %d, p10 %d, want %d to %d\n%s", tc.depth, res.Depth, p, tc.lo, tc.hi, out)
		}
		code, out, errs = run(t, args...)
		if want := fmt.Sprintf("50 walks from depth %d,", tc.depth); code != ExitNone || !strings.Contains(out, want) {
			t.Errorf("tune --depth %d: exit %d, want %q\n%s%s", tc.depth, code, want, out, errs)
		}
	}
}

// TestErrorsNameTheirCommand: replay's and critical's errors begin with
// their own command, not the "search:" of the library's error texts
// (search.ErrOutput, ErrInput), which read as another command's.
func TestErrorsNameTheirCommand(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--walk-depth", "100", "--out", dir); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	afile := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(afile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	errTrace, liveTrace := filepath.Join(dir, "error.trace"), filepath.Join(dir, "live.trace")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--trace", errTrace, "--log", dir}, "macemc replay: " + errTrace + ": cannot write results: log write " + dir + ": refusing to replace a directory: not a regular file\n"},
		{[]string{"critical", "--trace", errTrace, "--out", afile}, "macemc critical: cannot write results: mkdir " + afile + ": not a directory\n"},
		{[]string{"critical", "--trace", liveTrace}, "macemc critical: bad input: the trace records a \"live\" path, not a liveness violation"},
	} {
		code, _, errs := run(t, tc.args...)
		if code != ExitUsage || !strings.HasPrefix(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestTuneViolationExitsOne: walks of tune that broke a safety property
// (here a handler that panics) found a violation: exit 1, as every
// command exits with one, and stderr says so with the search that finds
// it (tune exited 0).
func TestTuneViolationExitsOne(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		args := []string{"tune", "--system", "clitest-hostile", "--param", "mode=panic", "--samples", "20", "--walk-depth", "50", "--html", "-"}
		if asJSON {
			args = append(args, "--json")
		}
		code, out, errs := run(t, args...)
		want := "macemc tune: a violation: 20 of 20 walks broke a safety property (or a handler panicked or hung); search for it to get a trace to replay: macemc search --system clitest-hostile --param mode=panic\n"
		if code != ExitViolation || errs != want {
			t.Errorf("json %v: exit %d, stderr %q; want 1 and %q\n%s", asJSON, code, errs, want, out)
		}
	}
	if code, out, errs := run(t, "tune", "--system", "clitest-poison", "--param", "fixed=true", "--samples", "20", "--walk-depth", "500", "--html", "-"); code != ExitNone || errs != "" {
		t.Errorf("tune of a safe system: exit %d, stderr %q\n%s", code, errs, out)
	}
}

// TestMdbFailedCommandExitsTwo: `macemc mdb -c` with a command that fails
// exits 2, a usage or input error, as the top-level help says: 1 is a
// violation found, which a CI wrapper read it as.
func TestMdbFailedCommandExitsTwo(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--walk-depth", "100", "--out", dir); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	for script, want := range map[string]int{"bogus; n": ExitUsage, "j 99999": ExitUsage, "n; j crit": ExitNone} {
		if code, out, errs := run(t, "mdb", dir, "-c", script); code != want {
			t.Errorf("mdb -c %q: exit %d, want %d\n%s%s", script, code, want, out, errs)
		}
	}
}

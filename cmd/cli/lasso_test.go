package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/macemc/macemc/services/philosophers"
	_ "github.com/macemc/macemc/services/proposers"
	_ "github.com/macemc/macemc/services/storage"
	"github.com/macemc/macemc/sim/trace"
	_ "github.com/macemc/macemc/walks/lasso/lassotest"
)

// searchJSON runs `search --json` with args and decodes the report.
func searchJSON(t *testing.T, wantCode int, args ...string) (map[string]any, string) {
	t.Helper()
	dir := t.TempDir()
	code, out, errs := run(t, append([]string{"search", "--json", "--out", dir}, args...)...)
	return decodeReport(t, args, wantCode, code, out, errs), dir
}

// walkJSON is searchJSON without the explored state graph, for the tests
// of what the walks find (lassos, temperature alarms, C2 checks).
func walkJSON(t *testing.T, wantCode int, args ...string) (map[string]any, string) {
	t.Helper()
	return searchJSON(t, wantCode, append([]string{"--no-graph"}, args...)...)
}

func decodeReport(t *testing.T, args []string, wantCode, code int, out, errs string) map[string]any {
	t.Helper()
	if code != wantCode {
		t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, wantCode, out, errs)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: --json output: %v\n%s", args, err, out)
	}
	return rep
}

func num(v any) int {
	f, _ := v.(float64)
	return int(f)
}

func obj(t *testing.T, rep map[string]any, key string) map[string]any {
	t.Helper()
	m, ok := rep[key].(map[string]any)
	if !ok {
		t.Fatalf("report has no object %q: %v", key, rep)
	}
	return m
}

// checkLassoReport checks a kind "lasso" report: stem and cycle agree
// with the lasso object, the error trace marks the cycle, and replaying
// it reproduces the violation.
func checkLassoReport(t *testing.T, rep map[string]any, dir, hash string) {
	t.Helper()
	checkLassoView(t, rep, dir, hash, "lasso")
}

// checkLassoView checks the lasso part of a report whose kind is kind
// ("lasso", or "dead" when a C1 critical transition comes first).
func checkLassoView(t *testing.T, rep map[string]any, dir, hash, kind string) {
	t.Helper()
	if rep["verdict"] != "liveness" || rep["kind"] != kind {
		t.Fatalf("verdict %v kind %v, want liveness %s", rep["verdict"], rep["kind"], kind)
	}
	l := obj(t, rep, "lasso")
	stem, n := num(rep["stem"]), num(l["cycle_length"])
	cycle, _ := rep["cycle"].([]any)
	if num(l["stem"]) != stem || n == 0 || len(cycle) != n || num(cycle[0]) != stem+1 || num(cycle[n-1]) != stem+n {
		t.Errorf("stem %d, cycle %v, lasso %v", stem, cycle, l)
	}
	if num(l["confirmed_replays"]) != 10 || l["hash"] != hash || l["proof"] != (hash == "exact") || len(l["events"].([]any)) != n {
		t.Errorf("lasso %v", l)
	}
	if note := l["note"].(string); hash == "exact" && !strings.Contains(note, "proves the liveness violation") || hash != "exact" && !strings.Contains(note, "not an infinite execution") {
		t.Errorf("note: %s", note)
	}
	if num(rep["steps"]) != stem+n {
		t.Errorf("steps %v, want %d", rep["steps"], stem+n)
	}
	tr, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Kind != "liveness" || tr.CycleStart != stem || tr.CycleLen != n || tr.Steps != stem+n || tr.Note == "" {
		t.Errorf("trace: kind %s cycle %d+%d steps %d", tr.Kind, tr.CycleStart, tr.CycleLen, tr.Steps)
	}
	code, out, errs := run(t, "replay", "--trace", filepath.Join(dir, "error.trace"), "--json")
	if code != ExitViolation || !strings.Contains(out, `"reproduced": true`) {
		t.Errorf("replay: exit %d\n%s%s", code, out, errs)
	}
	// critical walks a lasso's path on to d_max: a lasso of transient
	// states has no critical transition, and critical says so; a dead
	// execution that loops (kind dead) has its C1, the search's.
	code, out, errs = run(t, "critical", "--trace", filepath.Join(dir, "error.trace"), "--out", t.TempDir())
	switch {
	case kind == "lasso" && (code != ExitUsage || !strings.Contains(errs, "the trace is a lasso") || !strings.Contains(errs, "has no critical transition")):
		t.Errorf("critical on a lasso: exit %d\n%s%s", code, out, errs)
	case kind == "dead" && (code != ExitViolation || !strings.Contains(out, "(condition C1")):
		t.Errorf("critical on a dead path that loops: exit %d\n%s%s", code, out, errs)
	}
}

// TestSearchLassoPhilosophers: `search --lasso` reports the philosophers'
// livelock as a lasso, and the critical-transition search finds no dead
// state (C2): there is no critical transition. The report does not depend
// on the number of workers.
func TestSearchLassoPhilosophers(t *testing.T) {
	for _, n := range []string{"2", "3"} {
		args := []string{"--system", "philosophers", "--param", "n=" + n, "--lasso", "--walk-depth", "400", "--walks", "10"}
		rep, dir := walkJSON(t, ExitViolation, args...)
		checkLassoReport(t, rep, dir, "exact")
		if c := obj(t, rep, "critical"); c["condition"] != "C2" {
			t.Errorf("n=%s: critical transition claimed: %v", n, c)
		}
		if s := obj(t, rep, "lasso_stats"); num(s["confirmed"]) < 1 || s["method"] != "lasso" {
			t.Errorf("n=%s: lasso_stats %v", n, s)
		}
		if n == "2" {
			for _, w := range []string{"1", "2"} {
				again, _ := walkJSON(t, ExitViolation, append(args, "--workers", w)...)
				if num(again["stem"]) != num(rep["stem"]) || num(again["path"]) != num(rep["path"]) || len(again["cycle"].([]any)) != len(rep["cycle"].([]any)) {
					t.Errorf("--workers %s: stem %v path %v, want %v %v", w, again["stem"], again["path"], rep["stem"], rep["path"])
				}
			}
		}
	}
	// The text report shows the cycle.
	code, out, _ := run(t, "search", "--system", "philosophers", "--no-graph", "--param", "n=2", "--lasso", "--walk-depth", "400", "--walks", "10", "--out", t.TempDir())
	for _, want := range []string{"LIVENESS VIOLATION of EveryoneEats (lasso", "lasso: a stem of", "condition C2", "Confirmed lasso", "lasso over 1 walk: 1 lasso confirmed"} {
		if code != ExitViolation || !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

// TestSearchLassoClean: the fixed philosophers show no lasso within the
// budget, though unfair hot cycles are seen.
func TestSearchLassoClean(t *testing.T) {
	rep, _ := walkJSON(t, ExitNone, "--system", "philosophers", "--param", "n=2", "--param", "fixed=true", "--lasso", "--max-paths", "300", "--walk-depth", "400")
	s := obj(t, rep, "lasso_stats")
	if num(s["confirmed"]) != 0 || num(s["unfair"]) == 0 || rep["kind"] != nil {
		t.Errorf("fixed: %v", rep)
	}
}

// TestSearchUnfairNotLasso: the starving ping-pong's walks end dead; the
// critical-transition search finds no dead state (C2), but the hot cycles
// are unfair, so no lasso is reported: kind "dead".
func TestSearchUnfairNotLasso(t *testing.T) {
	rep, _ := walkJSON(t, ExitViolation, "--system", "lasso-starve", "--param", "app-weight=4", "--lasso", "--walk-depth", "1000", "--walks", "20", "--seed", "3")
	if rep["kind"] != "dead" || rep["lasso"] != nil || rep["stem"] != nil {
		t.Errorf("kind %v lasso %v", rep["kind"], rep["lasso"])
	}
	if c := obj(t, rep, "critical"); c["condition"] != "C2" {
		t.Errorf("critical %v", c)
	}
	if s := obj(t, rep, "lasso_stats"); num(s["confirmed"]) != 0 || num(s["unfair"]) == 0 {
		t.Errorf("lasso_stats %v", s)
	}
}

// TestSearchPartialHash: the proposers' ballots grow, so exact hashing
// finds nothing and --partial-hash finds the lasso; the fixed variant has
// none either way.
func TestSearchPartialHash(t *testing.T) {
	base := []string{"--system", "proposers", "--lasso", "--walk-depth", "400", "--walks", "10"}
	rep, _ := walkJSON(t, ExitNone, append(base, "--max-paths", "300")...)
	if s := obj(t, rep, "lasso_stats"); num(s["confirmed"]) != 0 || num(s["repeats"]) != 0 {
		t.Errorf("exact: %v", s)
	}
	rep, dir := walkJSON(t, ExitViolation, append(base, "--partial-hash")...)
	checkLassoReport(t, rep, dir, "partial")
	rep, _ = walkJSON(t, ExitNone, append(base, "--partial-hash", "--param", "fixed=true", "--max-paths", "300")...)
	if s := obj(t, rep, "lasso_stats"); num(s["confirmed"]) != 0 {
		t.Errorf("fixed: %v", s)
	}
}

// TestSearchTemperature: the temperature method raises an alarm on the
// slow but live ball, and the report shows it is false (the execution
// became live, no lasso in its path); on the philosophers its alarm's path
// holds the livelock's lasso.
func TestSearchTemperature(t *testing.T) {
	rep, dir := walkJSON(t, ExitViolation, "--system", "lasso-slow", "--temperature", "50", "--walk-depth", "1000", "--max-paths", "20")
	tr := obj(t, rep, "temperature")
	if rep["kind"] != "temperature" || tr["verdict"] != "false alarm" || num(tr["live_at"]) != 200 || num(tr["threshold"]) != 50 || num(rep["steps"]) != num(tr["alarm_step"]) {
		t.Errorf("slow: kind %v temperature %v steps %v", rep["kind"], tr, rep["steps"])
	}
	et, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil || et.Kind != "liveness" || et.Steps != num(tr["alarm_step"]) {
		t.Errorf("error trace: %+v %v", et, err)
	}
	// Exact lasso detection does not fall for it.
	rep, _ = walkJSON(t, ExitNone, "--system", "lasso-slow", "--lasso", "--walk-depth", "1000", "--max-paths", "20")
	if s := obj(t, rep, "lasso_stats"); num(s["confirmed"]) != 0 {
		t.Errorf("slow --lasso: %v", s)
	}
	rep, _ = walkJSON(t, ExitViolation, "--system", "philosophers", "--param", "n=2", "--temperature", "30", "--walk-depth", "400")
	tr = obj(t, rep, "temperature")
	if rep["kind"] != "temperature" || tr["verdict"] != "lasso" || rep["lasso"] == nil {
		t.Errorf("philosophers: kind %v temperature %v", rep["kind"], tr)
	}
	if s := obj(t, rep, "lasso_stats"); num(s["alarms"]) < 1 || s["method"] != "temperature" {
		t.Errorf("lasso_stats %v", s)
	}
	// The alarm reported does not depend on the number of workers.
	for _, w := range []string{"1", "3"} {
		again, _ := walkJSON(t, ExitViolation, "--system", "philosophers", "--param", "n=2", "--temperature", "30", "--walk-depth", "400", "--workers", w)
		if num(again["steps"]) != num(rep["steps"]) || num(again["stem"]) != num(rep["stem"]) {
			t.Errorf("--workers %s: alarm at %v stem %v, want %v %v", w, again["steps"], again["stem"], rep["steps"], rep["stem"])
		}
	}
}

// TestSearchC2ChecksForLasso: without --lasso, a suspected violation
// whose critical-transition search ends in C2 is checked for a lasso. The
// philosophers' livelock has no dead state: with a d_max of 40 some walk
// stays hungry, the critical-transition search finds every state
// recoverable (C2), and the report shows the cycle.
func TestSearchC2ChecksForLasso(t *testing.T) {
	rep, dir := walkJSON(t, ExitViolation, "--system", "philosophers", "--param", "n=2", "--walk-depth", "40", "--walks", "10")
	if c := obj(t, rep, "critical"); c["condition"] != "C2" {
		t.Fatalf("critical transition %v: the livelock has no dead state", c)
	}
	checkLassoReport(t, rep, dir, "exact")
	if rep["lasso_stats"] != nil {
		t.Errorf("lasso_stats without --lasso")
	}
}

// TestStorageGivesBothViews: the storage example (seed 001's vNext bug)
// has a dead state, reached when the manager handles the stale sync report
// (C1), and its dead execution loops; with --lasso the report gives both.
func TestStorageGivesBothViews(t *testing.T) {
	rep, dir := walkJSON(t, ExitViolation, "--system", "storage", "--lasso", "--walk-depth", "2000", "--walks", "10")
	c := obj(t, rep, "critical")
	if c["condition"] != "C1" || !strings.Contains(c["event"].(string), "node 0 receives SyncReport") {
		t.Errorf("critical transition %v, want C1 at the manager handling the stale SyncReport", c)
	}
	checkLassoView(t, rep, dir, "exact", "dead")
}

func TestLassoUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"search", "--system", "lasso-slow", "--lasso", "--lasso-replays", "0"},
		{"search", "--system", "lasso-slow", "--temperature", "-1"},
	} {
		code, out, errs := run(t, args...)
		if code != ExitUsage || !strings.Contains(errs+out, ": allowed ") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
}

// TestSearchObservedOutcome: lassos and temperature alarms are the
// verdicts of their walks' detectors, which the search reports in path
// order like any violation: outcome "lasso" or "temperature", the search
// stopped for the violation (not cancelled), --max-violations honoured.
func TestSearchObservedOutcome(t *testing.T) {
	rep, _ := walkJSON(t, ExitViolation, "--system", "philosophers", "--param", "n=2", "--lasso", "--walk-depth", "400", "--walks", "10")
	vs, _ := rep["violations"].([]any)
	if rep["outcome"] != "lasso" || rep["stop"] != "violation" || len(vs) != 1 {
		t.Fatalf("lasso: outcome %v stop %v violations %v", rep["outcome"], rep["stop"], vs)
	}
	if v := vs[0].(map[string]any); v["outcome"] != "lasso" || num(v["steps"]) != 400 || num(v["path"]) != num(rep["path"]) {
		t.Errorf("lasso violation %v", v)
	}
	rep, _ = walkJSON(t, ExitViolation, "--system", "lasso-slow", "--temperature", "50", "--walk-depth", "1000", "--max-paths", "20", "--max-violations", "3")
	vs, _ = rep["violations"].([]any)
	if rep["outcome"] != "temperature" || rep["kind"] != "temperature" || rep["stop"] != "violation" || len(vs) != 3 {
		t.Fatalf("temperature: outcome %v kind %v stop %v violations %v", rep["outcome"], rep["kind"], rep["stop"], vs)
	}
	for i, v := range vs {
		v := v.(map[string]any)
		// A false alarm's walk went on to its live state, step 200.
		if v["outcome"] != "temperature" || num(v["steps"]) != 200 || i > 0 && num(v["path"]) <= num(vs[i-1].(map[string]any)["path"]) {
			t.Errorf("violation %d: %v", i, v)
		}
	}
}

// TestDefaultSearchGraphLasso: without any lasso flag, the default search
// of the philosophers finds the livelock in its explored state graph
// (seed 002) after a few rounds and reports it as a lasso whose trace
// replays, as a walk's lasso is; the fixed philosophers exhaust their
// state space and the report says liveness holds; the proposers' bidding
// war needs --partial-hash (ballots grow), and with partial states an
// exhausted search of the fixed proposers proves nothing. The report does not depend on
// the number of workers.
func TestDefaultSearchGraphLasso(t *testing.T) {
	rep, dir := searchJSON(t, ExitViolation, "--system", "philosophers", "--walk-depth", "400", "--walks", "10")
	checkLassoReport(t, rep, dir, "exact")
	g := obj(t, rep, "graph")
	if l := obj(t, rep, "lasso"); !strings.Contains(l["source"].(string), "explored state graph") || !strings.Contains(g["verdict"].(string), "lasso reported") {
		t.Errorf("lasso source %q, graph %v", l["source"], g)
	}
	for _, w := range []string{"1", "2"} {
		again, _ := searchJSON(t, ExitViolation, "--system", "philosophers", "--walk-depth", "400", "--walks", "10", "--workers", w)
		if num(again["stem"]) != num(rep["stem"]) || num(again["path"]) != num(rep["path"]) || num(again["paths"]) != num(rep["paths"]) {
			t.Errorf("--workers %s: stem %v path %v paths %v, want %v %v %v", w, again["stem"], again["path"], again["paths"], rep["stem"], rep["path"], rep["paths"])
		}
	}

	rep, _ = searchJSON(t, ExitNone, "--system", "philosophers", "--param", "fixed=true", "--walk-depth", "400")
	if g := obj(t, rep, "graph"); rep["stop"] != "exhausted" || num(g["states"]) != 811 || !strings.Contains(g["verdict"].(string), "liveness holds") {
		t.Errorf("fixed: stop %v, graph %v", rep["stop"], g)
	}

	rep, dir = searchJSON(t, ExitViolation, "--system", "proposers", "--partial-hash", "--walk-depth", "400", "--walks", "10")
	checkLassoReport(t, rep, dir, "partial")
	rep, _ = searchJSON(t, ExitNone, "--system", "proposers", "--partial-hash", "--param", "fixed=true", "--walk-depth", "400", "--max-paths", "3000")
	if g := obj(t, rep, "graph"); num(g["states"]) == 0 || num(g["rejected"]) != 0 || g["partial"] != true || strings.Contains(g["verdict"].(string), "liveness holds") {
		t.Errorf("fixed proposers: graph %v (partial states prove nothing)", g)
	}
}

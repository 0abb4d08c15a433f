package search_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
)

// TestReplayTextOfTheLiveAlternative: the replay of live.trace says it is
// the dead path's live alternative, not the violation's trace: no
// "critical transition" of its own and no "not reproduced".
func TestReplayTextOfTheLiveAlternative(t *testing.T) {
	out := t.TempDir()
	rep, err := search.Run(context.Background(), system(t, "transport"), search.Options{Seed: 1, MaxPaths: 1000, Out: out})
	if err != nil || rep.First() == nil || rep.Files[search.FileLiveTrace] == "" {
		t.Fatalf("setup: %v, %v", err, rep.Files)
	}
	c := rep.First().Critical
	want := fmt.Sprintf("the live alternative of a dead path whose critical transition is step %d (%s): compare them there", c.Step, c.Condition)
	if got := replayText(t, out, "live.trace"); !strings.Contains(got, want) || strings.Contains(got, "critical transition: step") || strings.Contains(got, "not reproduced") {
		t.Errorf("replay of live.trace:\n%s\nwant the line %q", got, want)
	}
}

// replayText is what `macemc replay` prints for trace name in dir.
func replayText(t *testing.T, dir, name string) string {
	t.Helper()
	tr, err := trace.Read(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, name, ""); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRefineBesideASearchKeepsItsFiles: the critical command run on a
// search's error.trace in the search's directory writes its answer apart
// (refined-live.trace, refined-critical.json), so that the search's
// live.trace still goes with its report.json and error.trace; a new search
// there removes them with the rest.
func TestRefineBesideASearchKeepsItsFiles(t *testing.T) {
	out := t.TempDir()
	sys := system(t, "transport")
	if _, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 1000, Out: out}); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(out, "live.trace")
	before, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(filepath.Join(out, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(9)
	r, err := search.RefineCritical(context.Background(), tr, search.CriticalOptions{Workers: 1, Out: out, Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if r.Files[search.FileLiveTrace] != filepath.Join(out, "refined-live.trace") || r.Files[search.FileCritical] != filepath.Join(out, "refined-critical.json") {
		t.Errorf("refined files %v", r.Files)
	}
	if after, err := os.ReadFile(live); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the search's live.trace changed (%v)", err)
	}
	// An interrupted refinement writes nothing: the finished answer
	// stays, whole.
	answer, err := os.ReadFile(filepath.Join(out, "refined-critical.json"))
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := search.RefineCritical(cancelled, tr, search.CriticalOptions{Workers: 1, Out: out, Seed: &seed}); err != nil || !r.Critical.Interrupted || len(r.Files) != 0 {
		t.Errorf("interrupted refinement: %v, %+v", err, r)
	}
	if again, err := os.ReadFile(filepath.Join(out, "refined-critical.json")); err != nil || !bytes.Equal(again, answer) {
		t.Errorf("the finished answer was replaced by the interrupted one (%v)", err)
	}
	// The refined live alternative replays as one: no violation to
	// reproduce, though it keeps the dead path's property.
	if got := replayText(t, out, "refined-live.trace"); !strings.Contains(got, "the live alternative of a dead path") || strings.Contains(got, "reproduced") {
		t.Errorf("replay of refined-live.trace:\n%s", got)
	}
	if _, err := search.Run(context.Background(), sys, search.Options{Seed: 1, MaxPaths: 1000, Out: out, NoCritical: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "refined-live.trace")); !os.IsNotExist(err) {
		t.Errorf("a new search left the refined live trace of the last one: %v", err)
	}
}

// TestReplayOfSharedMemory: the replay of the trace of a service that
// changed a message in flight, or whose nodes share memory, says so and
// that it reproduced, naming the nodes; not "nondeterministic".
func TestReplayOfSharedMemory(t *testing.T) {
	for mode, want := range map[string][]string{
		"send": {"a message changed in flight: sim: the Entries node 0 sent to node 1 while booting changed", "reproduced: the Entries node 0 sent to node 1 changed in flight"},
		"keep": {"nodes share memory: sim: node 1's state changed at step 2", "reproduced: node 1's state changed while node 0's handler ran"},
	} {
		out := t.TempDir()
		rep, err := search.Run(context.Background(), system(t, simtest.Shared), search.Options{Seed: 1, Params: map[string]string{"mode": mode}, Out: out})
		if err != nil || rep.First() == nil {
			t.Fatalf("%s: setup: %v, %v", mode, err, rep.First())
		}
		got := replayText(t, out, "error.trace")
		for _, w := range want {
			if !strings.Contains(got, w) || strings.Contains(got, "the service is nondeterministic") {
				t.Errorf("%s: replay:\n%s\nwant %q", mode, got, w)
			}
		}
	}
}

// TestReplayOfAnotherHashVersion: states recorded by another version of the
// engine's hashing are not compared, and the replay says so.
func TestReplayOfAnotherHashVersion(t *testing.T) {
	out := t.TempDir()
	if _, err := search.Run(context.Background(), system(t, "transport"), search.Options{Seed: 1, MaxPaths: 1000, Out: out}); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(filepath.Join(out, "error.trace"))
	if err != nil || len(tr.States) == 0 {
		t.Fatalf("%v, %d bytes of states", err, len(tr.States))
	}
	tr.HashVersion++
	tr.States[8] ^= 1 // would be a divergence, were the states compared
	if err := tr.Write(filepath.Join(out, "other.trace")); err != nil {
		t.Fatal(err)
	}
	got := replayText(t, out, "other.trace")
	if !strings.Contains(got, "note: the trace's states were hashed by another version of macemc") || strings.Contains(got, "not the recorded execution") || !strings.Contains(got, "reproduced: AllAcked") {
		t.Errorf("replay:\n%s", got)
	}
}

// TestReplayLogLines: a replay's log opens and ends with the "#" lines of
// the search's logs; a replay cut short by --steps says so in both.
func TestReplayLogLines(t *testing.T) {
	out := t.TempDir()
	if _, err := search.Run(context.Background(), system(t, "transport"), search.Options{Seed: 1, MaxPaths: 1000, Out: out}); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(filepath.Join(out, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	const params = "drops=1,fixed=false,messages=2,nodes=2,resets=0,retries=1"
	hashes := func(log string) []string {
		var lines []string
		for _, l := range strings.Split(log, "\n") {
			if strings.HasPrefix(l, "# ") {
				lines = append(lines, l)
			}
		}
		return lines
	}
	for _, c := range []struct {
		steps int
		want  []string
	}{
		{-1, []string{
			fmt.Sprintf("# macemc %s: system transport %s, %d steps, liveness", trace.ToolVersion, params, tr.Steps),
			fmt.Sprintf("# end of path after %d steps", tr.Steps)}},
		{5, []string{
			fmt.Sprintf("# macemc %s: system transport %s, 5 of %d steps, liveness", trace.ToolVersion, params, tr.Steps),
			fmt.Sprintf("# replay stopped after 5 of the path's %d steps (--steps)", tr.Steps)}},
	} {
		var b bytes.Buffer
		if _, err := search.Replay(tr, c.steps, &b); err != nil {
			t.Fatal(err)
		}
		if got := hashes(b.String()); !slices.Equal(got, c.want) {
			t.Errorf("--steps %d: the log's # lines are\n%s\nwant\n%s", c.steps, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// TestPrefixErrorKeepsResults: a --prefix that cannot be read, or that is
// one of the result files the run would replace, is an input error that
// leaves the previous results in --out; a prefix.trace there (written by
// --prefix-steps) is searched from and kept.
func TestPrefixErrorKeepsResults(t *testing.T) {
	out := t.TempDir()
	sys := system(t, "transport")
	if _, err := search.Run(context.Background(), sys, search.Options{Seed: 3, MaxPaths: 1000, Out: out}); err != nil {
		t.Fatal(err)
	}
	files := func() []string {
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	before := files()
	for _, prefix := range []string{filepath.Join(out, "missing.trace"), filepath.Join(out, "live.trace"), filepath.Join(out, "report.json")} {
		_, err := search.Run(context.Background(), sys, search.Options{Seed: 3, MaxPaths: 1000, Out: out, Prefix: prefix})
		if !errors.Is(err, search.ErrInput) {
			t.Errorf("--prefix %s: %v, want an input error", prefix, err)
		}
		if after := files(); !slices.Equal(after, before) {
			t.Fatalf("--prefix %s: the results went from %q to %q", prefix, before, after)
		}
	}
	fixed := map[string]string{"fixed": "true"}
	if _, err := search.Run(context.Background(), sys, search.Options{Params: fixed, Seed: 3, MaxPaths: 100, WalkDepth: 2000, Out: out, PrefixSteps: 8}); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(out, "prefix.trace")
	rep, err := search.Run(context.Background(), sys, search.Options{Params: fixed, Seed: 3, MaxPaths: 100, WalkDepth: 2000, Out: out, Prefix: prefix})
	if err != nil || rep.PrefixSteps < 8 {
		t.Fatalf("searching from the prefix in --out: %v", err)
	}
	if _, err := os.Stat(prefix); err != nil {
		t.Errorf("the prefix searched from is gone: %v", err)
	}
}

// idler does nothing, and its system is never live.
type idler struct{ sim.Base }

var neverIdle = &sim.System{Name: "neveridle", Build: func(sim.Params) (*sim.Config, error) {
	return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &idler{} },
		Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
}}

// TestCriticalWithoutAnEvent: a system dead from its initial state has a
// critical answer with no event; report.json reads back (its node, -1,
// was refused as a negative count). A walk depth below twice the first
// round's bound is refused.
func TestCriticalWithoutAnEvent(t *testing.T) {
	out := t.TempDir()
	rep, err := search.Run(context.Background(), neverIdle, search.Options{Seed: 1, MaxPaths: 3, WalkDepth: 10, Walks: 2, Out: out})
	if err != nil || rep.First() == nil || rep.First().Critical == nil || rep.First().Critical.Node != -1 {
		t.Fatalf("setup: %v, %+v", err, rep.First())
	}
	back, err := search.ReadReport(filepath.Join(out, search.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if c := back.First().Critical; c.Node != -1 || c.Condition != rep.First().Critical.Condition {
		t.Errorf("read back %+v", c)
	}
	if _, err := search.Run(context.Background(), system(t, "transport"), search.Options{Seed: 1, WalkDepth: 9}); !errors.Is(err, search.ErrOptions) {
		t.Errorf("--walk-depth 9 with the first bound 5: %v, want it refused", err)
	}
}

// TestMergeTellsOfViolationsPastTheBudget: shards search past the budget
// (their share is twice the budget over N, plus 100 paths) and may find a
// violation the one-process search, and so the merge, stops before; the
// merge says so rather than only "nothing found".
func TestMergeTellsOfViolationsPastTheBudget(t *testing.T) {
	sys := system(t, "transport")
	o := search.Options{Seed: 3, MaxPaths: 10, NoCritical: true}
	var dirs []string
	found := 0
	for i := range 2 {
		o.Out = t.TempDir()
		sum, err := search.RunShard(context.Background(), sys, o, i, 2)
		if err != nil {
			t.Fatal(err)
		}
		found += sum.Violations
		dirs = append(dirs, o.Out)
	}
	rep, err := search.Merge(context.Background(), dirs, search.MergeOptions{Out: t.TempDir()})
	if err != nil || found == 0 || rep.First() != nil {
		t.Fatalf("setup: %v, %d violating paths in the shards, merged finding %v", err, found, rep.First())
	}
	want := fmt.Sprintf("the shards found %d violating path", found)
	if len(rep.Warnings) == 0 || !strings.HasPrefix(rep.Warnings[len(rep.Warnings)-1], want) {
		t.Errorf("warnings %q, want one saying %q", rep.Warnings, want)
	}
}

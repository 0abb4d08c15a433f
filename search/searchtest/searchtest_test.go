package searchtest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/searchtest"
	_ "github.com/macemc/macemc/services/transport"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
)

// fakeTB records what Check reports instead of failing the test.
type fakeTB struct {
	testing.TB
	name string
	errs []string
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return f.name }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

func lookup(t *testing.T, name string) *sim.System {
	t.Helper()
	sys, err := sim.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

// TestCheckClean: the fixed transport passes within the budget; the
// results went to a directory of their own under os.TempDir() named after
// the test, removed since there is nothing to replay.
func TestCheckClean(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	f := &fakeTB{TB: t, name: "TestFixed/transport"}
	rep := searchtest.Check(f, lookup(t, "transport"), search.Options{Params: map[string]string{"fixed": "true"}, Seed: 3, MaxPaths: 100, WalkDepth: 2000})
	if len(f.errs) != 0 {
		t.Fatalf("clean system reported: %q", f.errs)
	}
	if rep == nil || rep.First() != nil || rep.Stats.Paths != 100 {
		t.Fatalf("report %+v", rep)
	}
	if len(rep.Files) != 0 {
		t.Errorf("the report names files that were removed: %v", rep.Files)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "macemc-*")); len(left) != 0 {
		t.Errorf("the clean run's directory is left behind: %v", left)
	}
}

// TestCheckNilSystem: a nil system (a variable set by sim.Lookup before
// the init that registers the system ran) fails the test, saying so; it
// panicked.
func TestCheckNilSystem(t *testing.T) {
	f := &fakeTB{TB: t, name: t.Name()}
	if rep := searchtest.Check(f, nil, search.Options{Seed: 1, MaxPaths: 10}); rep != nil || len(f.errs) != 1 || !strings.HasPrefix(f.errs[0], "macemc search: no system (nil *sim.System") {
		t.Fatalf("report %v, errors %q", rep, f.errs)
	}
}

// TestChecksOfOneNameKeepTheirEvidence: two failing checks of tests with
// the same name (one in each of two packages) write to directories of
// their own, and both are kept.
func TestChecksOfOneNameKeepTheirEvidence(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var dirs []string
	for range 2 {
		f := &fakeTB{TB: t, name: "TestCheck"}
		rep := searchtest.Check(f, lookup(t, simtest.Panic), search.Options{Seed: 1, NoCritical: true})
		if len(f.errs) != 1 || rep == nil {
			t.Fatalf("errors %q", f.errs)
		}
		dirs = append(dirs, filepath.Dir(rep.Files["error_trace"]))
	}
	if dirs[0] == dirs[1] {
		t.Fatalf("both checks wrote to %s", dirs[0])
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "error.trace")); err != nil {
			t.Errorf("evidence lost: %v", err)
		}
	}
}

// TestCheckBuggy: a handler panic fails the check with the report, which
// ends with the command that replays it; the trace it names replays to
// the panic.
func TestCheckBuggy(t *testing.T) {
	f := &fakeTB{TB: t, name: t.Name()}
	out := t.TempDir()
	rep := searchtest.Check(f, lookup(t, simtest.Panic), search.Options{Seed: 1, Out: out})
	if len(f.errs) != 1 {
		t.Fatalf("%d errors: %q", len(f.errs), f.errs)
	}
	msg := f.errs[0]
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	replay := lines[len(lines)-1]
	trace0 := filepath.Join(out, "error.trace")
	if !strings.HasPrefix(msg, "macemc found a violation in simtest-panic:\n") || !strings.Contains(msg, "SAFETY VIOLATION: a handler of node 1 panicked") ||
		replay != "replay: macemc replay --trace "+trace0+" --log "+filepath.Join(out, "error.log") || replay != "replay: "+rep.Replay {
		t.Fatalf("message:\n%s", msg)
	}
	// simtest's systems are not the macemc command's (services/all).
	if !strings.Contains(msg, "\nwarning: the replay and debug commands below name macemc's own commands, which do not know system simtest-panic (it is registered in this program only): run them with a binary that registers it") {
		t.Errorf("no word on the command for a system macemc does not know:\n%s", msg)
	}
	tr, err := trace.Read(trace0)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := search.Replay(tr, -1, nil); err != nil || !r.Reproduced {
		t.Errorf("the replay command's trace does not reproduce the panic: %+v, %v", r, err)
	}
}

// TestCheckExampleSystem: for an example system, which the macemc command
// knows, the report ends with its replay command, without a word on
// another binary.
func TestCheckExampleSystem(t *testing.T) {
	f := &fakeTB{TB: t, name: t.Name()}
	searchtest.Check(f, lookup(t, "transport"), search.Options{Seed: 1, Out: t.TempDir(), NoCritical: true})
	if len(f.errs) != 1 {
		t.Fatalf("%d errors: %q", len(f.errs), f.errs)
	}
	lines := strings.Split(strings.TrimSpace(f.errs[0]), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "replay: macemc replay --trace ") {
		t.Errorf("last line %q:\n%s", last, f.errs[0])
	}
}

// TestCheckBadOptions: options out of range fail the check with the field
// and its range; nothing runs.
func TestCheckBadOptions(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	f := &fakeTB{TB: t, name: t.Name()}
	rep := searchtest.Check(f, lookup(t, "transport"), search.Options{WalkDepth: -1})
	if rep != nil || len(f.errs) != 1 || !strings.Contains(f.errs[0], "option WalkDepth (--walk-depth) is -1; allowed: 1 to 10000000") {
		t.Fatalf("report %v, errors %q", rep, f.errs)
	}
	if _, err := os.Stat(filepath.Join(tmp, "macemc-"+t.Name())); err == nil {
		t.Errorf("a directory was made for a run that could not start")
	}
}

// deadlineTB is a fakeTB whose test ends at a deadline.
type deadlineTB struct {
	*fakeTB
	deadline time.Time
}

func (d deadlineTB) Deadline() (time.Time, bool) { return d.deadline, true }

// TestCheckStopsBeforeTheDeadline: a search longer than the test's time
// left stops a margin before the deadline and fails the test, saying so
// (it ran into go test's timeout panic, losing what it had found).
func TestCheckStopsBeforeTheDeadline(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	f := &fakeTB{TB: t, name: "TestLong"}
	start := time.Now()
	rep := searchtest.Check(deadlineTB{f, start.Add(3 * time.Second)}, lookup(t, "transport"),
		search.Options{Params: map[string]string{"fixed": "true"}, Seed: 3, MaxPaths: 100_000_000, Workers: 1})
	if rep == nil || !rep.Incomplete || len(f.errs) != 1 || !strings.Contains(f.errs[0], "stopped at the test's deadline") {
		t.Fatalf("report incomplete %v, errors %q", rep != nil && rep.Incomplete, f.errs)
	}
}

// hog is the node of TestCheckMemoryLimit: it keeps a megabyte more at
// every tick of its timer, out of the state, and never becomes live.
type hog struct {
	sim.Base
	Kept [][]byte `macemc:"-"`
}

func (h *hog) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (h *hog) HandleTimer(*sim.Context, string) { h.Kept = append(h.Kept, make([]byte, 1<<20)) }

// TestCheckMemoryLimit: a run stopped at the memory limit searched less
// than its budget, so the test fails (it passed, on a system that is
// never live).
func TestCheckMemoryLimit(t *testing.T) {
	sys := &sim.System{Name: "searchtest-hog", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &hog{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}}
	t.Setenv("TMPDIR", t.TempDir())
	f := &fakeTB{TB: t, name: "TestHog"}
	rep := searchtest.Check(f, sys, search.Options{Seed: 1, MaxPaths: 100, WalkDepth: 100_000, Workers: 1, MaxMemory: 256 << 20, MaxStates: 1 << 16, Graph: search.GraphOptions{Off: true}})
	if rep == nil || !rep.MemoryLimited || len(f.errs) != 1 || !strings.Contains(f.errs[0], "stopped at the memory limit") {
		t.Fatalf("report memory-limited %v, errors %q", rep != nil && rep.MemoryLimited, f.errs)
	}
	// The report's advice names command-line flags: the test's output says
	// which Options field each is.
	if !strings.Contains(f.errs[0], "--max-memory is Options.MaxMemory") {
		t.Errorf("no note of the flags' fields:\n%s", f.errs[0])
	}
}

// doneTB is a fakeTB whose test context is done, as in a Cleanup
// function.
type doneTB struct{ *fakeTB }

func (d doneTB) Context() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestCheckInCleanup: a Check whose test's context is done (called from
// t.Cleanup) says why it was interrupted.
func TestCheckInCleanup(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	f := &fakeTB{TB: t, name: "TestInCleanup"}
	searchtest.Check(doneTB{f}, lookup(t, "transport"), search.Options{Params: map[string]string{"fixed": "true"}, Seed: 3, MaxPaths: 100})
	if len(f.errs) != 1 || !strings.Contains(f.errs[0], "the test's context was done") {
		t.Fatalf("errors %q", f.errs)
	}
}

// TestCheckNothingSearched: a time budget that the check before the search
// used up fails the test: the run looked at no path.
func TestCheckNothingSearched(t *testing.T) {
	sys := &sim.System{Name: "searchtest-slowticker", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &simtest.SlowTicker{} }}, nil
	}}
	t.Setenv("TMPDIR", t.TempDir())
	f := &fakeTB{TB: t, name: "TestSlowTicker"}
	rep := searchtest.Check(f, sys, search.Options{Seed: 1, Time: 200 * time.Millisecond, Workers: 1})
	if rep == nil || !rep.NothingSearched() || len(f.errs) != 1 || !strings.Contains(f.errs[0], "searched nothing: its time budget (Options.Time) ran out") {
		t.Fatalf("report nothing searched %v, errors %q", rep != nil && rep.NothingSearched(), f.errs)
	}
}

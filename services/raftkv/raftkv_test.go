package raftkv

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/searchtest"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// TestClean: the correct host is clean under a budget of 400 paths, with
// crash-restarts, partitions, and (second run) crash-stops.
func TestClean(t *testing.T) {
	searchtest.Check(t, System, search.Options{MaxPaths: 400, WalkDepth: 2000, Seed: 1, Workers: 2})
	searchtest.Check(t, System, search.Options{MaxPaths: 400, WalkDepth: 2000, Seed: 2, Workers: 2,
		Params: map[string]string{"crashes": "1"}, Faults: "duplicates=1"})
}

// TestDeterministicAndCopies: raft replays exactly (its crypto/rand draws
// come from the simulator), and a copy of a running cluster, which holds
// method values bound to raft's structs, is a faithful, independent copy.
func TestDeterministicAndCopies(t *testing.T) {
	cfg, _, err := System.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.New(cfg, engine.Options{Chooser: walks.NewChooser(7, false)})
	if err != nil {
		t.Fatal(err)
	}
	for s.Steps() < 300 {
		if ok, err := s.Step(); err != nil || !ok {
			t.Fatalf("step %d: %v %v", s.Steps(), ok, err)
		}
	}
	if err := engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{}); err != nil {
		t.Fatal(err)
	}
	// The first thing a deep copy cannot copy: a closure in protobuf's
	// reflection data that the messages point to, or raft's bound methods.
	if p := s.CopyProblem(); !strings.Contains(p, " holds a ") {
		t.Fatalf("copy problem %q", p)
	}
	if err := engine.CheckCopy(s, s.Clone(nil)); err != nil {
		t.Fatal(err)
	}
	if err := s.HashErr(); err != nil {
		t.Fatal(err)
	}
}

// find searches with an injected bug and returns the report.
func find(t *testing.T, bug string, opts search.Options) *search.Report {
	t.Helper()
	opts.Params = map[string]string{"bug": bug}
	opts.Out = t.TempDir()
	opts.Seed, opts.Workers = 1, 2
	if opts.WalkDepth == 0 {
		opts.WalkDepth = 2000
	}
	rep, err := search.Run(context.Background(), System, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() == nil {
		t.Fatalf("bug %s not found: %+v", bug, rep.Stats)
	}
	return rep
}

// TestForgetVote: a restarted node that forgets its vote lets two nodes
// lead one term; the trace replays and mdb opens it.
func TestForgetVote(t *testing.T) {
	rep := find(t, BugForgetVote, search.Options{MaxPaths: 10000})
	f := rep.First()
	if f.Kind != search.KindSafety || f.Property != "OneLeaderPerTerm" {
		t.Fatalf("finding %v %s: %v", f.Kind, f.Property, f.Err)
	}
	tr, err := trace.Read(rep.Files["error_trace"])
	if err != nil {
		t.Fatal(err)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil || !r.Reproduced {
		t.Fatalf("replay: %+v %v", r, err)
	}
	var out strings.Builder
	s, err := mdb.Open(rep.Files["error_trace"], "", mdb.Options{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunScript(strings.NewReader("j end\nstate 1\n"), true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Led: [") {
		t.Fatalf("mdb:\n%s", out.String())
	}
}

// TestForgetLog: a node that comes back without its log makes raft panic
// on purpose; the finding carries raft's message and stack.
func TestForgetLog(t *testing.T) {
	rep := find(t, BugForgetLog, search.Options{MaxPaths: 10000})
	f := rep.First()
	var hp *engine.HandlerPanicError
	if f.Kind != search.KindHandlerPanic || !errors.As(f.Err, &hp) || !strings.Contains(f.Err.Error(), "Was the raft log corrupted, truncated, or lost?") ||
		!strings.Contains(f.Stack, "go.etcd.io/raft/v3.(*raftLog).commitTo") {
		t.Fatalf("finding %v: %v\n%s", f.Kind, f.Err, f.Stack)
	}
}

// TestNoRetry: a put whose proposal raft dropped is never applied: a
// liveness violation whose critical transition is the put that was
// dropped.
func TestNoRetry(t *testing.T) {
	rep := find(t, BugNoRetry, search.Options{MaxPaths: 100})
	f := rep.First()
	c := f.Critical
	if f.Verdict != search.VerdictLiveness || c == nil || c.Condition.String() != "C1" || c.Kind != "app" || !strings.HasPrefix(c.Event, "node 0 handles app request Put{") {
		t.Fatalf("finding %v %v critical %+v", f.Kind, f.Verdict, c)
	}
	if rep.Files["live_trace"] == "" {
		t.Fatal("no live alternative")
	}
	// mdb jumps to the critical step and compares the dead path with the
	// live alternative there.
	var out strings.Builder
	s, err := mdb.Open(rep.Files["error_trace"], rep.Files["live_trace"], mdb.Options{Out: &out})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunScript(strings.NewReader("j crit\nfilediff\n"), true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "[critical]: node 0 handles app request Put{") || !strings.Contains(out.String(), "--- error step") {
		t.Fatalf("mdb:\n%s", out.String())
	}
}

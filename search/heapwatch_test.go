package search_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// hoarder keeps 64 KiB more at every firing of its timer, out of its
// state (the tag): a walk's heap grows by that much a step, without bound.
type hoarder struct {
	sim.Base
	Kept [][]byte `macemc:"-"`
	Tick int
}

func (n *hoarder) Start(ctx *sim.Context) { ctx.SetPeriodic("grow") }
func (n *hoarder) HandleTimer(*sim.Context, string) {
	n.Kept = append(n.Kept, make([]byte, 64<<10))
	n.Tick = (n.Tick + 1) % 3
}

var hoarderSystem = &sim.System{
	Name: "searchtest-hoarder",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &hoarder{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	},
}

// TestHeapPastTheLimitStopsTheRun: a run whose heap grows past what
// --max-memory allows (64 MiB: 32 MiB of growth, over the collector's
// headroom) stops as an interrupted one does, keeping its report, which
// says why; without the watch a walk of 100,000 steps would hold 6.4
// GB.
func TestHeapPastTheLimitStopsTheRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	rep, err := search.Run(context.Background(), hoarderSystem, search.Options{Seed: 1, Workers: 1, WalkDepth: 100_000,
		MaxStates: 1024, Graph: search.GraphOptions{Off: true}, MaxMemory: 64 << 20, NoCritical: true, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.MemoryLimited || !rep.Incomplete || rep.Stats.Stop != explore.StopMemory {
		t.Fatalf("memory limited %v, incomplete %v, stop %v: want a run stopped at the memory limit (%+v %+v)", rep.MemoryLimited, rep.Incomplete, rep.Stats.Stop, rep.Stats, rep.First())
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "stopped at the memory limit (--max-memory)") {
		t.Errorf("the report does not say why it stopped:\n%s", text.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Stop          string `json:"stop"`
		MemoryLimited bool   `json:"memory_limited"`
	}
	if err := json.Unmarshal(data, &j); err != nil || j.Stop != "memory" || !j.MemoryLimited {
		t.Fatalf("report.json: stop %q, memory_limited %v (%v)", j.Stop, j.MemoryLimited, err)
	}
	back, err := search.ReadReport(filepath.Join(out, "report.json"))
	if err != nil || !back.MemoryLimited || back.Stats.Stop != explore.StopMemory {
		t.Fatalf("report.json read back: %+v, %v", back, err)
	}
}

// TestMemoryLimitWhileWritingFiles: a run that reaches the memory limit
// while it writes the logs and the report page (after the search and the
// analysis) is marked memory limited, in the report and in report.json,
// not only incomplete as a Ctrl-C would leave it.
func TestMemoryLimitWhileWritingFiles(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	out := t.TempDir()
	rep, err := search.Run(ctx, system(t, "transport"), search.Options{Seed: 7, Workers: 1, Out: out, Progress: func(p search.Progress) {
		if p.Phase == search.PhaseFiles && strings.HasPrefix(p.Message, "writing the logs") {
			cancel(search.ErrMemoryLimit)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First() == nil || !rep.Incomplete || !rep.MemoryLimited || !rep.LogsSkipped {
		t.Fatalf("finding %v, incomplete %v, memory limited %v, logs skipped %v", rep.First() != nil, rep.Incomplete, rep.MemoryLimited, rep.LogsSkipped)
	}
	back, err := search.ReadReport(filepath.Join(out, "report.json"))
	if err != nil || !back.MemoryLimited || !back.Incomplete {
		t.Fatalf("report.json: memory limited %v, incomplete %v (%v)", back != nil && back.MemoryLimited, back != nil && back.Incomplete, err)
	}
}

// gobbler's third timer firing allocates 256 MiB in 1 MiB pieces without
// returning in between or calling its Context (it does return at the end,
// so that the test leaves nothing allocating behind). It takes at least
// 768 ms, where the watchdog gives up on it 100 ms after the heap passed
// the limit (about 200 ms in): under load, a handler that returned first
// (1 ms a piece) was not given up on at all.
type gobbler struct {
	sim.Base
	N int
}

func (n *gobbler) Start(ctx *sim.Context) { ctx.SetPeriodic("t") }
func (n *gobbler) HandleTimer(*sim.Context, string) {
	if n.N++; n.N != 3 {
		return
	}
	var keep [][]byte
	for range 256 {
		keep = append(keep, make([]byte, 1<<20))
		time.Sleep(3 * time.Millisecond)
	}
	_ = keep
}

var gobblerSystem = &sim.System{
	Name: "searchtest-gobbler",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &gobbler{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	},
}

// TestHandlerPastTheLimitIsAFinding: a handler that allocates past what
// --max-memory allows without returning is given up on, long before its
// timeout (a minute), and reported as a handler that did not return, at
// its step, with the run marked as stopped at the memory limit.
func TestHandlerPastTheLimitIsAFinding(t *testing.T) {
	rep, err := search.Run(context.Background(), gobblerSystem, search.Options{Seed: 1, Workers: 1, MaxStates: 1024,
		Graph: search.GraphOptions{Off: true}, MaxMemory: 64 << 20, HandlerTimeout: time.Minute, Out: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	var he *engine.HangError
	if f == nil || f.Kind != search.KindHandlerHang || !errors.As(f.Err, &he) || !he.Memory || f.Steps != 2 || !rep.MemoryLimited {
		t.Fatalf("got %+v (memory limited %v, stats %+v), want the third step's handler given up on for memory", f, rep.MemoryLimited, rep.Stats)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if want := "SAFETY VIOLATION: a handler of node 0 did not return, allocating past the run's memory limit at step 3"; !strings.Contains(text.String(), want) {
		t.Errorf("the report does not say %q:\n%s", want, text.String())
	}
	time.Sleep(300 * time.Millisecond) // the abandoned handler ends
}

// TestStoppedRunSaysItsBudgetWasNotSpent: a run stopped before it found
// anything does not say it found nothing within its budget.
func TestStoppedRunSaysItsBudgetWasNotSpent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := search.Run(ctx, system(t, "transport"), search.Options{Seed: 1, Params: map[string]string{"fixed": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if got := text.String(); !rep.Incomplete || !strings.Contains(got, "nothing found before the run was stopped (its budget was not spent)") ||
		strings.Contains(got, "within this budget") {
		t.Errorf("incomplete %v, report:\n%s", rep.Incomplete, got)
	}
}

// drifting is a service that goes another way once drift is set: its
// timer's third firing then cancels the timer, so that a replay of a path
// recorded before runs out of events to choose from.
type drifting struct {
	sim.Base
	N int
}

var drift atomic.Bool

var driftingSystem = &sim.System{Name: "searchtest-drifting", Build: func(sim.Params) (*sim.Config, error) {
	return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &drifting{} },
		Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
}}

func init() { sim.Register(driftingSystem) }

func (n *drifting) Start(ctx *sim.Context) { ctx.SetPeriodic("t") }
func (n *drifting) HandleTimer(ctx *sim.Context, _ string) {
	if n.N++; n.N == 3 && drift.Load() {
		ctx.CancelTimer("t")
	}
}

// TestPathsThatDoNotReplayAreNotAnOutputError: when the paths a run found
// do not replay as they went while the files are written (the service is
// steered by something outside its nodes' state, here a package variable
// set once the search is over), the run does not claim its output
// directory could not be written: it warns that the findings are not to
// be trusted.
func TestPathsThatDoNotReplayAreNotAnOutputError(t *testing.T) {
	drift.Store(false)
	defer drift.Store(false)
	rep, err := search.Run(context.Background(), driftingSystem, search.Options{Seed: 1, Workers: 1, WalkDepth: 200, NoCritical: true, Command: "macemc",
		Out: filepath.Join(t.TempDir(), "out"), Progress: func(p search.Progress) {
			if p.Phase == search.PhaseFiles {
				drift.Store(true)
			}
		}})
	if err != nil {
		t.Fatalf("got %v, want the results written with a warning", err)
	}
	if rep.First() == nil || rep.Files[search.FileErrorLog] != "" || rep.Files[search.FileErrorTrace] == "" {
		t.Fatalf("finding %v, files %v: want the trace without its log", rep.First(), rep.Files)
	}
	if len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0], "error.log was not written: error.trace does not replay from the initial state as the run went") ||
		!strings.Contains(rep.Warnings[0], "the findings are not to be trusted") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

package cli

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
)

// This file checks the command line the way a user's own binary meets it:
// systems registered in the user's package (here, the test's), searched
// with `mybin search` and debugged with `mybin mdb`, whatever their
// handlers do wrong.

// rally is a ping-pong service that misbehaves in the way its system's
// name says, at the third ball.
type rally struct {
	sim.Base
	N    int
	mode string
}

// Ball is rally's message.
type Ball struct{ N int }

var rallyGoroutines sync.WaitGroup

func (r *rally) Start(ctx *sim.Context) {
	if r.mode == "bootpanic" && ctx.Self() == 1 {
		panic("cannot boot")
	}
	if ctx.Self() == 0 {
		ctx.Send(1, Ball{1})
	}
}

func (r *rally) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	b := m.(Ball)
	r.N = b.N
	switch {
	case r.mode == "panic" && b.N == 3:
		var log []int
		_ = log[b.N]
	case r.mode == "misuse" && b.N == 3:
		ctx.Send(from+7, Ball{b.N + 1})
	case r.mode == "escape" && b.N == 3:
		rallyGoroutines.Add(1)
		go func() {
			defer rallyGoroutines.Done()
			time.Sleep(time.Millisecond)
			ctx.Send(from, Ball{b.N + 1})
		}()
	case r.mode == "hang" && b.N == 3:
		select {} // never returns: the watchdog gives up on it
	case r.mode == "dead" && b.N == 2:
	case b.N < 6:
		ctx.Send(from, Ball{b.N + 1})
	}
}

func init() {
	for _, mode := range []string{"panic", "bootpanic", "misuse", "escape", "hang", "dead"} {
		sim.Register(&sim.System{Name: "clitest-rally-" + mode, Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &rally{mode: mode} },
				Liveness: []sim.Property{{Name: "Rallied", Check: func(v *sim.View) bool { return sim.Node[rally](v, 0).N >= 5 || sim.Node[rally](v, 1).N >= 5 }}}}, nil
		}})
	}
}

// hostedReport is what these tests read of report.json.
type hostedReport struct {
	Verdict, Kind, Property, Error, Stack string
	Node                                  *int
	Steps                                 int
	Critical                              *struct {
		Step      int
		Condition string
		Event     string
		Explain   string
	}
	Minimized *struct{ Note string }
	Files     map[string]string
	Debug     string
}

// TestHostedMisbehaviour: every way a hosted handler can go wrong ends in
// a finding (exit 1) with a trace that replays and that mdb opens, in the
// user's own binary.
func TestHostedMisbehaviour(t *testing.T) {
	defer rallyGoroutines.Wait()
	for _, c := range []struct {
		system           string
		verdict, kind    string
		node             int
		steps            int
		err, stack, text string // substrings of the report's error, stack and text
		mdb              string // a line mdb's intro prints
	}{
		{"panic", "safety", "panic", 1, 3, "sim: panic in handler of node 1 at step 3 (node 1 receives Ball{N: 3} from node 0): runtime error: index out of range [3] with length 0",
			"github.com/macemc/macemc/cmd/cli.(*rally).HandleMessage\n\t", "SAFETY VIOLATION: a handler of node 1 panicked at step 3",
			"the path ends with: sim: panic in handler of node 1 at step 3"},
		{"bootpanic", "safety", "panic", 1, 0, "sim: panic in handler of node 1 at boot (node 1 starts): cannot boot",
			"github.com/macemc/macemc/cmd/cli.(*rally).Start\n\t", "SAFETY VIOLATION: a handler of node 1 panicked while the system booted",
			"the path ends with: sim: panic in handler of node 1 at boot (node 1 starts): cannot boot"},
		{"misuse", "safety", "misuse", 1, 3, "sim: invalid API use by node 1 at step 3 (node 1 receives Ball{N: 3} from node 0): node 1 sends Ball{N: 4} to node 7, which does not exist (nodes 0-1)",
			"github.com/macemc/macemc/cmd/cli.(*rally).HandleMessage\n\t", "SAFETY VIOLATION: node 1 used the API wrongly at step 3",
			"safety violation: a handler used the API wrongly"},
		// How the escape is seen depends on the goroutine's timing: as a
		// goroutine left running, or as its late Send.
		{"escape", "nondeterministic", "escape", 1, 3, "sim: node 1 escaped its handler: ",
			"", "NONDETERMINISTIC SERVICE: node 1 acted outside its handlers", "error path: 3 steps"},
		// The trace of a hung handler ends before the hung step (step 3):
		// its replay runs that step under the watchdog again.
		{"hang", "safety", "hang", 1, 2, "sim: the handler of node 1 did not return within 200ms at step 3 (node 1 receives Ball{N: 3} from node 0)",
			"", "SAFETY VIOLATION: a handler of node 1 did not return at step 3", "error path: 2 steps, the handler of step 3 does not return"},
		{"dead", "liveness", "dead", -1, 2, "", "", "dead from step 0 (condition C1",
			"error path: 2 steps, critical step 0 (C1: dead from there on)"},
	} {
		t.Run(c.system, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"search", "--system", "clitest-rally-" + c.system, "--out", dir, "--walk-depth", "100", "--workers", "1", "--handler-timeout", "200ms"}
			code, out, errs := runAs(t, "mybin", append(args, "--json")...)
			if code != ExitViolation {
				t.Fatalf("exit %d\n%s%s", code, out, errs)
			}
			var rep hostedReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			node := -1
			if rep.Node != nil {
				node = *rep.Node
			}
			if rep.Verdict != c.verdict || rep.Kind != c.kind || node != c.node || rep.Steps != c.steps || !strings.Contains(rep.Error, c.err) ||
				!strings.HasPrefix(rep.Stack, c.stack) || rep.Files["error_trace"] == "" || rep.Debug != "mybin mdb "+dir {
				t.Fatalf("report %+v", rep)
			}
			if rep.Minimized != nil && c.kind == "dead" {
				t.Errorf("a system dead from the start has nothing to minimize, but the report says %q", rep.Minimized.Note)
			}
			if _, text, _ := runAs(t, "mybin", args...); !strings.Contains(text, c.text) {
				t.Fatalf("text report lacks %q:\n%s", c.text, text)
			}
			// The trace replays: the violation is reproduced, or the
			// replay stops at the same failure (exit 1).
			code, out, errs = runAs(t, "mybin", "replay", "--trace", rep.Files["error_trace"], "--json")
			var rp struct{ Reproduced bool }
			if err := json.Unmarshal([]byte(out), &rp); code != ExitViolation || err != nil || !rp.Reproduced {
				t.Fatalf("replay: exit %d (%v)\n%s%s", code, err, out, errs)
			}
			// The critical subcommand gives the search's answer again.
			if c.kind == "dead" {
				code, out, errs := runAs(t, "mybin", "critical", "--trace", rep.Files["error_trace"], "--out", t.TempDir())
				if code != ExitViolation || !strings.HasPrefix(out, "dead from step 0 (condition C1, k=20") {
					t.Fatalf("critical: exit %d\n%s%s", code, out, errs)
				}
			}
			// mdb opens it, in the user's binary.
			code, out, errs = runAs(t, "mybin", "mdb", dir, "-c", "where; log; state 1; quit")
			if code != 0 || !strings.Contains(out, c.mdb) || !strings.Contains(out, "(mdb ") {
				t.Fatalf("mdb: exit %d\n%s%s", code, out, errs)
			}
		})
	}
}

func runAs(t *testing.T, name string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	app := &App{Name: name, Stdout: &out, Stderr: &errb}
	code := app.Run(args)
	return code, out.String(), errb.String()
}

package mdb_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/mdbtest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// eventAt returns the event of step n of the error path, replayed
// independently of mdb.
func eventAt(t *testing.T, tr *trace.Trace, n int) string {
	t.Helper()
	s, err := tr.Replay(n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s.LastEvent().String()
}

func TestIntro(t *testing.T) {
	s, f := fixtureSession(t)
	s.Intro()
	out := s.out.String()
	mustContain(t, out,
		"liveness violation of AllAcked (system mdbtest-ping fixed=false)",
		fmt.Sprintf("error path: %d steps, critical step %d (C1: dead from there on)", f.Error.Steps, f.Error.Critical),
		fmt.Sprintf("live path: %d steps, shares %d with the error path", f.Live.Steps, f.Error.Critical-1),
		fmt.Sprintf("step 0/%d: initial state", f.Error.Steps))
	s.at(0, "error")
	if p := s.Prompt(); p != "(mdb 0) " {
		t.Errorf("prompt %q", p)
	}
}

// 1. Step forward and backward, with counts.
func TestStepping(t *testing.T) {
	s, f := fixtureSession(t)
	out := s.run("n")
	s.at(1, "error")
	mustContain(t, out, "step 1/200: "+eventAt(t, f.Error, 1))
	out = s.run("n 3")
	s.at(4, "error")
	if got := strings.Count(out, "\n"); got != 3 {
		t.Errorf("n 3 printed %d lines, want one per step:\n%s", got, out)
	}
	mustContain(t, out, "step 2/200", "step 3/200", "step 4/200: "+eventAt(t, f.Error, 4))
	s.run("p")
	s.at(3, "error")
	s.run("p 2")
	s.at(1, "error")
	s.run("p 5") // stops at step 0
	s.at(0, "error")
}

func TestSteppingBounds(t *testing.T) {
	s, f := fixtureSession(t)
	mustContain(t, s.fail("p"), "already at step 0")
	s.run("end")
	s.at(f.Error.Steps, "error")
	mustContain(t, s.fail("n"), "at the end of the error path", "B I branches")
	mustContain(t, s.fail("n x"), `"x" is not a positive count`)
	mustContain(t, s.fail("n 0"), "not a positive count")
	out := s.run("p 1000")
	s.at(0, "error")
	mustContain(t, out, "step 0/200: initial state")
	out = s.run("n 1000")
	s.at(200, "error")
	mustContain(t, out, "moved 200 of 1000: end of the path")
}

// 2. Jump to a step, the critical step, first, last.
func TestJump(t *testing.T) {
	s, f := fixtureSession(t)
	crit := f.Error.Critical
	out := s.run("j crit")
	s.at(crit, "error")
	mustContain(t, out, fmt.Sprintf("step %d/200 [critical]: %s", crit, eventAt(t, f.Error, crit)))
	if p := s.Prompt(); p != fmt.Sprintf("(mdb %d) ", crit) {
		t.Errorf("prompt %q", p)
	}
	s.run("j 150")
	s.at(150, "error")
	s.run("j -10")
	s.at(140, "error")
	s.run("j +5")
	s.at(145, "error")
	s.run("home")
	s.at(0, "error")
	out = s.run("end")
	s.at(200, "error")
	mustContain(t, out, "[end]")
	s.run("j 0")
	s.at(0, "error")
	mustContain(t, s.fail("j 201"), "not on the error path (0-200)")
	mustContain(t, s.fail("j -1"), "not on the error path")
	mustContain(t, s.fail("j soon"), `"soon" is not a step`)
	mustContain(t, s.fail("j"), "usage: j STEP")
	s.at(0, "error")
}

// Moving anywhere gives the same state as replaying from scratch, with
// small snapshot intervals so that jumps cross and reuse snapshots.
func TestJumpMatchesReplay(t *testing.T) {
	dir, f := writeFixture(t)
	s := open(t, dir, "", mdb.Options{SnapshotEvery: 8})
	rng := rand.New(rand.NewPCG(3, 4))
	for range 40 {
		n := rng.IntN(f.Error.Steps + 1)
		cmd := "j " + strconv.Itoa(n)
		if rng.IntN(3) == 0 {
			cmd = "p"
			if m, _ := s.Position(); m == 0 {
				cmd = "n"
			}
		}
		s.run(cmd)
		m, _ := s.Position()
		want, err := f.Error.Replay(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := range want.Nodes() {
			b.WriteString(want.NodeText(sim.NodeID(i)))
		}
		got := s.run("state")
		if !strings.HasPrefix(got, b.String()) {
			t.Fatalf("after %q at step %d:\ngot:\n%s\nwant:\n%s", cmd, m, got, b.String())
		}
	}
}

// 3. Branch: list the ready events, continue down one, step on, run random steps.
func TestBranch(t *testing.T) {
	s, f := fixtureSession(t)
	crit := f.Error.Critical
	s.run(fmt.Sprintf("j %d", crit-1))
	out := s.run("a")
	mustContain(t, out, fmt.Sprintf("ready at step %d", crit-1),
		fmt.Sprintf("<- the error path's step %d", crit))
	// The error path takes the stale Ack; the live path does something else.
	re := regexp.MustCompile(`\[(\d+)\] (.*?)  <- the error path`)
	m := re.FindStringSubmatch(out)
	if m == nil || m[2] != eventAt(t, f.Error, crit) {
		t.Fatalf("a does not mark the error path's next event %q:\n%s", eventAt(t, f.Error, crit), out)
	}
	taken, _ := strconv.Atoi(m[1])
	other := 0
	if taken == 0 {
		other = 1
	}
	out = s.run(fmt.Sprintf("B %d", other))
	s.at(crit, "b1")
	mustContain(t, out, fmt.Sprintf("b1: a branch of error at step %d (seed 1)", crit-1))
	if p := s.Prompt(); p != fmt.Sprintf("(mdb b1 %d) ", crit) {
		t.Errorf("prompt %q", p)
	}
	// Stepping on past the end of a branch runs new steps.
	out = s.run("n 2")
	s.at(crit+2, "b1")
	mustContain(t, out, fmt.Sprintf("step %d/%d [end]", crit+2, crit+2))
	// Back and forth on the branch.
	s.run("p 2")
	s.at(crit, "b1")
	s.run("end")
	out = s.run("random 20")
	s.at(crit+22, "b1")
	mustContain(t, out, fmt.Sprintf("ran 20 random steps from step %d on b1", crit+2))
	// Random steps from the middle of a path make a new branch.
	s.run("path error")
	s.at(crit+22, "error")
	out = s.run("random 5 42")
	s.at(crit+27, "b2")
	mustContain(t, out, fmt.Sprintf("b2: a branch of error at step %d (seed 42)", crit+22))
	out = s.run("paths")
	mustContain(t, out, "error", "live", fmt.Sprintf("b1     %6d steps  branch of error at step %d taking [%d], seed 1", crit+22, crit-1, other), "* b2")
	// The branch shares the error path's prefix: no difference at crit-1.
	out = s.run(fmt.Sprintf("filediff %d b1", crit-1))
	mustContain(t, out, "no difference", fmt.Sprintf("(the paths share their first %d steps)", crit-1))
	mustContain(t, s.fail("B 99"), "ready events")
	mustContain(t, s.fail("B x"), "not an event index")
	mustContain(t, s.fail("path nowhere"), `no path "nowhere" (paths: error, live, b1, b2)`)
	// A recorded path is not extended.
	s.run("path live")
	s.run("end")
	mustContain(t, s.fail("n"), "at the end of the live path")
}

// 4. Run until live.
func TestRunUntilLive(t *testing.T) {
	s, f := fixtureSession(t)
	// Before the critical step the system can still become live.
	s.run("j 1")
	var out string
	for seed := 1; ; seed++ {
		if seed > 20 {
			t.Fatalf("no seed made step 1 live:\n%s", out)
		}
		out = s.run("R 300 " + strconv.Itoa(seed))
		if strings.Contains(out, "live at step") {
			break
		}
		s.run("path error")
	}
	re := regexp.MustCompile(`live at step (\d+) on (b\d+), after (\d+) random steps from step 1`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("R output:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	s.at(n, m[2])
	mustContain(t, s.run("props"), "AllAcked                 holds", fmt.Sprintf("step %d is live", n))
	mustContain(t, s.run("R"), fmt.Sprintf("step %d is already live", n))
	// From the critical step on it cannot.
	s.run("path error")
	s.run("j crit")
	out = s.run("R 100")
	mustContain(t, out, fmt.Sprintf("not live after 100 random steps from step %d", f.Error.Critical),
		fmt.Sprintf("step %d is at or after the critical step %d", f.Error.Critical, f.Error.Critical))
	mustContain(t, s.run("props"), "AllAcked                 VIOLATED", "is not live")
	mustContain(t, s.fail("R 0"), "not a positive count")
}

// 5. Select a node and step through its events only.
func TestWatch(t *testing.T) {
	s, _ := fixtureSession(t)
	out := s.run("w 2")
	mustContain(t, out, "node 2 selected")
	if p := s.Prompt(); p != "(mdb 0 w2) " {
		t.Errorf("prompt %q", p)
	}
	var steps []int
	for {
		if err := s.Exec("n"); err != nil {
			mustContain(t, err.Error(), "node 2 has no event after step")
			break
		}
		n, _ := s.Position()
		steps = append(steps, n)
		ev := s.run("where")
		if !strings.Contains(ev, "node 2") {
			t.Errorf("n with node 2 selected stopped at %s", ev)
		}
	}
	if len(steps) == 0 {
		t.Fatal("node 2 had no events")
	}
	// The same steps as `events node=2` lists.
	out = s.run("events node=2")
	for _, n := range steps {
		mustContain(t, out, fmt.Sprintf("%6d  ", n))
	}
	if got := strings.Count(out, "\n") - 1; got != len(steps) {
		t.Errorf("events node=2 lists %d steps, n visited %d", got, len(steps))
	}
	if len(steps) > 1 {
		s.run("p")
		s.at(steps[len(steps)-2], "error")
	}
	mustContain(t, s.run("state"), "node 2 (Monitor)")
	mustNotContain(t, s.run("state"), "node 0 (Sender)")
	mustContain(t, s.run("w"), "node 2 deselected")
	s.run("home")
	s.run("n")
	s.at(1, "error")
	mustContain(t, s.fail("w 7"), "there is no node 7 (nodes 0-2)")
	mustContain(t, s.run("w all"), "no node selected")
}

// 6. List the steps where an event occurred, by kind, type and node.
func TestEvents(t *testing.T) {
	s, f := fixtureSession(t)
	evs := make([]string, f.Error.Steps+1)
	full, err := f.Error.Replay(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]engine.Event, f.Error.Steps+1)
	for i := 1; i <= f.Error.Steps; i++ {
		if _, err := full.Step(); err != nil {
			t.Fatal(err)
		}
		kinds[i] = full.LastEvent()
		evs[i] = kinds[i].String()
	}
	check := func(cmd string, want func(ev engine.Event) bool) {
		t.Helper()
		out := s.run(cmd + " --all")
		n := 0
		for i := 1; i <= f.Error.Steps; i++ {
			line := fmt.Sprintf("%6d  %s", i, evs[i])
			if want(kinds[i]) {
				n++
				mustContain(t, out, line)
			} else if strings.Contains(out, line) {
				t.Errorf("%s lists step %d: %s", cmd, i, evs[i])
			}
		}
		if n == 0 {
			t.Errorf("%s: the fixture has no such event", cmd)
			return
		}
		if n == 1 {
			mustContain(t, out, "1 step:")
		} else {
			mustContain(t, out, fmt.Sprintf("%d steps:", n))
		}
	}
	check("events datagram", func(ev engine.Event) bool { return ev.Kind == engine.EvDatagram })
	check("events timer", func(ev engine.Event) bool { return ev.Kind == engine.EvTimer })
	check("events drop", func(ev engine.Event) bool { return ev.Kind == engine.EvDrop })
	check("events failure", func(ev engine.Event) bool { return ev.Kind.IsFailure() })
	check("e Ack", func(ev engine.Event) bool { return sim.MessageName(ev.Msg) == "Ack" && ev.Kind != engine.EvTimer })
	check("events Beat node=0", func(ev engine.Event) bool { return sim.MessageName(ev.Msg) == "Beat" && ev.Node == 0 })
	check("events node=1 timer", func(ev engine.Event) bool { return ev.Node == 1 && ev.Kind == engine.EvTimer })
	check("events beat", func(ev engine.Event) bool { return ev.Kind == engine.EvTimer && ev.Timer == "beat" })
	out := s.run("events Ack")
	mustContain(t, out, "[critical]")
	// Without --all a long list is cut.
	dir, _ := writeFixture(t)
	short := open(t, dir, "", mdb.Options{Limit: 10})
	out = short.run("events datagram")
	mustContain(t, out, "more (events ... --all lists them all)")
	if n := strings.Count(out, "\n"); n != 12 {
		t.Errorf("events with Limit 10 printed %d lines", n)
	}
	mustContain(t, s.fail("events Nack"), `"Nack" is no event kind`, "types and timers: Ack, Beat, Data")
	mustContain(t, s.fail("events"), "usage: events FILTER")
	mustContain(t, s.fail("events node=9"), "no node 9")
	mustContain(t, s.run("events reset node=0"), "no step of the error path matches")
}

// 7. Filter the log with a regular expression, search it, show a step's log.
func TestLogFilterSearch(t *testing.T) {
	s, f := fixtureSession(t)
	crit := f.Error.Critical
	out := s.run(`x "stale ack"`)
	// The stale Ack is the critical transition; the log's own step= field
	// counts from 0.
	mustContain(t, out, fmt.Sprintf("%6d  INF stale ack 1 node=0 step=%d", crit, crit))
	if strings.Count(out, "\n") != 1 {
		t.Errorf("x stale ack:\n%s", out)
	}
	out = s.run(`x "begin node 2 "`)
	mustNotContain(t, out, "no log line")
	for _, l := range splitLines(out) {
		if !strings.Contains(l, "begin") || !strings.Contains(l, "node 2") {
			t.Errorf("x kept %q", l)
		}
	}
	// The log is the one macemc writes: the same lines as a replay with engine.NewLogger.
	var buf bytes.Buffer
	if _, err := f.Error.Replay(-1, engine.NewLogger(&buf)); err != nil {
		t.Fatal(err)
	}
	all := s.run("x --all .")
	if got, want := strings.Count(all, "\n"), strings.Count(buf.String(), "\n"); got != want {
		t.Errorf("x --all . shows %d lines, the log has %d", got, want)
	}
	out = s.run("x .")
	mustContain(t, out, "more (x --all REGEXP shows them all)")

	out = s.run("s stale ack")
	s.at(crit, "error")
	mustContain(t, out, "stale ack 1", fmt.Sprintf("step %d/200 [critical]", crit))
	s.run("home")
	s.run("s begin node 0 receives")
	first, _ := s.Position()
	s.run("s")
	second, _ := s.Position()
	if !(0 < first && first < second) {
		t.Errorf("s then s: %d then %d", first, second)
	}
	mustContain(t, s.run("log"), "begin "+eventAt(t, f.Error, second), "end node=0")
	mustContain(t, s.run("log 0"), "set timer beat")
	mustContain(t, s.fail("s no such line anywhere"), "no log line after step")
	mustContain(t, s.fail("x ("), "bad regular expression")
	mustContain(t, s.fail("x"), "give a regular expression")
}

// 8a. Diff the global state between two steps.
func TestDiff(t *testing.T) {
	s, f := fixtureSession(t)
	crit := f.Error.Critical
	out := s.run(fmt.Sprintf("d %d %d", crit-1, crit))
	mustContain(t, out, fmt.Sprintf("--- step %d\n+++ step %d\n", crit-1, crit),
		"node 0 (Sender):", "- timers: [retx]", "+ timers: []", "- datagram 1->0: Ack{Seq: 1}")
	s.run("j crit")
	if again := s.run("d"); again != out {
		t.Errorf("d at the critical step differs from d %d %d:\n%s", crit-1, crit, again)
	}
	out = s.run("d 0")
	mustContain(t, out, fmt.Sprintf("--- step %d\n+++ step 0", crit))
	mustContain(t, s.run("d 3 3"), "no difference")
	s.run("home")
	mustContain(t, s.fail("d"), "no step before")
	mustContain(t, s.fail("d 1 2 3"), "usage")
}

// 8b. filediff: the same step on the error (-) and live (+) paths, Figure 3.
func TestFilediff(t *testing.T) {
	s, f := fixtureSession(t)
	crit := f.Error.Critical
	s.run("j crit")
	out := s.run("filediff")
	want := fmt.Sprintf("the paths part after step %d:\n  error step %d: %s\n", crit-1, crit, eventAt(t, f.Error, crit))
	mustContain(t, out, want, fmt.Sprintf("--- error step %d\n+++ live step %d\n", crit, crit),
		"node 0 (Sender):", "- timers: []", "+ timers: [retx]")
	// Only what differs, with context: Seq is the same on both paths and
	// more than two lines from the change, so it is left out.
	mustNotContain(t, out, "Seq: 2\n")
	mustContain(t, out, "  Beats: 0\n", "  ...\n")
	if m := s.run("m"); m != out {
		t.Errorf("m differs from filediff")
	}
	if m := s.run(fmt.Sprintf("m %d live", crit)); m != out {
		t.Errorf("m STEP live differs from filediff")
	}
	mustContain(t, s.run("filediff 2"), "no difference", fmt.Sprintf("(the paths share their first %d steps)", crit-1))
	mustContain(t, s.fail("filediff 150"), "beyond")
	// Colour marks the differing text in bold.
	dir, _ := writeFixture(t)
	c := open(t, dir, "", mdb.Options{Color: true})
	c.run("j crit")
	mustContain(t, c.run("filediff"), "\x1b[31m- timers: []\x1b[0m", "\x1b[32m+ timers: [\x1b[1mretx\x1b[22m]\x1b[0m")
	// Without a live path.
	n := open(t, filepath.Join(dir, "error.trace"), "", mdb.Options{})
	mustContain(t, n.fail("filediff"), "no live path")
	// --live names it explicitly, as a log file whose trace is next to it.
	if err := os.WriteFile(filepath.Join(dir, "live.log"), []byte("INF ...\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := open(t, filepath.Join(dir, "error.trace"), filepath.Join(dir, "live.log"), mdb.Options{})
	l.run("j crit")
	if got := l.run("filediff"); got != out {
		t.Errorf("filediff with --live live.log:\n%s\nwant:\n%s", got, out)
	}
}

func TestStateProps(t *testing.T) {
	s, f := fixtureSession(t)
	s.run("j crit")
	out := s.run("state")
	mustContain(t, out, "node 0 (Sender)\nSeq: 2\nAcked: 0\n", "node 1 (Receiver)", "node 2 (Monitor)", "network:")
	mustContain(t, s.run("state 1"), "node 1 (Receiver)\nLast: 1\n")
	mustNotContain(t, s.run("state 1"), "node 0")
	mustContain(t, s.run("state net"), "network:")
	mustContain(t, s.fail("state 5"), "no node 5")
	out = s.run("props")
	mustContain(t, out, "safety:\n  NoFutureData             holds\n", "liveness:\n  AllAcked                 VIOLATED\n", fmt.Sprintf("step %d is not live", f.Error.Critical))
	s.run("path live")
	s.run("end")
	mustContain(t, s.run("props"), "AllAcked                 holds", fmt.Sprintf("step %d is live", f.Live.Steps))
	out = s.run("info")
	mustContain(t, out, "system:        mdbtest-ping", fmt.Sprintf("critical step: %d (C1)", f.Error.Critical), "failures:      off from step 12")
}

// The event graph as text: columns, arrows, drops, timers, the critical step.
func TestGraphText(t *testing.T) {
	s, f := fixtureSession(t)
	crit := f.Error.Critical
	s.run("j crit")
	out := s.run("g")
	mustContain(t, out, "event graph of the error path, steps 1-11",
		"node 0 (Sender)", "node 1 (Receiver)", "node 2 (Monitor)",
		"o...... Data ......x", // the dropped Data{Seq: 2}
		"cancel timer retx",
		"sends datagram Ack{Seq: 1} to node 0")
	critLine := regexp.MustCompile(fmt.Sprintf(`(?m)^\* +%d .*<-+ Ack -+o.*node 0 receives datagram Ack\{Seq: 1\} from node 1 \(sent at step \d+\)$`, crit))
	if !critLine.MatchString(out) {
		t.Errorf("no arrow from node 1 to node 0 at the critical step:\n%s", out)
	}
	out = s.run("g 1 3")
	mustContain(t, out, "steps 1-3", "A ", "set timer retx")
	mustContain(t, s.fail("g 5 2"), "empty")
	mustContain(t, s.fail("g 1"), "usage")
	mustContain(t, s.fail("g --svg"), "needs a file")
	mustContain(t, s.fail("g --png x"), "unknown option")
}

// The SVG event graph is well-formed XML and names every node and message.
func TestGraphSVG(t *testing.T) {
	s, f := fixtureSession(t)
	file := filepath.Join(t.TempDir(), "graph.svg")
	from, to := 1, 40
	out := s.run(fmt.Sprintf("g %d %d --svg %s", from, to, file))
	mustContain(t, out, "wrote "+file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, data)
	// Every node and every message delivered, dropped or sent in the range.
	full, err := f.Error.Replay(from-1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range full.Nodes() {
		title, _, _ := strings.Cut(full.NodeText(sim.NodeID(i)), "\n")
		mustContain(t, texts, title)
	}
	var buf bytes.Buffer
	logged, err := f.Error.Replay(to, engine.NewLogger(&buf))
	if err != nil {
		t.Fatal(err)
	}
	_ = logged
	n := 0
	for i := from; i <= to; i++ {
		if _, err := full.Step(); err != nil {
			t.Fatal(err)
		}
		ev := full.LastEvent()
		mustContain(t, texts, fmt.Sprintf("step %d: %s", i, ev))
		if ev.Msg != nil {
			mustContain(t, texts, engine.FormatValue(ev.Msg))
			n++
		}
	}
	// Sends in the range, from the log.
	for _, l := range splitLines(buf.String()) {
		m := regexp.MustCompile(`send (?:datagram )?(\S+\{.*\}) node=\d+ step=(\d+) to=`).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if st, _ := strconv.Atoi(m[2]); st+1 >= from {
			mustContain(t, texts, m[1])
		}
	}
	if n < 10 {
		t.Errorf("only %d messages in the range", n)
	}
	mustContain(t, texts, "step "+strconv.Itoa(f.Error.Critical)+" (critical)", "reset", "(dropped)")
	if err := s.Exec("g 1 5 --svg " + filepath.Join(t.TempDir(), "no", "such", "dir", "g.svg")); err == nil {
		t.Error("writing into a missing directory succeeded")
	}
}

// svgTexts checks that data is well-formed XML with an svg root and
// returns all its character data.
func svgTexts(t *testing.T, data []byte) string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var b strings.Builder
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
				if tok.Name.Space != "http://www.w3.org/2000/svg" {
					t.Errorf("root namespace %q", tok.Name.Space)
				}
			}
		case xml.CharData:
			b.Write(tok)
			b.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q", root)
	}
	return b.String()
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestHelpAndErrors(t *testing.T) {
	s, _ := fixtureSession(t)
	out := s.run("help")
	for _, c := range []string{"jump, j STEP", "next, n [COUNT]", "prev, p", "home", "end", "diff, d", "filediff, m", "search, s", "filter, x", "watch, w", "graph, g", "avail, a", "run, R", "branch, B", "events", "state", "props", "quit, q"} {
		mustContain(t, out, c)
	}
	mustContain(t, s.run("help j"), "jump, j STEP", "critical transition")
	mustContain(t, s.run("? g"), "o--->")
	mustContain(t, s.fail("help nothing"), `no command "nothing"`)
	mustContain(t, s.fail("frobnicate"), `unknown command "frobnicate"; help lists the commands`)
	mustContain(t, s.fail(`state "1`), "unterminated quote")
	s.run("")
	s.run("# a comment")
	if s.Done() {
		t.Fatal("done before quit")
	}
	s.run("q")
	if !s.Done() {
		t.Fatal("quit did not end the session")
	}
}

func TestScript(t *testing.T) {
	dir, f := writeFixture(t)
	var buf bytes.Buffer
	s, err := mdb.Open(dir, "", mdb.Options{Out: &buf})
	if err != nil {
		t.Fatal(err)
	}
	err = s.RunScript(strings.NewReader("j crit; m\n\nbogus\nn\\; nonsense\nx a\\;b\nq\nn\n"), true)
	if !errors.Is(err, mdb.ErrCommands) || !strings.HasSuffix(err.Error(), ": 2") {
		t.Errorf("RunScript: %v, want 2 failed commands", err)
	}
	out := buf.String()
	c := f.Error.Critical
	mustContain(t, out, "(mdb 0) j crit\n", fmt.Sprintf("(mdb %d) m\n", c), "--- error step",
		"error: unknown command \"bogus\"", fmt.Sprintf("(mdb %d) n; nonsense\nerror: unknown command \"n;\"", c),
		fmt.Sprintf("(mdb %d) x a;b\n", c), fmt.Sprintf("(mdb %d) q\n", c))
	mustNotContain(t, out, fmt.Sprintf("(mdb %d) n\n", c))
	if got := mdb.SplitCommands(`j 5; x "a;b"; s 'c;d' ;; g \; h`); strings.Join(got, "|") != `j 5|x "a;b"|s 'c;d'|g ; h` {
		t.Errorf("SplitCommands: %q", got)
	}
}

func TestOpenErrors(t *testing.T) {
	dir, f := writeFixture(t)
	good, err := os.ReadFile(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := append([]byte(nil), good...)
	corrupt[len(corrupt)/2] ^= 0xff
	other := *f.Error
	other.System = "no-such-system"
	otherFile := filepath.Join(t.TempDir(), "other.trace")
	if err := other.Write(otherFile); err != nil {
		t.Fatal(err)
	}
	short := *f.Error
	short.Choices = short.Choices[:10]
	shortFile := filepath.Join(t.TempDir(), "short.trace")
	if err := short.Write(shortFile); err != nil {
		t.Fatal(err)
	}
	otherLive := *f.Live
	otherLive.Params = map[string]string{"fixed": "true"}
	otherLiveFile := filepath.Join(t.TempDir(), "live.trace")
	if err := otherLive.Write(otherLiveFile); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, arg, live, want string
	}{
		{"missing", filepath.Join(dir, "nothing.trace"), "", "no such file"},
		{"empty arg", "", "", "no file or directory given"},
		{"dir without traces", t.TempDir(), "", "has no error.trace"},
		{"truncated", write("t.trace", good[:len(good)-20]), "", "trace: truncated"},
		{"corrupt", write("c.trace", corrupt), "", "trace: corrupt"},
		{"not a trace", write("n.trace", []byte("hello\n")), "", "not a macemc trace file"},
		{"log without trace", write("error.log", []byte("INF x\n")), "", "found no error.trace next to it"},
		{"unknown system", otherFile, "", `unknown system "no-such-system"`},
		{"choices run out", shortFile, "", "does the trace fit"},
		{"live of another system", filepath.Join(dir, "error.trace"), otherLiveFile, "the live trace is for mdbtest-ping (fixed=true)"},
		{"missing live", filepath.Join(dir, "error.trace"), filepath.Join(dir, "nope.trace"), "no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := mdb.Open(c.arg, c.live, mdb.Options{Out: io.Discard})
			if err == nil {
				t.Fatal("opened")
			}
			if !errors.Is(err, mdb.ErrInput) {
				t.Errorf("%v does not wrap ErrInput", err)
			}
			if c.want == "does the trace fit" {
				mustContain(t, err.Error(), "another version of the system")
				return
			}
			mustContain(t, err.Error(), c.want)
		})
	}
	// A live trace that does not replay leaves the error path usable.
	badLive := *f.Live
	badLive.Choices = badLive.Choices[:3]
	badLive.Note = "made up"
	badLiveFile := filepath.Join(t.TempDir(), "live.trace")
	if err := badLive.Write(badLiveFile); err != nil {
		t.Fatal(err)
	}
	w := open(t, filepath.Join(dir, "error.trace"), badLiveFile, mdb.Options{})
	w.Intro()
	mustContain(t, w.out.String(), "warning: no live path: ", "the trace does not replay", "(the trace's note: made up)")
	mustContain(t, w.fail("filediff"), "no live path to compare with", "name a branch instead")
	mustContain(t, w.run("j crit"), "[critical]")

	// A .log file stands for the trace next to it.
	if err := os.WriteFile(filepath.Join(dir, "error.log"), []byte("INF ...\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(dir, "error.log"), "", mdb.Options{})
	s.Intro()
	mustContain(t, s.out.String(), "error.trace: liveness violation")
}

// Boom is a service whose handler panics on its second message, and whose
// state text panics when asked to: a safety trace ends with a panic.
type Boom struct {
	sim.Base
	Got int
}

// Bomb makes Boom's state text panic.
type Bomb struct{ Armed bool }

// Canonical implements sim.Canonicalizer; it panics when armed.
func (b Bomb) Canonical() any {
	if b.Armed {
		panic("bomb went off")
	}
	return "bomb"
}

// BoomState holds a Bomb.
type BoomState struct {
	sim.Base
	Got  int
	Bomb Bomb
}

func (b *BoomState) HandleApp(ctx *sim.Context, req any) { ctx.Send(1, "hit") }

func (b *BoomState) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	b.Got++
	if req, _ := m.(string); req == "hit" {
		ctx.Send(0, "back")
	}
	if b.Got == 2 {
		b.Bomb.Armed = true
	}
	if b.Got == 3 {
		panic("third message")
	}
}

func init() {
	sim.Register(&sim.System{
		Name: "mdbtest-boom",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &BoomState{} },
				App: func(id sim.NodeID) []any {
					return []any{"go", "go", "go"}
				},
				Safety: []sim.Property{{Name: "NoPanic", Check: func(*sim.View) bool { return true }}},
			}, nil
		},
	})
}

// A safety trace that ends with a handler panic opens, and a command that
// panics is reported as an error while the session goes on.
func TestSafetyTraceAndPanics(t *testing.T) {
	cfg, _, err := func() (*sim.Config, sim.Params, error) {
		sys, err := sim.Lookup("mdbtest-boom")
		if err != nil {
			return nil, nil, err
		}
		return sys.Config(nil)
	}()
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(5)})
	if err != nil {
		t.Fatal(err)
	}
	var stepErr error
	for stepErr == nil {
		var ok bool
		ok, stepErr = s.Step()
		if !ok && stepErr == nil {
			t.Fatal("the boom system went quiet without a panic")
		}
	}
	if !errors.Is(stepErr, engine.ErrHandlerPanic) {
		t.Fatal(stepErr)
	}
	tr := &trace.Trace{System: "mdbtest-boom", Choices: s.ChoiceValues(), Steps: s.Steps(), Kind: "safety", Property: "panic in handler", Critical: -1}
	file := filepath.Join(t.TempDir(), "error.trace")
	if err := tr.Write(file); err != nil {
		t.Fatal(err)
	}
	ts := open(t, file, "", mdb.Options{})
	ts.Intro()
	mustContain(t, ts.out.String(), "safety violation: a handler panicked", fmt.Sprintf("the handler fails at step %d", tr.Steps), "the path ends with: sim: panic in handler")
	mustContain(t, ts.fail("j crit"), "a safety violation has no critical step")
	out := ts.run("end")
	mustContain(t, out, "[end: sim: panic in handler", "third message")
	mustContain(t, ts.fail("a"), "ends with an error")
	mustContain(t, ts.fail("B 0"), "ends with an error")
	// The node whose Bomb is armed cannot be shown: the panic is an error.
	msg := ts.fail("state")
	mustContain(t, msg, "internal error: bomb went off")
	ts.run("home")
	mustContain(t, ts.run("state"), "Bomb: \"bomb\"")
	mustContain(t, ts.run("g 1 end"), "handles app request")
	mustContain(t, ts.run("x panic"), "panic in handler")
}

func TestFixtureFixed(t *testing.T) {
	// The fixed system has no violation in the walks Find tries.
	mdbtest.Register()
	sys, err := sim.Lookup(mdbtest.SystemName)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := sys.Config(map[string]string{"fixed": "true"}); err != nil {
		t.Fatal(err)
	}
}

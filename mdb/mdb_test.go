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
	"slices"
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

// TestEvents: events lists exactly the steps of the error path whose
// events match the filter, checked against an independent replay
// (testdata/events.txt shows the listings and the errors).
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
}

// TestEventKindsListed: help events and the error for an unknown filter
// list every kind events accepts, and events accepts every kind they
// list.
func TestEventKindsListed(t *testing.T) {
	s, _ := fixtureSession(t)
	help := s.run("help events")
	_, list, ok := strings.Cut(help, "Kinds: ")
	list, _, _ = strings.Cut(list, ".")
	if !ok {
		t.Fatalf("help events lists no kinds:\n%s", help)
	}
	kinds := strings.Split(list, ", ")
	for _, k := range engine.EventKinds() {
		if !slices.Contains(kinds, k.String()) {
			t.Errorf("help events does not list %s: %s", k, list)
		}
	}
	for _, k := range kinds {
		s.run("events " + k) // accepted: it names steps or says none match
	}
	mustContain(t, s.fail("events nosuchkind"), "(kinds: "+list+";")
}

// TestLogIsMacemcs: the log mdb filters is the one macemc writes, the
// same lines as a replay with engine.NewLogger, and s finds lines after
// the current step (testdata/log.txt shows filtering and searching).
func TestLogIsMacemcs(t *testing.T) {
	s, f := fixtureSession(t)
	// The log is the one macemc writes: the same lines as a replay with engine.NewLogger.
	var buf bytes.Buffer
	if _, err := f.Error.Replay(-1, engine.NewLogger(&buf)); err != nil {
		t.Fatal(err)
	}
	all := s.run("x --all .")
	if got, want := strings.Count(all, "\n"), strings.Count(buf.String(), "\n"); got != want {
		t.Errorf("x --all . shows %d lines, the log has %d", got, want)
	}
	s.run("home")
	s.run("s begin node 0 receives")
	first, _ := s.Position()
	s.run("s")
	second, _ := s.Position()
	if !(0 < first && first < second) {
		t.Errorf("s then s: %d then %d", first, second)
	}
	mustContain(t, s.run("log"), "begin "+eventAt(t, f.Error, second))
}

// TestFilediffLiveLog: --live may name the live path as a log file whose
// trace is next to it (testdata/diff.txt shows filediff itself).
func TestFilediffLiveLog(t *testing.T) {
	dir, _ := writeFixture(t)
	s := open(t, dir, "", mdb.Options{})
	s.run("j crit")
	out := s.run("filediff")
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
	misfit := *f.Error
	misfit.Choices = slices.Clone(misfit.Choices)
	misfit.Choices[5] = 99
	misfitFile := filepath.Join(t.TempDir(), "misfit.trace")
	if err := misfit.Write(misfitFile); err != nil {
		t.Fatal(err)
	}
	cycle := *f.Error
	cycle.CycleStart, cycle.CycleLen = 1<<62+1, 1<<62+1
	cycleFile := filepath.Join(t.TempDir(), "cycle.trace")
	if err := cycle.Write(cycleFile); err != nil {
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
		{"unknown system", otherFile, "", `mdb: bad input: sim: unknown system "no-such-system" (known: `},
		{"unknown system's hint", otherFile, "", "(run mdb with a binary that registers the system: a main package that imports the system's package and calls cli.Main, as `BINARY mdb DIR`)"},
		{"steps without choices", shortFile, "", "steps with 10 choices (every step makes at least one)"},
		{"cycle beyond the steps", cycleFile, "", "trace: corrupt: a cycle of 4611686018427387905 steps"},
		{"choices do not fit", misfitFile, "", "does the trace fit"},
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
	badLive.Choices = slices.Clone(badLive.Choices)
	badLive.Choices[2] = 99
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
	// The error trace alone (a run that wrote no live alternative): the
	// refusal says where to look instead.
	alone := open(t, filepath.Join(dir, "error.trace"), "", mdb.Options{})
	crit := f.Error.Critical
	mustContain(t, alone.fail("filediff"), "a run writes live.trace only when it found a live alternative", fmt.Sprintf("'d %d %d' compares the states on either side of it", crit-1, crit))

	// A .log file stands for the trace next to it.
	if err := os.WriteFile(filepath.Join(dir, "error.log"), []byte("INF ...\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(dir, "error.log"), "", mdb.Options{})
	s.Intro()
	mustContain(t, s.out.String(), "error.trace: liveness violation")
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

// TestOpenWarnsOfAnotherExecution: a trace whose replay leaves the states
// it recorded (here: a recorded state altered) is opened with a warning
// that names the step; what mdb shows from there is another execution.
func TestOpenWarnsOfAnotherExecution(t *testing.T) {
	_, f := writeFixture(t)
	tr := *f.Error
	if err := tr.Stamp(); err != nil || len(tr.States) < 8*4 {
		t.Fatalf("stamping the fixture's trace: %v (%d bytes of states)", err, len(tr.States))
	}
	stamped := filepath.Join(t.TempDir(), "error.trace")
	if err := tr.Write(stamped); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := mdb.Open(stamped, "", mdb.Options{Out: &buf}); err != nil || strings.Contains(buf.String(), "warning") {
		t.Fatalf("the trace as recorded: %v\n%s", err, buf.String())
	}
	tr.States[8*3] ^= 1 // the state after step 3
	file := filepath.Join(t.TempDir(), "error.trace")
	if err := tr.Write(file); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if _, err := mdb.Open(file, "", mdb.Options{Out: &buf}); err != nil {
		t.Fatal(err)
	}
	mustContain(t, buf.String(), "warning: the error trace: the replay is not the recorded execution: its state after step 3 differs")
}

// TestScriptLongLine: a line over MaxCommandLine bytes is an error of its
// own, which says the limit, and the lines after it run; a line of
// exactly the limit (a comment here) is read, with or without "\r\n".
func TestScriptLongLine(t *testing.T) {
	dir, _ := writeFixture(t)
	var buf bytes.Buffer
	s, err := mdb.Open(dir, "", mdb.Options{Out: &buf})
	if err != nil {
		t.Fatal(err)
	}
	justRight := "#" + strings.Repeat("a", mdb.MaxCommandLine-1)
	tooLong := "x " + strings.Repeat("a", mdb.MaxCommandLine-1)
	script := "n\n" + justRight + "\r\n" + tooLong + "\nn\n" + justRight
	err = s.RunScript(strings.NewReader(script), true)
	if !errors.Is(err, mdb.ErrCommands) || !strings.HasSuffix(err.Error(), ": 1") {
		t.Errorf("RunScript: %v, want 1 failed command", err)
	}
	out := buf.String()
	mustContain(t, out, fmt.Sprintf("error: line 3 is %d bytes long, over the %d bytes (1 MiB) a command line may have: skipped\n", mdb.MaxCommandLine+1, mdb.MaxCommandLine),
		"(mdb 1) n\nstep 2/200")
	if n, _ := s.Position(); n != 2 {
		t.Errorf("at step %d after the script, want 2", n)
	}
}

// TestRandomRunContradictsAnEarlyCriticalStep: a random run that becomes
// live from the error path's states after its critical step shows that
// step was near dead, not dead, and says so (a trial's raft run named a
// step its mdb branches recovered from, and mdb said only "live").
func TestRandomRunContradictsAnEarlyCriticalStep(t *testing.T) {
	f := found(t)
	if f.Error.Critical < 2 || f.Error.Condition != "C1" {
		t.Fatalf("fixture's critical step %d (%s)", f.Error.Critical, f.Error.Condition)
	}
	early := *f.Error
	early.Critical = 1 // an early, near-dead answer: the state after step 1 still recovers
	file := filepath.Join(t.TempDir(), "error.trace")
	if err := early.Write(file); err != nil {
		t.Fatal(err)
	}
	w := open(t, file, "", mdb.Options{})
	w.run("j 1")
	mustContain(t, w.run("R 5000 1"), "live at step", "passes through the error path's state 1, after its critical transition, and still became live")
}

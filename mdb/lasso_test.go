package mdb_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/macemc/macemc/cmd/cli"
	"github.com/macemc/macemc/mdb"
	_ "github.com/macemc/macemc/services/philosophers"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

// lassoOutput runs `macemc search --lasso` on the philosophers in process
// and returns its output directory and error trace: a lasso trace, whose
// cycle (CycleStart, CycleLen) the search marked.
func lassoOutput(t *testing.T) (string, *trace.Trace) {
	t.Helper()
	if _, err := sim.Lookup("philosophers"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out, errs bytes.Buffer
	app := &cli.App{Name: "macemc", Stdout: &out, Stderr: &errs}
	args := []string{"search", "--system", "philosophers", "--param", "n=2", "--lasso", "--walk-depth", "400", "--walks", "10", "--out", dir}
	if code := app.Run(args); code != cli.ExitViolation {
		t.Fatalf("macemc %s: exit %d\n%s%s", strings.Join(args, " "), code, &out, &errs)
	}
	tr, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if tr.CycleLen < 2 || tr.Steps != tr.CycleStart+tr.CycleLen || tr.Note == "" {
		t.Fatalf("not a lasso trace: cycle %d+%d, %d steps, note %q", tr.CycleStart, tr.CycleLen, tr.Steps, tr.Note)
	}
	return dir, tr
}

// TestLassoTrace: mdb on a lasso trace jumps to the cycle, marks the
// cycle's steps while stepping through it, and shows the lasso in intro,
// info and help.
func TestLassoTrace(t *testing.T) {
	dir, tr := lassoOutput(t)
	stem, l, steps := tr.CycleStart, tr.CycleLen, tr.Steps
	s := open(t, dir, "", mdb.Options{})
	s.Intro()
	mustContain(t, s.out.String(), "liveness violation of EveryoneEats",
		fmt.Sprintf("lasso: a stem of %s, then a cycle of %d steps (transitions %d-%d) back to the state of step %d; j cycle jumps to it",
			plural(stem, "step"), l, stem+1, stem+l, stem))

	out := s.run("j cycle")
	s.at(stem, "error")
	mustContain(t, out, fmt.Sprintf("step %d/%d [cycle 0/%d, its first state]: ", stem, steps, l))
	first := s.run("state")
	out = s.run("n")
	s.at(stem+1, "error")
	mustContain(t, out, fmt.Sprintf("step %d/%d [cycle 1/%d]: ", stem+1, steps, l))
	out = s.run(fmt.Sprintf("n %d", l-1))
	mustContain(t, out, fmt.Sprintf("step %d/%d [cycle 2/%d]: ", stem+2, steps, l),
		fmt.Sprintf("step %d/%d [cycle %d/%d, back at step %d's state, end]: ", steps, steps, l, l, stem))
	// The cycle returns to exactly the state it started from.
	if last := s.run("state"); last != first {
		t.Errorf("the state after the cycle differs from its first state:\n%s\nvs\n%s", first, last)
	}
	out = s.run("p")
	mustContain(t, out, fmt.Sprintf("[cycle %d/%d]", l-1, l))
	if stem > 0 {
		out = s.run(fmt.Sprintf("j %d", stem-1))
		mustNotContain(t, out, "cycle")
	}
	// events lists the cycle's steps with their marks.
	mustContain(t, s.run("events message"), fmt.Sprintf("[cycle 1/%d]", l))

	out = s.run("info")
	mustContain(t, out, fmt.Sprintf("lasso:         a stem of %s, then a cycle of %d steps: transitions %d-%d, from step %d back to its state (j cycle)",
		plural(stem, "step"), l, stem+1, stem+l, stem),
		"note:          "+tr.Note)
	mustContain(t, s.run("help j"), "j cycle", "cycle 1/L")
	mustContain(t, s.run("help"), "crit, cycle, home, end")

	// On the live path `j cycle` is only a step number, unmarked.
	s.run("path live")
	out = s.run("j cycle")
	s.at(stem, "live")
	mustNotContain(t, out, "cycle")
	mustContain(t, s.fail("g cycle"), "on the error path")
}

// TestLassoGraph: the event graph brackets the cycle's steps, as text and
// as SVG (a band, a bracket and a "cycle" label).
func TestLassoGraph(t *testing.T) {
	dir, tr := lassoOutput(t)
	stem, l := tr.CycleStart, tr.CycleLen
	s := open(t, dir, "", mdb.Options{})
	out := s.run("g cycle")
	mustContain(t, out, fmt.Sprintf("event graph of the error path, steps %d-%d", stem+1, stem+l),
		fmt.Sprintf("the lasso's cycle: transitions %d-%d (%d steps), from step %d back to its state (┌│└)", stem+1, stem+l, l, stem),
		fmt.Sprintf("[cycle 1/%d]", l), fmt.Sprintf("[cycle %d/%d]", l, l), "┌│└: cycle")
	for _, want := range []string{
		fmt.Sprintf(`(?m)^ ┌ +%d .*\[cycle 1/%d\]$`, stem+1, l),
		fmt.Sprintf(`(?m)^ │ +%d .*\[cycle 2/%d\]$`, stem+2, l),
		fmt.Sprintf(`(?m)^ └ +%d .*\[cycle %d/%d\]$`, stem+l, l, l),
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("no line matching %s:\n%s", want, out)
		}
	}
	// Every row of the cycle is bracketed, the lines under a row too.
	rows := 0
	for _, line := range splitLines(out)[2 : len(splitLines(out))-1] {
		if line[0] != ' ' && line[0] != '>' && line[0] != '*' {
			t.Errorf("line without a marker column: %q", line)
		}
		if !strings.HasPrefix(line[1:], "┌") && !strings.HasPrefix(line[1:], "│") && !strings.HasPrefix(line[1:], "└") && !strings.HasPrefix(strings.TrimSpace(line), "node ") {
			t.Errorf("line outside the bracket: %q", line)
		}
		if strings.Contains(line, "[cycle ") {
			rows++
		}
	}
	if rows != l {
		t.Errorf("%d rows marked, want %d", rows, l)
	}
	// Before the cycle, rows are not marked; the bracket starts at the cycle.
	if stem > 0 {
		out = s.run(fmt.Sprintf("g 1 %d", stem+2))
		mustContain(t, out, fmt.Sprintf("steps 1-%d", stem+2), "┌")
		mustNotContain(t, out, "[cycle 0/")
		if regexp.MustCompile(`(?m)^.[┌│└] +1 `).MatchString(out) || regexp.MustCompile(`(?m)^.└`).MatchString(out) {
			t.Errorf("step 1 bracketed, or the cut cycle closed:\n%s", out)
		}
	}

	file := filepath.Join(t.TempDir(), "cycle.svg")
	mustContain(t, s.run("g cycle --svg "+file), "wrote "+file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, data)
	mustContain(t, texts, fmt.Sprintf("cycle (%d steps)", l), "cycle 1/"+fmt.Sprint(l), fmt.Sprintf("cycle %d/%d", l, l),
		fmt.Sprintf("the lasso's cycle: transitions %d-%d", stem+1, stem+l))
	mustContain(t, string(data), `<g class="cycle" id="cycle">`)

	// A graph that does not reach the cycle has no marks.
	if stem > 1 {
		file = filepath.Join(t.TempDir(), "stem.svg")
		out = s.run(fmt.Sprintf("g 1 %d --svg %s", stem, file))
		mustNotContain(t, out, "┌", "cycle")
		data, err = os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		mustNotContain(t, string(data), "cycle")
	}
}

// TestNoLasso: on a trace without a lasso, cycle is refused and graphs
// have no bracket column.
func TestNoLasso(t *testing.T) {
	s, _ := fixtureSession(t)
	mustContain(t, s.fail("j cycle"), "no lasso cycle")
	mustContain(t, s.fail("g cycle"), "no lasso cycle")
	mustContain(t, s.fail("g 1 cycle"), "no lasso cycle")
	mustNotContain(t, s.run("g 1 5"), "┌", "│", "cycle")
	mustNotContain(t, s.run("info"), "lasso")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

package mdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/philosophers"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

// lassoOutput searches the philosophers' livelock with lasso detection
// (as `macemc search --system philosophers --param n=2 --lasso
// --walk-depth 400 --walks 10`) and returns its output directory and error
// trace: a lasso trace, whose cycle (CycleStart, CycleLen) the search
// marked.
func lassoOutput(t *testing.T) (string, *trace.Trace) {
	t.Helper()
	sys, err := sim.Lookup(philosophers.SystemName)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := search.Options{Params: map[string]string{"n": "2"}, Lasso: search.LassoOptions{On: true}, WalkDepth: 400, Walks: 10, Out: dir}
	rep, err := search.Run(context.Background(), sys, opts)
	if err != nil || rep.First() == nil || rep.First().Kind != search.KindLasso {
		t.Fatalf("search: %v, %+v", err, rep)
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

// TestLassoCycleReturns: on a lasso trace the state after the cycle is
// exactly the state j cycle shows (testdata/lasso.txt shows the session).
func TestLassoCycleReturns(t *testing.T) {
	dir, tr := lassoOutput(t)
	s := open(t, dir, "", mdb.Options{})
	s.run("j cycle")
	s.at(tr.CycleStart, "error")
	first := s.run("state")
	s.run(fmt.Sprintf("n %d", tr.CycleLen))
	s.at(tr.Steps, "error")
	if last := s.run("state"); last != first {
		t.Errorf("the state after the cycle differs from its first state:\n%s\nvs\n%s", first, last)
	}
}

// TestLassoSVG: the SVG event graph of the cycle bands it, with a bracket
// and a "cycle" label; a graph that does not reach the cycle has no marks.
func TestLassoSVG(t *testing.T) {
	dir, tr := lassoOutput(t)
	stem, l := tr.CycleStart, tr.CycleLen
	s := open(t, dir, "", mdb.Options{})
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
	if stem > 1 {
		file = filepath.Join(t.TempDir(), "stem.svg")
		mustNotContain(t, s.run(fmt.Sprintf("g 1 %d --svg %s", stem, file)), "┌", "cycle")
		data, err = os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		mustNotContain(t, string(data), "cycle")
	}
}

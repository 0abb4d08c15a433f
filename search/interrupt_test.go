package search_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim/trace"
)

// TestInterruptEachPhase cancels transport seed 7's run (a dead state on
// path 5, critical transition C1 at step 8 after probes at 5, 10 and 7)
// when it reaches each phase: the report is always returned and written,
// marked incomplete; a violation found before is kept with a trace that
// replays it; an interrupted critical search gives the bounds it had
// narrowed to and keeps its live alternative; the logs are left out.
func TestInterruptEachPhase(t *testing.T) {
	sys := system(t, "transport")
	for _, c := range []struct {
		name  string
		when  func(search.Progress) bool
		found bool
	}{
		{"search", func(p search.Progress) bool { return p.Phase == search.PhaseSearch }, false},
		{"check", func(p search.Progress) bool { return p.Phase == search.PhaseCheck }, true},
		{"critical after two probes", func(p search.Progress) bool {
			return p.Phase == search.PhaseCritical && strings.Contains(p.Message, "probe at step 10")
		}, true},
		{"files", func(p search.Progress) bool { return p.Phase == search.PhaseFiles }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			dir := t.TempDir()
			o := search.Options{Seed: 7, Workers: 2, Out: dir, Progress: func(p search.Progress) {
				if c.when(p) {
					cancel()
				}
			}}
			rep, err := search.Run(ctx, sys, o)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Incomplete {
				t.Error("not marked incomplete")
			}
			read, err := search.ReadReport(filepath.Join(dir, "report.json"))
			if err != nil || !read.Incomplete {
				t.Fatalf("report.json: %v", err)
			}
			f := rep.First()
			if (f != nil) != c.found {
				t.Fatalf("finding %+v, want one: %v", f, c.found)
			}
			if f == nil {
				return
			}
			tr, err := trace.Read(filepath.Join(dir, "error.trace"))
			if err != nil {
				t.Fatal(err)
			}
			if r, err := search.Replay(tr, -1, nil); err != nil || !r.Reproduced {
				t.Fatalf("error.trace does not reproduce: %v", err)
			}
			if !rep.LogsSkipped {
				t.Error("logs not marked skipped")
			}
			if _, err := os.Stat(filepath.Join(dir, "error.log")); !os.IsNotExist(err) {
				t.Errorf("error.log: %v", err)
			}
			// The page is left out, and the report says which command
			// writes it.
			if _, err := os.Stat(filepath.Join(dir, "report.html")); !os.IsNotExist(err) {
				t.Errorf("report.html: %v", err)
			}
			if !slices.ContainsFunc(rep.Warnings, func(w string) bool {
				return strings.Contains(w, "the report page was not written: the run was interrupted") && strings.Contains(w, " report "+dir)
			}) {
				t.Errorf("no warning of the report page left out: %q", rep.Warnings)
			}
			if c.name == "critical after two probes" {
				cr := f.Critical
				if cr == nil || !cr.Interrupted || cr.Step != -1 || cr.Recovered != 5 || cr.Dead != 10 || cr.Probes != 2 ||
					!strings.Contains(cr.Explain, "transitions 6-10") {
					t.Fatalf("critical %+v", cr)
				}
				if rc := read.First().Critical; rc == nil || !rc.Interrupted || rc.Recovered != 5 || rc.Dead != 10 {
					t.Fatalf("report.json's critical: %+v", rc)
				}
				if lt, err := trace.Read(filepath.Join(dir, "live.trace")); err != nil || lt.Critical != -1 || lt.Condition != "" {
					t.Errorf("the live alternative found before the interruption, with no critical step: %v %+v", err, lt)
				}
			}
		})
	}
}

// Package searchtest checks systems from go test: Check runs the whole
// macemc pipeline (package search) on a system and fails the test with the
// finding, its critical transition and the command that replays it.
//
// # Usage
//
//	func TestPingPong(t *testing.T) {
//		searchtest.Check(t, pingpong.System, search.Options{MaxPaths: 2000, Seed: 1})
//	}
//
// Unless opts.Out is set, the results go to a directory under os.TempDir()
// named after the test, kept after the test so that the replay command
// works; register the system (sim.Register) in the binary that replays it.
package searchtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// Check runs search.Run on sys with opts and fails t when it finds a
// violation (with the report and the replay command) or cannot run (bad
// options, a system that does not build). It returns the report, nil when
// the run could not start.
func Check(t testing.TB, sys *sim.System, opts search.Options) *search.Report {
	t.Helper()
	if opts.Out == "" {
		name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
		opts.Out = filepath.Join(os.TempDir(), "macemc-"+name)
	}
	rep, err := search.Run(context.Background(), sys, opts)
	if err != nil {
		t.Errorf("macemc search %s: %v", sys.Name, err)
		return rep
	}
	if rep.First() != nil {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Errorf("macemc found a violation in %s:\n%s", sys.Name, b.String())
	}
	return rep
}

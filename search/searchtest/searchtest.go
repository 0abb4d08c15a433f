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

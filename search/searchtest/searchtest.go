package searchtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"strings"
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
	own := ""
	if opts.Out == "" {
		// A directory of its own for every run: tests of the same name in
		// two packages (or two users' runs) must not replace each
		// other's evidence.
		name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
		dir, err := os.MkdirTemp("", "macemc-"+name+"-")
		if err != nil {
			t.Errorf("macemc search %s: %v", sys.Name, err)
			return nil
		}
		opts.Out, own = dir, dir
	}
	rep, err := search.Run(context.Background(), sys, opts)
	if err != nil {
		t.Errorf("macemc search %s: %v", sys.Name, err)
		return rep
	}
	if own != "" && rep.First() == nil {
		_ = os.RemoveAll(own) // nothing to replay
	}
	if rep.First() != nil {
		var b bytes.Buffer
		rep.WriteText(&b)
		if opts.Command == "" && !knownToMacemc(sys) {
			fmt.Fprintf(&b, "(the commands above name macemc's own command, which does not know system %s: run them with a "+
				"binary that registers it, a main package of your module that imports the system's package and calls "+
				"cli.Main (package github.com/macemc/macemc/cmd/cli), or set Options.Command to that binary's name)\n", sys.Name)
		}
		t.Errorf("macemc found a violation in %s:\n%s", sys.Name, b.String())
	}
	return rep
}

// knownToMacemc reports whether the macemc command knows sys: it registers
// the example systems (services/all), so whether sys is built by a
// package under services/.
func knownToMacemc(sys *sim.System) bool {
	if sys.Build == nil {
		return false
	}
	fn := runtime.FuncForPC(reflect.ValueOf(sys.Build).Pointer())
	return fn != nil && strings.HasPrefix(fn.Name(), "github.com/macemc/macemc/services/")
}

package cli

import (
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/simtest"
)

func init() {
	sim.Register(&sim.System{Name: "clitest-slowticker", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &simtest.SlowTicker{} }}, nil
	}})
}

// TestNothingSearchedExits2: a --time that the check before the search
// uses up leaves no path searched; that is no "nothing found" (exit 0, a
// pass to a wrapper) but exit 2 asking for a larger --time, with the
// report printed (and, with --json, nothing_searched in it).
func TestNothingSearchedExits2(t *testing.T) {
	code, out, errs := run(t, "search", "--system", "clitest-slowticker", "--out", t.TempDir(), "--time", "200ms", "--workers", "1")
	if code != ExitUsage || !strings.Contains(out, "\nNOTHING SEARCHED: ") || !strings.Contains(errs, "macemc search: nothing was searched: the time budget (--time) ran out") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, "search", "--system", "clitest-slowticker", "--out", t.TempDir(), "--time", "200ms", "--workers", "1", "--json")
	if code != ExitUsage || !strings.Contains(out, `"nothing_searched": true`) {
		t.Fatalf("--json: exit %d\n%s%s", code, out, errs)
	}
}

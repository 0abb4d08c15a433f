package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// slowBoot sets 20,000 timers at boot: every step then walks them, and the
// check before the search (a 1,000-step walk replayed up to 64 times) takes
// over a second.
type slowBoot struct {
	sim.Base
	Fired int
}

func (b *slowBoot) Start(ctx *sim.Context) {
	for i := range 20_000 {
		ctx.SetTimer(fmt.Sprintf("t%05d", i))
	}
}

func (b *slowBoot) HandleTimer(*sim.Context, string) { b.Fired++ }

func init() {
	sim.Register(&sim.System{Name: "clitest-slowboot", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &slowBoot{} }}, nil
	}})
}

// TestNothingSearchedExits2: a --time that the check before the search
// uses up leaves no path searched; that is no "nothing found" (exit 0, a
// pass to a wrapper) but exit 2 asking for a larger --time, with the
// report printed (and, with --json, nothing_searched in it).
func TestNothingSearchedExits2(t *testing.T) {
	code, out, errs := run(t, "search", "--system", "clitest-slowboot", "--out", t.TempDir(), "--time", "200ms", "--workers", "1")
	if code != ExitUsage || !strings.Contains(out, "\nNOTHING SEARCHED: ") || !strings.Contains(errs, "macemc search: nothing was searched: the time budget (--time) ran out") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = run(t, "search", "--system", "clitest-slowboot", "--out", t.TempDir(), "--time", "200ms", "--workers", "1", "--json")
	if code != ExitUsage || !strings.Contains(out, `"nothing_searched": true`) {
		t.Fatalf("--json: exit %d\n%s%s", code, out, errs)
	}
}

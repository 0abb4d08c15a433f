package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// bootHang's Start on node 1 waits for bootHangRelease.
type bootHang struct{ sim.Base }

var bootHangRelease = make(chan struct{})

func (*bootHang) Start(ctx *sim.Context) {
	if ctx.Self() == 1 {
		<-bootHangRelease
	}
}

func init() {
	sim.Register(&sim.System{Name: "clitest-boothang", Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &bootHang{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}, nil
	}})
}

// TestBootHangFinishes: a handler that does not return while the system
// boots is a finding, and the search that finds it ends, with its log and
// its report page (whose replays used to wait for the boot forever, or for
// the default watchdog rather than --handler-timeout).
func TestBootHangFinishes(t *testing.T) {
	defer close(bootHangRelease)
	dir := t.TempDir()
	code, out, errs := run(t, "search", "--system", "clitest-boothang", "--out", dir, "--walk-depth", "100", "--workers", "1", "--handler-timeout", "200ms")
	if code != ExitViolation || !strings.Contains(out, "did not return") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for _, name := range []string{"error.trace", "error.log", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if log, err := os.ReadFile(filepath.Join(dir, "error.log")); err != nil || !strings.Contains(string(log), "within 200ms at boot") {
		t.Errorf("the log does not end with the hang under --handler-timeout: %v\n%s", err, log)
	}
}

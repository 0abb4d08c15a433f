package engine_test

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// TestGoexitInAHandlerIsAHang: a handler that ends its goroutine with
// runtime.Goexit (as testing.T's FailNow does) did not return: Guard
// reports it at once as a *HangError with Goexit set, naming the node,
// the step and the choices, and gives up on the execution; a Goexit
// outside the handlers (here in the function Guard runs) is reported
// without a node.
func TestGoexitInAHandlerIsAHang(t *testing.T) {
	cfg := scriptConfig(2, func(id sim.NodeID) []Do {
		if id == 1 {
			return []Do{func(ctx *sim.Context, n *Script) { runtime.Goexit() }}
		}
		return nil
	})
	s := mustNew(t, cfg, engine.Options{})
	// With an hour's timeout, a Guard that waited for the watchdog would
	// outlast the test binary's own timeout.
	err := s.Guard(time.Hour, func() error {
		for {
			if ok, err := s.Step(); err != nil || !ok {
				return err
			}
		}
	})
	var he *engine.HangError
	if !errors.As(err, &he) || !he.Goexit || he.Node != 1 || he.Step != 0 || len(he.Choices) == 0 || !s.Abandoned() {
		t.Fatalf("got %v (%+v), abandoned %v", err, he, s.Abandoned())
	}

	s = mustNew(t, cfg, engine.Options{})
	err = s.Guard(time.Hour, func() error { runtime.Goexit(); return nil })
	if !errors.As(err, &he) || !he.Goexit || he.Node != -1 {
		t.Fatalf("Goexit outside a handler: %v (%+v)", err, he)
	}
}

// TestGuardLetsAPanicOfItsFunctionGoOn: a panic in the function Guard runs
// (outside the handlers, whose panics are findings) is not taken for a
// Goexit: it goes on, with the stack where it happened.
func TestGuardLetsAPanicOfItsFunctionGoOn(t *testing.T) {
	if os.Getenv("MACEMC_GUARD_PANIC") == "1" {
		s := mustNew(t, scriptConfig(1, nil), engine.Options{})
		_ = s.Guard(time.Hour, func() error { return panicHere() })
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGuardLetsAPanicOfItsFunctionGoOn$")
	cmd.Env = append(os.Environ(), "MACEMC_GUARD_PANIC=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "panic: guarded function failed") || !strings.Contains(string(out), "panicHere") {
		t.Fatalf("want the process to die of the panic with its stack, got %v:\n%s", err, out)
	}
}

func panicHere() error { panic("guarded function failed") }

package trace_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim/trace"
)

// TestStateSteps checks the steps a trace records states after: every
// step to 1,000, every 100th after, and the last, in order.
func TestStateSteps(t *testing.T) {
	for _, c := range []struct {
		steps      int
		n          int
		head, tail []int
	}{
		{0, 1, []int{0}, []int{0}},
		{5, 6, []int{0, 1}, []int{4, 5}},
		{1000, 1001, []int{0, 1}, []int{999, 1000}},
		{1001, 1002, []int{0}, []int{999, 1000, 1001}},
		{1100, 1002, []int{0}, []int{999, 1000, 1100}},
		{1150, 1003, []int{0}, []int{1000, 1100, 1150}},
		{20000, 1191, []int{0}, []int{19800, 19900, 20000}},
	} {
		got := trace.StateSteps(c.steps)
		if len(got) != c.n || !slices.Equal(got[:len(c.head)], c.head) || !slices.Equal(got[len(got)-len(c.tail):], c.tail) || !slices.IsSorted(got) {
			t.Errorf("StateSteps(%d): %d steps %v ... %v, want %d steps %v ... %v", c.steps, len(got), got[:min(len(got), 3)], got[max(0, len(got)-3):], c.n, c.head, c.tail)
		}
	}
}

// TestDivergedText checks what a divergence says of its cause: another
// build (named), or the same binary (a nondeterministic system).
func TestDivergedText(t *testing.T) {
	for _, c := range []struct {
		e    trace.DivergedError
		want []string
	}{
		{trace.DivergedError{Step: 7, Since: 6, Recorded: "aaa/bbb/ccc/recorded0123456789", Build: "aaa/bbb/ccc/this0123456789"},
			[]string{"state after step 7 differs", "written by build recorded0123, this is build this01234567", "code (or macemc) changed", "search again"}},
		{trace.DivergedError{Step: 1200, Since: 1100, Recorded: "", Build: "x/y"},
			[]string{"after one of steps 1101 to 1200", "written by an unknown build, this is build y"}},
		{trace.DivergedError{Step: 3, Since: -1, Recorded: "vcs:abc+modified", Build: "vcs:def"},
			[]string{"after one of steps 0 to 3", "revision abc+modified, this is revision def"}},
		{trace.DivergedError{Step: 3, Since: 2, Recorded: "x/y", Build: "x/y"},
			[]string{"this is the binary that wrote it, so the system is nondeterministic"}},
	} {
		got := c.e.Error()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: %q lacks %q", c.e, got, w)
			}
		}
		if c.e.SameBuild() != (c.e.Recorded == c.e.Build) {
			t.Errorf("%+v: SameBuild %v", c.e, c.e.SameBuild())
		}
	}
}

// TestBuildID checks that the test binary has an identity to record.
func TestBuildID(t *testing.T) {
	if id := trace.BuildID(); id == "" || id != trace.BuildID() {
		t.Errorf("BuildID %q", id)
	}
}

// TestStampGivesUp: a cancelled stamp records no states and says why.
func TestStampGivesUp(t *testing.T) {
	tr, _ := recorded(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := tr.StampContext(ctx); !errors.Is(err, context.Canceled) || tr.States != nil || tr.Build != trace.BuildID() {
		t.Errorf("StampContext: %v, %d bytes of states, build %q", err, len(tr.States), tr.Build)
	}
	if err := tr.Stamp(); err != nil || len(tr.States) != 8*len(trace.StateSteps(tr.Steps)) {
		t.Errorf("Stamp: %v, %d bytes of states for %d steps", err, len(tr.States), tr.Steps)
	}
}

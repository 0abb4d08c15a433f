package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/macemc/macemc/critical"
)

// TestWriteDoomedLong: the summary lists a long minimized path's first and
// last steps and says how many it left out; a short one whole.
func TestWriteDoomedLong(t *testing.T) {
	for _, n := range []int{shownEvents, 100} {
		m := &Minimized{StepsBefore: n + 10, StepsAfter: n, OneMinimal: true, Tests: 3}
		for i := range n {
			m.Events = append(m.Events, fmt.Sprintf("event %d", i+1))
		}
		var b strings.Builder
		writeDoomed(&b, &Finding{Minimized: m}, true)
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if n <= shownEvents {
			if len(lines) != n+1 || !strings.HasSuffix(lines[n], fmt.Sprintf("event %d", n)) {
				t.Errorf("%d steps: %d lines, last %q", n, len(lines), lines[len(lines)-1])
			}
			continue
		}
		want := []string{
			fmt.Sprintf("  %3d  event %d", shownEvents-shownLast, shownEvents-shownLast),
			fmt.Sprintf("  ...  %d more steps (min.log has them all)", n-shownEvents),
			fmt.Sprintf("  %3d  event %d", n-shownLast+1, n-shownLast+1),
		}
		at := shownEvents - shownLast
		if len(lines) != shownEvents+2 || lines[at] != want[0] || lines[at+1] != want[1] || lines[at+2] != want[2] || !strings.HasSuffix(lines[len(lines)-1], fmt.Sprintf("event %d", n)) {
			t.Errorf("%d steps:\n%s", n, b.String())
		}
	}
}

// TestWriteEventsKeepsFailures: a long path's failures are listed where
// the middle is left out (a trial's 121-step safety violation hid the one
// reset it needed), each gap counted.
func TestWriteEventsKeepsFailures(t *testing.T) {
	var events []string
	for i := range 121 {
		events = append(events, fmt.Sprintf("event %d", i+1))
	}
	var b strings.Builder
	writeEvents(&b, events, "error.log", 52, 60)
	got := b.String()
	for _, want := range []string{
		"  ...  16 more steps (error.log has them all)\n   52  event 52\n  ...  7 more steps (error.log has them all)\n   60  event 60\n  ...  56 more steps (error.log has them all)\n  117  event 117\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want\n%s\nin\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n != shownEvents+2+3 {
		t.Errorf("%d lines:\n%s", n, got)
	}
}

// TestLassoWithNoWalkFromItsCycle: a lasso's C2 says the system can
// become live from the cycle only when a walk recovered from a state of
// it; when the states that recovered all come before the cycle (a trial's
// counter: recovered at 10,240, cycle from 11,250, d_max/2 = 15,000
// unprobed before Find probed it), it says so instead.
func TestLassoWithNoWalkFromItsCycle(t *testing.T) {
	for _, tc := range []struct {
		recovered int
		want      string
	}{
		{100, "none was run from a state of the cycle (Algorithm 3 probes no state past d_max/2 = 200)"},
		{300, "as expected of this lasso: random walks from its states still reach live states"},
	} {
		f := &Finding{Kind: KindLasso, Steps: 310, Lasso: &Lasso{Stem: 250, Proof: true},
			Critical: &Critical{Condition: critical.C2, Step: 256, Recovered: tc.recovered, Dead: -1, Walks: 20, WalkDepth: 400}}
		lassoCritical(f, true)
		if !strings.Contains(f.Critical.Explain, tc.want) {
			t.Errorf("recovered from %d: %s", tc.recovered, f.Critical.Explain)
		}
	}
}

// TestFlagOfPath: a merge of two searches' shards names the flags they
// differ in, not Go fields; a prefix recorded without --faults says so.
func TestFlagOfPath(t *testing.T) {
	for path, want := range map[string]string{
		"Options.Seed": "--seed", "Options.Params.fixed": "--param fixed", "Options.Graph.MaxStates": "--graph-states",
		"Options.WalkFailures": "--walk-failures", "Build": "Build",
	} {
		if got := flagOfPath(path); got != want {
			t.Errorf("flagOfPath(%q) = %q, want %q", path, got, want)
		}
	}
	if got := runName("transport", "drops=1", ""); !strings.Contains(got, "(no --faults)") {
		t.Errorf("runName without faults: %q", got)
	}
}

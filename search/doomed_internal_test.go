package search

import (
	"fmt"
	"strings"
	"testing"
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

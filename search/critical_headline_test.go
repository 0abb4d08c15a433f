package search_test

import (
	"testing"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
)

// TestCriticalHeadlineThin: a critical transition whose confirmation could
// not tell its state from the one before says in its headline that the
// evidence is thin; a strong one does not.
func TestCriticalHeadlineThin(t *testing.T) {
	for _, c := range []struct {
		conf *critical.Confidence
		want string
	}{
		{nil, "critical transition: step 7, node 0 resets (condition C1: dead from this step, k=20, d_max=2000, 5 probes, 0.00s)"},
		{&critical.Confidence{}, "critical transition: step 7, node 0 resets (condition C1: dead from this step, k=20, d_max=2000, 5 probes, 0.00s)"},
		{&critical.Confidence{Thin: true}, "critical transition: step 7, node 0 resets (condition C1: dead from this step, on thin evidence, k=20, d_max=2000, 5 probes, 0.00s)"},
	} {
		cr := &search.Critical{Step: 7, Event: "node 0 resets", Condition: critical.C1, Walks: 20, WalkDepth: 2000, Probes: 5, Confidence: c.conf}
		if got := cr.Headline(); got != c.want {
			t.Errorf("headline %q\n want %q", got, c.want)
		}
	}
}

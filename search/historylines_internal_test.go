package search

import (
	"slices"
	"testing"

	"github.com/macemc/macemc/sim"
)

// An invocation whose client gets no later response is marked pending.
func TestHistoryLinesMarkPending(t *testing.T) {
	h := []sim.HistoryEvent{
		{Kind: sim.Invocation, Client: 0, Value: "append 1", Node: 1, Step: 1},
		{Kind: sim.Invocation, Client: 1, Value: "get", Node: 1, Step: 2},
		{Kind: sim.Response, Client: 1, Value: "11", Node: 1, Step: 5},
		{Kind: sim.Invocation, Client: 1, Value: "get", Node: 1, Step: 6},
	}
	want := []string{
		`step 1  node 1  client 0 invokes "append 1"  (pending: never returns, may or may not take effect)`,
		`step 2  node 1  client 1 invokes "get"`,
		`step 5  node 1  client 1 returns "11"`,
		`step 6  node 1  client 1 invokes "get"  (pending: never returns, may or may not take effect)`,
	}
	if got := historyLines(h); !slices.Equal(got, want) {
		t.Errorf("historyLines:\n%q\nwant\n%q", got, want)
	}
}

package strattest

import (
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// pair is one node of the Pair system: it counts the driver requests it
// handled, so that different interleavings meet in the same state.
type pair struct {
	sim.Base
	N int
}

func (p *pair) HandleApp(*sim.Context, any) { p.N++ }

// Pair is the hand-countable system: nodes a (0) and b (1), each with two
// driver requests and nothing else, so that its executions are the six
// interleavings of a a and b b, and its event sources are the two
// drivers.
func Pair() *sim.Config { return Nodes(2, 2) }

// Nodes is Pair with n nodes (a, b, c, ...) of reqs driver requests each:
// its executions are the interleavings of the nodes' requests, its event
// sources the n drivers.
func Nodes(n, reqs int) *sim.Config {
	return &sim.Config{
		Nodes:   n,
		Service: func(sim.NodeID) sim.Service { return &pair{} },
		App: func(sim.NodeID) []any {
			r := make([]any, reqs)
			for i := range r {
				r[i] = i + 1
			}
			return r
		},
	}
}

// Rounds runs up to maxPaths paths of the strategy's explorer on cfg by
// themselves, each from the initial state to quiescence or its depth
// bound, and returns each round's schedules in path order, a schedule
// being the letters ("a" for node 0, "b" for node 1, ...) of the nodes
// that ran each step; and the explorer's status at the end.
func Rounds(t testing.TB, st explore.Strategy, setup explore.Setup, cfg *sim.Config, maxPaths int) ([][]string, explore.Status) {
	t.Helper()
	ex, err := st.New(setup)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	var end *explore.End
	for n := 0; n < maxPaths; n++ {
		p, ok := ex.Next(end)
		if !ok {
			break
		}
		for len(out) < p.Round {
			out = append(out, nil)
		}
		s, err := engine.New(cfg, engine.Options{Chooser: p.Scheduler})
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		reason := explore.EndDepth
		for s.Steps() < p.Depth {
			ok, err := s.Step()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				reason = explore.EndQuiescent
				break
			}
			b = append(b, byte('a'+s.LastEvent().Node))
		}
		out[p.Round-1] = append(out[p.Round-1], string(b))
		end = &explore.End{Steps: s.Steps(), Reason: reason}
	}
	return out, ex.Status()
}

// Count returns how often each schedule occurs.
func Count(schedules []string) map[string]int {
	m := map[string]int{}
	for _, s := range schedules {
		m[s]++
	}
	return m
}

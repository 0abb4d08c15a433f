package engine_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Decide is what a broadcaster sends the others.
type Decide struct{ Commit bool }

// broadcaster is node 0 of a system whose driver asks it once to tell
// nodes 1 to 4 a decision, ranging over a map of them unless sorted is
// set; each send goes on a connection of its own, so the order leaves no
// trace in the state. The other nodes take the decision.
type broadcaster struct {
	sim.Base
	Sorted bool
	Peers  map[sim.NodeID]bool
	Got    bool
}

func (b *broadcaster) HandleApp(ctx *sim.Context, _ any) {
	peers := slices.Collect(maps.Keys(b.Peers))
	if b.Sorted {
		slices.Sort(peers)
	} else {
		peers = peers[:0]
		for p := range b.Peers {
			peers = append(peers, p)
		}
	}
	for _, p := range peers {
		ctx.Send(p, Decide{Commit: true})
	}
}

func (b *broadcaster) HandleMessage(*sim.Context, sim.NodeID, sim.Message) { b.Got = true }

func broadcastConfig(sorted bool) *sim.Config {
	return &sim.Config{Nodes: 5,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &broadcaster{Sorted: sorted, Peers: map[sim.NodeID]bool{1: true, 2: true, 3: true, 4: true}}
			}
			return &broadcaster{}
		},
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"decide"}
			}
			return nil
		}}
}

// TestOrderDifference: a handler that sends to four nodes in a map's
// order passes the check of the state (each connection keeps its order)
// and is named as an OrderDifference, with what it did in two replays; in
// sorted order it is not. 64 replays of a map of four: the chance that all
// range it alike is below 1e-30.
func TestOrderDifference(t *testing.T) {
	walk := func(cfg *sim.Config) []int32 {
		s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(1)})
		for range 5 {
			if ok, err := s.Step(); !ok || err != nil {
				t.Fatalf("step %d: %v", s.Steps(), err)
			}
		}
		return s.ChoiceValues()
	}
	cfg := broadcastConfig(false)
	d, err := engine.CheckDeterminismOrder(cfg, walk(cfg), engine.Options{}, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil || d.Step != 1 || d.Node != 0 || !d.Reordered || len(d.One) != 4 || slices.Compare(d.One, d.Other) >= 0 ||
		!slices.Equal(d.Actions, slices.Sorted(slices.Values(d.One))) {
		t.Fatalf("want node 0's four sends at step 1 in two orders, got %+v", d)
	}
	if d.One[0] != "sends Decide to node "+d.One[0][len(d.One[0])-1:] || !strings.HasPrefix(d.String(), "node 0's handler at step 1 (node 0 handles app request") {
		t.Errorf("text %q, items %q", d.String(), d.One)
	}
	cfg = broadcastConfig(true)
	if d, err := engine.CheckDeterminismOrder(cfg, walk(cfg), engine.Options{}, 64, nil); d != nil || err != nil {
		t.Fatalf("sorted: %+v, %v", d, err)
	}
}

// mapLogger logs its map's keys in the map's order.
type mapLogger struct {
	sim.Base
	Peers map[int]bool
}

func (m *mapLogger) HandleApp(ctx *sim.Context, _ any) {
	for p := range m.Peers {
		ctx.Log().Int("peer", p).Msg("have")
	}
}

// TestLogOrderDifference: lines a handler logs in a map's order are
// compared as its sends are, though the check runs without a logger. The
// map has eight entries: the replays that record lines all range it alike
// about once in a million runs (a map of four: 2%, see peers8 in search).
func TestLogOrderDifference(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service {
		return &mapLogger{Peers: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true}}
	},
		App: func(sim.NodeID) []any { return []any{"log"} }}
	d, err := engine.CheckDeterminismOrder(cfg, []int32{0}, engine.Options{}, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil || d.Step != 1 || !d.Reordered || len(d.One) != 8 || !strings.HasPrefix(d.One[0], `logs "have" peer=`) {
		t.Fatalf("want node 0's eight lines at step 1 in two orders, got %+v", d)
	}
}

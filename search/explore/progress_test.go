package explore_test

import (
	"sync"
	"testing"
	"time"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// held ticks; past its 40th tick (beyond any bound of the test's search,
// so only in walks) it waits for the test to let it go: every walk is
// held, and no path can be committed.
type held struct {
	sim.Base
	Ticks int
}

var heldRelease chan struct{}

func (h *held) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (h *held) HandleTimer(*sim.Context, string) {
	if h.Ticks++; h.Ticks == 40 {
		<-heldRelease
	}
}

// TestProgressShowsWhatRan: while the first walks hold back every commit,
// progress reports still show the round and depth bound the search is at,
// the states it has seen and the paths it ran, not the committed zeros.
func TestProgressShowsWhatRan(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &held{} },
		Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}}}
	heldRelease = make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(heldRelease) }) }
	defer release()
	var seen []explore.Stats
	c := explore.Config{System: cfg, DepthStep: 3, MaxDepth: 3, WalkDepth: 100, Workers: 2, MaxPaths: 200,
		ProgressEvery: time.Nanosecond, Progress: func(st explore.Stats) {
			if len(seen) < 5 {
				seen = append(seen, st)
			} else {
				release()
			}
		}}
	if _, err := run(c); err != nil {
		t.Fatal(err)
	}
	for _, st := range seen[1:] {
		if st.Rounds == 0 || st.Depth != 3 || st.DistinctStates == 0 || st.Paths == 0 {
			t.Fatalf("a progress report while no path was committed: %+v (of %d)", st, len(seen))
		}
	}
}

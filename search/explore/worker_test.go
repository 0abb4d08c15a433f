package explore_test

import (
	"testing"
	"time"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// slowpoke's timer handler hangs (a busy loop the watchdog unwinds at its
// Context call) from its 8th firing on: beyond the bounded search, inside
// the walks.
type slowpoke struct {
	sim.Base
	Fired int
}

func (s *slowpoke) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }
func (s *slowpoke) HandleTimer(ctx *sim.Context, _ string) {
	s.Fired++
	for s.Fired >= 8 {
		ctx.Self()
	}
}

// A handler that hangs in a walk is reported as such, in path order, and
// the workers go on with new simulators for the paths after it: the
// search ends, with no result from the abandoned one.
func TestWalkHangIsReportedAndWorkersGoOn(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &slowpoke{} }}
	for _, workers := range []int{1, 2} {
		done := make(chan *explore.Result, 1)
		go func() {
			res, err := run(explore.Config{System: cfg, DepthStep: 3, MaxDepth: 3, WalkDepth: 40, Workers: workers, MaxViolations: 3,
				HandlerTimeout: 40 * time.Millisecond})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		select {
		case res := <-done:
			if res == nil {
				return
			}
			if res.Verdict != explore.Safety || len(res.Violations) != 3 {
				t.Fatalf("workers %d: %v %d violations %+v", workers, res.Verdict, len(res.Violations), res.Stats)
			}
			for i, v := range res.Violations {
				if v.Property != "handler did not return" || (i > 0 && v.Path <= res.Violations[i-1].Path) {
					t.Errorf("workers %d: violation %d: %q at path %d", workers, i, v.Property, v.Path)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("workers %d: the search did not end", workers)
		}
	}
}

package search_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// A lock server (node 0) and two clients (1, 2), from a trial's system:
// each client asks once, holds the lock until its "release" timer fires,
// then releases it; a client may reset once, and one that resets while it
// holds the lock forgets it and never releases.
type (
	leaseAcquire struct{}
	leaseGrant   struct{ Lease int }
	leaseRelease struct{ Lease int }
)

// leaseMode says how the server ends a lease.
type leaseMode int

const (
	// leaseLocked: no lease; the lock is held until released (the bug: a
	// holder that resets never releases, the waiter starves).
	leaseLocked leaseMode = iota
	// leaseClock: the server's "lease" timer revokes the lease once
	// Elapsed says its time is up, and sets itself again while it is not.
	leaseClock
	// leaseNoClock: the timer revokes the lease whenever it fires (the
	// control, which never asks the clock).
	leaseNoClock
	// leaseRenews: the bug of a server that renews an expired lease
	// instead of revoking it: once the lease's time is up, the timer
	// starts it again, and a holder that reset keeps it forever while
	// time passes.
	leaseRenews
)

type leaseServer struct {
	sim.Base
	Mode    leaseMode
	Holder  sim.NodeID // -1: free
	Lease   int
	Granted sim.Time
	Queue   []sim.NodeID
}

func (s *leaseServer) Start(*sim.Context) { s.Holder = -1 }

func (s *leaseServer) grantNext(ctx *sim.Context) {
	s.Holder = -1
	if len(s.Queue) == 0 {
		return
	}
	s.Holder, s.Queue = s.Queue[0], slices.Clone(s.Queue[1:])
	s.Lease++
	s.Granted = ctx.Now()
	ctx.Send(s.Holder, leaseGrant{Lease: s.Lease})
	if s.Mode != leaseLocked {
		ctx.SetTimer("lease")
	}
}

func (s *leaseServer) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case leaseAcquire:
		if !slices.Contains(s.Queue, from) {
			s.Queue = append(slices.Clone(s.Queue), from)
		}
		if s.Holder == -1 {
			s.grantNext(ctx)
		}
	case leaseRelease:
		if from != s.Holder || (s.Mode != leaseLocked && m.Lease != s.Lease) {
			return
		}
		ctx.CancelTimer("lease")
		s.grantNext(ctx)
	}
}

func (s *leaseServer) HandleTimer(ctx *sim.Context, name string) {
	if name != "lease" || s.Holder == -1 {
		return
	}
	switch {
	case s.Mode == leaseNoClock:
		s.grantNext(ctx)
	case !ctx.Elapsed(s.Granted, 10*time.Second):
		ctx.SetTimer("lease")
	case s.Mode == leaseRenews:
		s.Granted = ctx.Now()
		ctx.SetTimer("lease")
	default:
		s.grantNext(ctx)
	}
}

type leaseClient struct {
	sim.Base
	Held  bool
	Lease int
	Done  bool
}

func (c *leaseClient) HandleApp(ctx *sim.Context, _ any) { ctx.Send(0, leaseAcquire{}) }

func (c *leaseClient) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	c.Held, c.Lease = true, m.(leaseGrant).Lease
	ctx.SetTimer("release")
}

func (c *leaseClient) HandleTimer(ctx *sim.Context, _ string) {
	if !c.Held {
		return
	}
	c.Held, c.Done = false, true
	ctx.Send(0, leaseRelease{Lease: c.Lease})
}

func leaseSystem(mode leaseMode) *sim.System {
	return &sim.System{
		Name: "lease",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes: 3,
				Service: func(id sim.NodeID) sim.Service {
					if id == 0 {
						return &leaseServer{Mode: mode}
					}
					return &leaseClient{}
				},
				App: func(id sim.NodeID) []any {
					if id == 0 {
						return nil
					}
					return []any{"acquire"}
				},
				Liveness: []sim.Property{{Name: "AllServed", Check: func(v *sim.View) bool {
					return sim.All(v, func(_ sim.NodeID, c *leaseClient) bool { return c.Done })
				}}},
				Failures: sim.Failures{Resets: 1, Nodes: []sim.NodeID{1, 2}},
			}, nil
		},
	}
}

// The graph's fair cycles are fair to time, as the lasso detector's are.
// A correct lease, whose timer asks the clock and is set again while the
// lease lasts, has cycles of hot states in which the clock says "not yet"
// forever: unfair to time, so the graph offers none for the detector to
// set aside; but macemc cannot tell this fixed deadline from one a
// heartbeat keeps moving (a real livelock), so the exhausted search says
// that cycles waiting on a timeout were set aside and that this is no
// proof of liveness. The control that never asks the clock has no such
// cycle: liveness holds. A server that renews the expired lease of a
// holder that reset is a livelock in which time passes: the graph reports
// it. The lock without a lease starves the waiter as it always did.
func TestGraphFairCyclesAreFairToTime(t *testing.T) {
	o := search.Options{Seed: 1, MaxPaths: 20000, NoCritical: true, Workers: 2}
	// One worker records the graph from the paths it runs, two from the
	// records of the paths they speculated (search/explore).
	for _, workers := range []int{1, 2} {
		for _, mode := range []leaseMode{leaseClock, leaseNoClock} {
			wo := o
			wo.Workers = workers
			rep, err := search.Run(context.Background(), leaseSystem(mode), wo)
			if err != nil {
				t.Fatal(err)
			}
			if f := rep.First(); f != nil {
				t.Errorf("mode %d, %d workers: %v found in a correct lease", mode, workers, f.Kind)
				continue
			}
			g, v := rep.Stats.Graph, rep.GraphVerdict()
			if rep.Stats.Stop != explore.StopExhausted || g == nil || g.Rejected != 0 {
				t.Errorf("mode %d, %d workers: stopped %v, graph %+v; want exhausted with no cycle rejected", mode, workers, rep.Stats.Stop, g)
				continue
			}
			if mode == leaseNoClock && (g.TimeWaits != 0 || !strings.Contains(v, "liveness holds")) {
				t.Errorf("no clock, %d workers: %d components set aside for time, verdict %q; want liveness proved", workers, g.TimeWaits, v)
			}
			if mode == leaseClock && (g.TimeWaits == 0 || strings.Contains(v, "liveness holds") || !strings.Contains(v, "wait forever on a timeout") ||
				!strings.Contains(v, "no proof of liveness")) {
				t.Errorf("clock, %d workers: %d components set aside for time, verdict %q; want the cycles waiting on the lease's timeout named and no proof", workers, g.TimeWaits, v)
			}
		}
	}

	// The walks find the renewed lease dead first (no live state in
	// d_max steps); the search goes on past them to the graph's lasso.
	// The walks do not look for lassos (Lasso.On), so a lasso is the
	// graph's.
	ro := o
	ro.MaxViolations = 1000
	rep, err := search.Run(context.Background(), leaseSystem(leaseRenews), ro)
	if err != nil {
		t.Fatal(err)
	}
	lassos := 0
	for _, f := range rep.Findings {
		if f.Kind == search.KindLasso {
			lassos++
		}
	}
	if g := rep.Stats.Graph; lassos == 0 || g == nil || g.Rejected != 0 {
		t.Errorf("a lease renewed forever: %d lassos in %d findings, graph %+v; want the graph's lasso, and no cycle set aside", lassos, len(rep.Findings), g)
	}

	rep, err = search.Run(context.Background(), leaseSystem(leaseLocked), o)
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.First(); f == nil {
		t.Errorf("a lock its holder never releases after a reset: nothing found, graph verdict %q", rep.GraphVerdict())
	}
}

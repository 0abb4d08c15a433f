package search_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// Systems of a trial of time fairness (registered for the scenarios of
// testdata/scenarios/timefair.txt and the shards' merge).

// gray: a leader (0), a follower (1) and a client (2). The client sends
// its request to the node it believes leads, from a periodic timer, one
// outstanding at a time; the leader heartbeats the follower from its own
// (one outstanding at a time); the follower's periodic "election" timer
// asks Elapsed(LastHB, 5s), and each heartbeat renews LastHB: once the
// heartbeats stop it takes over and tells the client. The bug, a gray
// failure: a leader that reset drops requests but keeps heartbeating, so
// its heartbeats keep moving the follower's deadline, the follower never
// takes over and the client is never served, in every real execution
// (heartbeats every second, a 5s timeout). The clock's "not yet" forever
// is the true answer: the graph set the cycle aside as waiting on a
// timeout and proved liveness. Param fixed: a leader that reset still
// serves (live).
type (
	grayReq       struct{}
	grayResp      struct{}
	grayHB        struct{}
	grayHBAck     struct{}
	grayNewLeader struct{}
)

type grayLeader struct {
	sim.Base
	Broken, HBOut, Fixed bool
}

func (l *grayLeader) Start(ctx *sim.Context) {
	l.Broken = ctx.Restarted() && !l.Fixed
	ctx.SetPeriodic("hb")
}

func (l *grayLeader) HandleTimer(ctx *sim.Context, _ string) {
	if !l.HBOut {
		l.HBOut = true
		ctx.Send(1, grayHB{})
	}
}

func (l *grayLeader) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case grayHBAck:
		l.HBOut = false
	case grayReq:
		if !l.Broken {
			ctx.Send(from, grayResp{})
		}
	}
}

type grayFollower struct {
	sim.Base
	LastHB sim.Time
	Leader bool
}

func (f *grayFollower) Start(ctx *sim.Context) { ctx.SetPeriodic("election") }

func (f *grayFollower) HandleTimer(ctx *sim.Context, _ string) {
	if !f.Leader && ctx.Elapsed(f.LastHB, 5*time.Second) {
		f.Leader = true
		ctx.CancelTimer("election")
		ctx.Send(2, grayNewLeader{})
	}
}

func (f *grayFollower) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m.(type) {
	case grayHB:
		f.LastHB = ctx.Now()
		ctx.Send(from, grayHBAck{})
	case grayReq:
		if f.Leader {
			ctx.Send(from, grayResp{})
		}
	}
}

type grayClient struct {
	sim.Base
	Leader      sim.NodeID
	Out, Served bool
}

func (c *grayClient) Start(ctx *sim.Context) { ctx.SetPeriodic("retry") }

func (c *grayClient) HandleTimer(ctx *sim.Context, _ string) {
	if c.Served || c.Out {
		return
	}
	c.Out = true
	ctx.Send(c.Leader, grayReq{})
}

func (c *grayClient) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	switch m.(type) {
	case grayResp:
		c.Served = true
		ctx.CancelTimer("retry")
	case grayNewLeader:
		c.Leader, c.Out = 1, false
	}
}

var graySystem = &sim.System{
	Name:   "timefair-gray",
	Doc:    "test system: a leader that reset drops requests but keeps heartbeating, which renews the follower's election deadline forever",
	Params: []sim.ParamSpec{{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "a leader that reset still serves"}},
	Build: func(p sim.Params) (*sim.Config, error) {
		fixed := p.Bool("fixed")
		return &sim.Config{
			Nodes: 3,
			Service: func(id sim.NodeID) sim.Service {
				switch id {
				case 0:
					return &grayLeader{Fixed: fixed}
				case 1:
					return &grayFollower{}
				}
				return &grayClient{}
			},
			Liveness: []sim.Property{{Name: "Served", Check: func(v *sim.View) bool { return sim.Node[grayClient](v, 2).Served }}},
			Failures: sim.Failures{Resets: 1, Nodes: []sim.NodeID{0}},
		}, nil
	},
}

// deadline: node 0 waits for a fixed deadline (Since never moves) on its
// periodic timer; node 1's periodic timer asks whether a second has passed
// since time zero and changes nothing. Time passes (node 1 sees it), so
// node 0's deadline expires in every real execution: no livelock. The
// cycle in which node 0 is told "not yet" and node 1 "elapsed" forever was
// a certain lasso while fairness to time was one pair for the whole cycle.
type (
	deadlineWaiter struct {
		sim.Base
		Since sim.Time
		Done  bool
	}
	clockWatcher struct{ sim.Base }
)

func (w *deadlineWaiter) Start(ctx *sim.Context) { ctx.SetPeriodic("a") }

func (w *deadlineWaiter) HandleTimer(ctx *sim.Context, _ string) {
	if !w.Done && ctx.Elapsed(w.Since, 10*time.Second) {
		w.Done = true
	}
}

func (c *clockWatcher) Start(ctx *sim.Context) { ctx.SetPeriodic("b") }

func (c *clockWatcher) HandleTimer(ctx *sim.Context, _ string) { ctx.Elapsed(sim.Time{}, time.Second) }

var deadlineSystem = &sim.System{
	Name: "timefair-deadline",
	Doc:  "test system: a fixed deadline, and another node that asks the clock",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes: 2,
			Service: func(id sim.NodeID) sim.Service {
				if id == 0 {
					return &deadlineWaiter{}
				}
				return &clockWatcher{}
			},
			Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[deadlineWaiter](v, 0).Done }}},
		}, nil
	},
}

// leaseSystems: the lease of graphtime_test.go by its mode (clock,
// noclock), with gossip a node 3 that asks the clock (a clockWatcher).
var leaseSystems = &sim.System{
	Name: "timefair-lease",
	Doc:  "test system: a lock server's lease, with an unrelated node that asks the clock",
	Params: []sim.ParamSpec{{Name: "mode", Kind: sim.ParamString, Default: "clock", Doc: "clock or noclock"},
		{Name: "gossip", Kind: sim.ParamBool, Default: "false", Doc: "node 3 asks the clock"}},
	Build: func(p sim.Params) (*sim.Config, error) {
		mode := leaseClock
		if p.String("mode") == "noclock" {
			mode = leaseNoClock
		}
		c, err := leaseSystem(mode).Build(p)
		if err != nil || !p.Bool("gossip") {
			return c, err
		}
		svc, app := c.Service, c.App
		c.Nodes = 4
		c.Service = func(id sim.NodeID) sim.Service {
			if id == 3 {
				return &clockWatcher{}
			}
			return svc(id)
		}
		c.App = func(id sim.NodeID) []any {
			if id == 3 {
				return nil
			}
			return app(id)
		}
		return c, nil
	},
}

func init() {
	sim.Register(graySystem)
	sim.Register(deadlineSystem)
	sim.Register(leaseSystems)
}

// graphJSON reads report.json's graph section from dir.
func graphJSON(t *testing.T, dir string) map[string]any {
	t.Helper()
	g, _ := reportMap(t, dir)["graph"].(map[string]any)
	return g
}

// A livelock whose cycle waits on a deadline that keeps moving (the gray
// leader's heartbeats renew the follower's) is real, and macemc cannot
// tell it from a wait on a fixed deadline, which fairness to time sets
// aside: the exhausted search finds no fair cycle fair to time, and must
// not call that a proof of liveness (it did). It says why instead, and
// report.json's graph section counts the cycles set aside. The leader
// that still serves after a reset is live in every fair execution, time
// or no time: liveness holds.
func TestRenewedDeadlineIsNoProof(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		o := search.Options{Seed: 1, MaxPaths: 50000, NoCritical: true, Out: t.TempDir(),
			Params: map[string]string{"fixed": strconv.FormatBool(fixed)}}
		rep, err := search.Run(context.Background(), graySystem, o)
		if err != nil {
			t.Fatal(err)
		}
		g, v := rep.Stats.Graph, rep.GraphVerdict()
		if f := rep.First(); f != nil || rep.Stats.Stop != explore.StopExhausted || g == nil {
			t.Fatalf("fixed=%v: finding %+v, stopped %s, graph %+v; want none, exhausted", fixed, f, rep.Stats.Stop, g)
		}
		tw, _ := graphJSON(t, o.Out)["time_waits"].(float64)
		if fixed {
			if g.TimeWaits != 0 || tw != 0 || !strings.Contains(v, "liveness holds") {
				t.Errorf("fixed: %d components (report.json %v) set aside for time, verdict %q; want none and liveness proved", g.TimeWaits, tw, v)
			}
			continue
		}
		if strings.Contains(v, "liveness holds") || !strings.Contains(v, "set aside as unfair to time") || !strings.Contains(v, "keeps moving") ||
			!strings.Contains(v, "no proof of liveness") {
			t.Errorf("gray leader: verdict %q; want no proof, saying that cycles waiting on a timeout were set aside", v)
		}
		if g.TimeWaits == 0 || tw != float64(g.TimeWaits) {
			t.Errorf("gray leader: %d components set aside for time, report.json's time_waits %v", g.TimeWaits, tw)
		}
	}
}

// Fairness to time is per node: a fixed deadline told "not yet" forever
// is unfair to time even when another node of the cycle is told
// "elapsed" (deadline, and the correct lease beside an unrelated node that
// asks the clock: both were certain lassos, from the graph and from
// --lasso's walks). Neither the graph nor the walks report a lasso, and
// the exhausted search says that cycles waiting on a timeout were set
// aside.
func TestTimeFairnessIsPerNode(t *testing.T) {
	for _, c := range []struct {
		sys    *sim.System
		params map[string]string
	}{
		{deadlineSystem, nil},
		{leaseSystems, map[string]string{"gossip": "true"}},
	} {
		for _, o := range []search.Options{
			{Seed: 1, MaxPaths: 50000, NoCritical: true},
			{Seed: 5, MaxPaths: 300, NoCritical: true, Strategy: "walk", Lasso: search.LassoOptions{On: true}},
		} {
			o.Params = c.params
			rep, err := search.Run(context.Background(), c.sys, o)
			if err != nil {
				t.Fatal(err)
			}
			if f := rep.First(); f != nil {
				t.Errorf("%s %v, strategy %q: %v found (lasso %+v), want nothing", c.sys.Name, c.params, o.Strategy, f.Kind, f.Lasso)
				continue
			}
			if o.Strategy == "walk" {
				if st := rep.LassoStats; st == nil || st.Unfair == 0 {
					t.Errorf("%s %v: lasso statistics %+v; want cycles set aside as unfair", c.sys.Name, c.params, st)
				}
				continue
			}
			if g, v := rep.Stats.Graph, rep.GraphVerdict(); rep.Stats.Stop != explore.StopExhausted || g == nil || g.TimeWaits == 0 || !strings.Contains(v, "no proof of liveness") {
				t.Errorf("%s %v: stopped %s, graph %+v, verdict %q; want exhausted, cycles set aside for time, no proof", c.sys.Name, c.params, rep.Stats.Stop, g, v)
			}
		}
	}
}

// TestTimeFairShardsMerge: shards of the searches above merge to the one
// process's report: their records keep each step's node (the shard file
// has it), without which the merge's graph took the deadline's waits for
// the watcher's and found a lasso.
func TestTimeFairShardsMerge(t *testing.T) {
	for _, sys := range []*sim.System{deadlineSystem, graySystem} {
		o := search.Options{Seed: 1, MaxPaths: 50000, NoCritical: true, Workers: 1, Out: t.TempDir()}
		one, err := search.Run(context.Background(), sys, o)
		if err != nil || one.First() != nil || one.Stats.Graph == nil || one.Stats.Graph.TimeWaits == 0 {
			t.Fatalf("%s: setup: one process: %v, finding %+v, graph %+v", sys.Name, err, one.First(), one.Stats.Graph)
		}
		want := render(t, one, nil)
		var dirs []string
		for i := range 3 {
			s := o
			s.Workers, s.Out = 2, t.TempDir()
			if _, err := search.RunShard(context.Background(), sys, s, i, 3); err != nil {
				t.Fatalf("%s: shard %d: %v", sys.Name, i, err)
			}
			dirs = append(dirs, s.Out)
		}
		merged, err := search.Merge(context.Background(), dirs, search.MergeOptions{Out: t.TempDir(), Workers: 2})
		if got := render(t, merged, err); got != want {
			t.Errorf("%s: merged report\n%s\none process\n%s", sys.Name, got, want)
		}
	}
}

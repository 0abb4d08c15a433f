package search_test

import (
	"context"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// tick counts modulo 3 on its own timer.
type tick struct {
	sim.Base
	C int
}

func (c *tick) Start(ctx *sim.Context) { ctx.SetTimer("tick") }

func (c *tick) HandleTimer(ctx *sim.Context, _ string) {
	c.C = (c.C + 1) % 3
	ctx.SetTimer("tick")
}

// twoCounters is live when its two nodes' counters are equal. Its nodes
// never interact, yet it has a fair cycle of hot states: from (1,0) the
// nodes taking turns never make the counters equal.
var twoCounters = &sim.System{
	Name: "twocounters",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:   2,
			Service: func(sim.NodeID) sim.Service { return &tick{} },
			Liveness: []sim.Property{{Name: "Equal", Check: func(v *sim.View) bool {
				return sim.Node[tick](v, 0).C == sim.Node[tick](v, 1).C
			}}},
		}, nil
	},
}

// The depth-first search finds the fair cycle in its explored graph. DPOR
// runs one order of the two nodes' independent timers, exhausts its paths
// without the cycle, and must not say that liveness holds: its graph lacks
// the transitions of the orders it did not run.
func TestGraphVerdictOfAReducedSearchIsNoProof(t *testing.T) {
	for _, strategy := range []string{"dfs", "dpor"} {
		rep, err := search.Run(context.Background(), twoCounters, search.Options{Seed: 1, Strategy: strategy, WalkDepth: 200, MaxPaths: 2000})
		if err != nil {
			t.Fatal(err)
		}
		v := rep.GraphVerdict()
		switch f := rep.First(); {
		case f != nil:
			if f.Kind != search.KindLasso {
				t.Errorf("%s: found %v, want a lasso", strategy, f.Kind)
			}
		case rep.Stats.Stop != explore.StopExhausted:
			t.Errorf("%s: nothing found, stopped %v", strategy, rep.Stats.Stop)
		case strings.Contains(v, "liveness holds"):
			t.Errorf("%s: exhausted without the fair cycle and says %q", strategy, v)
		}
	}
}

// neverLive runs twoCounters' nodes with a liveness property that never
// holds: every fair execution is a lasso and no walk ever becomes live.
var neverLive = &sim.System{
	Name: "neverlive",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    2,
			Service:  func(sim.NodeID) sim.Service { return &tick{} },
			Liveness: []sim.Property{{Name: "Never", Check: func(*sim.View) bool { return false }}},
		}, nil
	},
}

// A lasso of a system from whose initial state no walk becomes live is not
// described as a transient-state violation whose walks still reach live
// states: none did.
func TestLassoDeadFromTheStartIsNotTransient(t *testing.T) {
	rep, err := search.Run(context.Background(), neverLive, search.Options{Seed: 1, WalkDepth: 200, Walks: 5})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Kind != search.KindLasso || f.Critical == nil {
		t.Fatalf("finding %+v, want a lasso with its critical-transition search", f)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if text := b.String(); strings.Contains(text, "still reach live states") || !strings.Contains(text, "dead from the start") {
		t.Errorf("a system no walk makes live, recovered %d, dead %d:\n%s", f.Critical.Recovered, f.Critical.Dead, text)
	}
}

// A system without parameters is named without an empty pair of
// parentheses.
func TestTextSystemWithoutParams(t *testing.T) {
	rep, err := search.Run(context.Background(), neverLive, search.Options{Seed: 1, WalkDepth: 200, Walks: 5, NoCritical: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); first != "system neverlive, seed 1, strategy dfs" {
		t.Errorf("first line %q", first)
	}
}

// A lasso's stem of one step is "a stem of 1 step".
func TestTextLassoStemOfOneStep(t *testing.T) {
	rep, err := search.Run(context.Background(), twoCounters, search.Options{Seed: 1, WalkDepth: 200, NoCritical: true})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.First()
	if f == nil || f.Lasso == nil || f.Lasso.Stem != 1 {
		t.Fatalf("finding %+v, want a lasso with a stem of one step", f)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "lasso: a stem of 1 step, then a cycle of 6 steps") {
		t.Errorf("%s", b.String())
	}
}

// pinger: nodes 0 and 1 ping-pong forever over a connection, and nodes 0
// and 2 over datagrams; the datagram Finish that node 0 sends node 2 at
// start makes the system live. With reordering it may wait while later
// datagrams on its path arrive, but not forever: every fair execution
// delivers it.
type pinger struct {
	sim.Base
	ID   sim.NodeID
	Done bool
}

type (
	ping   struct{}
	pong   struct{}
	dping  struct{}
	dpong  struct{}
	finish struct{}
)

func (n *pinger) Start(ctx *sim.Context) {
	if n.ID == 0 {
		ctx.Send(1, ping{})
		ctx.SendDatagram(2, finish{})
		ctx.SendDatagram(2, dping{})
	}
}

func (n *pinger) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	switch m.(type) {
	case ping:
		ctx.Send(0, pong{})
	case pong:
		ctx.Send(1, ping{})
	case dping:
		ctx.SendDatagram(0, dpong{})
	case dpong:
		ctx.SendDatagram(2, dping{})
	case finish:
		n.Done = true
	}
}

func pingers(reorder bool) *sim.System {
	return &sim.System{
		Name: "pingers",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:    3,
				Service:  func(id sim.NodeID) sim.Service { return &pinger{ID: id} },
				Failures: sim.Failures{Reorder: reorder},
				Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[pinger](v, 2).Done }}},
			}, nil
		},
	}
}

// A cycle that delivers later datagrams on a path while one datagram
// waits is not fair when datagrams are reordered (they are no FIFO queue):
// neither the explored graph nor the lasso detector reports it, and the
// exhausted search proves liveness.
func TestReorderedDatagramStarvedIsNoLasso(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		for _, o := range []search.Options{
			{Seed: 1, WalkDepth: 200, MaxPaths: 20000},
			{Seed: 1, WalkDepth: 200, MaxPaths: 20000, Lasso: search.LassoOptions{On: true}},
			{Seed: 2, WalkDepth: 200, MaxPaths: 200, Strategy: "walk", Lasso: search.LassoOptions{On: true}},
		} {
			rep, err := search.Run(context.Background(), pingers(reorder), o)
			if err != nil {
				t.Fatal(err)
			}
			if f := rep.First(); f != nil {
				t.Errorf("reorder %v, strategy %q, lasso %v: %v found, want none", reorder, o.Strategy, o.Lasso.On, f.Kind)
				continue
			}
			if v := rep.GraphVerdict(); o.Strategy == "" && !strings.Contains(v, "liveness holds") {
				t.Errorf("reorder %v, lasso %v: stopped %v, graph verdict %q, want liveness proved", reorder, o.Lasso.On, rep.Stats.Stop, v)
			}
		}
	}
}

// Fair cycles of the graph that did not replay leave no proof of liveness,
// exhausted or not, and the verdict says how many were set aside.
func TestGraphVerdictAfterRejectedCycles(t *testing.T) {
	for _, c := range []struct {
		partial  bool
		rejected int
		want     string
	}{
		{false, 0, "liveness holds"},
		{false, 1, "1 fair cycle of hot states found in the graph did not replay on the system and was set aside, so this is no proof of liveness"},
		{true, 0, "no fair cycle of hot partial states among all reachable states"},
		{true, 2, "2 fair cycles of hot partial states found in the graph did not replay on the system and were set aside (partial states merge states that differ), so this is no proof of liveness"},
	} {
		rep := &search.Report{GraphPartial: c.partial, Strategy: "dfs"}
		rep.Stats.Stop = explore.StopExhausted
		rep.Stats.Graph = &explore.GraphStats{States: 10, Edges: 40, Checks: 2, Rejected: c.rejected}
		if v := rep.GraphVerdict(); !strings.Contains(v, c.want) || c.rejected > 0 && strings.Contains(v, "liveness holds") {
			t.Errorf("partial %v, %d rejected: %q, want it to say %q", c.partial, c.rejected, v, c.want)
		}
	}
}

// dgram is a datagram of the order race; its receiver marks it seen.
type dgram struct {
	Kind string
	Seen bool
}

// racer 0 sends X then Y to racer 1, and again when asked; racer 1 is done
// when X arrives first, and asks for both again when Y did.
type racer struct {
	sim.Base
	ID   sim.NodeID
	GotY bool
	Done bool
}

func (r *racer) send(ctx *sim.Context) {
	ctx.SendDatagram(1, &dgram{Kind: "X"})
	ctx.SendDatagram(1, &dgram{Kind: "Y"})
}

func (r *racer) Start(ctx *sim.Context) {
	if r.ID == 0 {
		r.send(ctx)
	}
}

func (r *racer) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	d := m.(*dgram)
	d.Seen = true // the receiver owns what it got
	switch {
	case r.ID == 0:
		r.send(ctx)
	case r.Done:
	case d.Kind == "Y":
		r.GotY = true
	case r.GotY:
		r.GotY = false
		ctx.SendDatagram(0, &dgram{Kind: "R"})
	default:
		r.Done = true
	}
}

var orderRace = &sim.System{
	Name: "orderrace",
	Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes:    2,
			Service:  func(id sim.NodeID) sim.Service { return &racer{ID: id} },
			Failures: sim.Failures{Reorder: true},
			Liveness: []sim.Property{{Name: "Done", Check: func(v *sim.View) bool { return sim.Node[racer](v, 1).Done }}},
		}, nil
	},
}

// Y before X forever is a fair livelock: every datagram is delivered in
// it. A receiver that marks the datagram it got must not make the cycle
// look unfair (the delivered datagram is told by its hash before the
// handler ran), in the explored graph and in the walks' lasso detector.
func TestReceiverMarkingADatagramKeepsTheLasso(t *testing.T) {
	for _, o := range []search.Options{
		{Seed: 1, WalkDepth: 200, MaxPaths: 20000},
		{Seed: 1, WalkDepth: 200, MaxPaths: 20000, Lasso: search.LassoOptions{On: true}, Graph: search.GraphOptions{Off: true}},
	} {
		rep, err := search.Run(context.Background(), orderRace, o)
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.First(); f == nil || f.Kind != search.KindLasso {
			t.Errorf("lasso %v, graph off %v: %v, want the lasso (graph verdict %q)", o.Lasso.On, o.Graph.Off, f, rep.GraphVerdict())
		}
	}
}

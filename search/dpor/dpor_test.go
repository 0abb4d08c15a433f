package dpor_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/dpor"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/internal/strattest"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/services/kvmap"
	"github.com/macemc/macemc/services/register"
	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// ends is a path check that records the state every path ended in (all
// paths end quiescent, blocked or pruned within the test's depth) and the
// linearizability verdict of its history, when the system has a model.
type ends struct {
	mu      sync.Mutex
	states  map[uint64]bool
	illegal map[uint64]bool
	lin     *lin.Checker
}

func (e *ends) Check(s *engine.Sim) explore.Judgement {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.states[s.Hash()] = true
	if e.lin != nil && e.lin.CheckSim(s) == lin.Illegal {
		e.illegal[s.HistoryHash()] = true
	}
	return explore.Judgement{Key: s.HistoryHash()}
}

// run explores cfg with strategy st to depth (one round) and returns the
// end states, the non-linearizable histories and the statistics.
func run(t *testing.T, cfg *sim.Config, st explore.Strategy, params sim.Params, depth int, hashing bool) (*ends, explore.Stats) {
	t.Helper()
	e := &ends{states: map[uint64]bool{}, illegal: map[uint64]bool{}}
	if cfg.Model != nil {
		e.lin = lin.New(cfg.Model, 0)
	}
	res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: st, StrategyParams: params,
		DepthStep: depth, MaxDepth: depth, WalkDepth: depth + 1, Workers: 1, NoHashing: !hashing, Check: e, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Stop != explore.StopExhausted {
		var why any
		if len(res.Violations) > 0 {
			why = res.Violations[0].Err
		}
		t.Fatalf("%s: stopped %s (%v), want exhausted within depth %d", st.Name(), res.Stats.Stop, why, depth)
	}
	return e, res.Stats
}

// compare checks that DPOR reaches exactly the end states plain DFS with
// state hashing reaches (every reachable end state), with the same
// non-linearizable histories, in fewer paths unless a partition or a crash
// may happen (they are dependent on every event, or nearly: DPOR then runs
// more paths than DFS with hashing, which stops a path at a state it has
// seen). With stateless set it also checks DPOR
// without hashing and without sleep sets, and compares with DFS without
// hashing (DS2's exhaustive search).
func compare(t *testing.T, cfg *sim.Config, depth int, stateless bool) {
	t.Helper()
	full, fst := run(t, cfg, dfs.Strategy{}, nil, depth, true)
	if len(full.states) == 0 {
		t.Fatal("no end states")
	}
	type variant struct {
		name    string
		st      explore.Strategy
		params  sim.Params
		hashing bool
	}
	variants := []variant{{"dpor", dpor.Strategy{}, sim.Params{"sleep": "true"}, true}}
	if stateless {
		// Without hashing DPOR only loses the cut of a path that returns
		// to a state of its own; without sleep sets, and DFS without
		// hashing, run far more paths than DFS with hashing.
		variants = append(variants,
			variant{"dpor without hashing", dpor.Strategy{}, sim.Params{"sleep": "true"}, false},
			variant{"dpor without sleep sets", dpor.Strategy{}, sim.Params{"sleep": "false"}, true},
			variant{"dfs without hashing", dfs.Strategy{}, nil, false})
	}
	paths := map[string]int64{"dfs": fst.Paths}
	for _, v := range variants {
		got, st := run(t, cfg, v.st, v.params, depth, v.hashing)
		if !mapsEqual(got.states, full.states) {
			t.Errorf("%s: %d end states, dfs %d (missing %d, extra %d)", v.name, len(got.states), len(full.states),
				missing(full.states, got.states), missing(got.states, full.states))
		}
		if !mapsEqual(got.illegal, full.illegal) {
			t.Errorf("%s: %d non-linearizable histories, dfs %d", v.name, len(got.illegal), len(full.illegal))
		}
		paths[v.name] = st.Paths
	}
	if paths["dpor"] >= paths["dfs"] && cfg.Failures.Partitions == 0 && cfg.Failures.Crashes == 0 {
		t.Errorf("dpor ran %d paths, dfs %d: no reduction", paths["dpor"], paths["dfs"])
	}
	t.Logf("%d end states, %d non-linearizable histories; paths: %v", len(full.states), len(full.illegal), paths)
}

func mapsEqual(a, b map[uint64]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func missing(want, got map[uint64]bool) int {
	n := 0
	for k := range want {
		if !got[k] {
			n++
		}
	}
	return n
}

// mesh is a test system that exercises what the reduction must get right:
// two messages on one connection (FIFO), a handler's Rand, a timer armed
// by a message, datagrams that may be reordered or dropped, Monotone's
// shared counter, and client history events.
// Node 2 keeps the order of everything it receives, so every reordering
// that reaches it is a different end state.
type mesh struct {
	sim.Base
	Log     []string
	Mono    uint64
	Invoked bool
}

func (m *mesh) HandleApp(ctx *sim.Context, req any) {
	switch ctx.Self() {
	case 0:
		ctx.Invoke(0, "a")
		m.Invoked = true
		ctx.Send(1, "A")
		ctx.Send(1, "B")
		ctx.SendDatagram(2, "C")
	case 2:
		ctx.Invoke(1, "z")
		m.Invoked = true
		m.Log = append(m.Log, "z")
	case 3:
		m.Mono = ctx.Monotone()
		ctx.SendDatagram(2, "D")
	}
}

func (m *mesh) HandleMessage(ctx *sim.Context, from sim.NodeID, msg sim.Message) {
	s := msg.(string)
	m.Log = append(m.Log, fmt.Sprint(from, s))
	switch {
	case ctx.Self() == 1 && s == "A":
		if ctx.Rand(2) == 0 {
			ctx.Send(2, "X")
		} else {
			ctx.SetTimer("t")
		}
	case ctx.Self() == 1 && s == "B":
		m.Mono = ctx.Monotone()
		ctx.Send(0, "R")
	case ctx.Self() == 0 && s == "R" && m.Invoked:
		m.Invoked = false
		ctx.Return(0, len(m.Log))
	case ctx.Self() == 2 && s == "Y" && m.Invoked:
		m.Invoked = false
		ctx.Return(1, len(m.Log))
	}
}

func (m *mesh) HandleTimer(ctx *sim.Context, name string) { ctx.Send(2, "Y") }

func (m *mesh) HandleConnError(_ *sim.Context, peer sim.NodeID) {
	m.Log = append(m.Log, fmt.Sprint("broke ", peer))
}

func meshConfig(nodes int, f sim.Failures) *sim.Config {
	f.Reorder = true
	return &sim.Config{
		Nodes:   nodes,
		Service: func(sim.NodeID) sim.Service { return &mesh{} },
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return nil
			}
			return []any{"go"}
		},
		Failures: f,
	}
}

// TestMesh: on the test system, without failures and with each kind of
// failure (whose causes the simulator does not track, and which disable
// one another by their budgets), DPOR reaches every end state DFS
// reaches, in fewer paths.
func TestMesh(t *testing.T) {
	for _, c := range []struct {
		nodes int
		f     sim.Failures
	}{{4, sim.Failures{}}, {4, sim.Failures{Drops: 1}}, {3, sim.Failures{Resets: 1}}, {3, sim.Failures{Breaks: 1}}, {3, sim.Failures{Drops: 1, Resets: 1}},
		{3, sim.Failures{Crashes: 1}}, {4, sim.Failures{Duplicates: 1}}, {3, sim.Failures{Partitions: 1}}, {3, sim.Failures{Partitions: 1, Drops: 1}},
		{3, sim.Failures{Crashes: 1, Breaks: 1}}} {
		// Without hashing, DFS runs half a million paths or more with a
		// break, a reset, a crash, a duplicate or a partition; with them
		// the test runs 3 nodes.
		stateless := c.f.Breaks == 0 && c.f.Resets == 0 && c.f.Crashes == 0 && c.f.Duplicates == 0 && c.f.Partitions == 0
		t.Run(fmt.Sprintf("nodes=%d,%s", c.nodes, c.f), func(t *testing.T) {
			compare(t, meshConfig(c.nodes, c.f), 30, stateless)
		})
	}
}

// TestRegister: the DS2 register, every variant, on harnesses that show
// its bugs (two reads and a write for the read without write-back, a read
// and a write for the write acknowledged by one replica): the same end
// states and non-linearizable histories as DFS.
func TestRegister(t *testing.T) {
	for _, c := range []struct {
		variant       string
		reads, writes int
	}{{"correct", 1, 1}, {"buggy", 2, 1}, {"noquorum", 1, 1}} {
		t.Run(c.variant, func(t *testing.T) {
			cfg := servicetest.Config(t, register.SystemName, servicetest.Params("variant", c.variant, "reads", c.reads, "writes", c.writes))
			compare(t, cfg, 40, false)
		})
	}
}

// TestKVMap: the replicated map, buggy and fixed, one writer and one
// reader.
func TestKVMap(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		t.Run(fmt.Sprint("fixed=", fixed), func(t *testing.T) {
			cfg := servicetest.Config(t, kvmap.SystemName, servicetest.Params("fixed", fixed, "reads", 1, "writes", 1))
			compare(t, cfg, 40, false)
		})
	}
}

// racer is a node of the Race system: nodes a and b each send a message
// to c on their request; c keeps the order it received them in.
type racer struct {
	sim.Base
	Got []sim.NodeID
}

func (r *racer) HandleApp(ctx *sim.Context, _ any) { ctx.Send(2, "m") }

func (r *racer) HandleMessage(_ *sim.Context, from sim.NodeID, _ sim.Message) {
	r.Got = append(r.Got, from)
}

// TestHandCounts counts the paths by hand, every search exhausted in one
// round. strattest.Pair (two nodes, two requests each) and three nodes of
// one request: every event is independent of every event at another node,
// so all six interleavings are one Mazurkiewicz trace and DPOR runs one
// path, where DFS without state hashing runs all six. Race: a's request A
// and b's request B each send a message to c (deliveries Ca and Cb, after
// A and after B); only Ca and Cb are dependent (same node), so there are
// two traces, Ca before Cb and after it: DPOR runs A B Ca Cb, sees the race
// of Ca and Cb, and runs A B Cb Ca; DFS without hashing runs the six
// orders in which A precedes Ca and B precedes Cb.
func TestHandCounts(t *testing.T) {
	race := &sim.Config{
		Nodes:   3,
		Service: func(sim.NodeID) sim.Service { return &racer{} },
		App: func(id sim.NodeID) []any {
			if id < 2 {
				return []any{1}
			}
			return nil
		},
	}
	for _, c := range []struct {
		name       string
		cfg        *sim.Config
		dpor, dfsN int64
	}{{"pair", strattest.Pair(), 1, 6}, {"three", strattest.Nodes(3, 1), 1, 6}, {"race", race, 2, 6}} {
		for _, sleep := range []string{"true", "false"} {
			_, st := run(t, c.cfg, dpor.Strategy{}, sim.Params{"sleep": sleep}, 20, false)
			if st.Paths != c.dpor || st.Blocked != 0 {
				t.Errorf("%s: dpor (sleep sets %s) ran %d paths (%d blocked), want %d, none blocked", c.name, sleep, st.Paths, st.Blocked, c.dpor)
			}
		}
		if _, st := run(t, c.cfg, dfs.Strategy{}, nil, 20, false); st.Paths != c.dfsN {
			t.Errorf("%s: dfs without hashing ran %d paths, want %d", c.name, st.Paths, c.dfsN)
		}
	}
}

// order records the executions that end quiescent, in the order the
// coordinator checks them.
type order struct{ paths [][]int32 }

func (o *order) Check(s *engine.Sim) explore.Judgement {
	o.paths = append(o.paths, s.ChoiceValues())
	return explore.Judgement{}
}

// TestDeterministic: the same setup explores the same paths.
func TestDeterministic(t *testing.T) {
	cfg := meshConfig(4, sim.Failures{Drops: 1})
	paths := func() [][]int32 {
		o := &order{}
		c := explore.Config{System: cfg, Strategy: dpor.Strategy{}, DepthStep: 30, MaxDepth: 30, WalkDepth: 31, Workers: 2, Seed: 1, Check: o}
		if _, err := explore.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		return o.paths
	}
	a, b := paths(), paths()
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Fatalf("two runs explored different paths (%d and %d)", len(a), len(b))
	}
}

// teller is a node of the Tell system: node 0 tells the monitor it
// committed, node 1 tells it what it read (nothing committed yet, as far
// as node 1 knows).
type teller struct{ sim.Base }

func (teller) HandleApp(ctx *sim.Context, _ any) { ctx.Notify(ctx.Self()) }

// staleRead is Tell's monitor: a read (node 1's notification) after a
// commit (node 0's) is stale.
type staleRead struct{ Committed bool }

func (m *staleRead) Handle(ev any) error {
	switch {
	case ev == sim.NodeID(0):
		m.Committed = true
	case m.Committed:
		return fmt.Errorf("a read saw nothing after a commit")
	}
	return nil
}

// gateNode is a node of the Gate system: node 0's driver request waits
// (sim.Request.When) until node 1 leads; node 1 is elected, then resigns.
type gateNode struct {
	sim.Base
	Leader, Put bool
}

func (g *gateNode) HandleApp(_ *sim.Context, req any) {
	switch req {
	case "elect":
		g.Leader = true
	case "resign":
		g.Leader = false
	default:
		g.Put = true
	}
}

// TestSharedAndGlobalEvents: events at different nodes that do not commute
// through what every node shares, which DPOR must take as dependent.
// Tell: two notifications at different nodes reach one monitor, whose
// assertion fails in one order only (a monitor is global state). Gate: a
// driver request whose condition reads another node is disabled by that
// node's next event, in one order only. DPOR reaches every end state DFS
// reaches, the failed assertion and the put that never happens included.
func TestSharedAndGlobalEvents(t *testing.T) {
	tell := &sim.Config{
		Nodes:    2,
		Service:  func(sim.NodeID) sim.Service { return teller{} },
		App:      func(sim.NodeID) []any { return []any{"go"} },
		Monitors: []sim.MonitorSpec{{Name: "StaleRead", New: func() sim.Monitor { return &staleRead{} }}},
	}
	gate := &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &gateNode{} },
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return []any{"elect", "resign"}
			}
			return []any{sim.Request{Req: "put", When: func(v *sim.View) bool { return sim.Node[gateNode](v, 1).Leader }}}
		},
	}
	for name, cfg := range map[string]*sim.Config{"tell": tell, "gate": gate} {
		t.Run(name, func(t *testing.T) {
			full, _ := run(t, cfg, dfs.Strategy{}, nil, 10, true)
			for _, sleep := range []string{"true", "false"} {
				got, _ := run(t, cfg, dpor.Strategy{}, sim.Params{"sleep": sleep}, 10, true)
				if !mapsEqual(got.states, full.states) {
					t.Errorf("dpor (sleep sets %s): %d end states, dfs %d", sleep, len(got.states), len(full.states))
				}
			}
		})
	}
}

// ticker is a node of the Tick system: node 0's periodic timer does
// nothing; nodes 1 and 2 each send node 3 a message when their timer
// fires; node 3 keeps the order it received them in.
type ticker struct {
	sim.Base
	Got []sim.NodeID
}

func (k *ticker) Start(ctx *sim.Context) {
	switch ctx.Self() {
	case 0:
		ctx.SetPeriodic("tick")
	case 1, 2:
		ctx.SetTimer("go")
	}
}

func (k *ticker) HandleTimer(ctx *sim.Context, name string) {
	if name == "go" {
		ctx.Send(3, "m")
	}
}

func (k *ticker) HandleMessage(_ *sim.Context, from sim.NodeID, _ sim.Message) {
	k.Got = append(k.Got, from)
}

// TestCycleProviso: a path cut where it returns to a state of its own
// hides the races of what would follow. In Tick the first event DPOR
// runs, node 0's no-op timer, leads back to the initial state; the race of
// the two messages to node 3 lies beyond. DPOR must still find the order
// that violates the safety property, as DFS does (it expands the state
// before a cut fully: the cycle proviso).
func TestCycleProviso(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   4,
		Service: func(sim.NodeID) sim.Service { return &ticker{} },
		Safety: []sim.Property{{Name: "OneFirst", Check: func(v *sim.View) bool {
			got := sim.Node[ticker](v, 3).Got
			return len(got) == 0 || got[0] == 1
		}}},
	}
	for _, st := range []explore.Strategy{dfs.Strategy{}, dpor.Strategy{}} {
		res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: st,
			DepthStep: 10, MaxDepth: 10, WalkDepth: 11, Workers: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) == 0 {
			t.Errorf("%s: no violation of OneFirst (%d paths, stopped %s)", st.Name(), res.Stats.Paths, res.Stats.Stop)
		}
	}
}

// sender is a node of the Cross system: node 1 sends node 2 a datagram
// per request; node 2 keeps what it received.
type sender struct {
	sim.Base
	Got []string
}

func (s *sender) HandleApp(ctx *sim.Context, req any) { ctx.SendDatagram(2, req.(string)) }

func (s *sender) HandleMessage(_ *sim.Context, _ sim.NodeID, m sim.Message) {
	s.Got = append(s.Got, m.(string))
}

// TestPartitionCrossing: a partition of nodes 0 and 1 from node 2 (its
// events happen "at" node 0) decides whether node 1's datagrams to node 2
// arrive: sent while it lasts they are lost, before or after it they are
// not. DPOR reaches the four end states DFS reaches (it ran one path when
// it took the partition and its healing as independent of node 1's sends).
func TestPartitionCrossing(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   3,
		Service: func(sim.NodeID) sim.Service { return &sender{} },
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return []any{"a", "b"}
			}
			return nil
		},
		Failures: sim.Failures{Partitions: 1, Splits: [][]sim.NodeID{{0, 1}}},
	}
	compare(t, cfg, 30, false)
}

// seqServer is node 0 of the Dup system: it drops a datagram numbered
// below the newest it has seen, but applies a repeat of the newest (a
// dedup bug: < where <= is meant). Datagram 1 adds one to X, datagram 2
// reads X.
type seqServer struct {
	sim.Base
	Newest, X, Read int
	Got             []int
}

// numbered is a datagram of the Dup system.
type numbered struct{ Num int }

func (s *seqServer) HandleMessage(_ *sim.Context, _ sim.NodeID, m sim.Message) {
	n := m.(numbered).Num
	s.Got = append(s.Got, n)
	if n < s.Newest {
		return
	}
	s.Newest = n
	if n == 1 {
		s.X++
	} else {
		s.Read = s.X
	}
}

// seqClient is node 1 of the Dup system: it sends datagram 1, then 2.
type seqClient struct{ sim.Base }

func (seqClient) HandleApp(ctx *sim.Context, req any) { ctx.SendDatagram(0, numbered{req.(int)}) }

// dupConfig is the Dup system, with the safety property that the read
// never sees datagram 1 applied twice when prop is set.
func dupConfig(prop bool) *sim.Config {
	cfg := &sim.Config{
		Nodes: 2,
		Service: func(id sim.NodeID) sim.Service {
			if id == 0 {
				return &seqServer{}
			}
			return seqClient{}
		},
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return []any{1, 2}
			}
			return nil
		},
		Failures: sim.Failures{Duplicates: 1},
	}
	if prop {
		cfg.Safety = []sim.Property{{Name: "AppliedOnce", Check: func(v *sim.View) bool { return sim.Node[seqServer](v, 0).Read < 2 }}}
	}
	return cfg
}

// TestDuplicateOrder: a duplication is dependent on its datagram's
// sender. The copy joins the datagrams in flight as if sent at the
// duplication: duplicated before node 1 sends datagram 2, the copy of
// datagram 1 arrives before it (the server applies it twice, and the read
// sees 2); duplicated after, it arrives after datagram 2 and is dropped.
// The duplication happens "at" the receiver, node 0; DPOR missed the first
// order when it took the duplication as independent of node 1's send.
// DPOR reaches every end state DFS reaches, and finds the violation
// within DFS's budget of 20 paths.
func TestDuplicateOrder(t *testing.T) {
	compare(t, dupConfig(false), 20, false)
	assertFinds(t, dupConfig(true), explore.Safety, 20)
}

// assertFinds checks that DFS and DPOR, with and without sleep sets, each
// find a violation of the verdict within budget paths (one round to depth
// 20).
func assertFinds(t *testing.T, cfg *sim.Config, verdict explore.Verdict, budget int64) {
	t.Helper()
	for _, c := range []struct {
		st     explore.Strategy
		params sim.Params
	}{{dfs.Strategy{}, nil}, {dpor.Strategy{}, sim.Params{"sleep": "true"}}, {dpor.Strategy{}, sim.Params{"sleep": "false"}}} {
		res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: c.st, StrategyParams: c.params,
			DepthStep: 20, MaxDepth: 20, WalkDepth: 21, Workers: 1, Seed: 1, MaxPaths: budget})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) == 0 || res.Violations[0].Verdict != verdict {
			t.Errorf("%s %v: no %s violation within %d paths (%d paths, stopped %s)", c.st.Name(), c.params, verdict, budget, res.Stats.Paths, res.Stats.Stop)
		}
	}
}

// pinger is a node of the Crash system: node 1 pings node 0 on its
// request, node 0 answers; node 1 notes the answer or the news that its
// connection broke.
type pinger struct {
	sim.Base
	Done bool
	Errs int
}

func (p *pinger) HandleApp(ctx *sim.Context, _ any) { ctx.Send(0, "ping") }

func (p *pinger) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if m == "ping" {
		ctx.Send(from, "pong")
		return
	}
	p.Done = true
}

func (p *pinger) HandleConnError(_ *sim.Context, _ sim.NodeID) { p.Errs++ }

// crashConfig is the Crash system, with the liveness property that node 1
// learns the outcome of its ping when prop is set.
func crashConfig(prop bool) *sim.Config {
	cfg := &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &pinger{} },
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return []any{"go"}
			}
			return nil
		},
		Failures: sim.Failures{Crashes: 1, Nodes: []sim.NodeID{0}},
	}
	if prop {
		cfg.Liveness = []sim.Property{{Name: "Answered", Check: func(v *sim.View) bool {
			p := sim.Node[pinger](v, 1)
			return p.Done || p.Errs > 0
		}}}
	}
	return cfg
}

// TestCrashOrder: a crash of node 0 is dependent on node 1's events,
// although they happen at another node. Crashed before node 1 sends its
// ping, node 0 loses it silently and node 1 waits forever (a dead state);
// crashed after, node 1 learns that its connection broke; crashed after
// node 0 answered, the answer is lost or not, as node 1 received it before
// or after. DPOR with sleep sets missed the dead state when it took the
// crash as independent of node 1's send. DPOR reaches every end state DFS
// reaches, and finds the dead state within DFS's budget of 10 paths.
func TestCrashOrder(t *testing.T) {
	compare(t, crashConfig(false), 20, false)
	assertFinds(t, crashConfig(true), explore.Liveness, 10)
}

// teller2 is a node of the Broken system: node 1 sends a message to
// nodes 0 and 2 on its request and logs the news of its broken
// connections in the order they come.
type teller2 struct {
	sim.Base
	Broke []sim.NodeID
}

func (b *teller2) HandleApp(ctx *sim.Context, _ any) {
	ctx.Send(0, "m")
	ctx.Send(2, "m")
}

func (b *teller2) HandleConnError(_ *sim.Context, peer sim.NodeID) { b.Broke = append(b.Broke, peer) }

// TestCrashConnErrors: a crash of node 0 is dependent on failures at other
// nodes that touch the connection errors its peers learn of. A break of
// node 1's connection to node 2 and the crash queue node 1's two
// connection errors in the order they happen; node 1's reset clears a
// connection error the crash queued before it, not one queued after. DPOR
// reaches every end state DFS reaches (within depth 20, exhausted).
func TestCrashConnErrors(t *testing.T) {
	for name, f := range map[string]sim.Failures{
		"break": {Crashes: 1, Breaks: 1, Nodes: []sim.NodeID{0}, Links: []sim.Link{{1, 2}}},
		"reset": {Crashes: 1, Resets: 1, Nodes: []sim.NodeID{0, 1}},
	} {
		t.Run(name, func(t *testing.T) {
			compare(t, &sim.Config{
				Nodes:   3,
				Service: func(sim.NodeID) sim.Service { return &teller2{} },
				App: func(id sim.NodeID) []any {
					if id == 1 {
						return []any{"go"}
					}
					return nil
				},
				Failures: f,
			}, 20, false)
		})
	}
}

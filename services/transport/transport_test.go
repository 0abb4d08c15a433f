package transport

import (
	"slices"
	"testing"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// dMax is the walk length after which a walk that never reached a live
// state counts as stuck (seed 003's d_max, scaled to this small system).
const dMax = 5000

// walker's walks fail the test on a safety violation, and a walk that
// falls quiescent is live if AllAcked holds where it stopped.
var walker = servicetest.Walker{Quiescent: servicetest.QuiescentCheck}

// judge finds critical transitions with package critical: 20 walks of
// dMax steps per probe; a state is dead when none of 50 walks turns live,
// transient when one of 50 does.
var judge = servicetest.Judge{WalkDepth: dMax, Dead: 50, Transient: 50, Search: 20, Seed: 1}

// TestFixedWalksReachLive runs 200 seeded random walks of the fixed
// transport, with failures (drops, and resets when asked) on and off, and
// requires each to reach a state where AllAcked holds within dMax steps.
func TestFixedWalksReachLive(t *testing.T) {
	walker.ReachLiveMatrix(t, SystemName, []map[string]string{
		{"fixed": "true"},
		{"fixed": "true", "resets": "1", "drops": "2", "messages": "3"},
		{"fixed": "true", "nodes": "3", "resets": "1"},
	}, servicetest.Batch{Walks: 200, Budget: dMax})
}

// TestBuggyWalksGetStuck is the search: seeded random walks from the
// initial state of the buggy transport (budget: 400 walks of dMax steps)
// find executions that never reach AllAcked, and the critical transition
// of the first (k = 20 walks per probe) is the sender handling the ACK of
// the new connection's SYN.
func TestBuggyWalksGetStuck(t *testing.T) {
	cfg := servicetest.Config(t, SystemName)
	seed, s, _ := walker.FirstStuck(t, cfg, servicetest.Batch{Walks: 400, Budget: dMax, Failures: true})
	n0 := s.Service(0).(*Node)
	n1 := s.Service(1).(*Node)
	c := n0.tr.out[1]
	if c == nil || !c.established || n1.tr.in[0] == nil || n1.tr.in[0].isn == c.isn {
		t.Fatalf("seed %d: stuck, but not in the stale-SYN state:\n%s\n%s", seed, s.NodeText(0), s.NodeText(1))
	}
	res := judge.Find(t, s)
	i, ev := res.Step, res.Event
	t.Logf("seed %d: stuck; critical transition at step %d: %v (%d probes)", seed, i, ev, len(res.Probes))
	// Depending on the order, the last recoverable moment is the
	// sender taking the ACK of the new SYN (seed 003's step 5) or,
	// when that ACK came first, the receiver taking the stale SYN.
	senderAck := ev.Node == 0 && sim.MessageName(ev.Msg) == "Ack"
	staleSyn := ev.Node == 1 && sim.MessageName(ev.Msg) == "Data" && ev.Msg.(Data).syn
	if !senderAck && !staleSyn {
		t.Fatalf("critical transition %v is neither the sender's ACK nor the stale SYN", ev)
	}
}

// paperScenario drives the transport through seed 003 §5's steps 1-4 and
// returns the state just before the critical transition.
func paperScenario(t *testing.T, fixed bool) *engine.Sim {
	params := map[string]string{}
	if fixed {
		params["fixed"] = "true"
	}
	s := servicetest.New(t, servicetest.Config(t, SystemName, params), 0)
	isData := func(to sim.NodeID, seq uint32) func(engine.Event) bool {
		return func(ev engine.Event) bool {
			d, ok := ev.Msg.(Data)
			return ev.Kind == engine.EvDatagram && ev.Node == to && ok && d.seq == seq
		}
	}
	app, timer := servicetest.App(0), servicetest.At(engine.EvTimer, 0)
	// Step 1: the application sends two messages; m0 goes out as SYN 2001.
	servicetest.Step(t, s, "send m0", app)
	servicetest.Step(t, s, "send m1", app)
	// Step 2: the retransmission timer resends SYN 2001, then gives up;
	// the application sends again on a new connection, SYN 6001.
	servicetest.Step(t, s, "retransmit SYN 2001", timer)
	servicetest.Step(t, s, "give up on 2001", timer)
	n0 := s.Service(0).(*Node)
	if c := n0.tr.out[1]; c == nil || c.isn != 6001 || n0.app.failures != 1 {
		t.Fatalf("after the timeout: %s", s.NodeText(0))
	}
	// Step 3: the receiver gets SYN 6001 and acknowledges it.
	servicetest.Step(t, s, "receiver gets SYN 6001", isData(1, 6001))
	// Step 4: the old SYN 2001 arrives out of order.
	servicetest.Step(t, s, "receiver gets stale SYN 2001", isData(1, 2001))
	return s
}

// isAck6001 matches the sender receiving ACK 6001: the critical
// transition (seed 003 §5, step 5).
func isAck6001(ev engine.Event) bool {
	a, ok := ev.Msg.(Ack)
	return ev.Kind == engine.EvDatagram && ev.Node == 0 && ok && a.seq == 6001
}

// TestPaperScenario replays seed 003 §5 on the buggy transport: before
// the sender handles ACK 6001 the system can recover (it can still
// retransmit SYN 6001); after it, 50 walks of dMax steps never reach
// AllAcked.
func TestPaperScenario(t *testing.T) {
	s := paperScenario(t, false)
	if in := s.Service(1).(*Node).tr.in[0]; in.isn != 2001 {
		t.Fatalf("the receiver should have switched to the stale connection: %s", s.NodeText(1))
	}
	// (a) Before the critical transition: random walks can recover.
	before := s.Steps()
	if !judge.IsTransient(t, s, before) {
		t.Fatal("no walk recovers before the critical transition")
	}
	// ... for instance by retransmitting SYN 6001, which resynchronises
	// the receiver (once the second copy of SYN 2001 is out of the way).
	alt := s.Clone(engine.NewRandom(7))
	servicetest.Step(t, alt, "receiver gets the other SYN 2001", func(ev engine.Event) bool {
		d, ok := ev.Msg.(Data)
		return ok && ev.Node == 1 && d.seq == 2001
	})
	servicetest.Step(t, alt, "retransmit SYN 6001", servicetest.Kind(engine.EvTimer))
	servicetest.Step(t, alt, "receiver gets SYN 6001 again", func(ev engine.Event) bool {
		d, ok := ev.Msg.(Data)
		return ok && ev.Node == 1 && d.seq == 6001
	})
	if n := walker.Recoveries(t, alt, 20, dMax, 200); n != 20 {
		t.Fatalf("after resynchronising, %d of 20 walks recover", n)
	}

	// Step 5, the critical transition: the sender handles ACK 6001.
	ev := servicetest.Step(t, s, "sender gets ACK 6001", isAck6001)
	if ev.Node != 0 || sim.MessageName(ev.Msg) != "Ack" {
		t.Fatalf("critical event %v", ev)
	}
	n0, n1 := s.Service(0).(*Node), s.Service(1).(*Node)
	c := n0.tr.out[1]
	if !c.established || len(c.unacked) != 1 || c.unacked[0].seq != 6002 || n1.tr.in[0].next != 2002 {
		t.Fatalf("not the state of Figure 3:\n%s\n%s", s.NodeText(0), s.NodeText(1))
	}
	// (b) After it: DATA 6002 is never acknowledged.
	if !judge.IsDead(t, s, s.Steps()) {
		t.Fatal("a walk recovers after the critical transition")
	}
	// Algorithm 3 on the scenario (continued to d_max) agrees.
	judge.CheckCritical(t, s, before+1)
	// Failures on do not help either.
	for seed := range uint64(10) {
		c := s.Clone(engine.NewRandom(400 + seed))
		if r := walker.Walk(t, c, dMax, 0); r.Live >= 0 {
			t.Fatalf("walk %d with failures: %+v", seed, r)
		}
	}
}

// TestPaperScenarioFixed runs the same steps on the fixed transport: the
// receiver recognises SYN 2001 as stale by its connection identifier, so
// after the sender handles ACK 6001 every walk reaches AllAcked.
func TestPaperScenarioFixed(t *testing.T) {
	s := paperScenario(t, true)
	if in := s.Service(1).(*Node).tr.in[0]; in.isn != 6001 {
		t.Fatalf("the receiver should have kept connection 6001: %s", s.NodeText(1))
	}
	servicetest.Step(t, s, "sender gets ACK 6001", isAck6001)
	if n := walker.Recoveries(t, s, 50, dMax, 300); n != 50 {
		t.Fatalf("only %d of 50 walks recover", n)
	}
}

// TestDeliveryInOrder checks the transport's basic contract on 100 fixed
// runs with drops: every message arrives, in order, exactly once unless a
// connection attempt was abandoned and the application sent again.
func TestDeliveryInOrder(t *testing.T) {
	cfg := servicetest.Config(t, SystemName, map[string]string{"fixed": "true", "messages": "5", "drops": "3"})
	walker.Walks(t, cfg, servicetest.Batch{Walks: 100, Budget: dMax, Failures: true, Each: func(seed uint64, s *engine.Sim, r servicetest.Result) bool {
		if r.Live < 0 {
			t.Fatalf("seed %d: not live: %+v", seed, r)
		}
		got := s.Service(1).(*Node).app.delivered
		want := []string{"0:m0", "0:m1", "0:m2", "0:m3", "0:m4"}
		if s.Service(0).(*Node).app.failures == 0 && !slices.Equal(got, want) {
			t.Fatalf("seed %d: delivered %v", seed, got)
		}
		if !slices.Equal(dedup(got), want) {
			t.Fatalf("seed %d: delivered %v", seed, got)
		}
		return true
	}})
}

// dedup drops repeats of earlier elements, keeping first occurrences.
func dedup(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

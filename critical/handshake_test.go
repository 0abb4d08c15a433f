package critical_test

import (
	"context"
	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim/trace"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// The handshake system (after a trial's hand-written system): node 0
// ticks its timer "tick" Delay times (one ready event each step), then
// sends datagram HSA and NB datagrams HSB to node 1, with reordering on.
// Node 1 breaks for good if an HSB arrives before HSA; it is live once it
// has HSA and every HSB, unbroken. The critical transition is the first
// delivery of an HSB while HSA is in flight (step Delay+1); every state
// before it recovers in about one walk of NB+1 (HSA delivered first).
// With Noise, node 0 also has a timer "noise" that fires forever, so a
// dead path never falls quiescent.
//
// With Repair a third node sends datagram HSR to node 1 at boot; a broken
// node 1 that receives it is repaired (and tolerates HSBs before HSA from
// then on) only if its Rand(50) answers 0, and HSR is used up when it
// arrives. A dead path that delivers HSR first and then an HSB before HSA
// is dead for certain after that HSB; the same path without HSR's delivery
// leaves it in flight, and about 2% of walks from its end recover.
type Handshake struct {
	sim.Base
	NB, Delay, Ticks int
	Noise, Repair    bool
	NoiseN           int
	GotA, Broken     bool
	Tolerant         bool
	GotB, HeldB      int
}

// HSA and HSB are the handshake's datagrams.
type (
	HSA struct{}
	HSB struct{ I int }
	HSR struct{}
)

// Start arms node 0's timers, or sends at once without a delay.
func (h *Handshake) Start(ctx *sim.Context) {
	if ctx.Self() == 2 {
		ctx.SendDatagram(1, HSR{})
		return
	}
	if ctx.Self() != 0 {
		return
	}
	if h.Noise {
		ctx.SetTimer("noise")
	}
	if h.Delay == 0 {
		h.send(ctx)
		return
	}
	ctx.SetTimer("tick")
}

func (h *Handshake) send(ctx *sim.Context) {
	ctx.SendDatagram(1, HSA{})
	for i := range h.NB {
		ctx.SendDatagram(1, HSB{I: i})
	}
}

// HandleTimer counts the ticks and sends after the last.
func (h *Handshake) HandleTimer(ctx *sim.Context, name string) {
	if name == "noise" {
		h.NoiseN = (h.NoiseN + 1) % 2
		ctx.SetTimer("noise")
		return
	}
	if h.Ticks++; h.Ticks >= h.Delay {
		h.send(ctx)
		return
	}
	ctx.SetTimer("tick")
}

// HandleMessage breaks node 1 on an HSB before HSA.
func (h *Handshake) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if h.Broken && !h.Repair {
		return
	}
	switch m.(type) {
	case HSR:
		if h.Broken && ctx.Rand(50) == 0 {
			h.Broken, h.Tolerant = false, true
		}
	case HSA:
		h.GotA = true
		h.GotB += h.HeldB
		h.HeldB = 0
	case HSB:
		if !h.GotA && !h.Tolerant {
			h.Broken = true
			if h.Repair {
				h.HeldB++
			}
			return
		}
		h.GotB++
	}
}

// handshake builds the system.
func handshake(nb, delay int, noise bool) *sim.Config {
	return handshakeRepair(nb, delay, noise, false)
}

// handshakeRepair builds the system, with the repairing node or not.
func handshakeRepair(nb, delay int, noise, repair bool) *sim.Config {
	nodes := 2
	if repair {
		nodes = 3
	}
	return &sim.Config{
		Nodes:   nodes,
		Service: func(sim.NodeID) sim.Service { return &Handshake{NB: nb, Delay: delay, Noise: noise, Repair: repair} },
		Liveness: []sim.Property{{Name: "AllDelivered", Check: func(v *sim.View) bool {
			n := sim.Node[Handshake](v, 1)
			return n.GotA && !n.Broken && n.GotB == nb
		}}},
		Failures: sim.Failures{Reorder: true},
	}
}

// handshakePath is a dead path of the handshake: HSR delivered (with
// Repair), node 0's ticks, the first HSB delivered before HSA, then the
// first ready event each step, for at most steps transitions or until the
// system falls quiescent.
func handshakePath(t *testing.T, cfg *sim.Config, steps int) ([]int32, int) {
	t.Helper()
	s, err := engine.New(cfg, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	doomed := false
	for s.Steps() < steps {
		ready := s.Ready()
		if len(ready) == 0 {
			break
		}
		i := 0
		if !doomed {
			// HSR first, then an HSB, else the tick.
			rank := func(e engine.Event) int {
				switch e.Msg.(type) {
				case HSR:
					return 3
				case HSB:
					return 2
				}
				if e.Kind == engine.EvTimer && e.Timer == "tick" {
					return 1
				}
				return 0
			}
			for j, e := range ready {
				if rank(e) > rank(ready[i]) {
					i = j
				}
			}
			_, doomed = ready[i].Msg.(HSB)
		}
		if err := s.StepEvent(i); err != nil {
			t.Fatal(err)
		}
	}
	return s.ChoiceValues(), s.Steps()
}

// TestNearDeadInitialState: state 0 of the handshake (30 HSBs) recovers
// in about 1 walk of 31, so with seed 2 none of the k = 20 walks from it
// recovers and Algorithm 3 alone answers C2 at d_init (dead from the
// start, for a caller whose path is quiescent). Find confirms state 0
// like any C1 candidate: a confirmation walk recovers, so state 0 is near
// dead (Refined) and the search goes on to the true critical transition,
// the first HSB delivered before HSA (step delay+1), from d_init 0 and
// from a d_init inside the ticks (seed 5: no walk recovers from d_init
// nor from state 0). Budget: d_max 2000, k 20, confirmation
// samples of at most 2000 walks and 100,000 transitions.
func TestNearDeadInitialState(t *testing.T) {
	for _, tc := range []struct {
		delay, dinit int
		seed         uint64
	}{{0, 0, 2}, {10, 5, 5}} {
		cfg := handshake(30, tc.delay, false)
		choices, n := handshakePath(t, cfg, 1000)
		c := critical.Config{Sim: cfg, Choices: choices, Steps: n, DInit: tc.dinit, WalkDepth: 2000, Walks: 20, Seed: tc.seed, ConfirmWalks: 2000, ConfirmBudget: 100_000}
		alone := find(t, algorithm3(c))
		if alone.Condition != critical.C2 || !alone.AtDInit || alone.Step != tc.dinit {
			t.Fatalf("delay %d: Algorithm 3 alone got (%d, %v, AtDInit %v): the seed no longer misses state 0's recovery", tc.delay, alone.Step, alone.Condition, alone.AtDInit)
		}
		res := find(t, c)
		if res.Condition != critical.C1 || res.Step != tc.delay+1 || len(res.Refined) == 0 || res.Refined[0] != 0 || res.Confidence == nil || res.Confidence.At.Recovered != 0 {
			t.Fatalf("delay %d: got (%d, %v), refined %v, confidence %+v; want C1 at %d with state 0 refined", tc.delay, res.Step, res.Condition, res.Refined, res.Confidence, tc.delay+1)
		}
		if res.AtDInit != (tc.dinit > 0) || res.Below != (tc.dinit > 0) {
			t.Errorf("delay %d: AtDInit %v, Below %v", tc.delay, res.AtDInit, res.Below)
		}
		var confirm0 *critical.Probe
		for i, p := range res.Probes {
			if p.Step == 0 && p.Phase == critical.PhaseConfirm {
				confirm0 = &res.Probes[i]
				break
			}
		}
		if confirm0 == nil || !confirm0.Recovers || confirm0.Recovered != 1 {
			t.Errorf("delay %d: confirmation of state 0: %+v", tc.delay, confirm0)
		}
		if ex := res.Explain(); !strings.Contains(ex, "20 walks called state 0 dead, but confirmation walks recovered") && !strings.Contains(ex, "20 walks called states 0, ") {
			t.Errorf("delay %d: Explain does not say state 0 was near dead:\n%s", tc.delay, ex)
		}
	}
}

// TestQuiescentEndPastHalfDMax: the handshake with 2 HSBs after 600
// ticks is doomed at step 601 and quiescent at 603. With d_max 2000 the
// doubling reaches 512 (recovers) and then 1024 > d_max/2, which
// Algorithm 3 answers with C2; but 1024 lies past the end of E, which fell
// quiescent 603 <= d_max/2 steps in, so it is dead for certain and the
// binary search finds 601. With d_max 1205 the end (603) lies beyond
// d_max/2, and Algorithm 3 would answer (1024, C2); Find probes state
// d_max/2 = 602 (a deviation, see Find), which falls quiescent: 601 again.
// With d_max 1199, state 599 is probed and recovers: (1024, C2). Budget: k 20,
// confirmation samples of at most 2000 walks and 100,000 transitions.
func TestQuiescentEndPastHalfDMax(t *testing.T) {
	cfg := handshake(2, 600, false)
	choices, n := handshakePath(t, cfg, 5000)
	if n != 603 {
		t.Fatalf("E has %d steps, want 603", n)
	}
	for _, tc := range []struct {
		dmax, step int
		cond       critical.Condition
	}{{2000, 601, critical.C1}, {1206, 601, critical.C1}, {1205, 601, critical.C1}, {1199, 1024, critical.C2}} {
		c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: tc.dmax, Walks: 20, Seed: 1, ConfirmWalks: 2000, ConfirmBudget: 100_000}
		res := find(t, c)
		if res.Step != tc.step || res.Condition != tc.cond {
			t.Errorf("d_max %d: got (%d, %v), want (%d, %v); probes %+v", tc.dmax, res.Step, res.Condition, tc.step, tc.cond, res.Probes)
			continue
		}
		if tc.cond == critical.C1 && (res.Confidence == nil || res.Confidence.At.Recovered != 0 || !strings.Contains(res.EventText, "HSB{I: 0}")) {
			t.Errorf("d_max %d: event %q, confidence %+v", tc.dmax, res.EventText, res.Confidence)
		}
		for _, p := range res.Probes {
			if p.Step > n && p.Walks != 0 || p.Step <= n && 2*p.Step > tc.dmax {
				t.Errorf("d_max %d: probe %+v: walks past E's end, or from beyond d_max/2", tc.dmax, p)
			}
		}
	}
}

// TestMinimizeCheckRejectsNearDead: the handshake with repair (2 HSBs, 3
// ticks, noise) is doomed at step 5, the HSB after HSR's delivery (step 1)
// and the ticks. ddmin can drop HSR's delivery only by accepting a path
// whose end recovers in about 2% of walks; with seed 8 (d_max 300) its
// test of k = 20 walks and a confirmation sample of ~61 passes that path.
// The check with fresh walks after ddmin finds a recovery there, so the
// result is E's own prefix, not proved 1-minimal (Stop "check"). Budget:
// the default confirmation (60 walks of d_max) and check (twice it).
func TestMinimizeCheckRejectsNearDead(t *testing.T) {
	cfg := handshakeRepair(2, 3, true, true)
	choices, n := handshakePath(t, cfg, 300)
	c := critical.Config{Sim: cfg, Choices: choices, Steps: n, WalkDepth: 300, Walks: 20, Seed: 8}
	res := find(t, c)
	if res.Step != 5 || res.Condition != critical.C1 {
		t.Fatalf("got (%d, %v), want (5, C1)", res.Step, res.Condition)
	}
	m, err := critical.Minimize(context.Background(), c, res.Step, critical.MinimizeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Kept, []int{1, 2, 3, 4, 5}) || m.Rejected != 1 || m.Minimal || m.Stop != "check" {
		t.Errorf("kept %v, rejected %d, minimal %v, stop %q; want E's prefix after 1 rejection", m.Kept, m.Rejected, m.Minimal, m.Stop)
	}
	if tr := m.Trace(&trace.Trace{}); !strings.Contains(tr.Note, "not proved 1-minimal") {
		t.Errorf("note %q", tr.Note)
	}
}

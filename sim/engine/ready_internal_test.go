package engine

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
)

// naiveReady is the ready list built the plain way, from the whole world,
// without the summaries (busy, apps, errs, armed) buildReady relies on.
func naiveReady(s *Sim) ([]Event, []float64) {
	var evs []Event
	var ws []float64
	add := func(e Event, w float64) { evs, ws = append(evs, e), append(ws, w) }
	for i := range s.w.nodes {
		if nd := &s.w.nodes[i]; nd.appNext < len(nd.app) && !nd.down && s.driverReady(i, nd) {
			add(Event{Kind: EvApp, Node: sim.NodeID(i), Msg: appRequest(nd.app[nd.appNext])}, s.weights.App)
		}
	}
	for i := range s.w.nodes {
		if nd := &s.w.nodes[i]; len(nd.connErrs) > 0 {
			add(Event{Kind: EvConnError, Node: sim.NodeID(i), Peer: nd.connErrs[0]}, s.weights.Message)
		}
	}
	for c := range s.w.conns {
		if q := &s.w.conns[c]; q.len() > 0 {
			p := &q.items[q.head]
			if (s.w.cut>>p.from)&1 != (s.w.cut>>p.to)&1 {
				continue
			}
			add(Event{Kind: EvMessage, Node: p.to, Peer: p.from, Msg: p.msg, ref: int32(c)}, p.weight)
		}
	}
	for d := range s.w.dgrams {
		if !s.cfg.Failures.Reorder && s.earlierDatagram(d) {
			continue
		}
		p := &s.w.dgrams[d]
		add(Event{Kind: EvDatagram, Node: p.to, Peer: p.from, Msg: p.msg, ref: int32(d), copy: p.copy}, p.weight)
	}
	for i := range s.w.nodes {
		for t, tm := range s.w.nodes[i].timers {
			if tm.armed {
				add(Event{Kind: EvTimer, Node: sim.NodeID(i), Timer: tm.name, ref: int32(t)}, tm.weight)
			}
		}
	}
	if s.failures && (s.until <= 0 || s.w.step < s.until) {
		f := &s.cfg.Failures
		if s.w.drops < f.Drops {
			for d, p := range s.w.dgrams {
				if f.LinkMayFail(p.from, p.to) {
					add(Event{Kind: EvDrop, Node: p.to, Peer: p.from, Msg: p.msg, ref: int32(d), copy: p.copy}, s.weights.Failure)
				}
			}
		}
		if s.w.breaks < f.Breaks {
			for a := 0; a < s.n; a++ {
				for b := a + 1; b < s.n; b++ {
					if (s.w.conns[a*s.n+b].len() > 0 || s.w.conns[b*s.n+a].len() > 0) && f.LinkMayFail(sim.NodeID(a), sim.NodeID(b)) {
						add(Event{Kind: EvBreak, Node: sim.NodeID(a), Peer: sim.NodeID(b)}, s.weights.Failure)
					}
				}
			}
		}
		if s.w.resets < f.Resets {
			for i := range s.w.nodes {
				if !s.w.nodes[i].down && f.NodeMayFail(sim.NodeID(i)) && (f.PerNode <= 0 || s.w.ext[i].restarts < f.PerNode) {
					add(Event{Kind: EvReset, Node: sim.NodeID(i)}, s.weights.Failure)
				}
			}
		}
		if s.w.crashes < f.Crashes {
			for i := range s.w.nodes {
				if !s.w.nodes[i].down && f.NodeMayFail(sim.NodeID(i)) && (f.PerNode <= 0 || s.w.ext[i].restarts < f.PerNode) {
					add(Event{Kind: EvCrash, Node: sim.NodeID(i)}, s.weights.Failure)
				}
			}
		}
		if s.w.dups < f.Duplicates {
			for d, p := range s.w.dgrams {
				if f.LinkMayFail(p.from, p.to) {
					add(Event{Kind: EvDuplicate, Node: p.to, Peer: p.from, Msg: p.msg, ref: int32(d), copy: p.copy}, s.weights.Failure)
				}
			}
		}
		if s.w.partitions < f.Partitions && s.w.cut == 0 {
			for i, side := range f.PartitionSides(s.n) {
				add(Event{Kind: EvPartition, Node: sim.NodeID(bits.TrailingZeros64(side)), Peer: sim.NodeID(side), ref: int32(i)}, s.weights.Failure)
			}
		}
	}
	if s.w.cut != 0 {
		add(Event{Kind: EvHeal, Node: sim.NodeID(bits.TrailingZeros64(s.w.cut)), Peer: sim.NodeID(s.w.cut)}, s.weights.Timer)
	}
	return evs, ws
}

// checkSummaries compares the world's summaries (the counts and each
// node's armedSum) with a recount.
func checkSummaries(s *Sim) error {
	apps, errs, armed := 0, 0, 0
	for i := range s.w.nodes {
		nd := &s.w.nodes[i]
		if nd.appNext < len(nd.app) {
			apps++
		}
		if len(nd.connErrs) > 0 {
			errs++
		}
		var sum uint64
		for _, t := range nd.timers {
			if t.armed {
				armed++
				sum += t.term()
			}
		}
		if sum != nd.armedSum {
			return fmt.Errorf("node %d: armed timers' sum %#x, recount %#x", i, nd.armedSum, sum)
		}
	}
	for c := range s.w.conns {
		busy := s.w.busy[c>>6]>>(c&63)&1 == 1
		if busy != (s.w.conns[c].len() > 0) {
			return fmt.Errorf("connection %d: busy bit %v, %d messages", c, busy, s.w.conns[c].len())
		}
	}
	if apps != s.w.apps || errs != s.w.errs || armed != s.w.armed {
		return fmt.Errorf("summaries apps %d errs %d armed %d, recount %d %d %d", s.w.apps, s.w.errs, s.w.armed, apps, errs, armed)
	}
	return nil
}

// checkFaults checks what the faults promise of the state: a crashed node
// has nothing pending (timers, driver, connection errors, messages or
// datagrams to it), and no datagram in flight crosses the partition.
func checkFaults(s *Sim) error {
	down := 0
	for i := range s.w.nodes {
		nd := &s.w.nodes[i]
		if !nd.down {
			continue
		}
		down++
		for _, t := range nd.timers {
			if t.armed {
				return fmt.Errorf("crashed node %d has timer %s armed", i, t.name)
			}
		}
		if nd.appNext < len(nd.app) || len(nd.connErrs) > 0 {
			return fmt.Errorf("crashed node %d has driver requests or connection errors", i)
		}
		for p := 0; p < s.n; p++ {
			if s.w.conns[p*s.n+i].len() > 0 {
				return fmt.Errorf("crashed node %d has messages from %d in flight", i, p)
			}
		}
		for _, d := range s.w.dgrams {
			if int(d.to) == i {
				return fmt.Errorf("crashed node %d has a datagram in flight", i)
			}
		}
	}
	if down != s.w.down {
		return fmt.Errorf("%d nodes down, summary %d", down, s.w.down)
	}
	for _, d := range s.w.dgrams {
		if s.w.cut != 0 && s.across(d.from, d.to) {
			return fmt.Errorf("datagram %d->%d crosses the partition", d.from, d.to)
		}
	}
	return nil
}

// churn is a service that exercises every kind of event: it sends on
// connections and as datagrams, sets, cancels and re-arms one-shot and
// periodic timers, and asks Rand.
type churn struct {
	sim.Base
	N    int
	Seen int
}

func (c *churn) Start(ctx *sim.Context) {
	ctx.SetPeriodic("tick")
	if ctx.Self() == 0 {
		ctx.SetTimer("once")
	}
}

func (c *churn) act(ctx *sim.Context) {
	c.N++
	to := sim.NodeID(ctx.Rand(ctx.Nodes()))
	switch ctx.Rand(6) {
	case 0:
		ctx.Send(to, c.N)
	case 1:
		ctx.SendDatagram(to, c.N)
	case 2:
		ctx.CancelTimer("tick")
	case 3:
		ctx.SetPeriodic("tick")
		ctx.SetTimer("once")
	case 4:
		ctx.CancelTimer("once")
		ctx.Send(to, churnNote(-c.N)) // a type of its own weight
	}
}

// churnNote is a message whose type has a weight of its own.
type churnNote int

func (c *churn) HandleApp(ctx *sim.Context, _ any)                           { c.act(ctx) }
func (c *churn) HandleMessage(ctx *sim.Context, _ sim.NodeID, _ sim.Message) { c.Seen++; c.act(ctx) }
func (c *churn) HandleTimer(ctx *sim.Context, _ string)                      { c.act(ctx) }
func (c *churn) HandleConnError(ctx *sim.Context, _ sim.NodeID)              { c.act(ctx) }

// churnApp gives node id id plain driver requests; nodes 2 and 3 then
// have one that waits for node 1 to have seen a message (a condition, so
// that the list is rebuilt at every step from when it is next).
func churnApp(id sim.NodeID) []any {
	reqs := slices.Repeat([]any{"go"}, int(id))
	if id >= 2 {
		reqs = append(reqs, sim.Request{Req: "wait", When: func(v *sim.View) bool { return sim.Node[churn](v, 1).Seen > 0 }})
	}
	return reqs
}

// TestReadySummaries walks systems with every kind of event and failure
// and checks, before every step, that buildReady (which skips what the
// summaries say is empty, and keeps the list of the last step, edited in
// place, when it can) lists exactly what a plain scan of the
// world lists, in the same order, and that the summaries match a recount,
// also across Reset, Clone and SwapState. The third system has failures
// only in the first steps and no breaks or partitions, so that most of
// its steps edit the list in place.
func TestReadySummaries(t *testing.T) {
	if n := reflect.TypeFor[Event]().NumField(); n != 8 {
		t.Fatalf("Event has %d fields: eventAt sets 8, and the check below builds events over one with those 8 set", n)
	}
	// The copy marks sit in what would be padding: an Event stays 64
	// bytes and a message in flight 56 (on 64-bit machines).
	if unsafe.Sizeof(uintptr(0)) == 8 && (unsafe.Sizeof(Event{}) != 64 || unsafe.Sizeof(pending{}) != 56) {
		t.Fatalf("an Event has %d bytes, a pending message %d: want 64 and 56", unsafe.Sizeof(Event{}), unsafe.Sizeof(pending{}))
	}
	var seen [numEventKinds]int
	kept := 0 // steps whose list was kept from the step before
	for variant, reorder := range []bool{false, true, false} {
		f := sim.Failures{Drops: 3, Breaks: 3, Resets: 3, Crashes: 1, Duplicates: 2, Partitions: 2, Reorder: reorder}
		opts := Options{Chooser: NewRandom(1)}
		if variant == 2 {
			f = sim.Failures{Drops: 1, Resets: 2}
			opts.FailuresUntil = 15
		}
		if reorder {
			// Faults only where the filters allow them.
			f.Nodes, f.Links, f.Splits, f.PerNode = []sim.NodeID{1, 3}, []sim.Link{{0, 1}, {2, 1}}, [][]sim.NodeID{{0, 1}, {3}}, 2
		}
		cfg := &sim.Config{
			Nodes:    4,
			Service:  func(sim.NodeID) sim.Service { return &churn{} },
			App:      churnApp,
			Failures: f,
			Weights:  sim.Weights{Messages: map[string]float64{"churnNote": 3}},
		}
		s, err := New(cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		other, err := New(cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		for walk := range 60 {
			r := NewRandom(uint64(walk))
			if err := s.Reset(r); err != nil {
				t.Fatal(err)
			}
			if walk%3 == 2 {
				s = s.Clone(r)
			}
			for step := 0; step < 300; step++ {
				if walk%4 == 3 && step == 100 {
					// Go on with the other simulator's execution, and
					// back with this one's after a few steps.
					s.SwapState(other)
				}
				if walk%4 == 3 && step == 110 {
					s.SwapState(other)
				}
				if s.listOK && !s.readyValid {
					kept++
				}
				if err := checkReady(s); err != nil {
					t.Fatalf("reorder %v walk %d step %d: %v", reorder, walk, step, err)
				}
				if ok, err := s.Step(); err != nil {
					t.Fatal(err)
				} else if !ok {
					break
				}
				seen[s.LastEvent().Kind]++
			}
		}
	}
	for k, n := range seen {
		if n == 0 {
			t.Errorf("no %s event ran", EventKind(k))
		}
	}
	if kept < 1000 {
		t.Errorf("the list was kept from the step before at %d steps, want 1000 or more", kept)
	}
}

// checkReady checks, before a step, that the summaries match a recount
// and that buildReady (which skips what the summaries say is empty, and
// keeps the list of the last step, edited in place, when it can) lists
// exactly what a plain scan of the world lists, in the same
// order and with the same weights, each event built whole over another.
func checkReady(s *Sim) error {
	if err := checkSummaries(s); err != nil {
		return err
	}
	want, wantW := naiveReady(s)
	got := s.Ready()
	if err := checkFaults(s); err != nil {
		return err
	}
	if len(got) != len(want) || !slices.Equal(s.readyW, wantW) {
		return fmt.Errorf("ready %v (weights %v), want %v (weights %v)", got, s.readyW, want, wantW)
	}
	for i := range got {
		w := want[i]
		w.Cause = got[i].Cause // the plain scan does not know causes
		if !sameEvent(got[i], w) {
			return fmt.Errorf("ready[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Step builds the event it runs over the last one: every field must
	// be set.
	for i, k := range s.ready {
		ev := Event{Kind: EvHeal, Cause: 99, Node: 3, Peer: 2, Timer: "stale", Msg: "stale", ref: 7, copy: 5}
		if s.eventAt(&ev, k); !sameEvent(ev, got[i]) {
			return fmt.Errorf("ready[%d] built over another event = %+v, want %+v", i, ev, got[i])
		}
	}
	return nil
}

// sameEvent reports whether a and b are the same event: every field
// equal, the messages deeply (a message may hold slices or maps).
func sameEvent(a, b Event) bool {
	return a.Kind == b.Kind && a.Cause == b.Cause && a.Node == b.Node && a.Peer == b.Peer &&
		a.Timer == b.Timer && a.ref == b.ref && a.copy == b.copy && reflect.DeepEqual(a.Msg, b.Msg)
}

// TestReadyEverySystem checks the ready list (checkReady) before every
// step of random walks of every registered example system: with its own
// failures, with its own failures until step 10 and none after (as a
// search's walks run after its bounded prefix), and with every kind of
// failure allowed, datagrams reordered or not. The example systems use
// their own mixes of connections, datagrams, timers, driver requests with
// conditions and durable state, which the churn system of
// TestReadySummaries does not. It also counts the steps whose list was
// kept through each kind of edit in place (a driver request run, a timer
// armed or disarmed, the failures' end) and wants each seen.
func TestReadyEverySystem(t *testing.T) {
	every := sim.Failures{Drops: 2, Breaks: 2, Resets: 2, Crashes: 1, Duplicates: 1, Partitions: 1}
	systems := sim.Systems()
	if len(systems) < 9 {
		t.Fatalf("%d systems registered, want the 9 examples or more", len(systems))
	}
	var keptApp, keptTimers, keptUntil int
	for _, sys := range systems {
		if strings.HasPrefix(sys.Name, "simtest-") {
			continue // sim/simtest's systems misbehave by design: no examples
		}
		cfg, _, err := sys.Config(nil)
		if err != nil {
			t.Fatal(err)
		}
		kept, steps := 0, 0
		for variant, failures := range []sim.Failures{cfg.Failures, cfg.Failures, every, withReorder(every)} {
			c := *cfg
			c.Failures = failures
			opts := Options{Chooser: NewRandom(1)}
			if variant == 1 {
				opts.FailuresUntil = 10
			}
			s, err := New(&c, opts)
			if err != nil {
				t.Fatal(err)
			}
			for walk := range 50 {
				r := NewRandom(uint64(walk))
				if err := s.Reset(r); err != nil {
					t.Fatal(err)
				}
				timers := armedTimers(s)
				for step := 0; step < 200; step++ {
					if s.listOK && !s.readyValid {
						kept++
						if s.LastEvent().Kind == EvApp {
							keptApp++
						}
						if !slices.Equal(armedTimers(s), timers) {
							keptTimers++
						}
						if s.failOn && s.w.step == s.until {
							keptUntil++
						}
					}
					if err := checkReady(s); err != nil {
						t.Fatalf("%s, failures %d, walk %d, step %d: %v", sys.Name, variant, walk, step, err)
					}
					timers = armedTimers(s)
					// A handler that fails under faults its system was
					// not written for ends the walk, not the test.
					if ok, err := s.Step(); err != nil || !ok {
						break
					}
					steps++
				}
			}
		}
		t.Logf("%s: %d steps, the list kept from the step before at %d", sys.Name, steps, kept)
		if steps < 1000 {
			t.Errorf("%s: %d steps checked, want 1000 or more", sys.Name, steps)
		}
	}
	t.Logf("the list kept through a driver request at %d steps, through timers armed or disarmed at %d, through the failures' end at %d", keptApp, keptTimers, keptUntil)
	// Most walks have used their failures or have none left to list by
	// step 10: the failures' end is kept in few of them.
	if keptApp < 1000 || keptTimers < 1000 || keptUntil < 20 {
		t.Errorf("want 1000, 1000 and 20 or more")
	}
}

// armedTimers lists s's armed timers, by node and index.
func armedTimers(s *Sim) []int {
	var out []int
	for i := range s.w.nodes {
		for j, tm := range s.w.nodes[i].timers {
			if tm.armed {
				out = append(out, i<<16|j)
			}
		}
	}
	return out
}

// withReorder returns f with datagrams reordered.
func withReorder(f sim.Failures) sim.Failures {
	f.Reorder = true
	return f
}

// flooder sends three datagrams to each other node at every tick: more
// datagrams pile up in flight than buildReady looks back over one by one.
type flooder struct{ sim.Base }

func (f *flooder) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (f *flooder) HandleTimer(ctx *sim.Context, _ string) {
	for to := range sim.NodeID(ctx.Nodes()) {
		if to != ctx.Self() {
			for range 3 {
				ctx.SendDatagram(to, churnNote(1))
			}
		}
	}
}

// TestReadyManyDatagrams: with dozens of datagrams in flight, only the
// oldest of each pair is ready (without reordering), as the plain way says.
func TestReadyManyDatagrams(t *testing.T) {
	cfg := &sim.Config{Nodes: 3, Service: func(sim.NodeID) sim.Service { return &flooder{} }, Weights: sim.Weights{Timer: 50}}
	s, err := New(cfg, Options{Chooser: NewRandom(2)})
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for range 400 {
		if err := checkReady(s); err != nil {
			t.Fatalf("step %d (%d datagrams in flight): %v", s.Steps(), len(s.w.dgrams), err)
		}
		most = max(most, len(s.w.dgrams))
		if ok, err := s.Step(); err != nil || !ok {
			t.Fatalf("step %d: %v", s.Steps(), err)
		}
	}
	if most <= 16 {
		t.Errorf("at most %d datagrams in flight: the test does not reach the bitset", most)
	}
}

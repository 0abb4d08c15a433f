package engine_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// TestDeterminismTwoRuns runs the same config with the same seeded chooser
// twice: the state hashes after every step and the log bytes must match.
func TestDeterminismTwoRuns(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 42, 1000} {
		a := record(t, mixedConfig(), engine.NewRandom(seed), 300)
		b := record(t, mixedConfig(), engine.NewRandom(seed), 300)
		if len(a.hashes) < 10 {
			t.Fatalf("seed %d: only %d steps; the test system should do more", seed, len(a.hashes))
		}
		if !slices.Equal(a.hashes, b.hashes) {
			t.Fatalf("seed %d: hash sequences differ:\n%x\n%x", seed, a.hashes, b.hashes)
		}
		if !bytes.Equal(a.log, b.log) {
			t.Fatalf("seed %d: logs differ:\n%s\n---\n%s", seed, a.log, b.log)
		}
		if !slices.Equal(a.s.ChoiceValues(), b.s.ChoiceValues()) {
			t.Fatalf("seed %d: choices differ", seed)
		}
		if len(a.log) == 0 || !bytes.Contains(a.log, []byte("begin ")) || !bytes.Contains(a.log, []byte("choice")) {
			t.Fatalf("seed %d: log lacks transitions or choices:\n%s", seed, a.log)
		}
	}
	// Different seeds must explore differently (otherwise the check above
	// proves nothing).
	a := record(t, mixedConfig(), engine.NewRandom(1), 300)
	b := record(t, mixedConfig(), engine.NewRandom(2), 300)
	if slices.Equal(a.hashes, b.hashes) {
		t.Fatal("seeds 1 and 2 gave the same execution")
	}
}

// TestDeterminismReplay replays the recorded ChoiceValues: the same hashes
// after every step, the same log bytes, the same choice log.
func TestDeterminismReplay(t *testing.T) {
	for _, seed := range []uint64{7, 8, 9} {
		a := record(t, mixedConfig(), engine.NewRandom(seed), 300)
		choices := a.s.ChoiceValues()

		// Step by step with a Recorded chooser.
		b := record(t, mixedConfig(), engine.NewRecorded(choices), a.s.Steps())
		if !slices.Equal(a.hashes, b.hashes) || !bytes.Equal(a.log, b.log) {
			t.Fatalf("seed %d: recorded replay differs", seed)
		}
		if !slices.Equal(a.s.Choices(), b.s.Choices()) {
			t.Fatalf("seed %d: choice logs differ", seed)
		}

		// Through Replay, with a logger.
		var buf bytes.Buffer
		r, err := engine.Replay(mixedConfig(), choices, -1, engine.Options{Logger: engine.NewLogger(&buf)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Steps() != a.s.Steps() || r.Hash() != a.s.Hash() {
			t.Fatalf("seed %d: Replay reached step %d hash %x, want %d %x", seed, r.Steps(), r.Hash(), a.s.Steps(), a.s.Hash())
		}
		if !bytes.Equal(buf.Bytes(), a.log) {
			t.Fatalf("seed %d: Replay log differs", seed)
		}

		// Replay to every prefix: StepStart gives the choices that reach
		// the state after i steps.
		for i := 0; i <= a.s.Steps(); i += 7 {
			p, err := engine.Replay(mixedConfig(), choices[:a.s.StepStart(i)], i, engine.Options{})
			if err != nil {
				t.Fatalf("prefix %d: %v", i, err)
			}
			if p.Hash() != a.hashes[i] {
				t.Fatalf("seed %d: prefix of %d steps hashes %x, want %x", seed, i, p.Hash(), a.hashes[i])
			}
		}
	}
}

// TestLoggingDoesNotChangeExecution: with and without a logger the
// execution is the same.
func TestLoggingDoesNotChangeExecution(t *testing.T) {
	a := record(t, mixedConfig(), engine.NewRandom(5), 200)
	s := mustNew(t, mixedConfig(), engine.Options{Chooser: engine.NewRandom(5)})
	hs := append([]uint64{s.Hash()}, walk(t, s, 200)...)
	if !slices.Equal(a.hashes, hs) {
		t.Fatal("logging changed the execution")
	}
}

// TestCloneContinues: a clone continuing with a seeded chooser does what the
// original does when it continues with the same seed, and the two share no
// state.
func TestCloneContinues(t *testing.T) {
	for _, at := range []int{0, 5, 17, 40} {
		s := mustNew(t, mixedConfig(), engine.Options{Chooser: engine.NewRandom(11)})
		walk(t, s, at)
		c := s.Clone(engine.NewRandom(99))
		if c.Hash() != s.Hash() || c.Steps() != s.Steps() {
			t.Fatalf("at %d: clone hash %x steps %d, original %x %d", at, c.Hash(), c.Steps(), s.Hash(), s.Steps())
		}
		if !slices.Equal(c.ChoiceValues(), s.ChoiceValues()) {
			t.Fatalf("at %d: clone choice log differs", at)
		}
		if !slices.Equal(readyStrings(c), readyStrings(s)) {
			t.Fatalf("at %d: clone ready list differs", at)
		}
		s.SetChooser(engine.NewRandom(99))
		hc := walk(t, c, at+150)
		hs := walk(t, s, at+150)
		if !slices.Equal(hc, hs) || len(hc) == 0 {
			t.Fatalf("at %d: clone and original diverge (%d and %d steps)", at, len(hc), len(hs))
		}
		if !slices.Equal(c.ChoiceValues(), s.ChoiceValues()) {
			t.Fatalf("at %d: choice logs differ after continuing", at)
		}
		// Replaying the clone's choices from scratch reaches its state.
		r, err := engine.Replay(mixedConfig(), c.ChoiceValues(), -1, engine.Options{})
		if err != nil || r.Hash() != c.Hash() {
			t.Fatalf("at %d: replay of clone's choices: %v, hash %x want %x", at, err, r.Hash(), c.Hash())
		}
	}
}

// TestCloneIndependent: stepping a clone leaves the original untouched,
// maps inside node structs included.
func TestCloneIndependent(t *testing.T) {
	s := mustNew(t, mixedConfig(), engine.Options{Chooser: engine.NewRandom(3)})
	walk(t, s, 10)
	h, steps, text := s.Hash(), s.Steps(), s.NodeText(0)+s.NetworkText()
	c := s.Clone(engine.NewRandom(4))
	walk(t, c, 60)
	if c.Steps() == steps {
		t.Fatal("clone did not step")
	}
	// Force a re-encoding of every node: Hash caches per-node hashes, so
	// compare the text form and a fresh clone's hash too.
	if s.Hash() != h || s.Steps() != steps || s.NodeText(0)+s.NetworkText() != text {
		t.Fatal("stepping the clone changed the original")
	}
	if s.Clone(engine.NewRandom(0)).Hash() != h {
		t.Fatal("original's state changed under its cached hash")
	}
	m := sim.Node[Mixed](s.View(), 0)
	mc := sim.Node[Mixed](c.View(), 0)
	if m == mc {
		t.Fatal("clone shares node structs")
	}
}

// TestReadyOrderCanonical: replaying the same choices shows the same ready
// list at every step (choice i always means the same event), and the list
// is grouped by kind in the documented order.
func TestReadyOrderCanonical(t *testing.T) {
	rank := map[engine.EventKind]int{
		engine.EvApp: 0, engine.EvConnError: 1, engine.EvMessage: 2, engine.EvDatagram: 3,
		engine.EvTimer: 4, engine.EvDrop: 5, engine.EvBreak: 6, engine.EvReset: 7,
	}
	var lists [][]string
	s := mustNew(t, mixedConfig(), engine.Options{Chooser: engine.NewRandom(21)})
	for s.Steps() < 200 {
		lists = append(lists, readyStrings(s))
		last := -1
		for _, e := range s.Ready() {
			if rank[e.Kind] < last {
				t.Fatalf("step %d: ready list not grouped by kind: %q", s.Steps(), readyStrings(s))
			}
			last = rank[e.Kind]
		}
		if ok, err := s.Step(); err != nil {
			t.Fatal(err)
		} else if !ok {
			break
		}
	}
	choices := s.ChoiceValues()
	r := mustNew(t, mixedConfig(), engine.Options{Chooser: engine.NewRecorded(choices)})
	if len(lists) < s.Steps() || s.Steps() < 30 {
		t.Fatalf("%d ready lists for %d steps", len(lists), s.Steps())
	}
	for i := 0; i < s.Steps(); i++ {
		if got := readyStrings(r); !slices.Equal(got, lists[i]) {
			t.Fatalf("step %d: replay's ready list\n%q\nwant\n%q", i, got, lists[i])
		}
		want := lists[i][choices[r.StepStart(i)]]
		if _, err := r.Step(); err != nil {
			t.Fatal(err)
		}
		if got := r.LastEvent().Kind.String() + ": " + r.LastEvent().String(); got != want {
			t.Fatalf("step %d ran %q, want %q", i, got, want)
		}
	}
}

// TestReplayBadChoice: choices that run out or are out of range give
// ErrBadChoice, with the step.
func TestReplayBadChoice(t *testing.T) {
	a := record(t, mixedConfig(), engine.NewRandom(3), 50)
	choices := a.s.ChoiceValues()

	// Running out: ask for more steps than the choices drive.
	_, err := engine.Replay(mixedConfig(), choices, a.s.Steps()+1, engine.Options{})
	var bce *engine.BadChoiceError
	if !errors.Is(err, engine.ErrBadChoice) || !errors.As(err, &bce) || bce.Value != -1 || bce.Step != a.s.Steps() {
		t.Fatalf("replay past the end: %v", err)
	}

	// Out of range at the first event choice.
	bad := slices.Clone(choices)
	first := a.s.StepStart(0)
	bad[first] = 1000
	_, err = engine.Replay(mixedConfig(), bad, -1, engine.Options{})
	if !errors.Is(err, engine.ErrBadChoice) || !errors.As(err, &bce) || bce.Value != 1000 || bce.Step != 0 || bce.Kind != engine.ChooseEvent {
		t.Fatalf("out of range: %v", err)
	}
	bad[first] = -3
	if _, err = engine.Replay(mixedConfig(), bad, -1, engine.Options{}); !errors.Is(err, engine.ErrBadChoice) {
		t.Fatalf("negative choice: %v", err)
	}

	// Out of range inside a handler (a Rand choice point).
	idx := -1
	for i, c := range a.s.Choices() {
		if c.Kind == engine.ChooseRandom {
			idx = i
			break
		}
	}
	if idx < 0 {
		t.Fatal("no Rand choice in the execution")
	}
	bad = slices.Clone(choices)
	bad[idx] = 77
	_, err = engine.Replay(mixedConfig(), bad, -1, engine.Options{})
	if !errors.Is(err, engine.ErrBadChoice) || !errors.As(err, &bce) || bce.Kind != engine.ChooseRandom || bce.Index != idx {
		t.Fatalf("bad Rand answer: %v", err)
	}
	if errors.Is(err, engine.ErrHandlerPanic) {
		t.Fatalf("bad Rand answer reported as a handler panic: %v", err)
	}

	// StepEvent out of range.
	s := mustNew(t, mixedConfig(), engine.Options{})
	if err := s.StepEvent(len(s.Ready())); !errors.Is(err, engine.ErrBadChoice) {
		t.Fatalf("StepEvent out of range: %v", err)
	}
	if s.Steps() != 0 || len(s.Choices()) != 0 {
		t.Fatal("a refused StepEvent changed the execution")
	}

	// Quiescent before the asked step count.
	p := mustNew(t, pingConfig(), engine.Options{})
	walk(t, p, 100)
	if _, err := engine.Replay(pingConfig(), p.ChoiceValues(), p.Steps()+3, engine.Options{}); !errors.Is(err, engine.ErrBadChoice) {
		t.Fatalf("replay past quiescence: %v", err)
	}
}

// TestPrefixChooser answers from its sequence, then from Then.
func TestPrefixChooser(t *testing.T) {
	a := record(t, mixedConfig(), engine.NewRandom(31), 100)
	ch := a.s.ChoiceValues()
	cut := a.s.StepStart(20)
	s := mustNew(t, mixedConfig(), engine.Options{Chooser: &engine.Prefix{Seq: ch[:cut], Then: engine.NewRandom(5)}})
	hs := walk(t, s, 100)
	if !slices.Equal(hs[:20], a.hashes[1:21]) {
		t.Fatal("Prefix did not replay its sequence")
	}
	if !slices.Equal(s.ChoiceValues()[:cut], ch[:cut]) {
		t.Fatal("Prefix choices differ")
	}
}

// TestRandomChooser: weighted choices follow the weights; Reseed restarts.
func TestRandomChooser(t *testing.T) {
	r := engine.NewRandom(1)
	counts := make([]int, 3)
	for i := 0; i < 30000; i++ {
		counts[r.Choose(engine.ChooseEvent, 3, []float64{1, 0, 9})]++
	}
	if counts[1] != 0 || counts[0] < 2400 || counts[0] > 3600 {
		t.Fatalf("weighted counts %v, want about 3000/0/27000", counts)
	}
	r.Reseed(5)
	var a, b []int
	for i := 0; i < 20; i++ {
		a = append(a, r.Choose(engine.ChooseRandom, 100, nil))
	}
	r.Reseed(5)
	for i := 0; i < 20; i++ {
		b = append(b, r.Choose(engine.ChooseRandom, 100, nil))
	}
	if !slices.Equal(a, b) {
		t.Fatal("Reseed did not restart the sequence")
	}
	u := engine.NewRandom(1)
	u.Unbiased = true
	counts = make([]int, 3)
	for i := 0; i < 3000; i++ {
		counts[u.Choose(engine.ChooseEvent, 3, []float64{1, 0, 9})]++
	}
	if counts[1] < 800 {
		t.Fatalf("unbiased counts %v", counts)
	}
}

// TestSimReset: Reset returns to the initial state New builds, so that the
// same chooser then gives the same execution, whatever ran before.
func TestSimReset(t *testing.T) {
	fresh := record(t, mixedConfig(), engine.NewRandom(17), 150)
	s := mustNew(t, mixedConfig(), engine.Options{Chooser: engine.NewRandom(3)})
	for round := 0; round < 3; round++ {
		walk(t, s, 120+round*40) // dirty every buffer: failures, timers, datagrams
		var buf bytes.Buffer
		s.SetLogger(engine.NewLogger(&buf))
		if err := s.Reset(engine.NewRandom(17)); err != nil {
			t.Fatal(err)
		}
		if s.Steps() != 0 || len(s.Choices()) != 0 || s.Hash() != fresh.hashes[0] {
			t.Fatalf("round %d: after Reset: %d steps, %d choices, hash %x want %x", round, s.Steps(), len(s.Choices()), s.Hash(), fresh.hashes[0])
		}
		hs := append([]uint64{s.Hash()}, walk(t, s, 150)...)
		if !slices.Equal(hs, fresh.hashes) || !slices.Equal(s.ChoiceValues(), fresh.s.ChoiceValues()) {
			t.Fatalf("round %d: execution after Reset differs from a fresh one", round)
		}
		if !bytes.Equal(buf.Bytes(), fresh.log) {
			t.Fatalf("round %d: log after Reset differs from a fresh one", round)
		}
		s.SetLogger(nil)
		s.SetChooser(engine.NewRandom(uint64(round)))
	}
}

// TestContextStep: handlers see the transition's number counting from 1
// (the state after Step() steps), and 0 while booting.
func TestContextStep(t *testing.T) {
	var seen []int
	cfg := &sim.Config{
		Nodes: 2,
		Service: func(sim.NodeID) sim.Service {
			return &Script{start: func(ctx *sim.Context, n *Script) { seen = append(seen, ctx.Step()) }}
		},
		App: func(id sim.NodeID) []any {
			return []any{Do(func(ctx *sim.Context, n *Script) { seen = append(seen, ctx.Step()) })}
		},
		Failures: sim.Failures{Resets: 1},
	}
	s := mustNew(t, cfg, engine.Options{})
	mustStepEvent(t, s, 0)
	mustStepEvent(t, s, findReady(t, s, "reset", func(e engine.Event) bool { return e.Kind == engine.EvReset }))
	mustStepEvent(t, s, 0)
	if !slices.Equal(seen, []int{0, 0, 1, 2, 3}) {
		t.Fatalf("Context.Step saw %v", seen)
	}
}

// flakyCalls counts flaky's handler calls across every simulator.
var flakyCalls atomic.Int64

// flaky panics on every other call of its handler, counting in a global.
type flaky struct {
	sim.Base
	N int
}

func (f *flaky) HandleApp(*sim.Context, any) {
	if flakyCalls.Add(1)%2 == 0 {
		panic("every other call")
	}
	f.N++
}

// TestReplaysEndDifferently: replays of which one step panics and another
// does not differ: the report names no node whose state differs (-1) but
// the node whose handler ran the step.
func TestReplaysEndDifferently(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &flaky{} },
		App: func(id sim.NodeID) []any { return []any{"go"}[:1-id] }}
	err := engine.CheckDeterminismN(cfg, []int32{0}, engine.Options{}, 4)
	var ne *engine.NondeterminismError
	if !errors.As(err, &ne) || ne.Node != -1 || ne.StepNode != 0 || !strings.Contains(ne.Detail, "one replay ended the step with") {
		t.Fatalf("%v (%+v)", err, ne)
	}
}

// summer adds up the driver requests it handles.
type summer struct {
	sim.Base
	Sum int
}

func (s *summer) HandleApp(_ *sim.Context, req any) { s.Sum += req.(int) }

// TestNondeterministicDriver: a driver whose requests change every time
// Config.App is asked (here a counter) makes the replays differ at the
// request's step; the report says the step delivered a driver request and
// adds the driver to the places to look, as for any difference found at a
// driver request's step (the flaky handler's); a deterministic driver
// passes.
func TestNondeterministicDriver(t *testing.T) {
	asked := 0
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &summer{} },
		App: func(sim.NodeID) []any { asked++; return []any{asked} }}
	err := engine.CheckDeterminismN(cfg, []int32{0}, engine.Options{}, 2)
	var ne *engine.NondeterminismError
	if !errors.As(err, &ne) || ne.Step != 1 || ne.Node != 0 || ne.Path != ".Sum" || !ne.Driver {
		t.Fatalf("%v (%+v)", err, ne)
	}
	if !strings.Contains(err.Error(), "a driver (Config.App) that gives other requests each time it is asked") {
		t.Fatalf("the report does not point at the driver: %v", err)
	}
	cfg.App = func(sim.NodeID) []any { return []any{1} }
	cfg.Service = func(sim.NodeID) sim.Service { return &flaky{} }
	err = engine.CheckDeterminismN(cfg, []int32{0}, engine.Options{}, 4)
	if !errors.As(err, &ne) || !ne.Driver {
		t.Fatalf("a step that delivers a driver request: %v (%+v)", err, ne)
	}
	if err := engine.CheckDeterminismN(&sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &summer{} },
		App: func(sim.NodeID) []any { return []any{1, 2} }}, []int32{0, 0}, engine.Options{}, 2); err != nil {
		t.Fatalf("a deterministic driver: %v", err)
	}
}

// pooled formats its note in a buffer from a sync.Pool and forgets to reset
// it: what the note says depends on what ran before, in this simulator or
// another.
type pooled struct {
	sim.Base
	Note string
}

var notePool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func (p *pooled) HandleApp(_ *sim.Context, req any) {
	b := notePool.Get().(*bytes.Buffer)
	fmt.Fprintf(b, "%v;", req)
	p.Note = b.String()
	notePool.Put(b)
}

// TestNondeterministicPool: state that outlives a run (a sync.Pool's
// buffer) makes replays differ; the report names the node and the field,
// and says where else to look than maps, random sources, clocks and
// goroutines: pointer addresses and state shared across runs.
func TestNondeterministicPool(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &pooled{} },
		App: func(sim.NodeID) []any { return []any{1} }}
	// Eight replays: under the race detector a sync.Pool drops a quarter
	// of what it is given, and a replay that gets a fresh buffer agrees
	// with the first.
	err := engine.CheckDeterminismN(cfg, []int32{0}, engine.Options{}, 8)
	var ne *engine.NondeterminismError
	if !errors.As(err, &ne) || ne.Node != 0 || ne.Path != ".Note" {
		t.Fatalf("%v (%+v)", err, ne)
	}
	for _, hint := range []string{"pointer addresses (fmt's %p, ordering by address)", "state kept across runs (a package variable, a sync.Pool)"} {
		if !strings.Contains(err.Error(), hint) {
			t.Errorf("the report does not say %q: %v", hint, err)
		}
	}
}

// bootCounter is a node that counts its boots and steps in counters outside the
// state, and ticks forever.
type bootCounter struct {
	sim.Base
	boots, steps *atomic.Int64 `macemc:"-"`
	Ticks        int
}

func (c *bootCounter) Start(ctx *sim.Context) {
	c.boots.Add(1)
	ctx.SetPeriodic("tick")
}

func (c *bootCounter) HandleTimer(*sim.Context, string) {
	c.steps.Add(1)
	c.Ticks++
}

// TestDeterminismCheckStops: CheckDeterminismUntil asks stop after each
// replay boots and before each step, so that a cancellation, a time budget
// or a memory alarm stops it at once, however slow a boot or a step is.
func TestDeterminismCheckStops(t *testing.T) {
	var boots, steps atomic.Int64
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &bootCounter{boots: &boots, steps: &steps} }}
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(1)})
	walk(t, s, 5000)
	choices := s.ChoiceValues()
	for _, c := range []struct {
		stopAt            int64 // the call of stop that answers true
		boots, stepsTaken int64
	}{
		{stopAt: 1, boots: 1, stepsTaken: 0},  // after the first boot
		{stopAt: 3, boots: 3, stepsTaken: 0},  // after the third
		{stopAt: 8, boots: 5, stepsTaken: 12}, // 4 booted and the early one; 3 lockstep steps of 4
		{stopAt: 1e9, boots: 6, stepsTaken: 5000 * 6},
	} {
		boots.Store(0)
		steps.Store(0)
		calls := int64(0)
		err := engine.CheckDeterminismUntil(cfg, choices, engine.Options{}, 4, func() bool { calls++; return calls >= c.stopAt })
		if err != nil {
			t.Fatal(err)
		}
		if boots.Load() != c.boots || steps.Load() != c.stepsTaken {
			t.Errorf("stop at call %d: %d boots and %d steps, want %d and %d", c.stopAt, boots.Load(), steps.Load(), c.boots, c.stepsTaken)
		}
	}
}

// keeper is a worker that keeps the Context of its Start and sends with it
// from a later handler, as sim.Context's documentation allows; node 0
// counts the Done messages.
type keeper struct {
	sim.Base
	ctx  *sim.Context
	Done int
}

type assign struct{}
type done struct{}

func (k *keeper) Start(ctx *sim.Context) {
	k.ctx = ctx
	if ctx.Self() == 0 {
		for to := sim.NodeID(1); to < sim.NodeID(ctx.Nodes()); to++ {
			ctx.Send(to, assign{})
		}
	}
}

func (k *keeper) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	switch m.(type) {
	case assign:
		ctx.SetTimer("work")
	case done:
		k.Done++
	}
}

func (k *keeper) HandleTimer(*sim.Context, string) { k.ctx.Send(0, done{}) }

// TestSwapStateMovesKeptContexts: after SwapState, a node that sends with
// the Context it kept from Start sends into the simulator that now holds
// its execution, not into the one it booted in (which made a search's walk
// fall quiescent with a timer still to fire, and report a false liveness
// violation).
func TestSwapStateMovesKeptContexts(t *testing.T) {
	cfg := &sim.Config{Nodes: 4, Service: func(sim.NodeID) sim.Service { return &keeper{} }}
	for seed := range uint64(20) {
		a := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(seed)})
		b := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(seed + 100)})
		walk(t, b, 2)
		a.SwapState(b) // a goes on with b's execution; b with a's initial state
		for _, s := range []*engine.Sim{a, b} {
			for {
				ok, err := s.Step()
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
			}
			if got := sim.Node[keeper](s.View(), 0).Done; got != 3 {
				t.Fatalf("seed %d: node 0 got %d Done messages of 3 when its execution fell quiescent after %d steps", seed, got, s.Steps())
			}
		}
	}
}

// TestNondeterminismOfAMonitorText: a monitor that differs between
// replays is named with its field, and the advice is about its Handle.
func TestNondeterminismOfAMonitorText(t *testing.T) {
	e := &engine.NondeterminismError{Step: 3, Event: "node 1 receives Ping{} from node 0", Node: -1, StepNode: 1, Monitor: "Pings", Type: "*simtest.Pings", Path: ".Drift", Detail: "1 in one, 0 in the other"}
	msg := e.Error()
	for _, want := range []string{`the nodes agree, but monitor Pings (*simtest.Pings) differs in field .Drift: 1 in one, 0 in the other`, "a monitor's Handle must give the same state"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "in the handlers") {
		t.Errorf("%q blames the handlers", msg)
	}
}

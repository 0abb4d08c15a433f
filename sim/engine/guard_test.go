package engine_test

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// stepAll steps until quiescent or an error.
func stepAll(s *engine.Sim, max int) error {
	for s.Steps() < max {
		ok, err := s.Step()
		if err != nil || !ok {
			return err
		}
	}
	return nil
}

// panicky panics in HandleApp on its third request.
type panicky struct {
	sim.Base
	N int
}

func (p *panicky) HandleApp(ctx *sim.Context, req any) {
	p.N++
	if req == "boom" {
		xs := make([]int, p.N)
		_ = xs[p.N] // a runtime panic, not a panic(string)
	}
}

func TestHandlerPanic(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &panicky{} },
		App: func(id sim.NodeID) []any {
			if id == 1 {
				return []any{"a", "b", "boom", "c"}
			}
			return nil
		},
	}
	s := mustNew(t, cfg, engine.Options{})
	err := stepAll(s, 100)
	var hp *engine.HandlerPanicError
	if !errors.Is(err, engine.ErrHandlerPanic) || !errors.As(err, &hp) {
		t.Fatalf("want a handler panic, got %v", err)
	}
	// The third transition (step 3, as logs number it) panicked.
	if hp.Step != 3 || hp.Node != 1 || hp.Event != `node 1 handles app request "boom"` || hp.Event != s.LastEvent().String() {
		t.Fatalf("panic at step %d node %d event %q", hp.Step, hp.Node, hp.Event)
	}
	// The stack holds the service's frames only: the handler, not the
	// runtime's panic machinery or the simulator.
	if !strings.Contains(fmt.Sprint(hp.Value), "index out of range [3]") || !strings.HasPrefix(hp.Stack, "github.com/macemc/macemc/sim/engine_test.(*panicky).HandleApp\n\t") ||
		strings.Contains(hp.Stack, "runtime.") || strings.Contains(hp.Stack, "engine.(*Sim)") || strings.Count(hp.Stack, "\n") != 2 {
		t.Fatalf("panic value %v, stack %q", hp.Value, hp.Stack)
	}
	if !strings.Contains(hp.FullStack, "engine.(*Sim).run") {
		t.Fatalf("full stack %q", hp.FullStack)
	}
	// The panic is part of the execution: replay reproduces it.
	_, err = engine.Replay(cfg, s.ChoiceValues(), -1, engine.Options{})
	if !errors.As(err, &hp) || hp.Step != 3 {
		t.Fatalf("replay: %v", err)
	}

	// A panic in Start makes New fail.
	cfg.Service = func(id sim.NodeID) sim.Service {
		return &Script{start: func(ctx *sim.Context, n *Script) {
			if ctx.Self() == 1 {
				panic("no start")
			}
		}}
	}
	if _, err := engine.New(cfg, engine.Options{}); !errors.As(err, &hp) || hp.Value != "no start" {
		t.Fatalf("panic in Start: %v", err)
	}
}

// hanger never returns from HandleApp: it spins calling ctx.Self, or blocks.
type hanger struct {
	sim.Base
	Mode string
}

func (h *hanger) HandleApp(ctx *sim.Context, req any) {
	if req != "hang" {
		ctx.Send(1-ctx.Self(), Num{})
		return
	}
	switch h.Mode {
	case "select":
		select {}
	case "mutex":
		h.lockTwice()
	}
	for {
		ctx.Self()
	}
}

// lockTwice locks a mutex it holds: it waits forever in
// sync.(*Mutex).Lock.
func (h *hanger) lockTwice() {
	var mu sync.Mutex
	mu.Lock()
	mu.Lock()
}

func hangConfig(mode string) *sim.Config {
	return &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &hanger{Mode: mode} },
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"ok", "ok", "hang"}
			}
			return []any{"ok"}
		},
	}
}

func TestGuardHang(t *testing.T) {
	// Where a handler that waits is blocked is said; a loop's place is
	// not (it varies from one look to the next).
	blocked := map[string]string{
		"spin":   "",
		"select": "blocked (select (no cases)) in github.com/macemc/macemc/sim/engine_test.(*hanger).HandleApp (guard_test.go)",
		"mutex":  "blocked (sync.Mutex.Lock) in sync.(*Mutex).Lock, called by github.com/macemc/macemc/sim/engine_test.(*hanger).lockTwice (guard_test.go)",
	}
	for _, mode := range []string{"spin", "select", "mutex"} {
		t.Run(mode, func(t *testing.T) {
			cfg := hangConfig(mode)
			s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(4)})
			fnDone := make(chan error, 1)
			start := time.Now()
			err := s.Guard(100*time.Millisecond, func() error {
				err := stepAll(s, 1000)
				fnDone <- err
				return err
			})
			elapsed := time.Since(start)
			var he *engine.HangError
			if !errors.Is(err, engine.ErrHang) || !errors.As(err, &he) {
				t.Fatalf("want a hang, got %v", err)
			}
			if elapsed > 2*time.Second || elapsed < 100*time.Millisecond {
				t.Fatalf("hang reported after %v with a 100ms timeout", elapsed)
			}
			if he.Timeout != 100*time.Millisecond || he.Event != `node 0 handles app request "hang"` {
				t.Fatalf("hang error %+v", he)
			}
			if he.Blocked != blocked[mode] {
				t.Errorf("blocked %q, want %q", he.Blocked, blocked[mode])
			}
			// The path: replaying all but the last choice reaches the state
			// before the hanging step, where the last choice picks the
			// hanging event.
			if len(he.Choices) != he.Step+1 {
				t.Fatalf("%d choices for a hang at step %d", len(he.Choices), he.Step)
			}
			r, err := engine.Replay(cfg, he.Choices[:he.Step], he.Step, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ev := r.Ready()[he.Choices[he.Step]]; ev.String() != he.Event {
				t.Fatalf("the path leads to %v, not the hang", ev)
			}
			if mode == "spin" {
				// The abandoned handler is unwound at its next Context call,
				// so the goroutine does not spin on forever.
				select {
				case err := <-fnDone:
					if !errors.Is(err, engine.ErrHang) {
						t.Fatalf("the abandoned execution ended with %v", err)
					}
				case <-time.After(3 * time.Second):
					t.Fatal("the spinning handler was not unwound after the hang was reported")
				}
			}
		})
	}
}

// TestGuardNoHang: Guard returns fn's result; an execution of many short
// handlers that takes longer than the timeout in total is not a hang.
func TestGuardNoHang(t *testing.T) {
	s := mustNew(t, pingConfig(), engine.Options{})
	if err := s.Guard(100*time.Millisecond, func() error { return stepAll(s, 100) }); err != nil {
		t.Fatal(err)
	}
	sentinel := errors.New("mine")
	if err := s.Guard(0, func() error { return sentinel }); err != sentinel {
		t.Fatalf("Guard changed fn's error: %v", err)
	}
	slow := scriptConfig(1, func(sim.NodeID) []Do {
		var out []Do
		for i := 0; i < 8; i++ {
			out = append(out, func(ctx *sim.Context, n *Script) { time.Sleep(25 * time.Millisecond) })
		}
		return out
	})
	s = mustNew(t, slow, engine.Options{})
	if err := s.Guard(100*time.Millisecond, func() error { return stepAll(s, 100) }); err != nil {
		t.Fatalf("slow but progressing execution: %v", err)
	}
	if s.Steps() != 8 {
		t.Fatalf("%d steps", s.Steps())
	}
}

// nondet is deterministic for "det" requests; on "nd" it iterates a map of
// 24 entries and acts on the first key, which Go's map order makes random.
type nondet struct {
	sim.Base
	Peers map[string]sim.NodeID
	First string
	Count int
	// global math/rand in Start
	Global bool
	Seed   int
}

func (n *nondet) Start(ctx *sim.Context) {
	n.Peers = map[string]sim.NodeID{}
	for i := 0; i < 24; i++ {
		n.Peers[fmt.Sprintf("p%02d", i)] = sim.NodeID(i % ctx.Nodes())
	}
	if n.Global {
		n.Seed = rand.Intn(1 << 30)
	}
}

func (n *nondet) HandleApp(ctx *sim.Context, req any) {
	n.Count++
	if req != "nd" {
		ctx.Send(1, Num{Seq: n.Count})
		return
	}
	for k, to := range n.Peers {
		n.First = k
		ctx.Send(to, Num{Seq: 99})
		break
	}
}

func nondetConfig(global bool) *sim.Config {
	return &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &nondet{Global: global} },
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"det", "det", "det", "nd", "det"}
			}
			return nil
		},
	}
}

func TestCheckDeterminism(t *testing.T) {
	// Deterministic systems pass, on many paths.
	for seed := uint64(0); seed < 10; seed++ {
		a := record(t, mixedConfig(), engine.NewRandom(seed), 200)
		if err := engine.CheckDeterminism(mixedConfig(), a.s.ChoiceValues(), engine.Options{}); err != nil {
			t.Fatalf("seed %d: deterministic system reported: %v", seed, err)
		}
	}
	// A path where the app requests run first: "nd" is step 3.
	cfg := nondetConfig(false)
	s := mustNew(t, cfg, engine.Options{Chooser: chooserFunc(func(engine.ChoiceKind, int, []float64) int { return 0 })})
	if err := stepAll(s, 100); err != nil {
		t.Fatal(err)
	}
	choices := s.ChoiceValues()
	var ne *engine.NondeterminismError
	for try := 0; try < 50; try++ {
		err := engine.CheckDeterminism(cfg, choices, engine.Options{})
		if err == nil {
			continue // both replays happened to take the same first key
		}
		if !errors.Is(err, engine.ErrNondeterministic) || !errors.As(err, &ne) {
			t.Fatalf("want a nondeterminism error, got %v", err)
		}
		if ne.Step != 4 || ne.Event != `node 0 handles app request "nd"` {
			t.Fatalf("diverged at step %d (%s), want after step 4 (the \"nd\" request)", ne.Step, ne.Event)
		}
		// The report names the node and the first field that differs.
		if ne.Node != 0 || ne.Type != "*engine_test.nondet" || ne.Path != ".First" || !strings.HasPrefix(ne.Detail, `"p`) ||
			!strings.Contains(err.Error(), "node 0 (*engine_test.nondet) field .First: ") {
			t.Fatalf("diverged at node %d (%s) field %s: %s", ne.Node, ne.Type, ne.Path, ne.Detail)
		}
		if !strings.Contains(err.Error(), "map iteration") {
			t.Fatalf("error gives no hint: %v", err)
		}
		break
	}
	if ne == nil {
		t.Fatal("50 checks never caught map-order nondeterminism")
	}
	// Global math/rand in Start: the initial states differ.
	ne = nil
	for try := 0; try < 5 && ne == nil; try++ {
		if err := engine.CheckDeterminism(nondetConfig(true), choices, engine.Options{}); err != nil && !errors.As(err, &ne) {
			t.Fatal(err)
		}
	}
	if ne == nil || ne.Step != 0 {
		t.Fatalf("global math/rand in Start: %v", ne)
	}
	// On a path that never reaches the "nd" request it passes.
	if err := engine.CheckDeterminism(cfg, choices[:s.StepStart(3)], engine.Options{}); err != nil {
		t.Fatalf("prefix without the nondeterministic step: %v", err)
	}
}

func TestPropertyPanic(t *testing.T) {
	cfg := pingConfig()
	ps := []sim.Property{
		{Name: "fine", Check: func(v *sim.View) bool { return true }},
		{Name: "bad", Check: func(v *sim.View) bool { return sim.Node[Ping](v, 5) != nil }},
		{Name: "never", Check: func(v *sim.View) bool { return false }},
	}
	s := mustNew(t, cfg, engine.Options{})
	i, err := s.FirstViolated(ps)
	var pe *engine.PropertyPanicError
	// The error names the property, not a node, and keeps the predicate's
	// own frames.
	if i != 1 || !errors.Is(err, engine.ErrPropertyPanic) || !errors.As(err, &pe) || pe.Property != "bad" || pe.Step != 0 || pe.Condition ||
		!strings.Contains(pe.Stack, "TestPropertyPanic") || strings.Contains(pe.Stack, "engine.(*Sim)") {
		t.Fatalf("FirstViolated: %d %v", i, err)
	}
	if ok, err := s.AllHold(ps); ok || err == nil {
		t.Fatal("AllHold with a panicking property")
	}
	if i, err := s.FirstViolated([]sim.Property{ps[0], ps[2]}); i != 1 || err != nil {
		t.Fatalf("FirstViolated: %d %v", i, err)
	}
	if ok, err := s.Holds(&ps[0]); !ok || err != nil {
		t.Fatal("Holds")
	}
}

// TestView covers the typed accessors properties use.
func TestView(t *testing.T) {
	cfg := &sim.Config{
		Nodes: 3,
		Service: func(id sim.NodeID) sim.Service {
			if id == 2 {
				return &Script{}
			}
			return &Ping{}
		},
		App: pingConfig().App,
	}
	s := mustNew(t, cfg, engine.Options{})
	walk(t, s, 100)
	v := s.View()
	if v.Len() != 3 || s.Steps() != 5 || v.InFlight() != 0 {
		t.Fatalf("view: %d %d %d", v.Len(), s.Steps(), v.InFlight())
	}
	if sim.Node[Ping](v, 2) != nil || sim.Node[Script](v, 2) == nil || v.Service(0) != s.Service(0) {
		t.Fatal("Node by type")
	}
	var ids []sim.NodeID
	for id, n := range sim.Nodes[Ping](v) {
		ids = append(ids, id)
		if n.Count < 3 {
			t.Fatal("count")
		}
	}
	if len(ids) != 2 || ids[1] != 1 {
		t.Fatalf("Nodes: %v", ids)
	}
	if sim.Count[Ping](v, func(_ sim.NodeID, n *Ping) bool { return n.Count == 4 }) != 1 {
		t.Fatal("Count")
	}
	if !sim.All[Ping](v, func(_ sim.NodeID, n *Ping) bool { return n.Count >= 3 }) {
		t.Fatal("All")
	}
	for range sim.Nodes[Ping](v) {
		break // early stop must not panic
	}
}

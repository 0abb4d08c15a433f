package engine_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// bound is a service like a hosted library's node: it keeps a method value
// bound to its own struct (raft's step and tick functions) and a closure
// over it, and acts through them.
type bound struct {
	sim.Base
	Count int
	Log   []int
	tick  func()         // n.inc: a bound method value
	note  func(int)      // a closure over n
	mu    sync.Mutex     // held only inside handlers
	state *boundInternal // reached through a pointer
}

type boundInternal struct{ Steps int }

func (n *bound) inc() { n.Count++; n.state.Steps++ }

func (n *bound) Start(ctx *sim.Context) {
	n.tick = n.inc
	n.note = func(v int) { n.Log = append(n.Log, v) }
	n.state = &boundInternal{}
	ctx.SetPeriodic("tick")
}

func (n *bound) HandleTimer(ctx *sim.Context, _ string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tick()
	n.note(ctx.Rand(3))
}

func boundConfig() *sim.Config {
	return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &bound{} }}
}

// TestCloneBoundMethods: a deep copy of a struct holding a bound method or
// a closure would go on acting on the original; Clone sees that and copies
// by replay, so the copy is independent and the original stays as it was.
func TestCloneBoundMethods(t *testing.T) {
	s := mustNew(t, boundConfig(), engine.Options{Chooser: engine.NewRandom(7)})
	walk(t, s, 30)
	if p := s.CopyProblem(); !strings.Contains(p, "node 0 (*engine_test.bound): .tick holds a bound method github.com/macemc/macemc/sim/engine_test.(*bound).inc") {
		t.Fatalf("copy problem %q", p)
	}
	before := s.Hash()
	beforeCount := sim.Node[bound](s.View(), 0).Count
	c := s.Clone(engine.NewRandom(99))
	if c.Hash() != before || c.Steps() != s.Steps() || !equalChoices(c.ChoiceValues(), s.ChoiceValues()) {
		t.Fatalf("copy differs: hash %x vs %x, %d steps vs %d", c.Hash(), before, c.Steps(), s.Steps())
	}
	walk(t, c, 60)
	if s.Hash() != before || sim.Node[bound](s.View(), 0).Count != beforeCount {
		t.Fatal("stepping the copy changed the original")
	}
	if sim.Node[bound](c.View(), 0).Count+sim.Node[bound](c.View(), 1).Count <= beforeCount {
		t.Fatal("the copy did not step its own nodes")
	}
	if err := engine.CheckCopy(s, s.Clone(nil)); err != nil {
		t.Fatal(err)
	}
}

// TestCheckCopyCatchesSharing: CheckCopy tells a copy that shares state
// with its original (what the deep copy alone gives a bound method).
func TestCheckCopyCatchesSharing(t *testing.T) {
	s := mustNew(t, boundConfig(), engine.Options{Chooser: engine.NewRandom(7)})
	walk(t, s, 10)
	// A copy whose bound method still points at the original's struct: the
	// test's stand-in for a copier that missed it.
	shared := s.Clone(nil)
	sim.Node[bound](shared.View(), 0).tick = sim.Node[bound](s.View(), 0).tick
	if err := engine.CheckCopy(s, shared); !errors.Is(err, engine.ErrCopy) || !strings.Contains(err.Error(), "stepping a copy changed the original's node 0") {
		t.Fatalf("CheckCopy on a sharing copy: %v", err)
	}
}

// TestCopyProblems lists what a deep copy cannot copy, with where.
func TestCopyProblems(t *testing.T) {
	type holder struct {
		sim.Base
		F   func()
		Ch  chan int
		P   unsafe.Pointer
		Mu  *sync.Mutex
		Any any
		M   map[string]any
	}
	top := func() {}
	x := 1
	locked := &sync.Mutex{}
	locked.Lock()
	for _, c := range []struct {
		h    *holder
		want string
	}{
		{&holder{}, ""},
		{&holder{F: topLevel, M: map[string]any{"a": 1}}, ""}, // a top-level function captures nothing
		{&holder{F: top}, ".F holds a closure"},
		{&holder{Ch: make(chan int)}, ".Ch holds a channel"},
		{&holder{P: unsafe.Pointer(&x)}, ".P holds an unsafe.Pointer"},
		{&holder{Mu: &sync.Mutex{}}, ""},
		{&holder{Mu: locked}, ".Mu holds a sync.Mutex in use"},
		{&holder{Any: make(chan bool)}, ".Any holds a channel"},
		{&holder{M: map[string]any{"k": func() {}}}, `.M["k"] holds a closure`},
	} {
		cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return c.h }}
		s := mustNew(t, cfg, engine.Options{})
		got := s.CopyProblem()
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v: copy problem %q, want %q", c.h, got, c.want)
		}
	}
	locked.Unlock()
}

func topLevel() {}

func equalChoices(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ticker is a plain service: its copies are deep copies.
type ticker struct {
	sim.Base
	N int
}

func (c *ticker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (c *ticker) HandleTimer(ctx *sim.Context, _ string) {
	c.N++
	ctx.Send(sim.NodeID(ctx.Rand(2)), c.N)
}

// TestCheckedClonesInParallel: several goroutines clone one snapshot at
// once (a probe's workers do), with every copy checked (the debug mode,
// MACEMC_CHECK_COPIES=1): no copy is taken for bad, whether it is a deep
// copy or a copy by replay. (Run under -race by scripts/test.sh.)
func TestCheckedClonesInParallel(t *testing.T) {
	plain := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &ticker{} }}
	for name, cfg := range map[string]*sim.Config{"deep": plain, "replay": boundConfig()} {
		s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(3), CheckCopies: true})
		walk(t, s, 20)
		errs := make(chan error, 40)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					c := s.Clone(engine.NewRandom(uint64(g*10 + i)))
					for range 30 {
						if _, err := c.Step(); err != nil {
							errs <- err
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("%s: a checked copy failed: %v", name, err)
		}
	}
}

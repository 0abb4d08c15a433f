package engine_test

import (
	"container/list"
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
	// A copy that differs from the start: the error names the field.
	s = mustNew(t, boundConfig(), engine.Options{Chooser: engine.NewRandom(7)})
	walk(t, s, 10)
	off := s.Clone(nil)
	sim.Node[bound](off.View(), 1).Count += 5
	if err := engine.CheckCopy(s, off); !errors.Is(err, engine.ErrCopy) || !strings.Contains(err.Error(), "the copy's node 1 (*engine_test.bound) (field .Count: ") {
		t.Fatalf("CheckCopy on a copy that differs: %v", err)
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
// once (a probe's workers do), with Clone and CloneInto, every copy checked (the debug mode,
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
				var c *engine.Sim
				for i := range 10 {
					// Every other copy goes into the simulator of the last.
					if r := engine.NewRandom(uint64(g*10 + i)); i%2 == 0 {
						c = s.Clone(r)
					} else {
						c = s.CloneInto(c, r)
					}
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

// aliasing is a service whose state points into itself, as ordinary Go
// does: a container/list.List held by value (its elements point back at
// the list's root, inside the struct), a pointer to an element of its own
// slice, and a window onto its own log.
type aliasing struct {
	sim.Base
	Queue  list.List
	Peers  []aliasPeer
	Best   *aliasPeer
	Log    []int
	Recent []int
}

type aliasPeer struct{ ID, Score int }

func (n *aliasing) Start(ctx *sim.Context) {
	n.Peers = []aliasPeer{{ID: 1}, {ID: 2}, {ID: 3}}
	n.Best = &n.Peers[1]
	n.Log = make([]int, 0, 64)
	ctx.SetPeriodic("tick")
}

func (n *aliasing) HandleTimer(ctx *sim.Context, _ string) {
	n.Queue.PushBack(ctx.Rand(3))
	if n.Queue.Len() > 2 {
		n.Queue.Remove(n.Queue.Front())
	}
	for e := n.Queue.Front(); e != nil; e = e.Next() {
		n.Best.Score += e.Value.(int) // panics on a list whose copy lost its root
	}
	if n.Peers[1] != *n.Best {
		panic("Best no longer points into Peers")
	}
	n.Log = append(n.Log, n.Best.Score)
	n.Recent = n.Log[max(0, len(n.Log)-2):]
}

// TestCopyProblemsInterior: a pointer into the inside of another value of
// the node is a copy problem, named with where it is, so that Clone copies
// such a node by replay; a pointer the deep copier keeps (the same object
// twice, a field of a struct it reached through a pointer) is none.
func TestCopyProblemsInterior(t *testing.T) {
	type inner struct{ S []int }
	type holder struct {
		sim.Base
		N     int
		In    inner
		L     list.List
		LP    *list.List
		S, S2 []int
		P     *int
		PI    *inner
		Twice [2]*inner
	}
	shared := &inner{S: []int{1}}
	for _, c := range []struct {
		name string
		make func() *holder
		want string
	}{
		{"plain", func() *holder { return &holder{N: 1, S: []int{1, 2}} }, ""},
		{"list behind a pointer", func() *holder { h := &holder{LP: list.New()}; h.LP.PushBack(1); return h }, ""},
		{"empty list by value", func() *holder { return &holder{} }, ""},
		{"one object twice", func() *holder { return &holder{Twice: [2]*inner{shared, shared}} }, ""},
		{"the same slice twice", func() *holder { s := []int{1, 2}; return &holder{S: s, S2: s} }, ""},
		{"a field holding references", func() *holder { h := &holder{}; h.PI = &h.In; return h }, ""},
		{"list by value", func() *holder { h := &holder{}; h.L.PushBack(1); return h }, ".L.root.next.next is a pointer into the struct itself"},
		{"a scalar field", func() *holder { h := &holder{}; h.P = &h.N; return h }, ".P is a pointer into the struct itself"},
		{"a slice element", func() *holder { h := &holder{S: []int{1, 2, 3}}; h.P = &h.S[1]; return h }, ".P is a pointer into the array of the slice .S"},
		{"a window", func() *holder { h := &holder{S: []int{1, 2, 3}}; h.S2 = h.S[1:]; return h }, "a slice into the array of the slice"},
		{"inside a field", func() *holder { h := &holder{In: inner{S: []int{1, 2}}}; h.P = &h.In.S[0]; return h }, ".P is a pointer into the array of the slice .In.S"},
	} {
		h := c.make()
		cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return h }}
		got := mustNew(t, cfg, engine.Options{}).CopyProblem()
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: copy problem %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCloneInteriorPointers: a node whose state points into itself is
// copied faithfully: the copy steps as the original would (it used to
// panic on a list whose root the copy had duplicated, and to write its
// best peer's score into a copy of its own), and checks as a good copy.
func TestCloneInteriorPointers(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &aliasing{} }}
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(5)})
	walk(t, s, 12)
	if p := s.CopyProblem(); p == "" {
		t.Fatal("no copy problem for a node that points into itself")
	}
	c := s.Clone(engine.NewRandom(9))
	// The original, stepped on with the same choices: a fresh run of the
	// original's choices, then the copy's chooser's.
	twin := mustNew(t, cfg, engine.Options{Chooser: engine.NewRecorded(s.ChoiceValues())})
	walk(t, twin, s.Steps())
	twin.SetChooser(engine.NewRandom(9))
	for i := range 30 {
		ok, err := c.Step()
		if err != nil || !ok {
			t.Fatalf("step %d of the copy: %v", i, err)
		}
		if _, err := twin.Step(); err != nil {
			t.Fatal(err)
		}
		if c.Hash() != twin.Hash() {
			t.Fatalf("after step %d the copy differs from the original stepped the same way", i)
		}
	}
	if err := engine.CheckCopy(s, s.Clone(nil)); err != nil {
		t.Fatal(err)
	}
}

// chans is a node whose behaviour depends on its channels: whether they
// are nil and what capacity they were made with.
type chans struct {
	sim.Base
	Out   chan<- int // nil: send-only channel types cannot be made by a copier
	In    <-chan int // nil
	Later chan int   // made at the third tick
	Count int
}

func (n *chans) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (n *chans) HandleTimer(ctx *sim.Context, _ string) {
	n.Count++
	if n.Out != nil || n.In != nil || n.Later != nil && cap(n.Later) != 2 {
		n.Count += 100 // what a copy that made up a channel would do
	}
	if n.Count == 3 {
		n.Later = make(chan int, 2)
	}
}

// TestCloneKeepsChannels: a copy keeps a nil channel nil (of any
// direction) and a made one as it was (by replay), so the copy behaves as
// its original.
func TestCloneKeepsChannels(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &chans{} }}
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(3)})
	for _, steps := range []int{1, 4, 10} {
		walk(t, s, steps)
		c := s.Clone(engine.NewRandom(9))
		for id := range sim.NodeID(2) {
			n := sim.Node[chans](c.View(), id)
			if n.Out != nil || n.In != nil {
				t.Fatalf("after %d steps, node %d of the copy: nil channels made up", s.Steps(), id)
			}
			if (n.Later == nil) != (sim.Node[chans](s.View(), id).Later == nil) {
				t.Fatalf("after %d steps, node %d of the copy: Later %v", s.Steps(), id, n.Later)
			}
		}
		if err := engine.CheckCopy(s, s.Clone(nil)); err != nil {
			t.Fatalf("after %d steps: %v", s.Steps(), err)
		}
		walk(t, c, s.Steps()+20)
		for id := range sim.NodeID(2) {
			if n := sim.Node[chans](c.View(), id); n.Count >= 100 {
				t.Fatalf("node %d of the copy took the branch of a made-up channel (Count %d)", id, n.Count)
			}
		}
	}
}

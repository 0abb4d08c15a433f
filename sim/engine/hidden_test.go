package engine_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/simtest"
)

// queueHolder keeps a queue in a buffered channel.
type queueHolder struct{ Q chan int }

func holding(vals ...int) *queueHolder {
	h := &queueHolder{Q: make(chan int, 3)}
	for _, v := range vals {
		h.Q <- v
	}
	return h
}

// TestChannelContentsAreState: a channel is hashed and shown by what it
// buffers, in order, and whether it is closed; where the elements sit in
// its buffer is not state.
func TestChannelContentsAreState(t *testing.T) {
	a, b := holding(1, 2), holding(2, 1)
	if engine.Hash(a) == engine.Hash(b) {
		t.Errorf("queues 1 2 and 2 1 hash alike")
	}
	wrapped := holding(9, 9, 1)
	<-wrapped.Q
	<-wrapped.Q
	wrapped.Q <- 2 // 1 2, the first at the buffer's end
	if engine.Hash(wrapped) != engine.Hash(holding(1, 2)) {
		t.Errorf("equal queues at other buffer positions hash differently")
	}
	closed := holding(1, 2)
	close(closed.Q)
	if engine.Hash(closed) == engine.Hash(a) {
		t.Errorf("a closed queue hashes like an open one")
	}
	if got, want := engine.FormatValue(closed), "&queueHolder{Q: chan[1, 2] (closed)}"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got, want := engine.FormatValue(&queueHolder{}), "&queueHolder{Q: nil}"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// hiddenAfter runs simtest-hidden (mode) with the greetings in the order
// of first (0: node 0's first) and returns the simulator.
func hiddenAfter(t *testing.T, mode string, first int32) *engine.Sim {
	t.Helper()
	sys, err := sim.Lookup(simtest.Hidden)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sys.Build(sim.Params{"mode": mode})
	if err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRecorded([]int32{first, 0})})
	for range 2 {
		if ok, err := s.Step(); !ok || err != nil {
			t.Fatalf("step: %v %v", ok, err)
		}
	}
	return s
}

// TestClosureStateIsNeverTakenForAnother: the two orders of the greetings
// leave states that differ only in what node 1's closure captured. Their
// hashes must differ (or a search would cut the second order's path), the
// state must say what it holds, and a replay must hash as the original.
func TestClosureStateIsNeverTakenForAnother(t *testing.T) {
	a, b := hiddenAfter(t, "func", 0), hiddenAfter(t, "func", 1)
	if engine.FormatValue(a.Service(1)) != engine.FormatValue(b.Service(1)) {
		t.Fatalf("the states differ where they can be read:\n%s\n%s", engine.FormatValue(a.Service(1)), engine.FormatValue(b.Service(1)))
	}
	if a.Hash() == b.Hash() {
		t.Errorf("states that differ in a closure's captured variable hash alike")
	}
	if got := a.HiddenState(); !strings.HasPrefix(got, "node 1 (*simtest.elector) holds a closure ") || !strings.HasSuffix(got, ".(*elector).HandleMessage.func1") {
		t.Errorf("HiddenState = %q", got)
	}
	if again := hiddenAfter(t, "func", 0); again.Hash() != a.Hash() {
		t.Errorf("a replay of the same choices hashes differently")
	}
	// A state whose queue can be read is hashed as usual: by its state,
	// whatever the path.
	c := hiddenAfter(t, "chan", 0)
	if got := c.HiddenState(); got != "" {
		t.Errorf("a channel's queue counts as hidden: %q", got)
	}
	if hiddenAfter(t, "chan", 1).Hash() == c.Hash() {
		t.Errorf("queues 0 2 and 2 0 hash alike")
	}
}

// ctxKeeper keeps the Context of its boot and sends through it from a
// later handler, as a node that hands a library a send callback does.
type ctxKeeper struct {
	sim.Base
	Saved *sim.Context
	Sent  int
}

func (k *ctxKeeper) Start(ctx *sim.Context) { k.Saved = ctx }

func (k *ctxKeeper) HandleApp(_ *sim.Context, req any) {
	k.Saved.Send(1-k.Saved.Self(), Num{Seq: req.(int)})
	k.Sent++
}

func (k *ctxKeeper) HandleMessage(*sim.Context, sim.NodeID, sim.Message) {}

// TestKeptContextIsNoState: a *sim.Context in a node's struct is the
// node's handle on the simulator, not state: replays agree (reading
// through it read the whole simulator, which differs between replays),
// the text form leaves it out, and a copy of the state is made by replay
// (a deep copy of it would act on the original's simulator).
func TestKeptContextIsNoState(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   2,
		Service: func(sim.NodeID) sim.Service { return &ctxKeeper{} },
		App:     func(sim.NodeID) []any { return []any{1, 2} },
	}
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(3)})
	if err := stepAll(s, 100); err != nil {
		t.Fatal(err)
	}
	if err := engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{}); err != nil {
		t.Fatalf("a kept Context made replays differ: %v", err)
	}
	if got, want := engine.FormatValue(s.Service(0)), "&ctxKeeper{Sent: 2}"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if p := s.CopyProblem(); !strings.Contains(p, ".Saved holds a *sim.Context") {
		t.Errorf("CopyProblem = %q", p)
	}
}

// libState keeps state in standard library types whose fields do not show
// it.
type libState struct {
	M sync.Map
	P atomic.Pointer[Num]
}

// TestLibraryTypesAreReadByWhatTheyHold: a sync.Map is the map of its
// entries (its fields hold a random seed: two equal maps differed), an
// atomic.Pointer the value it points to (its unsafe.Pointer was left
// out: every value hashed alike).
func TestLibraryTypesAreReadByWhatTheyHold(t *testing.T) {
	a, b := &libState{}, &libState{}
	a.M.Store("k", 1)
	b.M.Store("k", 1)
	if engine.Hash(a) != engine.Hash(b) {
		t.Errorf("equal sync.Maps hash differently")
	}
	b.M.Store("k", 2)
	if engine.Hash(a) == engine.Hash(b) {
		t.Errorf("sync.Maps that differ hash alike")
	}
	c, d := &libState{}, &libState{}
	if engine.Hash(c) != engine.Hash(d) {
		t.Errorf("empty states hash differently")
	}
	c.P.Store(&Num{Seq: 1})
	if engine.Hash(c) == engine.Hash(d) {
		t.Errorf("a set atomic.Pointer hashes like a nil one")
	}
	d.P.Store(&Num{Seq: 2})
	if engine.Hash(c) == engine.Hash(d) {
		t.Errorf("atomic.Pointers to different values hash alike")
	}
	a.P.Store(&Num{Seq: 1})
	if got, want := engine.FormatValue(a), `&libState{M: {"k": 1}, P: &Num{From: 0, Seq: 1}}`; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// rawPointer keeps an unsafe.Pointer: what it points to has no type.
type rawPointer struct {
	sim.Base
	P unsafe.Pointer
}

// TestUnsafePointerIsHidden: a node whose struct holds an unsafe.Pointer
// says so, and its states are never taken for another's.
func TestUnsafePointerIsHidden(t *testing.T) {
	x := 1
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &rawPointer{P: unsafe.Pointer(&x)} }}
	s := mustNew(t, cfg, engine.Options{})
	if got, want := s.HiddenState(), "node 0 (*engine_test.rawPointer) holds an unsafe.Pointer"; got != want {
		t.Errorf("HiddenState = %q, want %q", got, want)
	}
	cfg.Service = func(sim.NodeID) sim.Service { return &rawPointer{} }
	if got := mustNew(t, cfg, engine.Options{}).HiddenState(); got != "" {
		t.Errorf("a nil unsafe.Pointer counts as hidden: %q", got)
	}
}

// bootReads counts the requests of every execution so far in a package
// variable, which its Start reads: state kept across executions.
var bootRequests int

type bootReader struct {
	sim.Base
	Seen int
}

func (b *bootReader) Start(*sim.Context)                                  { b.Seen = bootRequests }
func (b *bootReader) HandleApp(*sim.Context, any)                         { bootRequests++ }
func (b *bootReader) HandleMessage(*sim.Context, sim.NodeID, sim.Message) {}

// TestStateAcrossExecutionsIsNondeterminism: replays that boot together
// agree on such a service; one that boots after the others ran does not,
// and the report says what kind of state that is.
func TestStateAcrossExecutionsIsNondeterminism(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &bootReader{} },
		App:     func(sim.NodeID) []any { return []any{1} },
	}
	s := mustNew(t, cfg, engine.Options{})
	if err := stepAll(s, 10); err != nil {
		t.Fatal(err)
	}
	err := engine.CheckDeterminismN(cfg, s.ChoiceValues(), engine.Options{}, 4)
	var ne *engine.NondeterminismError
	if !errors.As(err, &ne) || !ne.Across || ne.Step != 0 || ne.Path != ".Seen" || !strings.Contains(err.Error(), "state kept across executions outside the simulator") || !strings.Contains(err.Error(), "the time (time.Now") {
		t.Fatalf("want a nondeterminism error across executions at the boot, field .Seen; got %v", err)
	}
}

package engine_test

import (
	"fmt"
	"math"
	"math/big"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// The shapes of third-party types a user cannot annotate, reproduced with
// local types: a generated protocol message (a lazily set pointer to its
// type's information, a size cache that Marshal writes, a no-copy
// marker), and a logger whose buffers come from a package-level pool.

// typeInfo stands for a library's per-type information: large, shared by
// every message of the type, and reached from each message once it has
// been used.
type typeInfo struct {
	Name   string
	Fields []*typeInfo
	Done   uint32
}

// wireMsg stands for a generated message.
type wireMsg struct {
	state struct {
		_    [0]sync.Mutex // no-copy marker
		info atomic.Pointer[typeInfo]
	}
	sizeCache int32
	Key       string
	Amount    int64
}

// wire is the interface every generated message implements.
type wire interface{ WireName() string }

func (m *wireMsg) WireName() string { return "wireMsg" }

// infoOf is what a library's reflection does on first use of a message:
// it sets the lazily built information.
func infoOf(m *wireMsg) {
	m.state.info.Store(sharedInfo)
	m.sizeCache = int32(len(m.Key) + 8)
}

// sharedInfo is a graph whose paths are many: every level points twice
// to the next, so that following every pointer visits 2^40 paths.
var sharedInfo = func() *typeInfo {
	var next *typeInfo
	for i := 0; i < 40; i++ {
		next = &typeInfo{Name: "level", Fields: []*typeInfo{next, next}}
	}
	return next
}()

// mapInfo is typeInfo with its fields in a map. The entries of a map do
// not refer to one another in the encoding nor in the text forms, so a
// graph of them is encoded and shown once per path.
type mapInfo struct {
	Name   string
	Fields map[int]*mapInfo
}

// mapGraph is sharedInfo made of mapInfo: 2^40 paths however it is shown.
var mapGraph = func() *mapInfo {
	var next *mapInfo
	for i := 0; i < 40; i++ {
		next = &mapInfo{Name: "level", Fields: map[int]*mapInfo{0: next, 1: next}}
	}
	return next
}()

// wireForm is wireMsg's canonical form.
type wireForm struct {
	Key    string
	Amount int64
}

// otherMsg implements wire but has a form of its own.
type otherMsg struct{ N, cache int }

func (m *otherMsg) WireName() string { return "otherMsg" }

func init() {
	sim.RegisterCanonicalFor(func(m wire) any {
		if w, ok := m.(*wireMsg); ok {
			return wireForm{w.Key, w.Amount}
		}
		return "unexpected " + m.WireName()
	})
	sim.RegisterCanonical(func(m *otherMsg) any { return m.N })
}

// TestRegisterCanonicalFor: a form registered for an interface stands in
// for every type whose pointer implements it, in a node's state and in
// messages, so that a reader's writes to the message's caches change no
// hash; a type's own registered form comes first.
func TestRegisterCanonicalFor(t *testing.T) {
	a := &wireMsg{Key: "k", Amount: 3}
	b := &wireMsg{Key: "k", Amount: 3}
	infoOf(b)
	if engine.Hash(a) != engine.Hash(b) {
		t.Fatal("a message hashes differently once its caches are set")
	}
	if engine.Hash(a) == engine.Hash(&wireMsg{Key: "k", Amount: 4}) {
		t.Fatal("messages that differ hash the same")
	}
	type inbox struct{ M map[string]*wireMsg }
	in := inbox{map[string]*wireMsg{"x": b}}
	if got := engine.FormatValue(in); got != `inbox{M: {"x": &wireForm{Key: "k", Amount: 3}}}` {
		t.Fatalf("text form %q", got)
	}
	if engine.Hash(&otherMsg{N: 1, cache: 5}) != engine.Hash(&otherMsg{N: 1}) || engine.FormatValue(&otherMsg{N: 1}) != "&1" {
		t.Fatalf("RegisterCanonical did not take precedence: %s", engine.FormatValue(&otherMsg{N: 1}))
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not an interface type") {
			t.Fatalf("RegisterCanonicalFor of a struct type: %v", r)
		}
	}()
	sim.RegisterCanonicalFor(func(wireForm) any { return nil })
}

// poolHolder stands for a logger's encoder: its buffer comes from, and goes
// back to, a package-level sync.Pool that every logger shares.
type poolHolder struct {
	Prefix string
	pool   *bufPool
}

type bufPool struct{ p sync.Pool }

var sharedPool = &bufPool{p: sync.Pool{New: func() any { return new([]byte) }}}

// TestSyncPoolIsNoState: a sync.Pool's counts change with every holder's
// use and with the garbage collector; they are in no hash and no text.
func TestSyncPoolIsNoState(t *testing.T) {
	n := &poolHolder{Prefix: "node 1", pool: sharedPool}
	h := engine.Hash(n)
	txt := engine.FormatState(n)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				sharedPool.p.Put(sharedPool.p.Get())
			}
		}()
	}
	wg.Wait()
	runtime.GC()
	if engine.Hash(n) != h {
		t.Fatal("another holder's use of a shared sync.Pool changed the hash")
	}
	if got := engine.FormatState(n); got != txt || strings.Contains(got, "localSize") {
		t.Fatalf("text form %q, was %q", got, txt)
	}
	if engine.Hash(n) == engine.Hash(&poolHolder{Prefix: "node 2", pool: sharedPool}) {
		t.Fatal("the rest of the struct is not hashed")
	}
}

// TestHugeTextIsCut: a value whose pointer graph has more paths than can
// be followed (shared sub-values in the entries of maps, a library's type
// information) gives a text form cut short, at once, saying what to do,
// where it took longer than the test's timeout before. One whose shared
// sub-values are reached from one value is shown whole, each once.
func TestHugeTextIsCut(t *testing.T) {
	m := &wireMsg{Key: "k"}
	infoOf(m)
	type holder struct {
		Info *mapInfo
		N    int
	}
	v := holder{Info: mapGraph, N: 7}
	for _, txt := range []string{engine.FormatValue(v), engine.FormatState(v)} {
		if !strings.Contains(txt, "text cut: too large; give the types that hold the bulk a canonical form, sim.RegisterCanonical") {
			t.Fatalf("text form not cut: %.200s", txt)
		}
		if len(txt) > 1<<22 {
			t.Fatalf("text form of %d bytes", len(txt))
		}
	}
	type sharedHolder struct {
		Info *typeInfo
		N    int
	}
	w := sharedHolder{Info: sharedInfo, N: 7}
	for _, txt := range []string{engine.FormatValue(w), engine.FormatState(w)} {
		if strings.Contains(txt, "text cut") || strings.Count(txt, `"level"`) != 40 || !strings.Contains(txt, "<same as .Info(.Fields[0] ×39)>") {
			t.Fatalf("text form of a graph of 40 objects: %.2000s", txt)
		}
	}
	// A message with a registered form shows the form, not the graph.
	if got := engine.FormatValue(m); got != `&wireForm{Key: "k", Amount: 0}` {
		t.Fatalf("text form %q", got)
	}
}

// freeList stands for a library's free list that the user hands to the
// trees of every node (and so to every simulator's copy of them).
type freeList struct {
	mu   sync.Mutex
	free []int
}

type treeNode struct {
	Items []int
	fl    *freeList
}

// TestLockIsNoState: a mutex of an object that simulators share is
// locked by another simulator's goroutine while one hashes it; its state
// is in no hash (it made the distinct states of a search, and so its
// report, differ from run to run).
func TestLockIsNoState(t *testing.T) {
	fl := &freeList{free: []int{9}}
	n := &treeNode{Items: []int{1, 2}, fl: fl}
	h := engine.Hash(n)
	fl.mu.Lock()
	locked := engine.Hash(n)
	fl.mu.Unlock()
	if locked != h {
		t.Fatal("a lock held elsewhere changed the hash")
	}
	if txt := engine.FormatValue(n); strings.Contains(txt, "Mutex") || !strings.Contains(txt, "free: [9]") {
		t.Fatalf("text form shows the lock: %s", engine.FormatValue(n))
	}
}

// money stands for a decimal number: a big integer and an exponent, and
// its text through encoding.TextMarshaler.
type money struct {
	value *big.Int
	exp   int32
}

func (m money) MarshalText() ([]byte, error) {
	f := new(big.Float).SetInt(m.value)
	f.Mul(f, big.NewFloat(math.Pow10(int(m.exp))))
	return []byte(f.Text('f', int(-m.exp))), nil
}

// reqID stands for a UUID: an array of bytes with a text form.
type reqID [4]byte

func (id *reqID) MarshalText() ([]byte, error) {
	return []byte(fmt.Sprintf("%x-%x", id[:2], id[2:])), nil
}

// broken's MarshalText panics: it is shown field by field.
type broken struct{ N int }

func (broken) MarshalText() ([]byte, error) { panic("no text") }

type account struct {
	Balance money
	ID      reqID
	Log     []byte
	Raw     [2]byte
	B       broken
}

// TestTextForms: a value with a text form (encoding.TextMarshaler) shows
// it, bytes show as a quoted string, in one-line and block text forms;
// the hash still reads the fields.
func TestTextForms(t *testing.T) {
	a := account{Balance: money{big.NewInt(10050), -2}, ID: reqID{0xde, 0xad, 0xbe, 0xef}, Log: []byte("{\"msg\":\"start\"}\n"), Raw: [2]byte{1, 'a'}, B: broken{3}}
	want := `account{Balance: 100.50, ID: dead-beef, Log: "{\"msg\":\"start\"}\n", Raw: "\x01a", B: broken{N: 3}}`
	if got := engine.FormatValue(a); got != want {
		t.Fatalf("text form\n%s, want\n%s", got, want)
	}
	block := engine.FormatState(&a)
	for _, line := range []string{"Balance: 100.50\n", "ID: dead-beef\n", `Log: "{\"msg\":\"start\"}\n"` + "\n"} {
		if !strings.Contains(block, line) {
			t.Fatalf("block text form lacks %q:\n%s", line, block)
		}
	}
	b := a
	b.Balance = money{big.NewInt(100500), -3} // the same number, another representation
	if engine.Hash(a) == engine.Hash(b) {
		t.Fatal("the hash no longer reads the fields")
	}
}

// hook holds a closure until its driver request drops it.
type hook struct {
	sim.Base
	OnDone func()
	N      int
}

func (h *hook) HandleApp(ctx *sim.Context, req any) {
	h.N++
	if req == "drop" {
		h.OnDone = nil
	}
}

// TestCopyProblemRemembered: the problem found in a state is answered at
// once when the same state is asked again (Clone from one state for every
// walk), and found afresh once the state moved on.
func TestCopyProblemRemembered(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { x := 0; return &hook{OnDone: func() { x++ }} },
		App:     func(sim.NodeID) []any { return []any{"keep", "drop"} },
	}
	s := mustNew(t, cfg, engine.Options{})
	step(t, s, kind(engine.EvApp, 0))
	p := s.CopyProblem()
	if !strings.Contains(p, ".OnDone holds a closure") {
		t.Fatalf("copy problem %q", p)
	}
	// The state has not moved on (as far as the choices say): the problem
	// is remembered, even with the closure gone behind the simulator's back.
	h := sim.Node[hook](s.View(), 0)
	saved := h.OnDone
	h.OnDone = nil
	if got := s.CopyProblem(); got != p {
		t.Fatalf("copy problem asked again: %q", got)
	}
	h.OnDone = saved
	if cp := s.Clone(engine.NewRandom(1)); sim.Node[hook](cp.View(), 0).N != 1 {
		t.Fatal("the copy by replay is not at the original's state")
	}
	step(t, s, kind(engine.EvApp, 0))
	if got := s.CopyProblem(); got != "" {
		t.Fatalf("copy problem after the closure was dropped: %q", got)
	}
}

// graphNode holds a library's type information, as a node holding a
// message whose lazily set pointer reaches it does.
type graphNode struct {
	sim.Base
	Info *mapInfo
	N    int
}

// TestNodeTextOfHugeGraph: the text of a node whose state reaches a graph
// with more paths than can be followed is cut short, at once; its
// encoding (which the text's memo compares) stops at the simulator's
// bound instead of taking the machine's memory (the report page of a
// search with such a node was killed for lack of memory).
func TestNodeTextOfHugeGraph(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &graphNode{Info: mapGraph, N: 3} }}
	s := mustNew(t, cfg, engine.Options{MaxStateBytes: 1 << 20})
	for range 2 { // the second time, with no memo to reuse
		txt := s.NodeText(0)
		if !strings.Contains(txt, "N: 3") || !strings.Contains(txt, "text cut: too large") {
			t.Fatalf("node text: %.300s", txt)
		}
	}
}

// TestHashOfHugeGraph: Hash and AppendCanonical of a value whose pointers
// reach a graph of few objects and many paths (2^40) encode each object
// once, the others reached again by number, and give equal values equal
// results (following every path, they ran out of memory, then stopped at
// MaxCanonicalBytes).
func TestHashOfHugeGraph(t *testing.T) {
	type msg struct {
		Tags map[string]int
		Info *typeInfo
	}
	tags := func() map[string]int {
		m := map[string]int{}
		for i := range 50 {
			m[fmt.Sprint("t", i)] = i
		}
		return m
	}
	a, b := msg{tags(), sharedInfo}, msg{tags(), sharedInfo}
	if engine.Hash(a) != engine.Hash(b) {
		t.Fatal("equal values hash differently")
	}
	enc := engine.AppendCanonical([]byte("prefix"), a)
	if len(enc) > 4096 || !strings.HasPrefix(string(enc), "prefix") || strings.HasSuffix(string(enc), "(too large)") {
		t.Fatalf("encoding of %d bytes", len(enc))
	}
	// Below the bound nothing changes.
	if engine.Hash(msg{Tags: tags()}) == engine.Hash(msg{Tags: map[string]int{"x": 1}}) {
		t.Fatal("small values collide")
	}
}

package engine_test

import (
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// evicting is a library's generic cache (golang-lru/v2's shape): it keeps
// a method value of its own generic type as a callback, which Go compiles
// to a function literal of the function that made it.
type evicting[K comparable] struct {
	onEvict func(K)
	Evicted []K
}

func newEvicting[K comparable]() *evicting[K] {
	c := &evicting[K]{}
	c.onEvict = c.evict
	return c
}

func (c *evicting[K]) evict(k K) { c.Evicted = append(c.Evicted, k) }

// cacheNode holds such a cache and evicts what the driver asks.
type cacheNode struct {
	sim.Base
	Cache *evicting[string]
	// Literal, when not nil, is a closure made in a generic function: a
	// captured variable no encoding can read.
	Literal func() int
}

func (n *cacheNode) HandleApp(_ *sim.Context, req any) { n.Cache.onEvict(req.(string)) }

func cacheConfig(literal bool) *sim.Config {
	return &sim.Config{
		Nodes: 1,
		Service: func(sim.NodeID) sim.Service {
			n := &cacheNode{Cache: newEvicting[string]()}
			if literal {
				n.Literal = genericCounter[int]()
			}
			return n
		},
		App: func(sim.NodeID) []any { return []any{"a", "b"} },
	}
}

// genericCounter returns a function literal of a generic function.
func genericCounter[T any]() func() int {
	n := 0
	return func() int { n++; return n }
}

// TestGenericMethodValueIsNoClosure: a method value of a generic type is a
// bound method, hashed by its function like a non-generic one's, not
// state hashing cannot read (a node holding golang-lru/v2's NewWithEvict
// cache was never pruned: every state hashed apart); a function literal
// made in a generic function is still one.
func TestGenericMethodValueIsNoClosure(t *testing.T) {
	run := func(literal bool, choices ...int32) *engine.Sim {
		t.Helper()
		s := mustNew(t, cacheConfig(literal), engine.Options{Chooser: engine.NewRecorded(choices)})
		for range choices {
			if ok, err := s.Step(); !ok || err != nil {
				t.Fatalf("step: %v %v", ok, err)
			}
		}
		return s
	}
	s := run(false, 0)
	if got := s.HiddenState(); got != "" {
		t.Errorf("HiddenState = %q, want none", got)
	}
	if run(false, 0).Hash() != s.Hash() {
		t.Errorf("equal states hash apart")
	}
	if run(false, 0, 0).Hash() == s.Hash() {
		t.Errorf("a cache that evicted a and b hashes as one that evicted a")
	}
	if p := s.CopyProblem(); !strings.Contains(p, ".Cache.onEvict holds a bound method of a generic type (Go names it ") {
		t.Errorf("copy problem %q", p)
	}
	if got := run(true, 0).HiddenState(); !strings.HasPrefix(got, "node 0 (*engine_test.cacheNode) holds a closure ") {
		t.Errorf("a generic function's literal: HiddenState = %q", got)
	}
}

package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestDiffStatesNamesTheNode: when two replays' nodes agree, diffStates
// still names a node: the one whose struct changed after Hash encoded it
// (code outside the handlers is writing it: an escape), or the one whose handler ran
// the step when what is pending differs.
func TestDiffStatesNamesTheNode(t *testing.T) {
	pair := func() (*Sim, *Sim) {
		a, b := hashedSim(t, false), hashedSim(t, false)
		a.Hash()
		b.Hash()
		return a, b
	}
	// A node written behind the checker's back, in both replays alike.
	a, b := pair()
	a.w.svcs[2].(*hashed).N++
	b.w.svcs[2].(*hashed).N++
	var esc *EscapeError
	if err := diffStates(a, b); !errors.As(err, &esc) || esc.Node != 2 || !strings.Contains(err.Error(), "node 2 escaped its handler: its state changed while the replays were compared") {
		t.Errorf("a node changed outside its handlers: %v", err)
	}
	// Different messages pending after the same step: named by the node
	// whose handler ran it.
	a, b = pair()
	q := &b.w.conns[0*3+1]
	q.items[q.head].msg = "other"
	q.items[q.head].hash = 0
	b.Hash()
	var ne *NondeterminismError
	if err := diffStates(a, b); !errors.As(err, &ne) {
		t.Fatalf("pending events differ: %v", err)
	}
	if ne.Node != -1 || ne.StepNode != int(a.w.lastEvent.Node) || !strings.Contains(ne.Error(), "the nodes agree, but what node 2's handler left pending differs") {
		t.Errorf("pending events differ: %v (node %d, step node %d)", ne, ne.Node, ne.StepNode)
	}
}

// panicky is a node state whose canonical form panics once Bad is set,
// as reading a map that a goroutine writes at the same time can.
type panicky struct {
	sim.Base
	Bad bool
}

func (p *panicky) Canonical() any {
	if p.Bad {
		panic("reflect: call of reflect.Value.Type on zero Value")
	}
	return 0
}

// TestCompareReplaysEscapes: the comparison of replays reports a goroutine
// a handler left running as an escape, not as replays that differ: when
// one replay saw it and another did not, and when reading a state panics
// (a state written while it is read).
func TestCompareReplaysEscapes(t *testing.T) {
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &panicky{} }}
	pair := func() []*Sim {
		var sims []*Sim
		for range 2 {
			s, err := New(cfg, Options{Chooser: NewRandom(1)})
			if err != nil {
				t.Fatal(err)
			}
			sims = append(sims, s)
		}
		return sims
	}
	seen := &EscapeError{Node: 1, Detail: "its handler started a goroutine that was still running when the handler returned"}
	if err := compareReplays(pair(), []error{nil, seen}, 2); err != seen {
		t.Errorf("one replay saw a goroutine: %v", err)
	}
	sims := pair()
	sims[1].w.svcs[1].(*panicky).Bad = true
	sims[1].w.nodes[1].dirty = true
	var esc *EscapeError
	if err := compareReplays(sims, []error{nil, nil}, 2); !errors.As(err, &esc) || !strings.Contains(err.Error(), "reading the nodes' states to compare the replays panicked") {
		t.Errorf("reading a state panicked: %v", err)
	}
}

package engine

import (
	"strings"
	"testing"
)

// TestDiffStatesNamesTheNode: when two replays' nodes agree, diffStates
// still names a node: the one whose struct changed after Hash encoded it
// (code outside the handlers is writing it), or the one whose handler ran
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
	if ne := diffStates(a, b); ne.Node != 2 || !strings.Contains(ne.Error(), "node 2 (*engine.hashed): its state changed while the replays were compared") {
		t.Errorf("a node changed outside its handlers: %v (node %d)", ne, ne.Node)
	}
	// Different messages pending after the same step: named by the node
	// whose handler ran it.
	a, b = pair()
	q := &b.w.conns[0*3+1]
	q.items[q.head].msg = "other"
	q.items[q.head].hash = 0
	b.Hash()
	ne := diffStates(a, b)
	if ne.Node != -1 || ne.StepNode != int(a.w.lastEvent.Node) || !strings.Contains(ne.Error(), "the nodes agree, but what node 2's handler left pending differs") {
		t.Errorf("pending events differ: %v (node %d, step node %d)", ne, ne.Node, ne.StepNode)
	}
}

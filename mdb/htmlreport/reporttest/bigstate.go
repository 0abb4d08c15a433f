package reporttest

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// BigStateName is the name of the large-state fixture's system.
const BigStateName = "reporttest-bigstate"

// The large-state fixture's sizes: each node holds BigInts ints and a
// string of BigLog bytes, and node 0's request puts BigNotes messages on
// its connection to node 1.
const (
	BigInts  = 3000
	BigLog   = 5000
	BigNotes = 50
)

// BigNode is a node of the large-state fixture. A Ball it takes changes
// its state deep inside its list and its string: Ints[BigInts/2+N] and
// Log's byte BigLog/2+N.
type BigNode struct {
	sim.Base
	Ints  []int
	Log   string
	Count int
	Notes int
	Deaf  bool
}

// Ball is the fixture's rally message; Note is filler in flight.
type (
	Ball struct{ N int }
	Note struct{ I int }
)

func newBigNode(sim.NodeID) sim.Service {
	b := &BigNode{Ints: make([]int, BigInts), Log: strings.Repeat("ab", BigLog/2)}
	for i := range b.Ints {
		b.Ints[i] = i
	}
	return b
}

// Start makes a restarted node deaf: it ignores the ball for good.
func (b *BigNode) Start(ctx *sim.Context) { b.Deaf = ctx.Restarted() }

// HandleApp serves the ball, and BigNotes notes behind it.
func (b *BigNode) HandleApp(ctx *sim.Context, _ any) {
	ctx.Send(1, Ball{N: 1})
	for i := range BigNotes {
		ctx.Send(1, Note{I: i})
	}
}

// HandleMessage returns the ball until the third, changing the state deep
// inside; it counts the notes.
func (b *BigNode) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch v := m.(type) {
	case Note:
		b.Notes++
	case Ball:
		if b.Deaf {
			return
		}
		b.Count = v.N
		b.Ints[BigInts/2+v.N] += v.N
		at := BigLog/2 + v.N
		b.Log = b.Log[:at] + "#" + b.Log[at+1:]
		if v.N < 3 {
			ctx.Send(from, Ball{N: v.N + 1})
		}
	}
}

var bigOnce sync.Once

// RegisterBigState registers the large-state fixture's system; calling it
// again does nothing.
func RegisterBigState() {
	bigOnce.Do(func() {
		sim.Register(&sim.System{
			Name: BigStateName,
			Doc:  "report page test fixture: two nodes with large states that a rally changes deep inside",
			Build: func(sim.Params) (*sim.Config, error) {
				return &sim.Config{
					Nodes:   2,
					Service: newBigNode,
					App: func(id sim.NodeID) []any {
						if id == 0 {
							return []any{"serve"}
						}
						return nil
					},
					Liveness: []sim.Property{{Name: "Rallied", Check: func(v *sim.View) bool { return sim.Node[BigNode](v, 1).Count >= 3 }}},
					Failures: sim.Failures{Resets: 1, Nodes: []sim.NodeID{1}},
				}, nil
			},
		})
	})
}

// BigState writes the large-state fixture's result directory into dir:
// an error trace whose critical step 4 resets node 1 (node 0 serves the
// ball and 50 notes, node 1 takes the ball and returns it, node 0 takes it
// and returns it behind the notes, node 1 resets, then takes two notes),
// and the live alternative, which takes three notes instead of the reset.
// It returns the error trace.
func BigState(tb testing.TB, dir string) *trace.Trace {
	tb.Helper()
	RegisterBigState()
	type pick struct {
		kind engine.EventKind
		node int
	}
	app, msg1, msg0, reset1 := pick{engine.EvApp, 0}, pick{engine.EvMessage, 1}, pick{engine.EvMessage, 0}, pick{engine.EvReset, 1}
	write := func(name string, kind trace.Kind, script []pick) *trace.Trace {
		t := &trace.Trace{Tool: trace.ToolVersion, System: BigStateName, Params: map[string]string{}, Properties: []string{"Rallied"},
			Kind: kind, Property: "Rallied", Critical: 4, Condition: "C1", WalkDepth: 100}
		cfg, err := t.Config()
		if err != nil {
			tb.Fatal(err)
		}
		s, err := engine.New(cfg, engine.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		for n, want := range script {
			i := -1
			for j, ev := range s.Ready() {
				if ev.Kind == want.kind && int(ev.Node) == want.node {
					i = j
					break
				}
			}
			if i < 0 {
				tb.Fatal(fmt.Errorf("%s path, step %d: no %v at node %d is ready: %v", name, n+1, want.kind, want.node, s.Ready()))
			}
			if err := s.StepEvent(i); err != nil {
				tb.Fatalf("%s path, step %d: %v", name, n+1, err)
			}
		}
		t.Choices, t.Steps = s.ChoiceValues(), s.Steps()
		if err := t.Write(filepath.Join(dir, name+".trace")); err != nil {
			tb.Fatal(err)
		}
		return t
	}
	et := write("error", trace.KindLiveness, []pick{app, msg1, msg0, reset1, msg1, msg1})
	write("live", trace.KindLive, []pick{app, msg1, msg0, msg1, msg1, msg1})
	return et
}

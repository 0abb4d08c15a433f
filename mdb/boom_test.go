package mdb_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/simtest"
	"github.com/macemc/macemc/sim/trace"
)

// Bomb makes BoomState's state text panic once armed.
type Bomb struct{ Armed bool }

// Canonical implements sim.Canonicalizer; it panics when armed.
func (b Bomb) Canonical() any {
	if b.Armed {
		panic("bomb went off")
	}
	return "bomb"
}

// BoomState is a service whose handler panics on its third message, and
// whose state text panics from its second.
type BoomState struct {
	sim.Base
	Got  int
	Bomb Bomb
}

func (b *BoomState) HandleApp(ctx *sim.Context, req any) { ctx.Send(1, "hit") }

func (b *BoomState) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	b.Got++
	if req, _ := m.(string); req == "hit" {
		ctx.Send(0, "back")
	}
	if b.Got == 2 {
		b.Bomb.Armed = true
	}
	if b.Got == 3 {
		panic("third message")
	}
}

func init() {
	sim.Register(&sim.System{
		Name: "mdbtest-boom",
		Build: func(sim.Params) (*sim.Config, error) {
			return &sim.Config{
				Nodes:   2,
				Service: func(sim.NodeID) sim.Service { return &BoomState{} },
				App: func(id sim.NodeID) []any {
					return []any{"go", "go", "go"}
				},
				Safety: []sim.Property{{Name: "NoPanic", Check: func(*sim.View) bool { return true }}},
			}, nil
		},
	})
}

// boomOutput runs mdbtest-boom with random choices (seed 5) until a handler
// panics and writes the path as a safety trace, error.trace, into a new
// directory, for the session of testdata/boom.txt.
func boomOutput(t *testing.T) string {
	t.Helper()
	sys, err := sim.Lookup("mdbtest-boom")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := sys.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(5)})
	if err != nil {
		t.Fatal(err)
	}
	var stepErr error
	for stepErr == nil {
		var ok bool
		ok, stepErr = s.Step()
		if !ok && stepErr == nil {
			t.Fatal("the boom system went quiet without a panic")
		}
	}
	if !errors.Is(stepErr, engine.ErrHandlerPanic) {
		t.Fatal(stepErr)
	}
	tr := &trace.Trace{System: "mdbtest-boom", Choices: s.ChoiceValues(), Steps: s.Steps(), Kind: trace.KindSafety, Property: "panic in handler", Critical: -1}
	dir := t.TempDir()
	if err := tr.Write(filepath.Join(dir, "error.trace")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// monitorOutput searches simtest-monitor (mode panic: monitor Pings's
// Handle panics at the second ping, notified by node 1's handler) and
// returns its output directory, for the session of testdata/monitor.txt.
func monitorOutput(t *testing.T) string {
	t.Helper()
	sys, err := sim.Lookup(simtest.Monitored)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	opts := search.Options{Params: map[string]string{"mode": "panic"}, Seed: 1, Workers: 1, WalkDepth: 200, Walks: 5, Out: dir}
	rep, err := search.Run(context.Background(), sys, opts)
	if err != nil || rep.First() == nil || rep.First().Kind != search.KindHandlerPanic {
		t.Fatalf("search: %v, %+v", err, rep)
	}
	return dir
}

package engine_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// spinning keeps spin looping until the test is over.
var spinning atomic.Bool

// spin loops once node 0 has fired, while spinning is set.
func spin(v *sim.View) bool {
	for spinning.Load() && sim.Node[Script](v, 0).Fired != nil {
	}
	return true
}

// TestGuardGivesUpOnAPredicateThatDoesNotReturn: a property's predicate
// that loops forever, outside any handler, is given up on like a hung
// handler: a *HangError naming the predicate (Outside), where it loops,
// the steps completed and their choices; the simulator is abandoned and
// its next Step fails. A goroutine that waits (here in a channel receive)
// rather than runs the system's code is not given up on.
func TestGuardGivesUpOnAPredicateThatDoesNotReturn(t *testing.T) {
	cfg := scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{func(ctx *sim.Context, n *Script) { n.Fired = []string{"x"} }}
	})
	prop := sim.Property{Name: "Spins", Check: spin}
	spinning.Store(true)
	t.Cleanup(func() { spinning.Store(false) })
	s := mustNew(t, cfg, engine.Options{})
	err := s.Guard(50*time.Millisecond, func() error {
		if _, err := s.Step(); err != nil {
			return err
		}
		s.Holds(&prop)
		return nil
	})
	var he *engine.HangError
	if !errors.As(err, &he) || he.Outside != "github.com/macemc/macemc/sim/engine_test.spin" || he.At == "" || he.Node != -1 || he.Step != 1 || len(he.Choices) == 0 || !s.Abandoned() {
		t.Fatalf("got %v (%+v)", err, he)
	}
	if _, err := s.Step(); !errors.Is(err, engine.ErrHang) {
		t.Fatalf("the abandoned simulator stepped on: %v", err)
	}

	s = mustNew(t, cfg, engine.Options{})
	wait := make(chan struct{})
	go func() { time.Sleep(300 * time.Millisecond); close(wait) }()
	if err := s.Guard(50*time.Millisecond, func() error { <-wait; return nil }); err != nil || s.Abandoned() {
		t.Fatalf("a goroutine that waits: %v", err)
	}
}

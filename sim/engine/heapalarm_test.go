package engine_test

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// hogging counts the handlers of hogger running.
var hogging atomic.Int32

// hogger's handler allocates 256 MiB in 1 MiB pieces, none of which it
// needs, without calling its Context: a handler that would take the
// machine's memory before its timeout. It returns at the end, so that a
// test leaves no goroutine allocating behind.
type hogger struct{ sim.Base }

func (*hogger) HandleApp(*sim.Context, any) {
	hogging.Add(1)
	defer hogging.Add(-1)
	var keep [][]byte
	for range 256 {
		keep = append(keep, make([]byte, 1<<20))
		time.Sleep(time.Millisecond)
	}
	_ = keep
}

func hogConfig() *sim.Config {
	return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &hogger{} },
		App: func(sim.NodeID) []any { return []any{"go"} }}
}

// TestHeapAlarmGivesUpOnAHandler: a handler running when the heap alarm
// goes off, and still running a grace period later, is given up on as a
// hang with Memory set, long before its timeout (a minute here: a Guard
// that waited for it would fail the test with a plain hang or the
// handler's return).
func TestHeapAlarmGivesUpOnAHandler(t *testing.T) {
	s, err := engine.NewGuarded(hogConfig(), engine.Options{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for hogging.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		engine.RaiseHeapAlarm()
	}()
	err = s.Guard(time.Minute, func() error { _, err := s.Step(); return err })
	var he *engine.HangError
	if !errors.As(err, &he) || !he.Memory || he.Node != 0 || he.Step != 0 || !s.Abandoned() {
		t.Fatalf("got %v, want the handler of step 1 given up on for memory", err)
	}
	for hogging.Load() != 0 {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHeapWatchArmsLaterGuards: while a heap watch is past its bound, a
// Guard that begins gives up on a handler that runs through a grace
// period; once the watch ends, Guards wait for the handler again.
func TestHeapWatchArmsLaterGuards(t *testing.T) {
	exceeded := make(chan struct{})
	stop := engine.WatchHeap(32<<20, func() { close(exceeded) })
	// Grow the live heap past the bound (the watch reads the heap the
	// last collection found live).
	growHeap(t, exceeded)
	s, err := engine.NewGuarded(hogConfig(), engine.Options{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Guard(time.Minute, func() error { _, err := s.Step(); return err })
	var he *engine.HangError
	if !errors.As(err, &he) || !he.Memory {
		t.Fatalf("a Guard begun after the alarm: got %v, want the handler given up on for memory", err)
	}
	stop()
	for hogging.Load() != 0 {
		time.Sleep(10 * time.Millisecond)
	}
	s, err = engine.NewGuarded(hogConfig(), engine.Options{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Guard(time.Minute, func() error { _, err := s.Step(); return err }); err != nil {
		t.Fatalf("after the watch ended: %v, want the handler to run to its end", err)
	}
}

// TestRunHeapWatchSparesOtherRuns: a run's heap watch (WatchHeapOf) past
// its bound gives up on the handlers of its own simulators only: a slow
// handler of another run in the process runs to its end (a trial's
// correct system, searched in a parallel test beside one that passed its
// memory limit, was reported for a handler that "did not return").
func TestRunHeapWatchSparesOtherRuns(t *testing.T) {
	hogCfg, otherCfg := hogConfig(), hogConfig()
	exceeded := make(chan struct{})
	stop := engine.WatchHeapOf(hogCfg, 32<<20, func() { close(exceeded) })
	defer stop()
	growHeap(t, exceeded)
	// Another run's handler, which takes far longer than the grace.
	other, err := engine.NewGuarded(otherCfg, engine.Options{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Guard(time.Minute, func() error { _, err := other.Step(); return err }); err != nil {
		t.Fatalf("another run's handler: %v, want it to run to its end", err)
	}
	// The watching run's own handler is given up on.
	s, err := engine.NewGuarded(hogCfg, engine.Options{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Guard(time.Minute, func() error { _, err := s.Step(); return err })
	var he *engine.HangError
	if !errors.As(err, &he) || !he.Memory {
		t.Fatalf("the run's own handler: got %v, want it given up on for memory", err)
	}
	for hogging.Load() != 0 {
		time.Sleep(10 * time.Millisecond)
	}
}

// growHeap grows the live heap, 8 MiB at a time, until a watch says so on
// exceeded (the watch reads the heap the last collection found live), and
// lets it go.
func growHeap(t *testing.T, exceeded <-chan struct{}) {
	t.Helper()
	var keep [][]byte
	for grown := false; !grown; {
		if len(keep) == 64 {
			t.Fatal("the watch did not see the heap grow by 512 MiB")
		}
		keep = append(keep, make([]byte, 8<<20))
		runtime.GC()
		select {
		case <-exceeded:
			grown = true
		case <-time.After(20 * time.Millisecond):
		}
	}
}

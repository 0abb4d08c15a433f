package engine_test

import (
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// heavy is a node whose state's size the test sets: Buf's bytes, a linked
// list of List cells (a cycle when Cycle), a map of Entries entries and a
// buffer Shared with every other node.
type heavy struct {
	sim.Base
	Buf     []byte
	List    *cell
	Entries map[int]string
	Shared  *[1 << 16]byte
	Chan    chan int
}

type cell struct {
	V    int
	Next *cell
}

var sharedTable = new([1 << 16]byte)

func heavyConfig(bufBytes, listLen, entries int, cycle bool) *sim.Config {
	return &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service {
		h := &heavy{Buf: make([]byte, bufBytes), Entries: map[int]string{}, Shared: sharedTable, Chan: make(chan int, 8)}
		var first *cell
		for i := range listLen {
			h.List = &cell{V: i, Next: h.List}
			if i == 0 {
				first = h.List
			}
		}
		if cycle && first != nil {
			first.Next = h.List
		}
		for i := range entries {
			h.Entries[i] = "value"
		}
		return h
	}}
}

func stateBytes(t *testing.T, cfg *sim.Config) int64 {
	t.Helper()
	return mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(1)}).StateBytes()
}

func TestStateBytes(t *testing.T) {
	base := stateBytes(t, heavyConfig(0, 0, 0, false))
	if base < 1<<16 || base > 1<<17 {
		t.Fatalf("two empty nodes sharing a 64 KiB table: %d bytes, want the table once and a little more", base)
	}
	// Each node's own buffer counts; the shared table counts once.
	if got := stateBytes(t, heavyConfig(1<<20, 0, 0, false)) - base; got < 2<<20 || got > 2<<20+4096 {
		t.Fatalf("two nodes with 1 MiB each: %d bytes more than empty ones, want 2 MiB", got)
	}
	// A long list counts each cell once, cycle or not.
	for _, cycle := range []bool{false, true} {
		got := stateBytes(t, heavyConfig(0, 100_000, 0, cycle)) - base
		if want := int64(2 * 100_000 * 16); got < want || got > want+4096 {
			t.Fatalf("two lists of 100,000 16-byte cells (cycle %v): %d bytes more than empty nodes, want %d", cycle, got, want)
		}
	}
	// Maps count their entries and the strings they hold (one string
	// constant, counted once), the same on every walk whatever the
	// maps' order.
	first := stateBytes(t, heavyConfig(0, 0, 1000, false))
	if got := first - base; got < 2*1000*24 || got > 2*1000*40 {
		t.Fatalf("two maps of 1,000 entries: %d bytes more than empty nodes", got)
	}
	for range 5 {
		if again := stateBytes(t, heavyConfig(0, 0, 1000, false)); again != first {
			t.Fatalf("the same state measured %d bytes, then %d", first, again)
		}
	}
}

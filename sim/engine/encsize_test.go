package engine_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// blob is a message or a node's field that holds many numbers.
type blob struct{ Data []int }

// sender sends node 1 a blob of n numbers when it boots, or holds one
// itself (Held) when hold is set; Text is a string of textLen bytes.
type sender struct {
	sim.Base
	Held blob
	Text string
	n    int
	hold bool
}

func (s *sender) Start(ctx *sim.Context) {
	if ctx.Self() == 0 && !s.hold {
		ctx.Send(1, blob{Data: make([]int, s.n)})
	}
}

// TestEncodingErrorNamesWhat: the error of a state past the bound says
// whether it is a node's state or a message, and which (its sender and
// receiver), where most of it lies, and the bound as the most one may
// take; it gives no advice to raise the bound, which no flag does.
func TestEncodingErrorNamesWhat(t *testing.T) {
	for _, c := range []struct {
		name string
		hold bool
		want engine.EncodingError
		text string
	}{
		{"node", true, engine.EncodingError{Node: 0, From: -1, To: -1, Type: "*engine_test.sender", Path: ".Held.Data", Detail: "[]int, 1000 elements", Limit: 1 << 10},
			"sim: node 0's state (*engine_test.sender) encodes to more than 1 KiB (1024 bytes), the most the canonical encoding of one node's state or one message in flight may take"},
		{"message", false, engine.EncodingError{Node: -1, From: 0, To: 1, Type: "engine_test.blob", Path: ".Data", Detail: "[]int, 1000 elements", Limit: 1 << 10},
			"sim: the message from node 0 to node 1 (engine_test.blob) encodes to more than 1 KiB (1024 bytes), the most the canonical encoding of one node's state or one message in flight may take"},
	} {
		cfg := &sim.Config{Nodes: 2, Service: func(id sim.NodeID) sim.Service {
			s := &sender{n: 1000, hold: c.hold}
			if c.hold && id == 0 {
				s.Held.Data = make([]int, 1000)
			}
			return s
		}}
		s := mustNew(t, cfg, engine.Options{MaxStateBytes: 1 << 10})
		s.Hash()
		var ee *engine.EncodingError
		if !errors.As(s.HashErr(), &ee) {
			t.Fatalf("%s: %v, want an EncodingError", c.name, s.HashErr())
		}
		if *ee != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, *ee, c.want)
		}
		if msg := ee.Error(); !strings.HasPrefix(msg, c.text) || strings.Contains(msg, "raise") {
			t.Errorf("%s: %s", c.name, msg)
		}
	}
}

// TestEncodingBoundChecksLengths: a string or a slice is checked against
// the bound by its length before it is encoded: a string past the bound
// as a node's last field fails (it was encoded whole, with no check after
// it, and passed), and a slice of numbers far past the bound costs no
// memory to refuse (it was encoded up to the bound, and again for each
// level of the search for where most of it lies).
func TestEncodingBoundChecksLengths(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &sender{hold: true, Text: strings.Repeat("x", 2000)} }}
	s := mustNew(t, cfg, engine.Options{MaxStateBytes: 1000})
	s.Hash()
	var ee *engine.EncodingError
	if !errors.As(s.HashErr(), &ee) || ee.Path != ".Text" {
		t.Errorf("a string of 2000 bytes in a bound of 1000: %v", s.HashErr())
	}

	const n, limit = 1 << 20, 4 << 20 // 8 MiB of numbers, a bound of 4 MiB
	cfg = &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &sender{hold: true, Held: blob{Data: make([]int, n)}} }}
	s = mustNew(t, cfg, engine.Options{MaxStateBytes: limit})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.Hash()
	runtime.ReadMemStats(&after)
	if !errors.As(s.HashErr(), &ee) || ee.Path != ".Held.Data" {
		t.Fatalf("%d numbers in a bound of %d bytes: %v", n, limit, s.HashErr())
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > limit/4 {
		t.Errorf("refusing %d numbers in a bound of %d bytes allocated %d bytes", n, limit, got)
	}
}

// TestCheckDeterminismStopsAtTheBound: the determinism check stops at the
// first replay whose boot passed the bound (it is the answer for every
// replay), rather than boot them all and hold their states.
func TestCheckDeterminismStopsAtTheBound(t *testing.T) {
	built := 0
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { built++; return &sender{n: 1000} }}
	err := engine.CheckDeterminism(cfg, nil, engine.Options{MaxStateBytes: 1 << 10})
	var ee *engine.EncodingError
	if !errors.As(err, &ee) || ee.From != 0 || ee.To != 1 {
		t.Fatalf("got %v, want the message's EncodingError", err)
	}
	if built != cfg.Nodes {
		t.Errorf("%d nodes built, want %d (one replay)", built, cfg.Nodes)
	}
}

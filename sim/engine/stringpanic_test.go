package engine_test

import (
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// color is an enum whose String indexes an array of names: a value out of
// range panics there.
type color int

func (c color) String() string { return [...]string{"red", "green"}[c] }

// painter keeps a color and, with Big, a slice too long for its text.
type painter struct {
	sim.Base
	C   color
	Big []int
}

func (p *painter) HandleApp(_ *sim.Context, req any) {
	p.C = req.(color)
	p.Big[len(p.Big)-1]++
}

// TestStringThatPanicsShowsTheNumber: a String method that panics is the
// user's bug, not the text form's: the value is shown as the number it is
// (the panic took down the report page, and the log said a handler had
// panicked where none did).
func TestStringThatPanicsShowsTheNumber(t *testing.T) {
	if got, want := engine.FormatValue(&painter{C: 2}), "&painter{C: 2, Big: []}"; got != want {
		t.Errorf("FormatValue = %q, want %q", got, want)
	}
	if got, want := engine.FormatValue(&painter{C: 1}), "&painter{C: green, Big: []}"; got != want {
		t.Errorf("FormatValue = %q, want %q", got, want)
	}
	if got := engine.FormatState(&painter{C: 2}); !strings.Contains(got, "C: 2") {
		t.Errorf("FormatState = %q", got)
	}
}

// TestStructHashSeesPastTheTextsCut: a change at the end of a slice too
// long for a node's text leaves the texts of its struct alike, and
// StructHash apart.
func TestStructHashSeesPastTheTextsCut(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &painter{Big: make([]int, 400_000)} },
		App:     func(sim.NodeID) []any { return []any{color(0)} },
	}
	s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(1)})
	text, h := engine.FormatState(s.Service(0)), s.StructHash(0, false)
	if ok, err := s.Step(); !ok || err != nil {
		t.Fatalf("step: %v %v", ok, err)
	}
	if engine.FormatState(s.Service(0)) != text {
		t.Fatalf("the change shows in the text: the test needs one past its cut")
	}
	if s.StructHash(0, false) == h {
		t.Errorf("StructHash did not change with the struct")
	}
}

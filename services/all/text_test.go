package all_test

import (
	"bytes"
	"testing"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// TestNodeTextReusesOnlyEqualStates: along a walk of every example system
// (failures on), the text of every node, which a simulator reuses while the
// node's state encodes the same, is the text a fresh copy makes.
func TestNodeTextReusesOnlyEqualStates(t *testing.T) {
	for _, sys := range sim.Systems() {
		cfg, _, err := sys.Config(nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.New(cfg, engine.Options{Chooser: walks.NewChooser(5, false)})
		if err != nil {
			t.Fatalf("%s: %v", sys.Name, err)
		}
		for s.Steps() < 400 {
			if ok, err := s.Step(); !ok || err != nil {
				break
			}
			fresh := s.Clone(nil)
			for i := 0; i < s.Nodes(); i++ {
				if got, want := s.NodeText(sim.NodeID(i)), fresh.NodeText(sim.NodeID(i)); got != want {
					t.Fatalf("%s step %d node %d: text\n%s\nwant\n%s", sys.Name, s.Steps(), i, got, want)
				}
			}
		}
	}
}

// TestLogsAreConsoleWriters: the log of a walk of every example system
// (failures on, every choice logged) is, byte for byte, the one
// zerolog.ConsoleWriter writes.
func TestLogsAreConsoleWriters(t *testing.T) {
	for _, sys := range sim.Systems() {
		cfg, _, err := sys.Config(nil)
		if err != nil {
			t.Fatal(err)
		}
		var got, want bytes.Buffer
		slow := zerolog.New(zerolog.ConsoleWriter{Out: &want, NoColor: true,
			PartsOrder: []string{zerolog.LevelFieldName, zerolog.MessageFieldName}}).Level(zerolog.DebugLevel)
		for _, lg := range []*zerolog.Logger{engine.NewLogger(&got), &slow} {
			s, err := engine.New(cfg, engine.Options{Chooser: walks.NewChooser(7, false), Logger: lg})
			if err != nil {
				t.Fatalf("%s: %v", sys.Name, err)
			}
			for s.Steps() < 2000 {
				if ok, err := s.Step(); !ok || err != nil {
					break
				}
			}
		}
		if want.Len() == 0 || !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: the log (%d bytes) is not ConsoleWriter's (%d bytes)", sys.Name, got.Len(), want.Len())
		}
	}
}

package all_test

import (
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// TestCopiesAreFaithful: for every registered example system, a copy of a
// state 500 steps into a walk (failures on) hashes as its original, and
// stepping it leaves the original as it was; none of them needs copying by
// replay.
func TestCopiesAreFaithful(t *testing.T) {
	for _, sys := range sim.Systems() {
		cfg, _, err := sys.Config(nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.New(cfg, engine.Options{Chooser: walks.NewChooser(3, false)})
		if err != nil {
			t.Fatalf("%s: %v", sys.Name, err)
		}
		for s.Steps() < 500 {
			if ok, err := s.Step(); !ok || err != nil {
				break
			}
		}
		if p := s.CopyProblem(); p != "" {
			t.Errorf("%s: a deep copy cannot copy %s", sys.Name, p)
		}
		if err := engine.CheckCopy(s, s.Clone(nil)); err != nil {
			t.Errorf("%s: %v", sys.Name, err)
		}
	}
}

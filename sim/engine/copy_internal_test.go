package engine

import (
	"container/list"
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// emptied holds a container/list.List by value that was used and emptied:
// its root points at itself, so a deep copy that duplicates the root hashes
// the same as the original, and fails only when it is stepped.
type emptied struct {
	sim.Base
	Q list.List
	N int
}

func (n *emptied) Start(ctx *sim.Context) {
	n.Q.Remove(n.Q.PushBack(0))
	ctx.SetPeriodic("tick")
}

func (n *emptied) HandleTimer(ctx *sim.Context, _ string) {
	n.Q.PushBack(1)
	n.N += n.Q.Front().Value.(int)
	n.Q.Remove(n.Q.Front())
}

// TestCheckCopyStepsWithAReplay: CheckCopy tells a deep copy that hashes
// the same as its original but does not step as it would, by stepping it
// side by side with a copy by replay.
func TestCheckCopyStepsWithAReplay(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &emptied{} }}
	s, err := New(cfg, Options{Chooser: NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	err = CheckCopy(s, s.deepCopy(nil))
	if !errors.Is(err, ErrCopy) || !strings.Contains(err.Error(), "step 4 of the copy failed (sim: panic in handler of node 0") ||
		!strings.Contains(err.Error(), "of a copy by replay ran") {
		t.Fatalf("CheckCopy of a deep copy that loses the list's root: %v", err)
	}
	if err := CheckCopy(s, s.replayCopy(nil)); err != nil {
		t.Fatalf("CheckCopy of a copy by replay: %v", err)
	}
}

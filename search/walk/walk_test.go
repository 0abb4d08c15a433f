package walk_test

import (
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/walk"
)

// Every path of the walk strategy has no bounded part, and they never run
// out: the budget ends the search.
func TestPathsAreWalks(t *testing.T) {
	ex, err := walk.Strategy{}.New(explore.Setup{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var prev *explore.End
	for i := range 100 {
		p, ok := ex.Next(prev)
		if !ok || p.Depth != 0 || p.Prune {
			t.Fatalf("path %d: %+v %v", i, p, ok)
		}
		prev = &explore.End{Reason: explore.EndDepth}
	}
	if st := ex.Status(); st.Done != explore.StopNone {
		t.Errorf("status %+v", st)
	}
}

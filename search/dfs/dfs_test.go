package dfs_test

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim/engine"
)

// tree plays an execution tree of fixed arity: every choice point has
// arity alternatives, a path of the round ends at its depth.
func paths(t *testing.T, step, maxDepth, arity int, end func(seq []int) explore.EndReason) ([]string, explore.Status) {
	t.Helper()
	ex, err := dfs.Strategy{}.New(explore.Setup{DepthStep: step, MaxDepth: maxDepth})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var prev *explore.End
	for range 1000 {
		p, ok := ex.Next(prev)
		if !ok {
			return out, ex.Status()
		}
		var seq []int
		for range p.Depth {
			seq = append(seq, p.Scheduler.Choose(engine.ChooseEvent, arity, nil))
		}
		out = append(out, fmt.Sprintf("r%d:%v", p.Round, seq))
		prev = &explore.End{Steps: p.Depth, Reason: end(seq)}
	}
	t.Fatal("the search does not end")
	return nil, explore.Status{}
}

// Every sequence of choices within the bound, in depth-first order, round
// after round of iterative deepening, up to MaxDepth.
func TestDepthFirstRounds(t *testing.T) {
	got, st := paths(t, 1, 2, 2, func([]int) explore.EndReason { return explore.EndDepth })
	want := "[r1:[0] r1:[1] r2:[0 0] r2:[0 1] r2:[1 0] r2:[1 1]]"
	if fmt.Sprint(got) != want || st.Done != explore.StopDepth || st.Rounds != 2 || st.DeepestComplete != 2 {
		t.Errorf("paths %v status %+v, want %s and depth 2 complete", got, st, want)
	}
}

// A round in which no path reaches its bound exhausts the state space.
func TestExhausted(t *testing.T) {
	got, st := paths(t, 2, 0, 2, func(seq []int) explore.EndReason { return explore.EndCycle })
	if len(got) != 4 || st.Done != explore.StopExhausted || st.Rounds != 1 || st.DeepestComplete != 2 {
		t.Errorf("paths %v status %+v", got, st)
	}
}

package explore_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/macemc/macemc/search/delay"
	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/dpor"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/pct"
	"github.com/macemc/macemc/search/random"
	"github.com/macemc/macemc/search/walk"
)

// A strategy says it uses the depth step (explore.Deepener) exactly when a
// different DepthStep runs other paths, so that a caller can warn that a
// depth step given to the others has no effect.
func TestUsesDepthStepIsWhatChangesThePaths(t *testing.T) {
	for _, s := range []explore.Strategy{dfs.Strategy{}, dpor.Strategy{}, delay.Strategy{}, pct.Strategy{}, random.Strategy{}, walk.Strategy{}} {
		paths := func(step int) []string {
			var got []string
			c := explore.Config{System: counterConfig(2, 3), Strategy: s, DepthStep: step, WalkDepth: 50, MaxPaths: 40, Workers: 1, Seed: 3}
			explore.SetPathHook(&c, func(choices []int32) { got = append(got, fmt.Sprint(choices)) })
			if _, err := run(c); err != nil {
				t.Fatalf("%s: %v", s.Name(), err)
			}
			return got
		}
		differ := !slices.Equal(paths(1), paths(3))
		if uses := explore.UsesDepthStep(s); uses != differ {
			t.Errorf("%s: UsesDepthStep %v, but a depth step of 1 and of 3 run different paths: %v", s.Name(), uses, differ)
		}
	}
}

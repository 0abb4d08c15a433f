package search_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
)

// TestShardsStopOnAFairCycle: one process finds the livelock of proposers
// (partial hashing) and of philosophers as a fair cycle of its explored
// graph after round 2; its shards look for one in the graph of their own
// records after every round and stop there too (they deepened round after
// round, a few paths each, until the depth cap here: without it proposers'
// shards ran for minutes and gigabytes), and merging them gives the one
// process's report and error trace.
func TestShardsStopOnAFairCycle(t *testing.T) {
	for _, c := range []struct {
		name string
		opts search.Options
	}{
		{"proposers", search.Options{Lasso: search.LassoOptions{Partial: true}}},
		{"philosophers", search.Options{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys := system(t, c.name)
			// The one process stops after round 2 (depth 10); the cap
			// ends a shard that does not look, after round 8.
			o := c.opts
			o.Seed, o.MaxPaths, o.Depth, o.Workers = 1, 20000, 40, 1
			o.Out = t.TempDir()
			one, err := search.Run(context.Background(), sys, o)
			if err != nil || one.First() == nil || one.First().Lasso == nil || one.Stats.Rounds != 2 {
				t.Fatalf("setup: one process: %v, finding %+v, %d rounds; want a lasso after round 2", err, one.First(), one.Stats.Rounds)
			}
			want, wantFiles := render(t, one, nil), results(t, o.Out)
			var dirs []string
			for i := range 3 {
				s := o
				s.Workers, s.Out = 2, t.TempDir()
				sum, err := search.RunShard(context.Background(), sys, s, i, 3)
				if err != nil {
					t.Fatalf("shard %d: %v", i, err)
				}
				if sum.Stop != explore.StopCycle || sum.Rounds > 3 {
					t.Errorf("shard %d of 3: %d rounds, stopped: %s; want at most 3, stopped: %s", i, sum.Rounds, sum.Stop, explore.StopCycle)
				}
				// The stop reads back from the shard file.
				if _, recs, err := search.ReadShardFile(sum.File); err != nil || recs.Stop != explore.StopCycle {
					t.Errorf("shard %d read back: %v, stop %v", i, err, recs.Stop)
				}
				dirs = append(dirs, s.Out)
			}
			out := t.TempDir()
			merged, err := search.Merge(context.Background(), dirs, search.MergeOptions{Out: out, Workers: 2})
			if got := render(t, merged, err); got != want {
				t.Errorf("merged report\n%s\none process\n%s", got, want)
			}
			gotFiles := results(t, out)
			for name, b := range wantFiles {
				if !bytes.Equal(b, gotFiles[name]) {
					t.Errorf("%s differs between the merge and one process", name)
				}
			}
		})
	}
}

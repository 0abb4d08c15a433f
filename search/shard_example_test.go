package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// A search as 3 shards (here one after the other; on 3 machines, each
// with its own directory), merged into the report the search gives in one
// process.
func ExampleMerge() {
	sys, _ := sim.Lookup("randtree")
	opts := search.Options{Params: map[string]string{"fixed": "true"}, Seed: 1, MaxPaths: 2000, WalkDepth: 2000}
	tmp, _ := os.MkdirTemp("", "shards")
	defer os.RemoveAll(tmp)
	var dirs []string
	for i := range 3 {
		o := opts
		o.Out = filepath.Join(tmp, fmt.Sprint("shard-", i))
		if _, err := search.RunShard(context.Background(), sys, o, i, 3); err != nil {
			fmt.Println(err)
			return
		}
		dirs = append(dirs, o.Out)
	}
	merged, err := search.Merge(context.Background(), dirs, search.MergeOptions{Out: filepath.Join(tmp, "merged")})
	if err != nil {
		fmt.Println(err)
		return
	}
	opts.Out = filepath.Join(tmp, "one")
	one, _ := search.Run(context.Background(), sys, opts)
	fmt.Println(merged.Verdict, merged.Stats.Paths, merged.Stats.DistinctStates)
	fmt.Println(one.Verdict, one.Stats.Paths, one.Stats.DistinctStates)
	// Output:
	// none 2000 1064
	// none 2000 1064
}

package explore_test

import (
	"context"

	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
)

// run explores c with the bounded DFS unless c names a strategy.
func run(c explore.Config) (*explore.Result, error) {
	if c.Strategy == nil {
		c.Strategy = dfs.Strategy{}
	}
	return explore.Run(context.Background(), c)
}

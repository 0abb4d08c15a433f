package search

// The strategies Options.Strategy can name. A new strategy is a package
// that registers itself (explore.Register) and one import here.
import (
	_ "github.com/macemc/macemc/search/delay"
	_ "github.com/macemc/macemc/search/dfs"
	_ "github.com/macemc/macemc/search/dpor"
	_ "github.com/macemc/macemc/search/pct"
	_ "github.com/macemc/macemc/search/random"
	_ "github.com/macemc/macemc/search/walk"
)

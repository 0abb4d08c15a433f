package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
)

// column is one strategy of the table.
type column struct {
	title, strategy string
	noHashing       bool
}

var columns = []column{
	{"dfs (no hashing)", "dfs", true},
	{"dfs", "dfs", false},
	{"dpor", "dpor", false},
	{"random", "random", false},
	{"pct", "pct", false},
	{"delay", "delay", false},
}

// row is one configuration: a system with parameters (DS2's harness).
type row struct {
	system, harness string
	params          map[string]string
}

var rows = []row{
	{"register", "correct, 2R+1W", map[string]string{"variant": "correct"}},
	{"register", "buggy (no write-back), 2R+1W", map[string]string{"variant": "buggy"}},
	{"register", "noquorum, 2R+1W", map[string]string{"variant": "noquorum"}},
	{"register", "correct, 2R+2W", map[string]string{"variant": "correct", "writes": "2"}},
	{"register", "buggy (no write-back), 2R+2W", map[string]string{"variant": "buggy", "writes": "2"}},
	{"kvmap", "buggy (stale reads), 2R+1W", map[string]string{"fixed": "false"}},
	{"kvmap", "fixed (read index), 2R+1W", map[string]string{"fixed": "true"}},
	{"kvmap", "buggy, 1R+2W on 2 keys", map[string]string{"fixed": "false", "reads": "1", "writes": "2", "keys": "2"}},
}

func main() {
	maxPaths := pflag.Int64("max-paths", 50000, "cutoff: schedules per configuration and strategy (DS2: 50,000)")
	depth := pflag.Int("depth", 60, "depth bound of every search (one round; every execution of these harnesses ends sooner)")
	seed := pflag.Uint64("seed", 1, "random seed")
	pflag.Parse()
	fmt.Println("Each cell: schedules explored / distinct histories / non-linearizable histories / path of the first (- none) / time.")
	fmt.Printf("Depth %d, one round; cutoff %d schedules (a count ending in + hit it).\n\n", *depth, *maxPaths)
	var head, rule []string
	head = append(head, "system", "variant, harness")
	for _, c := range columns {
		head = append(head, c.title)
	}
	for range head {
		rule = append(rule, "---")
	}
	fmt.Println("| " + strings.Join(head, " | ") + " |")
	fmt.Println("| " + strings.Join(rule, " | ") + " |")
	for _, r := range rows {
		sys, err := sim.Lookup(r.system)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		cells := []string{r.system, r.harness}
		for _, c := range columns {
			if _, err := explore.Lookup(c.strategy); err != nil {
				cells = append(cells, "-")
				continue
			}
			opts := search.Options{Params: r.params, Strategy: c.strategy, NoHashing: c.noHashing, Depth: *depth, DepthStep: *depth,
				MaxPaths: *maxPaths, MaxViolations: search.MaxViolationsBound, Seed: *seed, NoCritical: true}
			start := time.Now()
			rep, err := search.Run(context.Background(), sys, opts)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s %v %s: %v\n", r.system, r.params, c.title, err)
				os.Exit(1)
			}
			cells = append(cells, cell(rep, *maxPaths, time.Since(start)))
		}
		fmt.Println("| " + strings.Join(cells, " | ") + " |")
	}
}

// cell formats one search's figures.
func cell(rep *search.Report, maxPaths int64, took time.Duration) string {
	st := rep.Stats
	paths := fmt.Sprintf("%d", st.Paths)
	if st.Stop == explore.StopPaths || st.Paths >= maxPaths {
		paths += "+"
	}
	first := "-"
	for _, f := range rep.Findings {
		if f.Kind == search.KindLinearizability {
			first = fmt.Sprintf("%d", f.Path+1)
			break
		}
	}
	var uh, nl int64
	if rep.Lin != nil {
		uh, nl = rep.Lin.Distinct, rep.Lin.Illegal
	}
	return fmt.Sprintf("%s / %d / %d / %s / %.1fs", paths, uh, nl, first, took.Seconds())
}

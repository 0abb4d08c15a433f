package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
)

// strategy is one column: a strategy and its options.
type strategy struct {
	name, label string
	params      map[string]string
}

var strategies = []strategy{
	{"dfs", "dfs", nil},
	{"walk", "walk", nil},
	{"random", "random", nil},
	{"pct", "pct d=3", nil},
	{"delay", "delay rr", map[string]string{"base": "rr"}},
	{"delay", "delay rr-event", map[string]string{"base": "rr-event"}},
	{"delay", "delay rtc", map[string]string{"base": "rtc"}},
}

func main() {
	seeds := pflag.Int("seeds", 20, "seeds per system and strategy")
	budget := pflag.Duration("time", 30*time.Second, "time budget per search")
	maxPaths := pflag.Int64("max-paths", 20000, "path budget per search")
	walkDepth := pflag.Int("walk-depth", 0, "d_max (0: the default)")
	markdown := pflag.Bool("markdown", false, "print a Markdown table")
	only := pflag.StringArray("strategy", nil, "run only this strategy (a name, e.g. delay, or a column, e.g. \"delay rtc\"; repeatable)")
	pflag.Parse()
	columns := strategies
	if len(*only) > 0 {
		columns = nil
		for _, st := range strategies {
			if slices.Contains(*only, st.name) || slices.Contains(*only, st.label) {
				columns = append(columns, st)
			}
		}
		if len(columns) == 0 {
			fmt.Fprintf(os.Stderr, "no strategy matches %q\n", *only)
			os.Exit(2)
		}
	}
	systems := pflag.Args()
	if len(systems) == 0 {
		systems = []string{"transport", "randtree", "chord", "pastry", "storage", "failuredetector", "scheduler", "philosophers", "proposers"}
	}
	out := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	row := func(cells ...string) {
		if *markdown {
			fmt.Fprintf(os.Stdout, "| %s |\n", strings.Join(cells, " | "))
			return
		}
		fmt.Fprintln(out, strings.Join(cells, "\t"))
	}
	row("system", "strategy", "found", "schedules", "states", "time (s)", "kind")
	if *markdown {
		row("---", "---", "---:", "---:", "---:", "---:", "---")
	}
	for _, name := range systems {
		sys, err := sim.Lookup(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, st := range columns {
			var paths, states []int64
			var secs []float64
			kinds := map[string]int{}
			timedOut := 0 // seeds whose search hit the time budget before the path budget
			for seed := 1; seed <= *seeds; seed++ {
				o := search.Options{Strategy: st.name, StrategyParams: st.params, Seed: uint64(seed), Time: *budget, MaxPaths: *maxPaths,
					WalkDepth: *walkDepth, NoCritical: true}
				if name == "proposers" {
					// The ballots grow: only partial states repeat.
					o.Lasso.Partial = true
				}
				r, err := search.Run(context.Background(), sys, o)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s %s seed %d: %v\n", name, st.label, seed, err)
					os.Exit(2)
				}
				f := r.First()
				if f == nil {
					if r.Stats.Stop == explore.StopTime {
						timedOut++
					}
					continue
				}
				kinds[f.Kind.String()]++
				paths = append(paths, r.Stats.Paths)
				var n int64
				if g := r.Stats.Graph; g != nil {
					n = int64(g.States)
				}
				states = append(states, n)
				secs = append(secs, r.SearchTime.Seconds())
			}
			found := fmt.Sprintf("%d/%d", len(paths), *seeds)
			if timedOut > 0 {
				// Machine-dependent: on a faster or idler machine these
				// seeds search further.
				found += fmt.Sprintf(" (%d timed out)", timedOut)
			}
			if len(paths) == 0 {
				row(name, st.label, found, "-", "-", "-", "-")
				continue
			}
			row(name, st.label, found, fmt.Sprint(median(paths)), fmt.Sprint(median(states)), fmt.Sprintf("%.2f", median(secs)), kindText(kinds))
		}
		fmt.Fprintf(os.Stderr, "%s done\n", name)
	}
	out.Flush()
}

func median[T int64 | float64](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func kindText(kinds map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range kinds {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	return strings.Join(parts, ", ")
}

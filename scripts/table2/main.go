package main

import (
	"context"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/search"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
)

func main() {
	budget := pflag.Duration("time", time.Minute, "time budget per search")
	maxPaths := pflag.Int64("max-paths", 20000, "path budget per search")
	seed := pflag.Uint64("seed", 1, "random seed")
	walkDepth := pflag.Int("walk-depth", 0, "d_max (0: the default)")
	pflag.Parse()
	systems := pflag.Args()
	if len(systems) == 0 {
		systems = []string{"transport", "randtree", "chord", "pastry"}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "system\tvariant\tproperties\tverdict\tproperty\tcritical\tevent\tpaths\ttransitions\tfind (s)\tcritical (s)")
	code := 0
	for _, name := range systems {
		sys, err := sim.Lookup(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		cfg, _, err := sys.Config(nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var liveness []string
		for _, p := range cfg.Liveness {
			liveness = append(liveness, p.Name)
		}
		// The buggy variant checked for liveness alone (the paper's
		// liveness search), then with every property (which safety
		// property, if any, catches the bug first), then the fix. A
		// system without liveness properties has no liveness row: no
		// properties selected means all of them.
		type row struct {
			variant, props string
			opts           search.Options
		}
		var rows []row
		if len(liveness) > 0 {
			rows = append(rows, row{"buggy", "liveness", search.Options{Properties: liveness}})
		}
		rows = append(rows, row{"buggy", "all", search.Options{}}, row{"fixed", "all", search.Options{Params: map[string]string{"fixed": "true"}}})
		for _, row := range rows {
			o := row.opts
			o.Time, o.MaxPaths, o.Seed, o.WalkDepth = *budget, *maxPaths, *seed, *walkDepth
			r, err := search.Run(context.Background(), sys, o)
			if err != nil {
				fmt.Fprintf(tw, "%s\t%s\t%s\terror: %v\t\t\t\t\t\t\t\n", name, row.variant, row.props, err)
				code = 2
				continue
			}
			prop, crit, event, critS := "-", "-", "-", "-"
			if f := r.First(); f != nil {
				prop = f.Property
				if c := f.Critical; c != nil && c.Step >= 0 {
					crit = fmt.Sprintf("%d (%s)", c.Step, c.Condition)
					event = c.Event
					if len(event) > 60 {
						event = event[:57] + "..."
					}
					critS = fmt.Sprintf("%.2f", c.Elapsed.Seconds())
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.2f\t%s\n", name, row.variant, row.props, r.Verdict, prop, crit, event,
				r.Stats.Paths, r.Stats.Transitions, r.SearchTime.Seconds(), critS)
		}
	}
	tw.Flush()
	os.Exit(code)
}

// Command table2 prints a table like seed 003's Table 2 for macemc's
// example systems: for each system and variant (buggy, fixed), the verdict,
// the property, the critical step and event, paths, transitions, the time
// to find the violation and the time of the critical-transition search.
// It runs the real `macemc search` command line (cmd/cli) in process.
//
// Usage:
//
//	go run ./scripts/table2 [--time 60s] [--walk-depth N] [--seed S] [SYSTEM...]
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
)

func main() {
	budget := pflag.String("time", "60s", "time budget per search")
	maxPaths := pflag.String("max-paths", "20000", "path budget per search")
	seed := pflag.String("seed", "1", "random seed")
	extra := pflag.StringArray("flag", nil, "extra flag for every search, e.g. --flag=--walk-depth=5000")
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
			liveness = append(liveness, "--property", p.Name)
		}
		// The buggy variant checked for liveness alone (the paper's
		// liveness search), then with every property (which safety
		// property, if any, catches the bug first), then the fix.
		for _, row := range []struct {
			variant, props string
			args           []string
		}{
			{"buggy", "liveness", liveness},
			{"buggy", "all", nil},
			{"fixed", "all", []string{"--param", "fixed=true"}},
		} {
			out, err := os.MkdirTemp("", "macemc-table2-")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			args := []string{"search", "--system", name, "--json", "--out", out, "--time", *budget, "--max-paths", *maxPaths, "--seed", *seed}
			args = append(append(args, row.args...), *extra...)
			var stdout, stderr bytes.Buffer
			app := &cli.App{Name: "macemc", Stdout: &stdout, Stderr: &stderr}
			rc := app.Run(args)
			os.RemoveAll(out)
			if rc == cli.ExitUsage {
				fmt.Fprintf(tw, "%s\t%s\t%s\terror: %s\t\t\t\t\t\t\t\n", name, row.variant, row.props, strings.TrimSpace(stderr.String()))
				code = 2
				continue
			}
			var r cli.Report
			if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
				fmt.Fprintf(tw, "%s\t%s\t%s\tbad report: %v\t\t\t\t\t\t\t\n", name, row.variant, row.props, err)
				code = 2
				continue
			}
			crit, event, critS := "-", "-", "-"
			if r.Critical != nil {
				crit = fmt.Sprintf("%d (%s)", r.Critical.Step, r.Critical.Condition)
				event = r.Critical.Event
				if len(event) > 60 {
					event = event[:57] + "..."
				}
				critS = fmt.Sprintf("%.2f", r.Critical.ElapsedS)
			}
			prop := r.Property
			if prop == "" {
				prop = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.2f\t%s\n", name, row.variant, row.props, r.Verdict, prop, crit, event, r.Paths, r.Transitions, r.SearchS, critS)
		}
	}
	tw.Flush()
	os.Exit(code)
}

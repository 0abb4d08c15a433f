package search_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/macemc/macemc/search"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
	_ "github.com/macemc/macemc/sim/simtest"
	_ "github.com/macemc/macemc/walks/lasso/lassotest"
)

// TestScenarios runs the searches of testdata/scenarios/*.txt: each directive
//
//	search system=NAME [param=(k=v, ...)] [strategy-param=(k=v, ...)] [seed=N] [OPTION=VALUE | FLAG ...]
//
// (options named as the command line's flags, see setters) runs
// search.Run with one worker and again with two, requires the same report
// and the same trace and log bytes from both, and prints the report
// (render). go test ./search -rewrite regenerates the files.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata/scenarios", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd != "search" {
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			sys, opts := scenario(t, td)
			var outs [2]string
			var files [2]map[string][]byte
			for i, workers := range []int{1, 2} {
				o := opts
				o.Workers, o.Out = workers, t.TempDir()
				if o.Command == "" {
					// The test binary registers the simtest systems, as a
					// user's binary built on cli.Main would.
					o.Command = "macemc"
				}
				rep, err := search.Run(context.Background(), sys, o)
				outs[i], files[i] = render(t, rep, err), results(t, o.Out)
			}
			if outs[0] != outs[1] {
				t.Fatalf("%s: the report depends on the workers:\n--- 1 worker:\n%s--- 2 workers:\n%s", td.Pos, outs[0], outs[1])
			}
			for name, b := range files[0] {
				if !bytes.Equal(b, files[1][name]) {
					t.Errorf("%s: %s differs between 1 and 2 workers", td.Pos, name)
				}
			}
			return outs[0]
		})
	})
}

// setters map a directive's arguments to Options, by flag name.
var setters = map[string]func(o *search.Options, v string) error{
	"seed":           func(o *search.Options, v string) (err error) { o.Seed, err = strconv.ParseUint(v, 10, 64); return },
	"depth":          func(o *search.Options, v string) (err error) { o.Depth, err = strconv.Atoi(v); return },
	"depth-step":     func(o *search.Options, v string) (err error) { o.DepthStep, err = strconv.Atoi(v); return },
	"walk-depth":     func(o *search.Options, v string) (err error) { o.WalkDepth, err = strconv.Atoi(v); return },
	"walks":          func(o *search.Options, v string) (err error) { o.Walks, err = strconv.Atoi(v); return },
	"max-paths":      func(o *search.Options, v string) (err error) { o.MaxPaths, err = strconv.ParseInt(v, 10, 64); return },
	"max-violations": func(o *search.Options, v string) (err error) { o.MaxViolations, err = strconv.Atoi(v); return },
	"max-states":     func(o *search.Options, v string) (err error) { o.MaxStates, err = strconv.Atoi(v); return },
	"minimize-tests": func(o *search.Options, v string) (err error) { o.MinimizeTests, err = strconv.Atoi(v); return },
	"strategy":       func(o *search.Options, v string) error { o.Strategy = v; return nil },
	"temperature":    func(o *search.Options, v string) (err error) { o.Lasso.Temperature, err = strconv.Atoi(v); return },
	"prefix-steps":   func(o *search.Options, v string) (err error) { o.PrefixSteps, err = strconv.Atoi(v); return },
	"handler-timeout": func(o *search.Options, v string) (err error) {
		o.HandlerTimeout, err = time.ParseDuration(v)
		return
	},
	"lasso":         func(o *search.Options, _ string) error { o.Lasso.On = true; return nil },
	"node-fairness": func(o *search.Options, _ string) error { o.Lasso.NodeFairness = true; return nil },
	"partial-hash":  func(o *search.Options, _ string) error { o.Lasso.Partial = true; return nil },
	"no-critical":   func(o *search.Options, _ string) error { o.NoCritical = true; return nil },
	"no-hashing":    func(o *search.Options, _ string) error { o.NoHashing = true; return nil },
	"walk-failures": func(o *search.Options, _ string) error { o.WalkFailures = true; return nil },
	"no-confirm":    func(o *search.Options, _ string) error { o.NoConfirm = true; return nil },
	"minimize":      func(o *search.Options, _ string) error { o.Minimize = true; return nil },
	"confirm-budget": func(o *search.Options, v string) (err error) {
		o.ConfirmBudget, err = strconv.ParseInt(v, 10, 64)
		return
	},
}

// scenario reads a search directive's system and options.
func scenario(t *testing.T, td *datadriven.TestData) (*sim.System, search.Options) {
	var name string
	var opts search.Options
	for _, arg := range td.CmdArgs {
		switch arg.Key {
		case "system":
			name = arg.SingleVal(t)
		case "param", "strategy-param":
			m := map[string]string{}
			for _, kv := range arg.Vals {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					td.Fatalf(t, "%s %q is not k=v", arg.Key, kv)
				}
				m[k] = v
			}
			if arg.Key == "param" {
				opts.Params = m
			} else {
				opts.StrategyParams = m
			}
		case "properties":
			opts.Properties = arg.Vals
		default:
			set, ok := setters[arg.Key]
			if !ok {
				td.Fatalf(t, "unknown argument %q", arg.Key)
			}
			v := ""
			if len(arg.Vals) > 0 {
				v = arg.Vals[0]
			}
			if err := set(&opts, v); err != nil {
				td.Fatalf(t, "%s: %v", arg.Key, err)
			}
		}
	}
	sys, err := sim.Lookup(name)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	return sys, opts
}

// render is the report as a scenario file shows it: the typed verdict and
// findings, then the report's deterministic text (Report.WriteSummary).
func render(t *testing.T, rep *search.Report, err error) string {
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	if rep == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "verdict: %s", rep.Verdict)
	if rep.Incomplete {
		b.WriteString(" (incomplete)")
	}
	b.WriteString("\n")
	for i := range rep.Findings {
		f := &rep.Findings[i]
		fmt.Fprintf(&b, "finding %d: %s, %s, property %q, outcome %s, %d steps (path %d, %d steps)\n",
			i+1, f.Kind, f.Certainty, f.Property, f.Outcome, f.Steps, f.Path, f.PathSteps)
		if c := f.Critical; c != nil {
			fmt.Fprintf(&b, "  critical: step %d, %s, node %d, %s %s\n", c.Step, c.Condition, c.Node, c.Kind, c.Message)
		}
		if l := f.Lasso; l != nil {
			fmt.Fprintf(&b, "  lasso: stem %d, cycle %v, %s hashing, proof %v, source %s\n", l.Stem, l.Cycle(), l.Hash, l.Proof, l.Source)
		}
		if tp := f.Temperature; tp != nil {
			fmt.Fprintf(&b, "  temperature: alarm at step %d, live at %d, %s\n", tp.AlarmStep, tp.LiveAt, tp.Verdict)
		}
	}
	b.WriteString("--\n")
	if err := rep.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// results reads the traces and logs a run wrote into dir.
func results(t *testing.T, dir string) map[string][]byte {
	out := map[string][]byte{}
	for _, pat := range []string{"*.trace", "*.log"} {
		names, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, n := range names {
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(n)] = b
		}
	}
	return out
}

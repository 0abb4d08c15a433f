package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim/trace"
)

// replay replays a trace with full logging and says whether the recorded
// violation reproduces.
func (a *App) replay(args []string) (int, error) {
	fs := a.newFlags("replay", "--trace FILE [--log FILE] [--steps N] [--json]")
	path := fs.String("trace", "", "trace file to replay")
	logPath := fs.String("log", "", "write the full log here (default: stdout, unless --json)")
	steps := fs.Int("steps", -1, "replay only this many steps")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout (a usage or input error, exit 2, prints nothing there: its message is on stderr)")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	if *path == "" {
		return ExitUsage, usagef("--trace is required")
	}
	t, err := trace.Read(*path)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	if *steps < -1 || *steps > t.Steps {
		return ExitUsage, usagef("--steps %d: allowed -1 (the whole trace) or 0 to %d (the trace's steps)", *steps, t.Steps)
	}
	then, stopped := "no log is written", "no log was written (a log written there before is kept)"
	if *logPath == "" && !*asJSON {
		then, stopped = "the log on standard output ends where it stops", "the log above ends where it stopped"
	}
	ctx, stop := a.signalsSaying(then)
	defer stop()
	var r *search.Replayed
	switch {
	case *logPath != "":
		r, err = search.ReplayLogContext(ctx, t, *steps, *logPath)
	case *asJSON:
		r, err = search.ReplayContext(ctx, t, *steps, nil)
	default:
		r, err = search.ReplayContext(ctx, t, *steps, search.CancelWriter(ctx, a.Stdout))
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if errors.Is(err, context.Canceled) {
		return ExitUsage, fmt.Errorf("interrupted: the replay stopped; %s", stopped)
	}
	if err != nil {
		return ExitUsage, usageError{fmt.Errorf("%s: %w", *path, withoutSearchPrefix(err))}
	}
	w := a.Stdout
	if *logPath == "" && !*asJSON {
		w = a.Stderr
	}
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = r.WriteText(w, *path, *logPath)
	}
	if err != nil {
		return ExitUsage, err
	}
	switch {
	case r.Reproduced:
		return ExitViolation, nil
	case r.Diverged != nil:
		// The trace does not describe what this binary runs.
		return ExitUsage, nil
	}
	return ExitNone, nil
}

// critical re-runs the critical-transition search on a saved trace.
func (a *App) critical(args []string) (int, error) {
	fs := a.newFlags("critical", "--trace FILE [--walks K] [--walk-depth D] [--confirm-budget T] [--seed S] [--workers N] [--time D] [--out DIR] [--json]")
	path := fs.String("trace", "", "trace of a liveness violation (error.trace) or a minimized doomed path (min.trace)")
	o := search.CriticalOptions{Command: a.Name}
	fs.IntVar(&o.Walks, "walks", search.DefaultWalks, "k: random walks per probe")
	fs.IntVar(&o.WalkDepth, "walk-depth", 0, "d_max (default: the trace's)")
	seed := fs.Uint64("seed", 0, "random seed (default: the trace's)")
	fs.IntVar(&o.Workers, "workers", 0, "parallel workers (0: all cores)")
	fs.Int64Var(&o.ConfirmBudget, "confirm-budget", 0, "transitions each confirmation sample of the critical transition may take (0: 60 walks of d_max); its walks are bounded too, to ten per d_max of it (at least 600, at most 10000)")
	fs.DurationVar(&o.Time, "time", 0, "time budget of the search (e.g. 30s, 5m; 0: none); when it runs out, how far the probes had narrowed the critical transition is printed and no file is written")
	fs.StringVar(&o.Out, "out", "", "write live.trace, live.log and critical.json here (refined-live.trace, refined-live.log and refined-critical.json beside a search's report.json; min-live.* and min-critical.json for a min.trace) (default: beside the trace)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout (a usage or input error, exit 2, prints nothing there: its message is on stderr)")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	switch {
	case *path == "":
		return ExitUsage, usagef("--trace is required")
	case o.Walks < 1 || o.Walks > search.MaxWalks:
		return ExitUsage, usagef("--walks %d: allowed 1 to %d", o.Walks, search.MaxWalks)
	case o.WalkDepth < 0 || o.WalkDepth > search.MaxWalkDepth:
		return ExitUsage, usagef("--walk-depth %d: allowed 0 (the trace's) to %d", o.WalkDepth, search.MaxWalkDepth)
	case o.Workers < 0 || o.Workers > search.MaxWorkers:
		return ExitUsage, usagef("--workers %d: allowed 0 (all cores) to %d", o.Workers, search.MaxWorkers)
	case o.ConfirmBudget < 0:
		return ExitUsage, usagef("--confirm-budget %d: allowed 0 (60 walks of d_max) to %d", o.ConfirmBudget, int64(1<<63-1))
	case o.Time < 0:
		return ExitUsage, usagef("--time %v: allowed %s", o.Time, allowed("time"))
	}
	if fs.Changed("seed") {
		o.Seed = seed
	}
	if err := checkOutDir("--out", o.Out); err != nil {
		return ExitUsage, err
	}
	t, err := trace.Read(*path)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	if o.Out == "" {
		o.Out = filepath.Dir(*path)
	}
	o.TracePath = *path
	ctx, stop := a.signals()
	defer stop()
	prog := &progress{w: a.Stderr, on: a.Terminal && !*asJSON}
	o.Progress = func(p critical.Probe) { prog.line("probe at step %d recovers=%v", p.Step, p.Recovers) }
	r, err := search.RefineCritical(ctx, t, o)
	prog.clear()
	if err != nil {
		return ExitUsage, usageError{withoutSearchPrefix(err)}
	}
	if *asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return ExitViolation, enc.Encode(r)
	}
	c := r.Critical
	if o.WalkDepth > 0 && c.WalkDepth > o.WalkDepth {
		// Algorithm 3 judges the path's own steps: a shorter d_max
		// could not.
		fmt.Fprintf(a.Stderr, "%s critical: note: --walk-depth %d is too short for the trace's %d steps: the search used d_max = %d\n", a.Name, o.WalkDepth, t.Steps, c.WalkDepth)
	}
	if c.Interrupted {
		// Its explanation is the headline: what stopped the search and
		// how far its probes had got.
		fmt.Fprintln(a.Stdout, c.Explain)
	} else {
		fmt.Fprintln(a.Stdout, c.Headline())
		fmt.Fprintf(a.Stdout, "  %s\n", strings.ReplaceAll(strings.TrimSpace(c.Explain), "\n", "\n  "))
	}
	for _, key := range []search.FileRole{search.FileCritical, search.FileLiveLog, search.FileLiveTrace} {
		if p, ok := r.Files[key]; ok {
			fmt.Fprintf(a.Stdout, "  %-12s %s\n", key, p)
		}
	}
	if c.Interrupted {
		why := "the search was interrupted"
		if ctx.Err() == nil {
			why = fmt.Sprintf("the search stopped at its time budget (--time %v)", o.Time)
		}
		fmt.Fprintf(a.Stdout, "  no file written: %s (an answer written to %s before is kept)\n", why, o.Out)
	}
	return ExitViolation, nil
}

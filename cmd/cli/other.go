package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// replay replays a trace with full logging and says whether the recorded
// violation reproduces.
func (a *App) replay(args []string) (int, error) {
	fs := a.newFlags("replay", "--trace FILE [--log FILE] [--steps N] [--json]")
	path := fs.String("trace", "", "trace file to replay")
	logPath := fs.String("log", "", "write the full log here (default: stdout, unless --json)")
	steps := fs.Int("steps", -1, "replay only this many steps")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
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
	var logOut io.Writer = a.Stdout
	var buf strings.Builder
	if *logPath != "" || *asJSON {
		logOut = &buf
	}
	s, err := t.Replay(*steps, sim.NewLogger(logOut))
	if err != nil {
		return ExitUsage, usageError{fmt.Errorf("%s: %w", *path, err)}
	}
	if *logPath != "" {
		if err := trace.WriteAtomic(*logPath, func(w io.Writer) error { _, err := io.WriteString(w, buf.String()); return err }); err != nil {
			return ExitUsage, err
		}
	}
	cfg := s.Config()
	type propState struct {
		Name  string `json:"name"`
		Kind  string `json:"kind"`
		Holds bool   `json:"holds"`
	}
	var props []propState
	for _, group := range []struct {
		kind string
		ps   []sim.Property
	}{{"safety", cfg.Safety}, {"liveness", cfg.Liveness}} {
		for i := range group.ps {
			ok, _ := s.Holds(&group.ps[i])
			props = append(props, propState{group.ps[i].Name, group.kind, ok})
		}
	}
	reproduced := false
	for _, p := range props {
		if p.Name == t.Property && !p.Holds {
			reproduced = true
		}
	}
	if t.Property == walks.PanicProperty || t.Property == "handler did not return" {
		reproduced = true // the replay itself stopped at the failing handler
	}
	out := map[string]any{"system": t.System, "params": t.Params, "kind": t.Kind, "property": t.Property, "steps": s.Steps(),
		"critical": t.Critical, "condition": t.Condition, "properties": props, "reproduced": reproduced}
	if *asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return ExitUsage, err
		}
	} else {
		w := a.Stdout
		if *logPath == "" {
			w = a.Stderr
		}
		fmt.Fprintf(w, "replayed %s: system %s %s, %d steps (%s)\n", *path, t.System, sim.Params(t.Params).Canonical(), s.Steps(), t.Kind)
		for _, p := range props {
			fmt.Fprintf(w, "  %-8s %-20s holds=%v\n", p.Kind, p.Name, p.Holds)
		}
		if t.Critical >= 0 && t.Condition != "" {
			fmt.Fprintf(w, "critical transition: step %d (%s)\n", t.Critical, t.Condition)
		}
		if *logPath != "" {
			fmt.Fprintf(w, "log: %s\n", *logPath)
		}
	}
	if reproduced && t.Kind != "live" {
		return ExitViolation, nil
	}
	return ExitNone, nil
}

// critical re-runs the critical-transition search on a saved trace.
func (a *App) critical(args []string) (int, error) {
	fs := a.newFlags("critical", "--trace FILE [--walks K] [--walk-depth D] [--seed S] [--workers N] [--out DIR] [--json]")
	path := fs.String("trace", "", "trace of a liveness violation (error.trace)")
	k := fs.Int("walks", critical.DefaultWalks, "k: random walks per probe")
	dmax := fs.Int("walk-depth", 0, "d_max (default: the trace's)")
	seed := fs.Uint64("seed", 0, "random seed (default: the trace's)")
	workers := fs.Int("workers", 0, "parallel workers (0: all cores)")
	out := fs.String("out", "", "write live.trace, live.log and critical.json here (default: beside the trace)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	if *path == "" {
		return ExitUsage, usagef("--trace is required")
	}
	if *k <= 0 || *dmax < 0 || *workers < 0 {
		return ExitUsage, usagef("--walks must be positive; --walk-depth and --workers not negative")
	}
	t, err := trace.Read(*path)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	if t.Kind != "liveness" {
		return ExitUsage, usagef("%s records a %q path, not a liveness violation", *path, t.Kind)
	}
	cfg, err := t.Config()
	if err != nil {
		return ExitUsage, usageError{err}
	}
	if *dmax == 0 {
		*dmax = t.WalkDepth
	}
	// The dead path itself is d_max long; a shorter d_max could not judge it.
	*dmax = max(*dmax, t.Steps)
	if !fs.Changed("seed") {
		*seed = t.Seed
	}
	if *out == "" {
		*out = filepath.Dir(*path)
	}
	if err := ensureDir(*out); err != nil {
		return ExitUsage, err
	}
	prog := &progress{w: a.Stderr, on: a.Terminal && !*asJSON}
	cr, err := critical.Find(context.Background(), critical.Config{Sim: cfg, Options: t.Options(), Choices: t.Choices, Steps: t.Steps, DInit: t.Depth,
		WalkDepth: *dmax, Walks: *k, Seed: *seed, Workers: *workers,
		Progress: func(p critical.Probe) { prog.line("probe at step %d recovers=%v", p.Step, p.Recovers) }})
	prog.clear()
	if err != nil {
		if errors.Is(err, critical.ErrNotDead) {
			return ExitUsage, usageError{err}
		}
		return ExitUsage, err
	}
	rep := criticalReport(&cr, *k, *dmax)
	files := map[string]string{}
	if cr.Live != nil {
		lt := *t
		lt.Kind, lt.Choices, lt.Steps, lt.Shared, lt.Critical, lt.Condition = "live", cr.Live.Choices, cr.Live.Steps, cr.Live.Shared, cr.Step, cr.Condition.String()
		tp, lp := outPath(*out, "live.trace"), outPath(*out, "live.log")
		if err := lt.Write(tp); err != nil {
			return ExitUsage, err
		}
		if err := writeLog(&lt, lp); err != nil {
			return ExitUsage, err
		}
		files["live_trace"], files["live_log"] = tp, lp
	}
	jp := outPath(*out, "critical.json")
	files["critical"] = jp
	doc := map[string]any{"trace": *path, "critical": rep, "files": files}
	if err := writeJSON(jp, doc); err != nil {
		return ExitUsage, err
	}
	if *asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return ExitViolation, enc.Encode(doc)
	}
	fmt.Fprintf(a.Stdout, "critical transition: step %d, %s (condition %s, k=%d, d_max=%d, %d probes, %.2fs)\n", rep.Step, rep.Event, rep.Condition, *k, *dmax, rep.Probes, rep.ElapsedS)
	fmt.Fprintf(a.Stdout, "  %s\n", strings.ReplaceAll(strings.TrimSpace(rep.Explain), "\n", "\n  "))
	for _, key := range sortedKeys(files) {
		fmt.Fprintf(a.Stdout, "  %-12s %s\n", key, files[key])
	}
	return ExitViolation, nil
}

// tune samples steps to the first live state and suggests d_max.
func (a *App) tune(args []string) (int, error) {
	fs := a.newFlags("tune", "--system NAME [--param K=V]... [--depth D] [--samples N] [--walk-depth D] [--svg FILE] [--json]")
	name := fs.String("system", "", "system to sample")
	params := fs.StringArray("param", nil, "system parameter NAME=VALUE (repeatable)")
	props := fs.StringArray("property", nil, "liveness properties that define a live state (default: all)")
	depth := fs.Int("depth", 15, "periphery depth: random steps with failures before the walk (the paper's Figure 2 uses 15)")
	samples := fs.Int("samples", 1000, "number of walks")
	dmax := fs.Int("walk-depth", 20000, "longest walk")
	seed := fs.Uint64("seed", 1, "random seed")
	workers := fs.Int("workers", 0, "parallel workers (0: all cores)")
	svg := fs.String("svg", "", "write the distribution as an SVG plot")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	if *depth < 0 || *samples <= 0 || *dmax <= 0 || *workers < 0 {
		return ExitUsage, usagef("--samples and --walk-depth must be positive, --depth and --workers not negative")
	}
	_, cfg, p, err := system(*name, *params, *props)
	if err != nil {
		return ExitUsage, err
	}
	res, err := walks.Tune(walks.TuneConfig{System: cfg, Depth: *depth, Samples: *samples, MaxSteps: *dmax, Seed: *seed, Workers: *workers})
	if err != nil {
		return ExitUsage, usageError{err}
	}
	pcts := []float64{10, 25, 50, 75, 90, 95, 99, 100}
	table := map[string]int{}
	for _, pc := range pcts {
		table[fmt.Sprintf("p%g", pc)] = res.Percentile(pc)
	}
	if *svg != "" {
		title := fmt.Sprintf("%s %s: steps to live", *name, p.Canonical())
		if err := trace.WriteAtomic(*svg, func(w io.Writer) error { _, err := w.Write(res.SVG(title)); return err }); err != nil {
			return ExitUsage, err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return ExitNone, enc.Encode(map[string]any{"system": *name, "params": p, "samples": res.Samples, "live": len(res.Steps),
			"unsafe": res.Unsafe, "depth": *depth, "walk_depth": *dmax, "percentiles": table, "suggested_walk_depth": res.Suggest(), "svg": *svg})
	}
	fmt.Fprintf(a.Stdout, "%s %s: %d walks from depth %d, %d reached a live state within %d steps", *name, p.Canonical(), res.Samples, *depth, len(res.Steps), *dmax)
	if res.Unsafe > 0 {
		fmt.Fprintf(a.Stdout, " (%d broke a safety property)", res.Unsafe)
	}
	fmt.Fprintln(a.Stdout)
	fmt.Fprintln(a.Stdout, "percentile  steps to live")
	for _, pc := range pcts {
		v := res.Percentile(pc)
		if v < 0 {
			fmt.Fprintf(a.Stdout, "  p%-8g  never (within %d)\n", pc, *dmax)
		} else {
			fmt.Fprintf(a.Stdout, "  p%-8g  %d\n", pc, v)
		}
	}
	if s := res.Suggest(); s > 0 {
		fmt.Fprintf(a.Stdout, "suggested --walk-depth %d (8x the slowest live sample, as the paper's 80,000 for 10,000)\n", s)
	}
	if len(res.Steps) < res.Samples {
		fmt.Fprintf(a.Stdout, "%d walks never turned live: a liveness bug, or raise --walk-depth and tune again\n", res.Samples-len(res.Steps))
	}
	if *svg != "" {
		fmt.Fprintf(a.Stdout, "plot: %s\n", *svg)
	}
	return ExitNone, nil
}

package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// tune samples steps to the first live state and suggests d_max.
func (a *App) tune(args []string) (int, error) {
	fs := a.newFlags("tune", "--system NAME [--param K=V]... [--depth D] [--samples N] [--walk-depth D] [--out DIR] [--html FILE] [--svg FILE] [--json]")
	name := fs.String("system", "", "system to sample")
	params := fs.StringArray("param", nil, "system parameter NAME=VALUE (repeatable)")
	props := fs.StringArray("property", nil, "liveness properties that define a live state (default: all)")
	var c walks.TuneConfig
	fs.IntVar(&c.Depth, "depth", 15, "periphery depth: random steps with failures before the walk (the paper's Figure 2 uses 15)")
	fs.IntVar(&c.Samples, "samples", 1000, "number of walks")
	fs.IntVar(&c.MaxSteps, "walk-depth", 20000, "longest walk")
	fs.Uint64Var(&c.Seed, "seed", 1, "random seed")
	fs.IntVar(&c.Workers, "workers", 0, "parallel workers (0: all cores)")
	out := fs.String("out", "macemc-out", "write the plot here as tune.html")
	page := fs.String("html", "", "write the plot as an HTML page here (default: DIR/tune.html; \"-\": none)")
	svg := fs.String("svg", "", "also write the plot as a standalone SVG file")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	switch {
	case c.Depth < 0 || c.Depth > 1<<20:
		return ExitUsage, usagef("--depth %d: allowed 0 to %d", c.Depth, 1<<20)
	case c.Samples < 1 || c.Samples > 10_000_000:
		return ExitUsage, usagef("--samples %d: allowed 1 to 10000000", c.Samples)
	case c.MaxSteps < 1 || c.MaxSteps > 10_000_000:
		return ExitUsage, usagef("--walk-depth %d: allowed 1 to 10000000", c.MaxSteps)
	case c.Workers < 0 || c.Workers > 1024:
		return ExitUsage, usagef("--workers %d: allowed 0 (all cores) to 1024", c.Workers)
	}
	sys, err := a.system(*name)
	if err != nil {
		return ExitUsage, err
	}
	given, err := parseParams(*params)
	if err != nil {
		return ExitUsage, err
	}
	cfg, p, err := sys.Config(given)
	if err == nil {
		err = cfg.Select(*props)
	}
	if err != nil {
		return ExitUsage, usageError{err}
	}
	c.System = cfg
	res, err := walks.Tune(c)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	pcts := walks.TunePercentiles
	title := fmt.Sprintf("%s %s: steps to live", *name, p.Canonical())
	if *svg != "" {
		if err := trace.WriteAtomic(*svg, func(w io.Writer) error { _, err := w.Write(res.SVG(title)); return err }); err != nil {
			return ExitUsage, err
		}
	}
	switch *page {
	case "-":
		*page = ""
	case "":
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return ExitUsage, usagef("output directory: %w", err)
		}
		*page = filepath.Join(*out, "tune.html")
	}
	if *page != "" {
		doc, err := res.HTML(title)
		if err != nil {
			return ExitUsage, err
		}
		if err := trace.WriteAtomic(*page, func(w io.Writer) error { _, err := w.Write(doc); return err }); err != nil {
			return ExitUsage, err
		}
	}
	if *asJSON {
		table := map[string]int{}
		for _, pc := range pcts {
			table[fmt.Sprintf("p%g", pc)] = res.Percentile(pc)
		}
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return ExitNone, enc.Encode(map[string]any{"system": *name, "params": p, "samples": res.Samples, "live": len(res.Steps),
			"unsafe": res.Unsafe, "depth": c.Depth, "walk_depth": c.MaxSteps, "percentiles": table, "suggested_walk_depth": res.Suggest(), "svg": *svg, "html": *page})
	}
	w := a.Stdout
	fmt.Fprintf(w, "%s %s: %d walks from depth %d, %d reached a live state within %d steps", *name, p.Canonical(), res.Samples, c.Depth, len(res.Steps), c.MaxSteps)
	if res.Unsafe > 0 {
		fmt.Fprintf(w, " (%d broke a safety property)", res.Unsafe)
	}
	fmt.Fprintln(w, "\npercentile  steps to live")
	for _, pc := range pcts {
		if v := res.Percentile(pc); v < 0 {
			fmt.Fprintf(w, "  p%-8g  never (within %d)\n", pc, c.MaxSteps)
		} else {
			fmt.Fprintf(w, "  p%-8g  %d\n", pc, v)
		}
	}
	if s := res.Suggest(); s > 0 {
		fmt.Fprintf(w, "suggested --walk-depth %d (8x the slowest live sample, as the paper's 80,000 for 10,000)\n", s)
	}
	if len(res.Steps) < res.Samples {
		fmt.Fprintf(w, "%d walks never turned live: a liveness bug, or raise --walk-depth and tune again\n", res.Samples-len(res.Steps))
	}
	for _, f := range []string{*page, *svg} {
		if f != "" {
			fmt.Fprintf(w, "plot: %s\n", f)
		}
	}
	return ExitNone, nil
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// tune samples steps to the first live state and suggests d_max; it exits
// 1 when a walk broke a safety property (res.Unsafe).
func (a *App) tune(args []string) (int, error) {
	fs := a.newFlags("tune", "--system NAME [--param K=V]... [--depth D] [--samples N] [--walk-depth D] [--out DIR] [--html FILE] [--svg FILE] [--json]")
	name := fs.String("system", "", "system to sample")
	params := fs.StringArray("param", nil, "system parameter NAME=VALUE (repeatable, or NAME=VALUE,NAME2=VALUE2; spaces around names and values are dropped)")
	props := fs.StringArray("property", nil, "liveness properties that define a live state (default: all)")
	var c walks.TuneConfig
	fs.IntVar(&c.Depth, "depth", 15, "periphery depth: random steps with failures before the walk (the paper's Figure 2 uses 15; 0: walks from the initial state)")
	fs.IntVar(&c.Samples, "samples", 1000, "number of walks")
	fs.IntVar(&c.MaxSteps, "walk-depth", 20000, "longest walk")
	fs.Uint64Var(&c.Seed, "seed", 1, "random seed")
	fs.IntVar(&c.Workers, "workers", 0, "parallel workers (0: all cores)")
	out := fs.String("out", "macemc-out", "write the plot here as tune.html")
	page := fs.String("html", "", "write the plot as an HTML page here (default: DIR/tune.html; \"-\": none)")
	svg := fs.String("svg", "", "also write the plot as a standalone SVG file")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout (a usage or input error, exit 2, prints nothing there: its message is on stderr)")
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
	if err := a.refuseEmptyProperty(sys, given, *props); err != nil {
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
	// The outputs are checked before the sampling, which can take minutes:
	// a path that cannot be written loses nothing then.
	switch *page {
	case "-":
		*page = ""
	case "":
		if *out == "" {
			return ExitUsage, usagef("--out \"\": allowed a directory for tune.html (default macemc-out), or give --html FILE")
		}
		if err := checkOutDir("--out", *out); err != nil {
			return ExitUsage, err
		}
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return ExitUsage, usagef("output directory: %w", err)
		}
		*page = filepath.Join(*out, "tune.html")
	}
	for _, f := range []struct{ flag, path string }{{"--svg", *svg}, {"--html", *page}} {
		if err := checkOutputFile(f.path); err != nil {
			return ExitUsage, usagef("%s: %w", f.flag, err)
		}
	}
	ctx, stop := a.signalsSaying("nothing is written")
	defer stop()
	c.Context = ctx
	res, err := walks.Tune(c)
	if errors.Is(err, context.Canceled) {
		return ExitUsage, fmt.Errorf("interrupted: nothing was written")
	}
	if err != nil {
		return ExitUsage, usageError{err}
	}
	title := fmt.Sprintf("%s %s: steps to live", safetext.QuoteUnsafe(*name), p.Text())
	if *svg != "" {
		if err := trace.WriteAtomic(*svg, func(w io.Writer) error { _, err := w.Write(res.SVG(title)); return err }); err != nil {
			return ExitUsage, err
		}
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
	// Walks that broke a safety property (or whose handler panicked or
	// hung) found a violation: exit 1, as a search that finds one does.
	code := ExitNone
	if res.Unsafe > 0 {
		code = ExitViolation
		cmd := []string{a.Name, "search", "--system", search.Quote(*name)}
		for _, kv := range *params {
			cmd = append(cmd, "--param", search.Quote(kv))
		}
		for _, prop := range *props {
			cmd = append(cmd, "--property", search.Quote(prop))
		}
		fmt.Fprintf(a.Stderr, "%s tune: a violation: %d of %d walks broke a safety property (or a handler panicked or hung); search for it to get a trace to replay: %s\n",
			a.Name, res.Unsafe, res.Samples, strings.Join(cmd, " "))
	}
	if *asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return code, enc.Encode(map[string]any{"system": *name, "params": p, "samples": res.Samples, "live": len(res.Steps),
			"unsafe": res.Unsafe, "depth": res.Depth, "walk_depth": res.MaxSteps, "percentiles": res.Percentiles(), "suggested_walk_depth": res.Suggest(), "svg": *svg, "html": *page})
	}
	return code, res.WriteText(a.Stdout, fmt.Sprintf("%s %s", safetext.QuoteUnsafe(*name), p.Text()), *page, *svg)
}

// checkOutputFile reports why a file cannot be written at path: its
// directory is missing, or the path holds something other than a regular
// file, or a trace (trace.CheckReplaceable, trace.CheckNotTrace). An empty
// path passes.
func checkOutputFile(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: its directory %s does not exist", path, filepath.Dir(path))
	}
	if err := trace.CheckReplaceable(path); err != nil {
		return err
	}
	return trace.CheckNotTrace(path)
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// runShard runs one shard of a search (search --shard I/N) and prints
// what it ran; exit 0 once its records are written.
func (a *App) runShard(ctx context.Context, sys *sim.System, o search.Options, shard string, asJSON bool, prog *progress) (int, error) {
	index, count, err := search.ParseShard(shard)
	if err == nil {
		var sum *search.ShardSummary
		sum, err = search.RunShard(ctx, sys, o, index, count)
		prog.clear()
		if err == nil {
			if asJSON {
				enc := json.NewEncoder(a.Stdout)
				enc.SetIndent("", "  ")
				return ExitNone, enc.Encode(sum)
			}
			return ExitNone, sum.WriteText(a.Stdout, a.Name)
		}
	}
	var oe *search.OptionError
	if errors.As(err, &oe) && oe.Flag != "" {
		return ExitUsage, usagef("--%s %v: allowed %s", oe.Flag, oe.Value, oe.Range)
	}
	return ExitUsage, usagef("%s", strings.TrimPrefix(err.Error(), "search: "))
}

// merge merges the shards of a search into its report (merge DIR...).
func (a *App) merge(args []string) (int, error) {
	fs := a.newFlags("merge", "DIR... [flags]")
	var mo search.MergeOptions
	var asJSON, exitZero bool
	var progressFlag, maxMemory string
	fs.StringVar(&mo.Out, "out", "macemc-out", "directory for traces, logs and report.json (a previous run's there are replaced)")
	fs.BoolVar(&exitZero, "exit-zero", false, "exit 0 when the report has a violation too, not 1 (a usage or input error still exits 2): for a job runner that counts exit 1 as a failed job; the verdict is in report.json")
	fs.IntVar(&mo.Workers, "workers", 0, "parallel workers for the paths the shards left out (0: all cores; the report does not depend on it)")
	fs.BoolVar(&asJSON, "json", false, "print the report as one JSON object on stdout (a usage or input error, exit 2, prints nothing there: its message is on stderr)")
	fs.StringVar(&maxMemory, "max-memory", "4GiB", "refuse a merge estimated to need more memory than this (none: no limit)")
	fs.StringVar(&progressFlag, "progress", "auto", "progress on stderr: auto, lines, none")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ExitNone, err
		}
		return ExitUsage, usageError{err}
	}
	if fs.NArg() == 0 {
		return ExitUsage, usagef("give the result directories of the shards (%s search --shard I/N --out DIR)", a.Name)
	}
	if mo.Out == "" {
		// As for search: the library's MergeOptions.Out "" writes
		// nothing, and the merge would print a finding with no trace.
		return ExitUsage, usagef("--out \"\": allowed a directory for the results (default macemc-out)")
	}
	if err := checkOutDir("--out", mo.Out); err != nil {
		return ExitUsage, err
	}
	var err error
	if mo.MaxMemory, err = search.ParseBytes(maxMemory); err != nil || mo.MaxMemory == 0 {
		return ExitUsage, usagef("--max-memory %s: allowed a positive size, or none", maxMemory)
	}
	progOn, progLines, err := progressMode(progressFlag, a.Terminal && !asJSON)
	if err != nil {
		return ExitUsage, err
	}
	mo.Command = a.Name
	ctx, stop := a.signals()
	defer stop()
	prog := &progress{w: a.Stderr, on: progOn, lines: progLines, start: time.Now()}
	mo.Progress = prog.show
	rep, err := search.Merge(ctx, fs.Args(), mo)
	prog.clear()
	code, err := a.printReport(rep, err, asJSON, append([]string{"merge"}, args...))
	if code == ExitViolation && exitZero {
		code = ExitNone
	}
	return code, err
}

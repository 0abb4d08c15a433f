package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// report makes the HTML page of a result directory (again).
func (a *App) report(args []string) (int, error) {
	fs := a.newFlags("report", "DIR [--html FILE]")
	file := fs.String("html", "", "write the page here (default: DIR/report.html)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return ExitUsage, err
		}
		return ExitUsage, usageError{err}
	}
	if fs.NArg() != 1 {
		return ExitUsage, usagef("give one result directory, the --out of %s search (default macemc-out)", a.Name)
	}
	dir := fs.Arg(0)
	in, err := htmlreport.ReadDir(dir)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	// A page of another build's replay would show another execution.
	for _, t := range []*trace.Trace{in.Error, in.Live, in.Min} {
		if t == nil {
			continue
		}
		if err := search.CheckFits(t); err != nil {
			return ExitUsage, usageError{fmt.Errorf("%s: %w", dir, err)}
		}
	}
	for _, why := range in.Unread {
		fmt.Fprintf(a.Stderr, "%s report: warning: the page is made without a path that could not be read: %s\n", a.Name, why)
	}
	in.Options.Tool = a.Name
	// The page replays the findings: a handler that allocates without
	// returning is given up on as in the search (engine.WatchHeap).
	defer engine.WatchHeap(engine.DefaultHeapBound, nil)()
	if *file == "" {
		*file = filepath.Join(dir, htmlreport.PageFile)
	}
	if err := htmlreport.WriteFile(*file, in); err != nil {
		if errors.Is(err, htmlreport.ErrInput) {
			return ExitUsage, usageError{err}
		}
		return ExitUsage, err
	}
	fmt.Fprintf(a.Stdout, "wrote %s: open it in a browser\n", *file)
	return ExitNone, nil
}

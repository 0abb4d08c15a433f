package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
	if *file == "" {
		*file = filepath.Join(dir, htmlreport.PageFile)
	}
	// Checked before the page is made, which replays the paths.
	if err := checkPageFile(*file); err != nil {
		if fs.Changed("html") {
			err = fmt.Errorf("--html: %w", err)
		}
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
	if err := htmlreport.WriteFile(*file, in); err != nil {
		if errors.Is(err, htmlreport.ErrInput) {
			return ExitUsage, usageError{err}
		}
		return ExitUsage, err
	}
	fmt.Fprintf(a.Stdout, "wrote %s: open it in a browser\n", *file)
	return ExitNone, nil
}

// checkPageFile reports why the page may not be written at file: what
// checkOutputFile refuses (a missing directory, anything but a regular
// file, a trace), and an existing file named as one of a search's results
// other than its page (report.json, error.log, ...), in the directory
// given or another: the page would replace what it shows.
func checkPageFile(file string) error {
	if err := checkOutputFile(file); err != nil {
		return err
	}
	base := filepath.Base(file)
	if base == htmlreport.PageFile || !slices.Contains(search.ResultFiles, base) {
		return nil
	}
	if _, err := os.Lstat(file); err != nil {
		return nil
	}
	return fmt.Errorf("write %s: refusing to replace it: %s is a result file of a search (give another file name)", file, base)
}

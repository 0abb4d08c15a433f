package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

// Exit codes of every macemc command.
const (
	// ExitNone: nothing was found within the budget (or the command
	// succeeded without finding a violation).
	ExitNone = 0
	// ExitViolation: a violation was found (or replayed): a safety or
	// liveness violation, a handler that panicked or did not return, or a
	// service whose replays diverge.
	ExitViolation = 1
	// ExitUsage: bad flags, unknown systems or parameters, unreadable
	// input, or results that could not be written.
	ExitUsage = 2
)

// usageError is an error that exits with ExitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// App is one invocation's environment: its name (for the commands it
// prints), its streams, and whether stderr is a terminal.
type App struct {
	Name     string
	Stdin    *os.File
	Stdout   io.Writer
	Stderr   io.Writer
	Terminal bool

	// ownsProcess says the process exits when Run returns (Main): signals
	// that arrive after a run are then swallowed rather than left to their
	// default action.
	ownsProcess bool
}

// Main runs the macemc command line with args (without the program name)
// and returns the exit code. A user's own binary registers its systems
// (sim.Register in an init function) and calls
//
//	os.Exit(cli.Main(os.Args[1:]))
//
// to get every subcommand for them, the debugger (mdb) included.
func Main(args []string) int {
	name := "macemc"
	if len(os.Args) > 0 && os.Args[0] != "" && !strings.HasSuffix(os.Args[0], ".test") {
		name = commandName(os.Args[0])
	}
	app := &App{Name: name, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Terminal: stderrIsTerminal(), ownsProcess: true}
	return app.Run(args)
}

// commandName is how the commands a run prints (replay, debug) name the
// program invoked as arg0 (os.Args[0]), so that they can be pasted as
// printed: as it was typed when it was run by a path (./bin/mytool, not
// mytool, which the shell would look for on PATH), else by its name; a
// binary of go run (in the build cache) or a debugger is named macemc.
func commandName(arg0 string) string {
	base := arg0
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	switch {
	case strings.HasPrefix(base, "__debug_bin") || base == "main" || base == "":
		return "macemc"
	case base == arg0:
		return base
	case strings.Contains(strings.ReplaceAll(arg0, `\`, "/"), "/go-build"):
		// go run's binary, in the build cache (GOCACHE, .../go-build/...)
		// or a temporary go-build directory: run again by go run.
		return base
	}
	return search.Quote(arg0)
}

const topUsage = `%[1]s finds liveness and safety bugs in distributed systems.

Usage:
  %[1]s list [--json]                      systems, strategies, parameters and properties
  %[1]s search --system NAME [flags]       search + random walks + critical transition
  %[1]s search ... --shard I/N --out DIR   run shard I of N of a search (on N machines)
  %[1]s merge DIR... [--out DIR]           merge the N shards' directories into the search's report
  %[1]s replay --trace FILE [--log FILE]   replay a trace with full logging
  %[1]s critical --trace FILE [flags]      re-run the critical-transition search on a trace
  %[1]s tune --system NAME [flags]         steps to the first live state; suggests --walk-depth
  %[1]s mdb DIR [flags]                    the debugger on a search's results
  %[1]s report DIR                         make the HTML page of a search's result directory
  %[1]s version

Run '%[1]s COMMAND --help' for a command's flags.
Exit codes: 0 nothing found within the budget, 1 violation found, 2 usage or input error.
`

// Run runs one command line and returns its exit code.
func (a *App) Run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintf(a.Stderr, topUsage, a.Name)
		return ExitUsage
	}
	var err error
	var code int
	switch args[0] {
	case "list":
		code, err = a.list(args[1:])
	case "search":
		code, err = a.search(args[1:])
	case "replay":
		code, err = a.replay(args[1:])
	case "critical":
		code, err = a.critical(args[1:])
	case "tune":
		code, err = a.tune(args[1:])
	case "report":
		code, err = a.report(args[1:])
	case "merge":
		code, err = a.merge(args[1:])
	case "mdb":
		stdin := a.Stdin
		if stdin == nil {
			stdin = os.Stdin
		}
		return mdb.Main(a.Name+" mdb", args[1:], stdin, a.Stdout, a.Stderr)
	case "version", "--version":
		if len(args) == 2 && (args[1] == "--help" || args[1] == "-h") {
			fmt.Fprintf(a.Stdout, "usage: %s version\n\nprints the version of %s\n", a.Name, a.Name)
			return ExitNone
		}
		if len(args) > 1 {
			fmt.Fprintf(a.Stderr, "%s version: unexpected argument %q\n", a.Name, args[1])
			return ExitUsage
		}
		fmt.Fprintln(a.Stdout, a.Name, trace.ToolVersion)
		return ExitNone
	case "help", "-h", "--help":
		if len(args) == 2 && args[0] == "help" && args[1] != "help" && args[1] != "version" {
			// help COMMAND: the command's own usage.
			return a.Run([]string{args[1], "--help"})
		}
		fmt.Fprintf(a.Stdout, topUsage, a.Name)
		return ExitNone
	default:
		fmt.Fprintf(a.Stderr, "%s: unknown command %q\n\n", a.Name, args[0])
		fmt.Fprintf(a.Stderr, topUsage, a.Name)
		return ExitUsage
	}
	if errors.Is(err, pflag.ErrHelp) {
		return ExitNone
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "%s %s: %v\n", a.Name, args[0], err)
		var ue usageError
		if errors.As(err, &ue) || code == ExitNone {
			return ExitUsage
		}
	}
	return code
}

// newFlags returns a flag set that reports errors instead of exiting.
func (a *App) newFlags(cmd, synopsis string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(a.Name+" "+cmd, pflag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	fs.SortFlags = false
	fs.Usage = func() { // only for --help, asked for: on stdout
		fmt.Fprintf(a.Stdout, "Usage: %s %s %s\n\nFlags:\n%s", a.Name, cmd, synopsis, fs.FlagUsages())
	}
	return fs
}

// parse parses flags; extra positional arguments are a usage error.
func parse(fs *pflag.FlagSet, args []string) error {
	// A flag of one value given twice with two values is refused: which
	// one the user meant cannot be told (pflag keeps the last).
	given := map[string]string{}
	set := func(f *pflag.Flag, value string) error {
		if t := f.Value.Type(); !strings.HasSuffix(t, "Slice") && !strings.HasSuffix(t, "Array") {
			if was, twice := given[f.Name]; twice && was != value {
				return fmt.Errorf("--%s given twice, as %q and %q: give it once", f.Name, was, value)
			}
			given[f.Name] = value
		}
		return fs.Set(f.Name, value)
	}
	if err := fs.ParseAll(args, set); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		var bad *pflag.InvalidValueError
		if errors.As(err, &bad) {
			return usagef("--%s %s: %s", bad.GetFlag().Name, bad.GetValue(), valueKind(bad.GetFlag().Value.Type()))
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// valueKind says what a flag of pflag type typ allows, for a value it
// could not parse (the ranges within are checked after parsing, and named then).
func valueKind(typ string) string {
	switch typ {
	case "uint64", "uint":
		return "allowed a whole number from 0 to 18446744073709551615"
	case "int", "int64":
		return "allowed a whole number"
	case "float64":
		return "allowed a number"
	case "duration":
		return "allowed a duration such as 90s, 5m or 1h30m"
	case "bool":
		return "allowed true or false"
	}
	return "allowed a value of type " + typ
}

// parseParams turns repeated --param k=v (or k=v,k2=v2) into a map. A
// comma starts another parameter only when NAME= follows it: in
// "clients=P1,G" the comma is part of the value.
func parseParams(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range list {
		var pairs [][2]string
		for _, part := range strings.Split(kv, ",") {
			k, v, ok := strings.Cut(part, "=")
			switch {
			case !ok && len(pairs) > 0:
				// No NAME= after the comma: the comma is the value's.
				pairs[len(pairs)-1][1] += "," + part
				continue
			case !ok || strings.TrimSpace(k) == "":
				return nil, usagef("--param %q: want NAME=VALUE", part)
			}
			pairs = append(pairs, [2]string{strings.TrimSpace(k), v})
		}
		for _, p := range pairs {
			k, v := p[0], strings.TrimSpace(p[1])
			if was, twice := out[k]; twice && was != v {
				return nil, usagef("--param %s given twice, as %q and %q: give it once", k, was, v)
			}
			out[k] = v
		}
	}
	return out, nil
}

// system looks up a registered system.
func (a *App) system(name string) (*sim.System, error) {
	if name == "" {
		return nil, usagef("--system is required (see '%s list')", a.Name)
	}
	sys, err := sim.Lookup(name)
	if err != nil {
		return nil, usageError{err}
	}
	return sys, nil
}

func stderrIsTerminal() bool {
	fd := os.Stderr.Fd()
	return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
}

// refuseEmpty refuses flag name given explicitly with an empty value
// (--shard "$IDX" with IDX unset), which would otherwise run as if it were
// left out; allowed says what it takes, and leftOut what leaving it out
// does.
func refuseEmpty(fs *pflag.FlagSet, name, allowed, leftOut string) error {
	if !fs.Changed(name) || fs.Lookup(name).Value.String() != "" {
		return nil
	}
	return usagef("--%[1]s is empty (a script's unset variable?): allowed %[2]s, or leave --%[1]s out %[3]s", name, allowed, leftOut)
}

// checkOutDir refuses a result directory that is a symlink pointing
// nowhere, whose mkdir would fail with only "file exists" (a symlink to a
// directory is followed: the results go into that directory). flag names
// the option.
func checkOutDir(flag, dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	to, err := os.Readlink(dir)
	if err != nil {
		return usagef("%s %s: a symlink that cannot be read: %w", flag, dir, err)
	}
	return usagef("%s %s: a symlink to %s, which does not exist: make that directory, or give %[1]s a directory", flag, dir, to)
}

// searchPrefixed is an error of package search with the "search: " its
// text begins with taken off, for a command other than search that
// prints it after its own name ("macemc replay: ..."); it unwraps to the
// error.
type searchPrefixed struct {
	err  error
	text string
}

func (e searchPrefixed) Error() string { return e.text }
func (e searchPrefixed) Unwrap() error { return e.err }

// withoutSearchPrefix returns err with the "search: " its text begins
// with taken off (searchPrefixed), or err itself.
func withoutSearchPrefix(err error) error {
	if text, ok := strings.CutPrefix(err.Error(), "search: "); ok {
		return searchPrefixed{err, text}
	}
	return err
}

// refuseEmptyProperty refuses an empty --property (an unset variable),
// which names no property, naming the properties of sys with params.
func (a *App) refuseEmptyProperty(sys *sim.System, params map[string]string, props []string) error {
	if !slices.Contains(props, "") {
		return nil
	}
	names := fmt.Sprintf("a property of the system (see '%s list')", a.Name)
	if cfg, _, err := sys.Config(params); err == nil {
		var has []string
		for _, p := range append(slices.Clip(cfg.Safety), cfg.Liveness...) {
			has = append(has, safetext.QuoteUnsafe(p.Name))
		}
		if cfg.Model != nil {
			has = append(has, sim.Linearizable)
		}
		slices.Sort(has)
		names = strings.Join(slices.Compact(has), ", ")
	}
	return usagef("--property is empty (a script's unset variable?): allowed %s, or leave --property out to check them all", names)
}

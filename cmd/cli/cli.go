package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/sim"
)

// Exit codes of every macemc command.
const (
	// ExitNone: nothing was found within the budget (or the command
	// succeeded without finding a violation).
	ExitNone = 0
	// ExitViolation: a violation was found (or replayed).
	ExitViolation = 1
	// ExitUsage: bad flags, unknown systems or parameters, unreadable
	// input, or a service the checker cannot trust (nondeterministic).
	ExitUsage = 2
)

// usageError is an error that exits with ExitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// App is one invocation's environment: its name (for the commands it
// prints), its output streams, and whether stderr is a terminal.
type App struct {
	Name     string
	Stdout   io.Writer
	Stderr   io.Writer
	Terminal bool
}

// Main runs the macemc command line with args (without the program name)
// and returns the exit code. A user's own binary registers its systems
// (sim.Register in an init function) and calls
//
//	os.Exit(cli.Main(os.Args[1:]))
func Main(args []string) int {
	app := &App{Name: "macemc", Stdout: os.Stdout, Stderr: os.Stderr, Terminal: stderrIsTerminal()}
	return app.Run(args)
}

const topUsage = `macemc finds liveness and safety bugs in distributed systems.

Usage:
  %[1]s list [--json]                      systems, parameters and properties
  %[1]s search --system NAME [flags]       bounded search + random walks + critical transition
  %[1]s replay --trace FILE [--log FILE]   replay a trace with full logging
  %[1]s critical --trace FILE [flags]      re-run the critical-transition search on a trace
  %[1]s tune --system NAME [flags]         steps to the first live state; suggests --walk-depth
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
	case "version", "--version":
		fmt.Fprintln(a.Stdout, a.Name, version())
		return ExitNone
	case "help", "-h", "--help":
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
		if errors.As(err, &ue) || code == 0 {
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
	fs.Usage = func() {
		fmt.Fprintf(a.Stderr, "Usage: %s %s %s\n\nFlags:\n%s", a.Name, cmd, synopsis, fs.FlagUsages())
	}
	return fs
}

// parse parses flags; extra positional arguments are a usage error.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// parseParams turns repeated --param k=v into a map.
func parseParams(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range list {
		for _, part := range strings.Split(kv, ",") {
			k, v, ok := strings.Cut(part, "=")
			if !ok || k == "" {
				return nil, usagef("--param %q: want NAME=VALUE", part)
			}
			out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return out, nil
}

// system looks up a system and builds its config with the given
// parameters and property selection.
func system(name string, params []string, props []string) (*sim.System, *sim.Config, sim.Params, error) {
	if name == "" {
		return nil, nil, nil, usagef("--system is required (see '%s list')", "macemc")
	}
	sys, err := sim.Lookup(name)
	if err != nil {
		return nil, nil, nil, usageError{err}
	}
	given, err := parseParams(params)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg, p, err := sys.Config(given)
	if err != nil {
		return nil, nil, nil, usageError{err}
	}
	if err := cfg.Select(props); err != nil {
		return nil, nil, nil, usageError{fmt.Errorf("system %s: %w", name, err)}
	}
	return sys, cfg, p, nil
}

func propertyNames(ps []sim.Property) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

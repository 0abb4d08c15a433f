package mdb

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/peterh/liner"
	"github.com/spf13/pflag"

	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

const usage = `usage: %s DIR | ERROR_TRACE_OR_LOG [--live LIVE_TRACE_OR_LOG] [-c "cmd; cmd"]

mdb replays what '%s search' wrote: DIR is its output directory
(error.trace and, when there is one, live.trace); a .log file stands for
the .trace file next to it. Type help in a session for the commands.

Exit status: 0, or 2 when the command line or the files are bad or a
command of -c or standard input failed.

flags:
`

// Main is mdb's command line: name is the command as the user typed it
// ("mdb", or "mybin mdb" in a user's own binary), args its arguments. It
// returns the exit status: 0 on success, 2 if the command line or the
// files are bad or a scripted command failed (1, which macemc's other
// commands exit with a violation found, mdb never does). The usage goes to
// stdout when asked for with --help, and warnings about the files to
// stderr.
func Main(name string, args []string, stdin *os.File, stdout, stderr io.Writer) int {
	// A branch may step a handler that allocates without returning: the
	// heap alarm gives up on it, as the search did, before it takes the
	// machine's memory.
	defer engine.WatchHeap(engine.DefaultHeapBound, nil)()
	// The tool whose search wrote what mdb reads: "macemc", or the
	// user's binary that runs mdb as a subcommand.
	tool, sub := strings.CutSuffix(name, " mdb")
	if !sub {
		tool = "macemc"
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	live := fs.StringP("live", "l", "", "the live path's trace (or log) to compare with")
	cmds := fs.StringP("command", "c", "", "run these commands, separated by ';', and exit")
	snap := fs.Int("snapshot-every", DefaultSnapshotEvery, "keep a snapshot of the state every `N` steps")
	color := fs.String("color", "auto", "colour diffs: auto, always or never")
	echo := fs.Bool("echo", true, "when not interactive, print each command after the prompt")
	hist := fs.String("history", defaultHistory(), "history `FILE` of the interactive session (empty: none)")
	maxLine := fs.Int("max-line", DefaultMaxLine, "print at most `N` bytes of a line, saying how many more it had (0: lines whole)")
	// The usage goes to stdout when asked for (--help), to stderr with a
	// bad command line.
	printUsage := func(w io.Writer) { fmt.Fprintf(w, usage+"%s", name, tool, fs.FlagUsages()) }
	fs.Usage = func() { printUsage(stdout) }
	// A flag given twice with two values is refused, as macemc's other
	// subcommands refuse it: which one the user meant cannot be told
	// (pflag keeps the last).
	given := map[string]string{}
	set := func(f *pflag.Flag, value string) error {
		if was, twice := given[f.Name]; twice && was != value {
			return fmt.Errorf("--%s given twice, as %q and %q: give it once", f.Name, was, value)
		}
		given[f.Name] = value
		return fs.Set(f.Name, value)
	}
	if err := fs.ParseAll(args, set); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		var bad *pflag.InvalidValueError
		if errors.As(err, &bad) {
			// pflag's own text is strconv's ("strconv.ParseInt: parsing
			// ..."): say what the flag allows, as the other commands do.
			err = fmt.Errorf("--%s %s: allowed %s", bad.GetFlag().Name, bad.GetValue(), flagRange[bad.GetFlag().Name])
		}
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 2
	}
	if fs.NArg() != 1 {
		if fs.NArg() == 0 {
			fmt.Fprintf(stderr, "%s: give the output directory of %s search, or an error trace\n", name, tool)
		} else {
			fmt.Fprintf(stderr, "%s: one directory or trace expected, got %d arguments (use --live for the live trace)\n", name, fs.NArg())
		}
		printUsage(stderr)
		return 2
	}
	if *maxLine < 0 {
		fmt.Fprintf(stderr, "%s: --max-line %d: allowed %s\n", name, *maxLine, flagRange["max-line"])
		return 2
	}
	if *maxLine == 0 {
		*maxLine = -1 // Options: negative prints lines whole
	}
	if *snap <= 0 {
		fmt.Fprintf(stderr, "%s: --snapshot-every %d: allowed %s\n", name, *snap, flagRange["snapshot-every"])
		return 2
	}
	var useColor bool
	switch *color {
	case "always":
		useColor = true
	case "never":
	case "auto":
		f, ok := stdout.(*os.File)
		useColor = ok && isatty.IsTerminal(f.Fd()) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	default:
		fmt.Fprintf(stderr, "%s: --color %q: allowed %s\n", name, *color, flagRange["color"])
		return 2
	}
	s, err := Open(fs.Arg(0), *live, Options{Out: stdout, Warn: stderr, SnapshotEvery: *snap, Color: useColor, MaxLine: *maxLine, Tool: tool})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, strings.TrimPrefix(err.Error(), "mdb: bad input: "))
		return 2
	}
	s.Intro()

	// Ctrl-C stops a long command instead of
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		for range sig {
			s.Interrupt()
		}
	}()

	switch {
	case *cmds != "":
		err = s.RunScript(strings.NewReader(*cmds), *echo)
	case isatty.IsTerminal(stdin.Fd()) && stdin == os.Stdin:
		err = interactive(s, *hist, stdout)
	default:
		err = s.RunScript(stdin, *echo)
	}
	if err != nil {
		if errors.Is(err, ErrCommands) {
			// Each failed command's error is in the session's output;
			// an exit of 2 says on stderr what went wrong, as everywhere.
			fmt.Fprintf(stderr, "%s: %s (each one's error is in the output above, after its command)\n", name, strings.TrimPrefix(err.Error(), "mdb: "))
		} else {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
		}
		// Not 1: a script (or CI) that runs mdb reads 1 as "a violation
		// found", as every macemc command exits with one.
		return 2
	}
	return 0
}

// flagRange says what mdb's flags that take a value allow, for a value
// refused.
var flagRange = map[string]string{
	"max-line":       "0 (lines whole) or a positive number of bytes",
	"snapshot-every": fmt.Sprintf("a positive number of steps (default %d)", DefaultSnapshotEvery),
	"color":          "auto, always or never",
	"echo":           "true or false",
}

func defaultHistory() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".mdb_history")
}

// interactive reads commands from the terminal with line editing, history
// and completion of command names until quit or end of input.
func interactive(s *Session, hist string, out io.Writer) error {
	line := liner.NewLiner()
	defer line.Close()
	line.SetCtrlCAborts(true)
	names := Commands()
	line.SetCompleter(func(in string) []string {
		if strings.ContainsRune(in, ' ') {
			return nil
		}
		var c []string
		for _, n := range names {
			if strings.HasPrefix(n, in) {
				c = append(c, n)
			}
		}
		return c
	})
	if hist != "" {
		if f, err := os.Open(hist); err == nil {
			_, _ = line.ReadHistory(f)
			f.Close()
		}
	}
	for !s.Done() {
		in, err := line.Prompt(s.Prompt())
		if errors.Is(err, liner.ErrPromptAborted) {
			continue
		}
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(out)
			break
		}
		if err != nil {
			return fmt.Errorf("reading the terminal: %w", err)
		}
		if strings.TrimSpace(in) != "" {
			line.AppendHistory(in)
		}
		for _, c := range SplitCommands(in) {
			s.Do(c)
			if s.Done() {
				break
			}
		}
	}
	// The history is written in place (it is the user's own file), but
	// never through a symlink or into a device or FIFO.
	if hist != "" && trace.CheckReplaceable(hist) == nil {
		if f, err := os.Create(hist); err == nil {
			_, _ = line.WriteHistory(f)
			f.Close()
		}
	}
	return nil
}

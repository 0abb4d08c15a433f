package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

func (a *App) search(args []string) (int, error) {
	fs := a.newFlags("search", "--system NAME [flags]")
	var o search.Options
	var system string
	var params []string
	var asJSON bool
	var progressFlag, maxMemory string
	fs.StringVar(&system, "system", "", "system to search (see 'list')")
	fs.StringArrayVar(&params, "param", nil, "system parameter NAME=VALUE (repeatable, or NAME=VALUE,NAME2=VALUE2; spaces around names and values are dropped)")
	fs.StringArrayVar(&o.Properties, "property", nil, "check only this property (repeatable; default: all)")
	fs.StringVar(&o.Faults, "faults", "", "failure budgets and where they may happen, overriding the system's, e.g. crashes=1,partitions=1,duplicates=2,nodes=0+1,links=0-1 (also resets, breaks, drops, pernode, reorder, splits)")
	fs.StringVar(&o.Strategy, "strategy", search.DefaultStrategy, "exploration order: "+search.StrategyNames())
	fs.IntVar(&o.Depth, "depth", 0, "cap on the bounded search depth (0: deepen until the budget ends)")
	fs.IntVar(&o.DepthStep, "depth-step", search.DefaultDepthStep, "iterative deepening increment")
	fs.IntVar(&o.WalkDepth, "walk-depth", search.DefaultWalkDepth, "d_max: steps of each random walk")
	fs.IntVar(&o.Walks, "walks", search.DefaultWalks, "k: random walks per critical-transition probe")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed")
	fs.DurationVar(&o.Time, "time", 0, "time budget of the search (a walk still running when it ends stops there, its path not counted), the same again for the analysis of a violation it finds (critical transition, minimization) and again for writing the logs and the report page, each stopping then and keeping what it found (e.g. 30s, 5m; 0: none)")
	fs.Int64Var(&o.MaxPaths, "max-paths", 0, "budget of paths (0: none)")
	fs.IntVar(&o.MaxViolations, "max-violations", search.DefaultMaxViolations, "stop after this many violating paths")
	fs.IntVar(&o.Workers, "workers", 0, "goroutines that run the search, the bounded part of dfs included (0: all cores; the report does not depend on it)")
	fs.StringVar(&o.Out, "out", "macemc-out", "directory for traces, logs and report.json (a previous run's there are replaced)")
	fs.BoolVar(&asJSON, "json", false, "print the report as one JSON object on stdout (a usage or input error, exit 2, prints nothing there: its message is on stderr; a run that searched nothing, its --time spent before the search, prints its report, with nothing_searched, and exits 2)")
	fs.BoolVar(&o.NoHashing, "no-hashing", false, "do not cut paths that reach a state seen before (turns the explored state graph off too)")
	fs.IntVar(&o.MaxStates, "max-states", search.DefaultMaxStates, "bound of the visited-state set (12 bytes a slot); past it new states are not remembered, which costs repeated work, never a wrong verdict")
	fs.BoolVar(&o.Unbiased, "unbiased", false, "random walks ignore event weights")
	fs.BoolVar(&o.WalkFailures, "walk-failures", false, "keep failures on during random walks (default: off, as the original's gusto)")
	fs.StringVar(&o.Prefix, "prefix", "", "search from the end of this trace (a live steady-state prefix)")
	fs.IntVar(&o.PrefixSteps, "prefix-steps", 0, "first walk to a live steady state of at least this many steps, save it as prefix.trace, and search from its end")
	fs.DurationVar(&o.HandlerTimeout, "handler-timeout", search.Options{}.HandlerTimeout, "report a handler that runs longer than this (default 5s)")
	fs.DurationVar(&o.LinTimeout, "lin-timeout", search.Options{}.LinTimeout, "give up checking one history for linearizability after this long and count it unknown (default 10s)")
	fs.BoolVar(&o.NoCritical, "no-critical", false, "skip the critical-transition search")
	fs.IntVar(&o.Replays, "replays", 0, "replays the determinism checks compare (0: 64 for paths up to 1,562 steps, fewer for longer ones)")
	fs.BoolVar(&o.NoConfirm, "no-confirm", false, "answer as Algorithm 3 alone: do not confirm the critical transition with more walks")
	fs.Int64Var(&o.ConfirmBudget, "confirm-budget", 0, "transitions each confirmation sample of the critical transition may take (0: 60 walks of d_max); its walks are bounded too, to ten per d_max of it (at least 600, at most 10000)")
	noMinimize := fs.Bool("no-minimize", false, "do not minimize the doomed path (min.trace)")
	fs.Int64Var(&o.MinimizeBudget, "minimize-budget", search.Options{}.MinimizeBudget, "transitions the minimization may take, the fresh-walk check of its result included (default 100000000; a result the budget leaves unchecked gives way to the dead path's own prefix)")
	fs.IntVar(&o.MinimizeTests, "minimize-tests", 0, "subsets of the doomed path the minimization may replay (0: 2000)")
	fs.BoolVar(&o.Lasso.On, "lasso", false, "detect hot fair lassos during walks: a repeated state, a cycle with no live state in which nothing is starved, replayed --lasso-replays times (seed 000)")
	fs.IntVar(&o.Lasso.Replays, "lasso-replays", 10, "RT: times a suspected cycle is replayed before it is reported")
	fs.BoolVar(&o.Lasso.Partial, "partial-hash", false, "compare states by node type (or a service's LassoKey) and pending message types only, for systems whose exact state never repeats")
	fs.BoolVar(&o.Lasso.NodeFairness, "lasso-node-fairness", false, "count a cycle as fair when every node with an enabled event runs (seed 000's definition) instead of every connection, timer and driver")
	fs.IntVar(&o.Lasso.Temperature, "temperature", 0, "temperature method (seed 000 Algorithm 2): report a walk with this many steps in a row into non-live states (0: off)")
	fs.StringVar(&maxMemory, "max-memory", "4GiB", "refuse a run estimated to need more memory than this, and stop one whose heap grows past it, keeping what it found (e.g. 8GiB, 512MiB; none: no limit)")
	fs.StringVar(&progressFlag, "progress", "auto", "progress on stderr: auto (a status line on a terminal), lines (a line per phase, for logs), none")
	fs.BoolVar(&o.Graph.Off, "no-graph", false, "do not record the explored state graph or look for fair cycles of hot states in it (seed 002)")
	fs.IntVar(&o.Graph.MaxStates, "graph-states", search.DefaultGraphStates, "bound of the explored state graph (about 250 bytes a state with its transitions); past it new states are not recorded")
	shard := fs.String("shard", "", "run only shard I of N of the search (I/N, from 0) and write its records to --out; '"+a.Name+" merge' of the N directories gives the report")
	sflags := strategyFlags(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	if fs.Changed("faults") && o.Faults == "" {
		return ExitUsage, usagef("--faults is empty (a script's unset variable?): give settings such as resets=1, or leave --faults out to keep the system's failures")
	}
	// An empty value would run as if the flag were left out: the whole
	// search instead of a shard, dfs instead of the strategy meant.
	for _, f := range []struct{ name, allowed, leftOut string }{
		{"strategy", search.StrategyNames(), "for " + search.DefaultStrategy},
		{"shard", "I/N (shard I of N, from 0)", "to run the whole search"},
		{"prefix", "a trace file (a live steady state to search from)", "to search from the initial state"},
	} {
		if err := refuseEmpty(fs, f.name, f.allowed, f.leftOut); err != nil {
			return ExitUsage, err
		}
	}
	// Zero means "the default" in Options; on the command line it is a
	// value, and these flags do not take it.
	o.Minimize = !*noMinimize
	for _, name := range []string{"depth-step", "walk-depth", "walks", "max-violations", "max-states", "graph-states", "lasso-replays", "handler-timeout", "lin-timeout", "minimize-budget"} {
		if f := fs.Lookup(name); fs.Changed(name) && (f.Value.String() == "0" || f.Value.String() == "0s") {
			return ExitUsage, usagef("--%s 0: allowed %s", name, allowed(name))
		}
	}
	var err error
	if o.MaxMemory, err = search.ParseBytes(maxMemory); err != nil {
		return ExitUsage, usagef("--max-memory: %v", err)
	}
	if o.MaxMemory == 0 {
		return ExitUsage, usagef("--max-memory 0: allowed a positive size, or none")
	}
	progOn, progLines, err := progressMode(progressFlag, a.Terminal && !asJSON)
	if err != nil {
		return ExitUsage, err
	}
	sys, err := a.system(system)
	if err != nil {
		return ExitUsage, err
	}
	if o.Params, err = parseParams(params); err != nil {
		return ExitUsage, err
	}
	if err := a.refuseEmptyProperty(sys, o.Params, o.Properties); err != nil {
		return ExitUsage, err
	}
	if o.StrategyParams, err = sflags.values(fs, o.Strategy); err != nil {
		return ExitUsage, err
	}
	if o.Out == "" {
		// The library's Options.Out "" writes nothing; on the command
		// line it would print a finding with no trace to replay.
		return ExitUsage, usagef("--out \"\": allowed a directory for the results (default macemc-out)")
	}
	if err := checkOutDir("--out", o.Out); err != nil {
		return ExitUsage, err
	}
	o.Command = a.Name
	ctx, stop := a.signals()
	defer stop()
	prog := &progress{w: a.Stderr, on: progOn, lines: progLines, budget: o.Time, maxPaths: o.MaxPaths, start: time.Now()}
	o.Progress = prog.show
	if o.Time == 0 && o.MaxPaths == 0 && !(o.Depth > 0 && o.Strategy == "dfs") && *shard == "" {
		// A system whose timers or retries make its state space infinite
		// (most correct ones) is searched until one of these.
		memory := "--max-memory " + maxMemory
		if o.MaxMemory < 0 {
			memory = "the machine's memory"
		}
		deepening := ""
		switch {
		case o.Strategy != "dfs":
		case o.Prefix != "":
			// The prefix's steps are known once the trace is read.
			deepening = ", its depth bound reaches half of what --walk-depth leaves after the prefix"
		default:
			// Iterative deepening ends where the walks after a bounded
			// part would have too few steps left (stopped: depth).
			walkDepth := o.WalkDepth
			if walkDepth == 0 {
				walkDepth = search.DefaultWalkDepth
			}
			room := (&explore.Config{WalkDepth: walkDepth, PrefixSteps: o.PrefixSteps}).DepthRoom()
			deepening = fmt.Sprintf(", its depth bound reaches half of what --walk-depth leaves after the prefix (%d)", room)
			if o.PrefixSteps == 0 {
				deepening = fmt.Sprintf(", its depth bound reaches half of --walk-depth (%d)", room)
			}
		}
		prog.note("no budget given (--time or --max-paths): the search goes on until it has nothing left to explore%s, its heap reaches %s, or Ctrl-C, which keeps what it found", deepening, memory)
	}
	if *shard != "" {
		return a.runShard(ctx, sys, o, *shard, asJSON, prog)
	}
	rep, err := search.Run(ctx, sys, o)
	prog.clear()
	return a.printReport(rep, err, asJSON, append([]string{"search"}, args...))
}

// printReport prints a run's report and returns the exit code: 1 with a
// finding, 0 without; 2 when the run could not start, searched nothing
// (Report.NothingSearched) or its results could not be written (then what
// was found is said on stderr). args are the
// command line of the run, from the subcommand.
func (a *App) printReport(rep *search.Report, err error, asJSON bool, args []string) (int, error) {
	if rep == nil {
		var oe *search.OptionError
		if errors.As(err, &oe) && oe.Flag != "" {
			return ExitUsage, usagef("--%s %v: allowed %s", oe.Flag, oe.Value, oe.Range)
		}
		return ExitUsage, usagef("%s", strings.TrimPrefix(err.Error(), "search: "))
	}
	if asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return ExitUsage, err
		}
	} else if err := rep.WriteText(a.Stdout); err != nil {
		return ExitUsage, err
	}
	code := ExitNone
	if rep.First() != nil {
		code = ExitViolation
	}
	if err == nil && rep.NothingSearched() {
		// A budget spent before the search began: "nothing found" would
		// read as a pass, and nothing was looked at.
		return ExitUsage, usagef("nothing was searched: the time budget (--time) ran out before the search finished a path (the report above says why); raise --time")
	}
	if err != nil {
		// The results could not be written: say on stderr what was found
		// and how to find it again, so that nothing is lost.
		fmt.Fprintf(a.Stderr, "%s %s: %v\n", a.Name, args[0], strings.TrimPrefix(err.Error(), "search: "))
		a.lostResults(rep, args)
		if code == ExitViolation {
			return ExitViolation, nil
		}
		return ExitUsage, nil
	}
	return code, nil
}

// lostResults tells, after the result files could not be written, what the
// run found and the command that finds it again: a search is
// deterministic, so the same flags with --max-paths set to the finding's
// path + 1 reproduce it exactly, whatever the time budget was (a merge,
// the same shards). args are the run's command line, from the subcommand.
func (a *App) lostResults(rep *search.Report, args []string) {
	sub := args[0]
	f := rep.First()
	if f == nil {
		fmt.Fprintf(a.Stderr, "%s %s: nothing was found (%d paths searched); the report above is complete\n", a.Name, sub, rep.Stats.Paths)
		return
	}
	written := "none of the result files was written"
	if len(rep.Files) > 0 {
		var names []string
		for _, p := range rep.Files {
			names = append(names, safetext.QuoteUnsafe(p))
		}
		sort.Strings(names)
		written = "only " + strings.Join(names, ", ") + " written"
	}
	fmt.Fprintf(a.Stderr, "%s %s: FOUND %s (%s) of %s on path %d after %d steps (%s)\n",
		a.Name, sub, f.Verdict, f.Kind, safetext.QuoteUnsafe(f.Property), f.Path, f.Steps, written)
	var cmd []string
	skip := false
	for _, arg := range args[1:] {
		switch {
		case skip:
			skip = false
			continue
		case arg == "--max-paths" || arg == "--time" || arg == "--out":
			skip = true
			continue
		case strings.HasPrefix(arg, "--max-paths=") || strings.HasPrefix(arg, "--time=") || strings.HasPrefix(arg, "--out="):
			continue
		}
		cmd = append(cmd, search.Quote(arg))
	}
	budget := fmt.Sprintf(" --max-paths %d", f.Path+1)
	if sub == "merge" {
		budget = ""
	}
	fmt.Fprintf(a.Stderr, "%s %s: to find it again, with the files in a writable directory:\n  %s %s %s%s --out DIR\n",
		a.Name, sub, a.Name, sub, strings.Join(cmd, " "), budget)
}

// signals returns a context cancelled by the first SIGINT or SIGTERM; a
// second one ends the process at once, unless it is the same signal within
// a second (one interruption delivered twice). The returned function ends the
// handling: when the App owns the process (Main, which exits right after),
// signals that arrive after the run are swallowed instead, since the
// report is written by then and the default action would kill the process
// with a signal's exit status in the moment before it exits.
func (a *App) signals() (context.Context, func()) {
	return a.signalsSaying("the report will cover what was found so far")
}

// signalsSaying is signals, saying what the first signal leads to.
func (a *App) signalsSaying(then string) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP) // SIGHUP: the terminal closed
	done := make(chan struct{})
	go func() {
		var firstSig os.Signal
		select {
		case firstSig = <-ch:
			fmt.Fprintf(a.Stderr, "\n%s: stopping; %s (interrupt again to quit at once)\n", a.Name, then)
			cancel()
		case <-done:
			a.swallow(ch)
			return
		}
		first := time.Now()
		for {
			select {
			case sig := <-ch:
				if sig == firstSig && time.Since(first) < time.Second {
					// The same interruption delivered twice: GNU timeout
					// signals the process and then its group.
					continue
				}
				fmt.Fprintf(a.Stderr, "%s: interrupted twice: quitting without a report\n", a.Name)
				os.Exit(ExitUsage)
			case <-done:
				a.swallow(ch)
				return
			}
		}
	}()
	return ctx, func() {
		if !a.ownsProcess {
			signal.Stop(ch)
		}
		close(done)
		cancel()
	}
}

// swallow drains ch for the rest of the process when the App owns it (see
// signals); otherwise the channel is no longer notified.
func (a *App) swallow(ch chan os.Signal) {
	if !a.ownsProcess {
		return
	}
	for range ch {
	}
}

// allowed returns the range of values a search flag allows.
func allowed(flag string) string {
	r, _ := search.Allowed(flag)
	return r
}

// strategyFlagSet maps the flags --STRATEGY-PARAM of every strategy's
// own options to the strategy and parameter.
type strategyFlagSet map[string][2]string

func strategyFlags(fs *pflag.FlagSet) strategyFlagSet {
	m := strategyFlagSet{}
	for _, st := range explore.Strategies() {
		for _, p := range st.Params() {
			name := st.Name() + "-" + p.Name
			kind := p.Kind.String()
			if r := p.Range(); r != "" {
				kind += ", " + r
			}
			fs.Var(&strategyValue{kind: p.Kind, text: p.Default}, name, fmt.Sprintf("--strategy %s: %s (%s)", st.Name(), p.Doc, kind))
			if p.Kind == sim.ParamBool {
				// A bare --dpor-sleep means true, as a bool flag does,
				// and takes no next argument for its value.
				fs.Lookup(name).NoOptDefVal = "true"
			}
			m[name] = [2]string{st.Name(), p.Name}
		}
	}
	return m
}

// values returns the strategy options set on the command line; setting
// another strategy's option is a usage error.
func (m strategyFlagSet) values(fs *pflag.FlagSet, strategy string) (map[string]string, error) {
	out := map[string]string{}
	for name, sp := range m {
		if !fs.Changed(name) {
			continue
		}
		if sp[0] != strategy {
			return nil, usagef("--%s is an option of --strategy %s, not %s", name, sp[0], strategy)
		}
		allowed, leftOut := strategyOptionRange(sp[0], sp[1])
		if err := refuseEmpty(fs, name, allowed, leftOut); err != nil {
			return nil, err
		}
		out[sp[1]] = fs.Lookup(name).Value.String()
	}
	return out, nil
}

// strategyOptionRange returns what option param of strategy name allows
// and what leaving its flag out does (refuseEmpty). A text option's values
// are those the strategy names when it refuses one it does not know.
func strategyOptionRange(name, param string) (allowed, leftOut string) {
	st, err := explore.Lookup(name)
	if err != nil {
		return "a value", "for its default"
	}
	for _, p := range st.Params() {
		if p.Name != param {
			continue
		}
		leftOut = "for " + p.Default
		switch p.Kind {
		case sim.ParamBool:
			return "true or false", leftOut
		case sim.ParamInt:
			if r := p.Range(); r != "" {
				return r, leftOut
			}
			return "a whole number", leftOut
		}
		// The strategy checks its text options when it starts: one that
		// no strategy takes ("\x00") makes it say what it takes.
		params := sim.Params{}
		for _, q := range st.Params() {
			params[q.Name] = q.Default
		}
		params[param] = "\x00"
		var pe *explore.ParamError
		if _, err := st.New(explore.Setup{DepthStep: search.DefaultDepthStep, Params: params}); errors.As(err, &pe) && pe.Name == param {
			return pe.Range, leftOut
		}
		return "a value", leftOut
	}
	return "a value", "for its default"
}

// strategyValue is the value of a strategy option's flag: its text as
// given (the search checks it against the option's kind and range, and
// names the range when it refuses it), under the option's kind, which
// --help shows as the flag's type.
type strategyValue struct {
	kind sim.ParamKind
	text string
}

func (v *strategyValue) String() string     { return v.text }
func (v *strategyValue) Set(s string) error { v.text = s; return nil }
func (v *strategyValue) Type() string       { return v.kind.String() }

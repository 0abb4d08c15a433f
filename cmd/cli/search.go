package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/lasso"
)

type searchFlags struct {
	system, out, prefix                 string
	params, props                       []string
	depth, depthStep, walkDepth, kWalks int
	seed                                uint64
	budget, handlerTimeout              time.Duration
	maxPaths                            int64
	maxViolations, workers, prefixSteps int
	maxStates                           int
	asJSON, noHashing, unbiased         bool
	walkFailures, noCritical            bool
	lasso                               lassoFlags
	doomed                              doomedFlags
}

func (a *App) search(args []string) (int, error) {
	fs := a.newFlags("search", "--system NAME [flags]")
	f := &searchFlags{}
	fs.StringVar(&f.system, "system", "", "system to search (see 'list')")
	fs.StringArrayVar(&f.params, "param", nil, "system parameter NAME=VALUE (repeatable)")
	fs.StringArrayVar(&f.props, "property", nil, "check only this property (repeatable; default: all)")
	fs.IntVar(&f.depth, "depth", 0, "cap on the bounded search depth (0: deepen until the budget ends)")
	fs.IntVar(&f.depthStep, "depth-step", search.DefaultDepthStep, "iterative deepening increment")
	fs.IntVar(&f.walkDepth, "walk-depth", search.DefaultWalkDepth, "d_max: steps of each random walk")
	fs.IntVar(&f.kWalks, "walks", critical.DefaultWalks, "k: random walks per critical-transition probe")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.DurationVar(&f.budget, "time", 0, "time budget (e.g. 30s, 5m; 0: none)")
	fs.Int64Var(&f.maxPaths, "max-paths", 0, "budget of bounded paths (0: none)")
	fs.IntVar(&f.maxViolations, "max-violations", 1, "stop after this many violating paths")
	fs.IntVar(&f.workers, "workers", 0, "parallel workers (0: all cores)")
	fs.StringVar(&f.out, "out", "macemc-out", "directory for traces, logs and report.json (a previous run's there are replaced)")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object on stdout")
	fs.BoolVar(&f.noHashing, "no-hashing", false, "do not cut paths that reach a state seen before")
	fs.IntVar(&f.maxStates, "max-states", search.DefaultMaxStates, "bound of the visited-state set (12 bytes a slot); past it new states are not remembered, which costs repeated work, never a wrong verdict")
	fs.BoolVar(&f.unbiased, "unbiased", false, "random walks ignore event weights")
	fs.BoolVar(&f.walkFailures, "walk-failures", false, "keep failures on during random walks (default: off, as the original's gusto)")
	fs.StringVar(&f.prefix, "prefix", "", "search from the end of this trace (a live steady-state prefix)")
	fs.IntVar(&f.prefixSteps, "prefix-steps", 0, "first walk to a live steady state of at least this many steps, save it as prefix.trace, and search from its end")
	fs.DurationVar(&f.handlerTimeout, "handler-timeout", sim.DefaultHandlerTimeout, "report a handler that runs longer than this")
	fs.BoolVar(&f.noCritical, "no-critical", false, "skip the critical-transition search")
	f.lasso.add(fs)
	f.doomed.add(fs)
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	start := time.Now()
	switch {
	case f.depth < 0, f.depthStep <= 0, f.walkDepth <= 0, f.kWalks <= 0, f.maxPaths < 0, f.budget < 0, f.maxViolations <= 0, f.workers < 0, f.prefixSteps < 0, f.maxStates <= 0:
		return ExitUsage, usagef("--depth, --max-paths, --time, --workers and --prefix-steps must not be negative; --depth-step, --walk-depth, --walks, --max-violations and --max-states must be positive")
	case f.prefix != "" && f.prefixSteps > 0:
		return ExitUsage, usagef("--prefix and --prefix-steps exclude each other")
	}
	if err := f.lasso.validate(); err != nil {
		return ExitUsage, err
	}
	if err := f.doomed.validate(); err != nil {
		return ExitUsage, err
	}
	_, cfg, params, err := system(f.system, f.params, f.props)
	if err != nil {
		return ExitUsage, err
	}
	if err := ensureDir(f.out); err != nil {
		return ExitUsage, err
	}
	// A previous run's results must not pair with this run's: remove the
	// files macemc writes there (and only those).
	for _, name := range resultFiles {
		if err := os.Remove(outPath(f.out, name)); err != nil && !os.IsNotExist(err) {
			return ExitUsage, usagef("output directory: %w", err)
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	prog := &progress{w: a.Stderr, on: a.Terminal && !f.asJSON, budget: f.budget, maxPaths: f.maxPaths}

	rep := &Report{System: f.system, Params: params, Properties: f.props, Seed: f.seed, Files: map[string]string{}}
	if rep.Properties == nil {
		rep.Properties = []string{}
	}
	base := trace.Trace{Tool: version(), System: f.system, Params: params, Seed: f.seed, Properties: f.props, WalkDepth: f.walkDepth, Critical: -1}

	scfg := search.Config{
		System: cfg, DepthStep: f.depthStep, MaxDepth: f.depth, WalkDepth: f.walkDepth, Seed: f.seed, Workers: f.workers,
		MaxPaths: f.maxPaths, Time: f.budget, MaxViolations: f.maxViolations, NoHashing: f.noHashing, MaxStates: f.maxStates, Unbiased: f.unbiased,
		WalkFailures: f.walkFailures, HandlerTimeout: f.handlerTimeout, Context: ctx, Progress: prog.search,
	}
	switch {
	case f.prefix != "":
		t, err := trace.Read(f.prefix)
		if err != nil {
			return ExitUsage, usageError{err}
		}
		if t.System != f.system || sim.Params(t.Params).Canonical() != params.Canonical() {
			return ExitUsage, usagef("--prefix %s was recorded on %s %s, not %s %s", f.prefix, t.System, sim.Params(t.Params).Canonical(), f.system, params.Canonical())
		}
		scfg.Prefix, scfg.PrefixSteps = t.Choices, t.Steps
	case f.prefixSteps > 0:
		prog.line("walking to a live steady state of at least %d steps...", f.prefixSteps)
		choices, steps, err := steadyPrefix(cfg, f.prefixSteps, f.walkDepth, f.seed)
		if err != nil {
			return ExitUsage, err
		}
		pt := base
		pt.Kind, pt.Choices, pt.Steps, pt.NoFailures = "prefix", choices, steps, true
		path := outPath(f.out, "prefix.trace")
		if err := pt.Write(path); err != nil {
			return ExitUsage, err
		}
		rep.Files["prefix_trace"] = path
		scfg.Prefix, scfg.PrefixSteps = choices, steps
	}

	// A nondeterministic service makes every result untrustworthy: check a
	// short walk replays identically before spending the budget.
	if err := checkDeterministic(cfg, f.seed, f.handlerTimeout); err != nil {
		return ExitUsage, usageError{err}
	}
	lr := lassoSetup(&scfg, f)
	res, err := search.Run(scfg)
	prog.clear()
	if err != nil {
		return ExitUsage, usageError{err}
	}
	st := res.Stats
	rep.Rounds, rep.DeepestComplete, rep.Paths, rep.Pruned, rep.Walks = st.Rounds, st.DeepestComplete, st.Paths, st.Pruned, st.Walks
	rep.Transitions, rep.DistinctStates, rep.Stop = st.Transitions, st.DistinctStates, st.Stop
	rep.SearchS = st.Elapsed.Seconds()
	rep.Verdict = res.Verdict.String()

	for _, v := range res.Violations {
		rep.Violations = append(rep.Violations, ViolationSummary{Verdict: v.Verdict.String(), Property: v.Property, Outcome: outcomeText(&v), Steps: v.Steps, Path: v.Path})
	}
	rep.LassoStats = lr.statsReport(f)
	code := ExitNone
	if len(res.Violations) > 0 {
		code = ExitViolation
		v := res.Violations[0]
		if fd := observedFinding(&v); fd != nil && fd.Kind == lasso.KindTemperature {
			err = a.temperatureViolation(rep, &base, cfg, &v, fd, f)
		} else {
			err = a.violation(rep, &base, cfg, &v, f, ctx, prog)
		}
		if err != nil {
			return ExitUsage, err
		}
	}
	rep.ElapsedS = time.Since(start).Seconds()
	reportPath := outPath(f.out, "report.json")
	rep.Files["report"] = reportPath
	if err := writeJSON(reportPath, rep); err != nil {
		return ExitUsage, err
	}
	if f.asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return ExitUsage, err
		}
	} else {
		a.printReport(rep)
	}
	return code, nil
}

// resultFiles are the files a search writes into --out.
var resultFiles = []string{"error.trace", "error.log", "live.trace", "live.log", "prefix.trace", "report.json", "critical.json", "min.trace", "min.log"}

// violation fills the report for the first violation: checks the service
// is deterministic on its path, finds the critical transition of a
// liveness violation, and writes traces and logs.
func (a *App) violation(rep *Report, base *trace.Trace, cfg *sim.Config, v *search.Violation, f *searchFlags, ctx context.Context, prog *progress) error {
	rep.Property, rep.Outcome, rep.Steps, rep.Path, rep.Depth = v.Property, outcomeText(v), v.Steps, v.Path, v.LiveAfter
	if v.Err != nil {
		rep.Error = v.Err.Error()
	}
	opts := sim.Options{FailuresUntil: v.FailuresUntil}
	if !errors.Is(v.Err, sim.ErrHang) {
		prog.line("checking the violating path replays deterministically...")
		if err := sim.CheckDeterminism(cfg, v.Choices, opts); err != nil {
			return usageError{fmt.Errorf("cannot trust this result: %w", err)}
		}
	}
	et := *base
	et.Kind, et.Property, et.Choices, et.Steps = rep.Verdict, v.Property, v.Choices, v.Steps
	et.FailuresUntil, et.Depth = v.FailuresUntil, v.LiveAfter
	if v.Verdict == search.Liveness {
		rep.Kind = "dead"
	}
	var crp *critical.Result
	if v.Verdict == search.Liveness && !f.noCritical {
		prog.line("searching for the critical transition (k=%d, d_max=%d)...", f.kWalks, f.walkDepth)
		ccfg := critical.Config{
			Sim: cfg, Options: opts, Choices: v.Choices, Steps: v.Steps, DInit: v.LiveAfter,
			WalkDepth: f.walkDepth, Walks: f.kWalks, Seed: f.seed, Workers: f.workers, WalkFailures: f.walkFailures,
			HandlerTimeout: f.handlerTimeout, ConfirmWalks: f.doomed.confirmWalks, ConfirmBudget: f.doomed.confirmBudget,
			Progress: func(p critical.Probe) {
				prog.line("critical transition: probe at step %d recovers=%v", p.Step, p.Recovers)
			},
		}
		cr, err := critical.Find(ctx, ccfg)
		prog.clear()
		if err != nil {
			return fmt.Errorf("critical transition: %w", err)
		}
		if cr.Below {
			rep.CriticalNote = fmt.Sprintf("no walk recovered from the search depth (step %d), so the critical transition was searched in the path's prefix below it", v.LiveAfter)
		}
		rep.Confidence = confidenceReport(cr.Confidence)
		if err := a.minimize(ctx, rep, base, &cr, ccfg, f, prog); err != nil {
			return err
		}
		rep.Critical = criticalReport(&cr, f.kWalks, f.walkDepth)
		et.Critical, et.Condition = cr.Step, cr.Condition.String()
		crp = &cr
		if cr.Live != nil {
			lt := *base
			lt.Kind, lt.Choices, lt.Steps, lt.Shared = "live", cr.Live.Choices, cr.Live.Steps, cr.Live.Shared
			lt.FailuresUntil, lt.Depth, lt.Critical, lt.Condition = v.FailuresUntil, v.LiveAfter, cr.Step, cr.Condition.String()
			if f.walkFailures {
				lt.FailuresUntil = 0
			}
			if err := a.writeTraceAndLog(rep, &lt, f.out, "live"); err != nil {
				return err
			}
		}
	}
	// A lasso behind the violation (--lasso, or no dead state found: C2).
	if err := lassoCheck(rep, &et, cfg, v, f, crp, prog); err != nil {
		return err
	}
	if err := a.writeTraceAndLog(rep, &et, f.out, "error"); err != nil {
		return err
	}
	rep.Replay = fmt.Sprintf("%s replay --trace %s --log %s", a.Name, quote(rep.Files["error_trace"]), quote(rep.Files["error_log"]))
	rep.Debug = fmt.Sprintf("mdb %s", quote(f.out))
	return nil
}

func (a *App) writeTraceAndLog(rep *Report, t *trace.Trace, dir, name string) error {
	tp, lp := outPath(dir, name+".trace"), outPath(dir, name+".log")
	if err := t.Write(tp); err != nil {
		return err
	}
	if err := writeLog(t, lp); err != nil {
		return err
	}
	rep.Files[name+"_trace"], rep.Files[name+"_log"] = tp, lp
	return nil
}

func criticalReport(cr *critical.Result, k, dmax int) *CriticalReport {
	r := &CriticalReport{Step: cr.Step, Condition: cr.Condition.String(), Event: cr.Event.String(), Node: int(cr.Event.Node), Kind: cr.Event.Kind.String(),
		Walks: k, WalkDepth: dmax, Probes: len(cr.Probes), ElapsedS: cr.Elapsed.Seconds(), Explain: cr.Explain(), Refined: cr.Refined}
	if cr.Event.Msg != nil && cr.Event.Kind != sim.EvApp {
		r.Message = sim.MessageName(cr.Event.Msg)
	}
	if cr.Live != nil {
		r.LiveSteps, r.Shared = cr.Live.Steps, cr.Live.Shared
	}
	return r
}

// checkDeterministic replays a seeded walk of up to 1,000 steps twice and
// compares the state hashes step by step.
// A handler that panics or hangs on the way ends the walk there: the
// search itself finds and reports it.
func checkDeterministic(cfg *sim.Config, seed uint64, timeout time.Duration) error {
	s, err := sim.New(cfg, sim.Options{Chooser: walks.NewChooser(walks.SeedFor(seed, 1<<41), false)})
	if err != nil {
		return nil // Start panicked: the search reports it
	}
	steps := 0
	err = s.Guard(timeout, func() error {
		for s.Steps() < 1000 {
			if ok, err := s.Step(); err != nil || !ok {
				break
			}
			steps = s.Steps()
		}
		return nil
	})
	if err != nil {
		return nil // a hang: the search reports it
	}
	if err := sim.CheckDeterminism(cfg, s.ChoiceValues()[:s.StepStart(steps)], sim.Options{}); err != nil {
		return fmt.Errorf("cannot search this system: %w", err)
	}
	return nil
}

// steadyPrefix walks from the initial state, failures off, until the
// system is live after at least minSteps steps.
func steadyPrefix(cfg *sim.Config, minSteps, maxSteps int, seed uint64) ([]int32, int, error) {
	if len(cfg.Liveness) == 0 {
		return nil, 0, usagef("--prefix-steps needs a liveness property to recognise a steady state")
	}
	for attempt := uint64(0); attempt < 20; attempt++ {
		s, err := sim.New(cfg, sim.Options{Chooser: sim.NewRandom(walks.SeedFor(seed, 1<<40+attempt)), NoFailures: true})
		if err != nil {
			return nil, 0, err
		}
		for s.Steps() < max(maxSteps, minSteps) {
			ok, err := s.Step()
			if err != nil || !ok {
				break
			}
			if s.Steps() >= minSteps && walks.IsLive(s, &walks.Config{Liveness: cfg.Liveness}) {
				return s.ChoiceValues(), s.Steps(), nil
			}
		}
	}
	return nil, 0, usagef("no live state after %d steps within %d steps in 20 walks: lower --prefix-steps or raise --walk-depth", minSteps, maxSteps)
}

func (a *App) printReport(r *Report) {
	w := a.Stdout
	params := strings.Join(func() []string {
		var out []string
		for _, k := range sortedKeys(r.Params) {
			out = append(out, k+"="+r.Params[k])
		}
		return out
	}(), " ")
	fmt.Fprintf(w, "system %s (%s), seed %d\n", r.System, params, r.Seed)
	fmt.Fprintf(w, "searched: %d rounds, depth %d complete, %d paths (%d cut by a repeated state), %d walks, %d transitions, %d distinct states in %.2fs; stopped: %s\n",
		r.Rounds, r.DeepestComplete, r.Paths, r.Pruned, r.Walks, r.Transitions, r.DistinctStates, r.SearchS, r.Stop)
	switch r.Verdict {
	case "none":
		fmt.Fprintln(w, "nothing found within this budget")
		printLasso(w, r)
		return
	case "safety":
		fmt.Fprintf(w, "SAFETY VIOLATION: %s after %d steps\n", r.Property, r.Steps)
		if r.Error != "" {
			fmt.Fprintf(w, "  %s\n", r.Error)
		}
	case "liveness":
		how := "suspected liveness violation: no live state in"
		switch {
		case r.Outcome == walks.Quiescent.String():
			how = "liveness violation: the system fell quiescent (nothing left to run) without a live state after"
		case r.Kind == "lasso" && r.Lasso != nil && r.Lasso.Proof:
			how = "lasso: an infinite fair execution without a live state, shown in"
		case r.Kind == "lasso":
			how = "suspected lasso: a hot fair cycle of partial states, shown in"
		case r.Kind == "temperature":
			how = "temperature method: too many steps without a live state, alarm after"
		}
		fmt.Fprintf(w, "LIVENESS VIOLATION of %s (%s %d steps)\n", r.Property, how, r.Steps)
		if c := r.Critical; c != nil {
			fmt.Fprintf(w, "critical transition: step %d, %s (condition %s, k=%d, d_max=%d, %d probes, %.2fs)\n", c.Step, c.Event, c.Condition, c.Walks, c.WalkDepth, c.Probes, c.ElapsedS)
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(strings.TrimSpace(c.Explain), "\n", "\n  "))
			if r.CriticalNote != "" {
				fmt.Fprintf(w, "  (%s)\n", r.CriticalNote)
			}
			if c.LiveSteps > 0 {
				fmt.Fprintf(w, "live alternative: %d steps, sharing the first %d with the dead path\n", c.LiveSteps, c.Shared)
			}
			printDoomed(w, r)
		}
		printLasso(w, r)
	}
	for _, k := range sortedKeys(r.Files) {
		fmt.Fprintf(w, "  %-12s %s\n", k, r.Files[k])
	}
	fmt.Fprintf(w, "total %.2fs (search, critical transition, determinism check, logs)\n", r.ElapsedS)
	fmt.Fprintf(w, "debug:  %s\n", r.Debug)
	fmt.Fprintf(w, "replay: %s\n", r.Replay)
}

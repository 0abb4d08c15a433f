package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/internal/recovered"
	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// Sentinel errors of Run. Every error Run returns wraps one of these, or
// ErrOptions, or a package's own (explore.ErrPrefix, sim.ErrUnknownParam,
// ...), so that errors.Is tells the cases apart.
var (
	// ErrSystem marks a system that cannot be built or checked as asked
	// (bad parameters, unknown properties, a config that does not run).
	ErrSystem = errors.New("search: bad system")
	// ErrInput marks an input file (a prefix trace) that cannot be used.
	ErrInput = errors.New("search: bad input")
	// ErrOutput marks a result directory or file that cannot be written.
	ErrOutput = errors.New("search: cannot write results")
	// ErrInterrupted marks a run cancelled while it walked to a
	// steady-state prefix (Options.PrefixSteps): there is nothing to
	// report. A run cancelled at any other time, before it started
	// included, returns its report with Incomplete set and no error.
	ErrInterrupted = errors.New("search: interrupted")
)

// Phase says what a run is doing, for progress reports.
type Phase int

// The phases of a run, in order (PhasePrecheck, added later, comes
// between PhasePrefix and PhaseSearch).
const (
	PhasePrefix   Phase = iota // walking to a live steady state (PrefixSteps)
	PhaseSearch                // the search itself
	PhaseCheck                 // checking the violation replays deterministically
	PhaseCritical              // searching for the critical transition
	PhaseLasso                 // looking for a lasso
	PhaseFiles                 // writing traces, logs and the report
	PhasePrecheck              // checking a walk replays deterministically, before the search
)

var phaseNames = [...]string{"prefix", "search", "check", "critical", "lasso", "files", "precheck"}

// String returns the phase's name, e.g. "critical".
func (ph Phase) String() string {
	if int(ph) < len(phaseNames) {
		return phaseNames[ph]
	}
	return fmt.Sprintf("phase(%d)", int(ph))
}

// PhaseTime is the time a run spent in one phase (Report.Phases).
type PhaseTime struct {
	Phase Phase
	Time  time.Duration
}

// Progress is what a run tells Options.Progress.
type Progress struct {
	Phase Phase
	// Stats are the search's statistics so far (PhaseSearch).
	Stats explore.Stats
	// Message says in words what the run is doing (other phases).
	Message string
}

// Run checks sys: it builds the system with opts.Params, searches it with
// the strategy (by default the bounded DFS of seed 003 Algorithm 1, every
// path continued by a random walk), and for the first violation checks
// that it replays deterministically, finds the critical transition of a
// liveness violation (Algorithm 3) or the lasso behind it, and writes the
// evidence to opts.Out, replacing the result files (ResultFiles) a previous
// run left there: error.trace and error.log, live.trace and live.log,
// min.trace and min.log (opts.Minimize), prefix.trace (opts.PrefixSteps),
// report.json and report.html, and history.html and history-full.html for
// a linearizability finding (Report.Files names those written; a run that
// finds nothing writes report.json, and prefix.trace, alone).
//
// Cancelling ctx stops the run: the report says what was found and checked
// by then (Report.Incomplete), and the files of a violation already found
// are still written. The error is for runs that could not start or could
// not write their results: bad options (*OptionError), a system that does
// not build, an unreadable prefix, an output directory that cannot be
// written.
func Run(ctx context.Context, sys *sim.System, opts Options) (*Report, error) {
	return run(ctx, sys, opts, nil)
}

// run is Run, merging the records of shards (RunShard) when records is
// not empty.
func run(ctx context.Context, sys *sim.System, opts Options, records []*explore.ShardRecords) (*Report, error) {
	p, err := newPipeline(ctx, sys, opts)
	if err != nil {
		return nil, err
	}
	p.merging = len(records) > 0
	defer p.watchHeap(heapBound(EstimateMemory(p.cfg, &p.opts), &p.opts))()
	if err := p.lockOut(); err != nil {
		return nil, err
	}
	defer p.unlockOut()
	// The prefix is read (and walked to) before the previous results are
	// removed: an input error leaves them, and a prefix kept among them
	// is read before it could go.
	ecfg, err := p.exploreConfig()
	if errors.Is(err, ErrInterrupted) {
		if err := p.cleanOut(); err != nil {
			return nil, err
		}
		p.rep.Stats.Stop = explore.StopInterrupted
		return p.finish(nil)
	} else if err != nil {
		return nil, err
	}
	if room := ecfg.DepthRoom(); p.opts.Depth > room && len(p.cfg.Liveness) > 0 {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("--depth %d was capped at %d: the walks after a bounded part need as many steps as it to reach a live state (--walk-depth %d%s); --walk-depth %d allows --depth %d",
			p.opts.Depth, room, ecfg.WalkDepth, prefixText(ecfg.PrefixSteps), ecfg.PrefixSteps+2*p.opts.Depth, p.opts.Depth))
	}
	if err := p.cleanOut(); err != nil {
		return nil, err
	}
	if pt := p.walkedPrefix; pt != nil {
		if err := p.writeTrace(pt, "prefix"); err != nil {
			return nil, err
		}
	}
	ecfg.Records = records
	for _, r := range records {
		p.shardViolations += r.Violations
	}
	// A nondeterministic service makes every result untrustworthy: check
	// a short walk replays identically before spending the budget. (The
	// walk can also meet a handler that allocates without returning.)
	if len(p.cfg.Safety)+len(p.cfg.Liveness) == 0 && p.cfg.Model == nil {
		p.rep.Warnings = append(p.rep.Warnings, "the system has no safety or liveness properties, monitors or linearizability model: "+
			"the search looks only for handlers that panic, misuse the API or do not return, and for nondeterminism")
	}
	replays := "up to 64 times"
	if p.opts.Replays > 0 {
		replays = fmt.Sprintf("%d times", p.opts.Replays)
	}
	p.progress(PhasePrecheck, "checking the system replays deterministically (a walk of up to 1,000 steps, replayed side by side %s: --replays)...", replays)
	precheckStart := time.Now()
	done := p.precheckBudget()
	f := p.precheck()
	done()
	if f != nil {
		return p.finishWith(f)
	}
	if p.ctx.Err() != nil {
		// Ctrl-C or the memory limit during the check: a search started
		// now would stop at once, or take a leftover alarm for its own.
		p.rep.Stats.Stop = explore.StopInterrupted
		return p.finish(nil)
	}
	if ecfg.Time > 0 {
		ecfg.Time = max(ecfg.Time-time.Since(precheckStart), time.Nanosecond)
	}
	if p.sharedMap != "" {
		// Simulators stepping side by side would write the map at once:
		// Go kills the process ("concurrent map writes"). One worker
		// gives the same report (it does not depend on the workers).
		w := "the nodes of every execution share one map, " + p.sharedMap + " (Build, or a package variable, made it once): " +
			"what a handler writes there leaks into every other execution; give each node its own (make it in Config.Service or Start)"
		if workers(&p.opts) > 1 {
			w += "; the run used one worker, since simulators writing the map side by side would crash the process (the report is the same)"
			p.opts.Workers, ecfg.Workers = 1, 1
		}
		p.rep.Warnings = append(p.rep.Warnings, w)
	}
	lr := p.lassoSetup(&ecfg)
	p.progress(PhaseSearch, "searching (strategy %s, seed %d)...", p.rep.Strategy, p.opts.Seed)
	if len(records) > 0 {
		p.progress(PhaseSearch, "merging %d shards...", len(records))
	}
	res, err := p.explore(ecfg)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", sys.Name, err)
	}
	p.rep.Stats = res.Stats
	p.rep.SearchTime = res.Stats.Elapsed
	p.rep.Warnings = append(p.rep.Warnings, res.Notes...)
	if len(res.Violations) == 0 {
		p.rep.Warnings = append(p.rep.Warnings, res.Warnings...)
	}
	p.rep.Lin = p.linStats(&res.Stats)
	if res.Stats.Unrecorded > 0 || res.Stats.Forgotten > 0 {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the visited-state set was full (--max-states %d): the states it forgot or could not record cut no path, "+
			"so the search repeated work it had done and covered less within its budget (it stays right); raise --max-states", p.opts.MaxStates))
	}
	if len(res.Violations) > 0 {
		p.first = &res.Violations[0]
	}
	for i := range res.Violations {
		p.rep.Findings = append(p.rep.Findings, p.finding(&res.Violations[i]))
	}
	p.rep.LassoStats = lr.stats(p.opts)
	if len(res.Violations) == 0 && p.earlyHang != nil && !p.memoryLimited() {
		return p.finishWith(p.hangAfterSearch(p.earlyHang, "on the walk of the check before the search"))
	}
	if len(res.Violations) == 0 && p.ctx.Err() == nil && !p.memoryLimited() && res.Stats.Paths > 0 {
		// (A search that ran no path, its budget spent by the precheck,
		// has nothing to check after: Report.NothingSearched.)
		p.progress(PhaseCheck, "nothing found: checking %d more walks for code that acts outside its handlers...", postcheckWalks)
		done := p.postcheckBudget()
		f := p.postcheck()
		done()
		if f != nil {
			return p.finishWith(f)
		}
	}
	if len(res.Violations) > 0 {
		done := p.analysisBudget()
		p.analyse(&res.Violations[0], lr)
		done()
		p.rep.Verdict = p.rep.Findings[0].Verdict
		return p.finish(p.findingFiles(&p.rep.Findings[0]))
	}
	return p.finish(nil)
}

// finishWith ends a run whose one finding is f, found by a check around
// the search (precheck, postcheck) rather than by it.
func (p *pipeline) finishWith(f *Finding) (*Report, error) {
	p.rep.Verdict = f.Verdict
	p.rep.Findings = []Finding{*f}
	return p.finish(p.findingFiles(&p.rep.Findings[0]))
}

// precheckBudget bounds the check before the search (precheck) by the
// run's time budget, Options.Time, which the search then gets what is
// left of (a system whose steps are slow, a hundred thousand timers set
// at boot, takes minutes to check). A check cut short finds nothing and
// the report warns that it was. done ends the budget.
func (p *pipeline) precheckBudget() (done func()) {
	return p.timeBudget(fmt.Sprintf("the check that the system replays deterministically, before the search, used the whole time budget (--time %v) and stopped unfinished: "+
		"the system's steps are slow, or the budget is short; no time was left to search", p.opts.Time))
}

// postcheckBudget gives the checks after a search that found nothing
// (postcheck) the run's time budget again, as analysisBudget does the
// analysis of a violation.
func (p *pipeline) postcheckBudget() (done func()) {
	return p.timeBudget(fmt.Sprintf("the checks after the search for code that acts outside its handlers stopped at the time budget (--time %v, given to the search and again to these checks): "+
		"they covered fewer than their %d walks", p.opts.Time, postcheckWalks))
}

// filesBudget gives writing the logs and the report page, which replay
// whole paths (minutes for a long path of big states), the run's time
// budget, Options.Time, once more: past it what is not written is left out
// as on Ctrl-C (the logs: Report.LogsSkipped; the page: a warning), with
// the commands that write them; the traces and report.json are always
// written. done ends the budget.
func (p *pipeline) filesBudget() (done func()) {
	return p.timeBudget(fmt.Sprintf("writing the logs and the report page reached the time budget (--time %v, given to the search, again to the analysis and again to these files): "+
		"what was not written is left out (the commands to write it are below); the traces and report.json are whole", p.opts.Time))
}

// analysisBudget gives the analysis of a violation (its determinism
// check, critical transition, lasso and minimization) the run's time
// budget, Options.Time, again: past it the analysis stops as it does on
// Ctrl-C, keeping what it found, and the report warns that it is partial.
// The files are written after, whatever the time. done ends the budget.
func (p *pipeline) analysisBudget() (done func()) {
	return p.timeBudget(fmt.Sprintf("the analysis of the violation stopped at the time budget (--time %v, given to the search and again to the analysis after it): "+
		"what it says of the critical transition or the minimized path is partial; %s critical --trace on the error trace finishes it", p.opts.Time, p.opts.Command))
}

// errTimeBudget is the cause of the end of a context that timeBudget made
// when the budget ran out (rather than the caller's context).
var errTimeBudget = errors.New("the time budget (Options.Time) ran out")

// timeBudget bounds what the run does until done is called by
// Options.Time (nothing without one): it replaces p.ctx with a context
// that ends then, and done restores it, warning with warning when the time
// ran out (and the run was not stopped otherwise).
func (p *pipeline) timeBudget(warning string) (done func()) {
	if p.opts.Time <= 0 {
		return func() {}
	}
	parent := p.ctx
	ctx, cancel := context.WithTimeoutCause(parent, p.opts.Time, errTimeBudget)
	p.ctx = ctx
	return func() {
		if ctx.Err() != nil && parent.Err() == nil {
			p.rep.Warnings = append(p.rep.Warnings, warning)
		}
		cancel()
		p.ctx = parent
	}
}

// newPipeline checks opts and builds the system for a run of sys.
func newPipeline(ctx context.Context, sys *sim.System, opts Options) (*pipeline, error) {
	start := time.Now()
	if sys == nil {
		return nil, fmt.Errorf("%w: no system", ErrSystem)
	}
	if sys.Name == "" {
		// Traces and report.json name it, and replays look it up.
		return nil, fmt.Errorf("%w: the system has no Name", ErrSystem)
	}
	ownCommand := opts.Command != ""
	depthStepGiven := opts.DepthStep != 0 && opts.DepthStep != DefaultDepthStep // the default cannot be told from one given
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	cfg, params, err := sys.Config(opts.Params)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSystem, err)
	}
	// Before anything is written or a previous run's results removed.
	if err := engine.CheckServices(cfg); err != nil {
		return nil, fmt.Errorf("%w: system %s: %w", ErrSystem, sys.Name, err)
	}
	if err := cfg.Select(opts.Properties); err != nil {
		return nil, fmt.Errorf("%w: system %s: %w", ErrSystem, sys.Name, err)
	}
	if err := checkMemory(cfg, &opts); err != nil {
		return nil, err
	}
	if opts.Faults != "" {
		if cfg.Failures, err = sim.ParseFailures(cfg.Failures, opts.Faults); err != nil {
			return nil, &OptionError{Field: "Faults", Flag: "faults", Value: opts.Faults, Range: err.Error()}
		}
		if err := cfg.Validate(); err != nil {
			return nil, &OptionError{Field: "Faults", Flag: "faults", Value: opts.Faults, Range: "nodes, links and splits of the system's " + fmt.Sprint(cfg.Nodes) + " nodes: " + err.Error()}
		}
		if err := sim.CheckFilters(cfg.Failures, opts.Faults); err != nil {
			return nil, &OptionError{Field: "Faults", Flag: "faults", Value: opts.Faults,
				Range: strings.TrimPrefix(err.Error(), sim.ErrBadFailures.Error()+": ")}
		}
	}
	strat, err := explore.Lookup(opts.Strategy)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	sparams, err := strategyParams(strat, opts.StrategyParams)
	if err != nil {
		return nil, err
	}
	// A strategy checks its options when it starts: try it now, before
	// anything is written (or a previous run's results removed).
	ex, err := strat.New(explore.Setup{Seed: opts.Seed, DepthStep: opts.DepthStep, MaxDepth: opts.Depth, Params: sparams})
	if err != nil {
		var pe *explore.ParamError
		if errors.As(err, &pe) {
			return nil, &OptionError{Field: "StrategyParams[" + pe.Name + "]", Flag: strat.Name() + "-" + pe.Name, Value: pe.Value, Range: pe.Range}
		}
		return nil, fmt.Errorf("%w: strategy %s: %w", ErrOptions, strat.Name(), err)
	}
	first := 0 // the bounded part of the strategy's first path
	if path, ok := ex.Next(nil); ok {
		first = path.Depth
	}
	if steps, err := strconv.Atoi(sparams["steps"]); err == nil && opts.Depth > 0 && steps > opts.Depth && first == opts.Depth {
		// --depth capped the strategy's steps: the report says what ran.
		sparams["steps"] = strconv.Itoa(opts.Depth)
	}
	if err := checkWalkRoom(strat, first, cfg, &opts, opts.PrefixSteps); err != nil {
		return nil, err
	}
	p := &pipeline{ctx: ctx, opts: opts, ownCommand: ownCommand, sys: sys, cfg: cfg, params: params, start: start, strat: strat, sparams: sparams, firstDepth: first, walkOnly: explore.IsWalkOnly(strat)}
	p.rep = &Report{System: sys.Name, Params: params, Properties: opts.Properties, Seed: opts.Seed, Strategy: strat.Name(), StrategyParams: sparams, Files: map[FileRole]string{},
		Faults: cfg.Failures.String(), WalkFailures: opts.WalkFailures && !p.walkOnly, GraphPartial: !opts.Graph.Off && opts.Lasso.Partial}
	if opts.Depth > 0 && p.walkOnly {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("--depth %d has no effect on --strategy walk: its paths have no bounded part (--walk-depth bounds the walks)", opts.Depth))
	}
	if depthStepGiven && !explore.UsesDepthStep(strat) {
		why := "its bounded part is not deepened round by round (its length is its own, capped by --depth)"
		if _, ok := sparams["steps"]; ok {
			why = "its bounded part is not deepened round by round (its length is --" + strat.Name() + "-steps, capped by --depth)"
		}
		if p.walkOnly {
			why = "its paths have no bounded part"
		}
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("--depth-step %d has no effect on --strategy %s: %s", opts.DepthStep, strat.Name(), why))
	}
	if opts.NoHashing && !opts.Graph.Off && len(cfg.Liveness) > 0 && !p.walkOnly {
		p.rep.Warnings = append(p.rep.Warnings, "--no-hashing turns the explored state graph off (its states are hashes): no fair cycle is looked for in it and no exhausted search proves liveness; --lasso looks for cycles along each walk")
	}
	if opts.WalkFailures && p.walkOnly {
		p.rep.Warnings = append(p.rep.Warnings, "--walk-failures has no effect on --strategy walk: its walks are the whole path, and failures are on all along them")
	}
	if p.rep.Properties == nil {
		p.rep.Properties = []string{}
	}
	p.base = trace.Trace{Tool: trace.ToolVersion, System: sys.Name, Sys: sys, Params: params, Seed: opts.Seed, Properties: opts.Properties,
		WalkDepth: opts.WalkDepth, Critical: -1, Faults: opts.Faults}
	return p, nil
}

// prefixText says, in a parenthesis's tail, how long the prefix is.
func prefixText(steps int) string {
	if steps == 0 {
		return ""
	}
	return fmt.Sprintf(" counted from the initial state, after a prefix of %s", plural(steps, "step"))
}

// checkWalkRoom refuses a walk depth that leaves the walks after the
// strategy's first path (first steps long, after prefix steps) fewer steps
// than its bounded part: liveness counts only after the bounded part (the
// strategy's steps, or dfs's first depth bound), and a walk with few steps
// left cannot show a state live, so every path would look doomed. Later
// rounds stop halfway between the prefix's end and d_max (explore's setup).
func checkWalkRoom(strat explore.Strategy, first int, cfg *sim.Config, opts *Options, prefix int) error {
	if len(cfg.Liveness) == 0 || prefix+2*first <= opts.WalkDepth {
		return nil
	}
	bounded := fmt.Sprintf("its first path's bounded part, %d steps", first)
	if prefix > 0 {
		bounded += fmt.Sprintf(", after the prefix's %d", prefix)
	}
	return &OptionError{Field: "WalkDepth", Flag: "walk-depth", Value: opts.WalkDepth,
		Range: fmt.Sprintf("%d to %d with --strategy %s: %s, and walks at least as long after it to reach a live state (lower the strategy's steps or raise --walk-depth)",
			prefix+2*first, MaxWalkDepth, strat.Name(), bounded)}
}

// explore runs the search (explore.Run) on another goroutine and calls
// Options.Progress with its reports on this one, the goroutine that called
// Run, as Options.Progress says: the executor's coordinator runs under the
// watchdog of the system's code, which would take a callback that panics
// or calls runtime.Goexit (testing.T's Fatal) for the system's fault. When
// the callback does either, the search is stopped and waited for before
// it goes on.
func (p *pipeline) explore(ecfg explore.Config) (*explore.Result, error) {
	report := ecfg.Progress
	if report == nil {
		return explore.Run(p.ctx, ecfg)
	}
	ctx, cancel := context.WithCancel(p.ctx)
	updates := make(chan explore.Stats)
	ecfg.Progress = func(st explore.Stats) {
		select {
		case updates <- st:
		case <-ctx.Done():
		}
	}
	type outcome struct {
		res *explore.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		o.err = recovered.Call(func() (err error) {
			o.res, err = explore.Run(ctx, ecfg)
			return err
		})
		done <- o
	}()
	finished := false
	defer func() {
		cancel()
		if !finished {
			<-done // the callback panicked or ended this goroutine
		}
	}()
	for {
		select {
		case st := <-updates:
			report(st)
		case o := <-done:
			finished = true
			return o.res, o.err
		}
	}
}

// exploreConfig returns the executor's config of the run: the options, the
// explored graph, the prefix (walking to a steady state for PrefixSteps:
// ErrInterrupted if cancelled meanwhile) and the linearizability check.
func (p *pipeline) exploreConfig() (explore.Config, error) {
	opts := &p.opts
	ecfg := explore.Config{
		System: p.cfg, Strategy: p.strat, StrategyParams: p.sparams, DepthStep: opts.DepthStep, MaxDepth: opts.Depth,
		WalkDepth: opts.WalkDepth, Seed: opts.Seed, Workers: opts.Workers, MaxPaths: opts.MaxPaths, Time: opts.Time,
		MaxViolations: opts.MaxViolations, NoHashing: opts.NoHashing, MaxStates: opts.MaxStates, Unbiased: opts.Unbiased,
		WalkFailures: opts.WalkFailures, HandlerTimeout: opts.HandlerTimeout,
	}
	ecfg.Graph = p.graphConfig()
	if opts.Progress != nil {
		ecfg.Progress = func(st explore.Stats) { opts.Progress(Progress{Phase: PhaseSearch, Stats: st}) }
	}
	if err := p.prefix(&ecfg); err != nil {
		return ecfg, err
	}
	p.linSetup(&ecfg)
	return ecfg, nil
}

// pipeline is one run of Run.
type pipeline struct {
	ctx     context.Context
	opts    Options
	sys     *sim.System
	cfg     *sim.Config
	params  sim.Params
	strat   explore.Strategy
	sparams sim.Params
	// ownCommand: Options.Command was given (a binary of the user's, such
	// as one built on cli.Main), not the default macemc.
	ownCommand bool
	// firstDepth is the bounded part of the strategy's first path.
	firstDepth int
	// walkOnly: the strategy's paths have no bounded part
	// (explore.WalkOnly).
	walkOnly bool
	start    time.Time
	rep      *Report
	base     trace.Trace        // what every trace of the run records
	lin      *lin.Checker       // the linearizability check, when the system has a model
	first    *explore.Violation // the violation analysed
	// unlockOut gives back the result directory (lockOut).
	unlockOut func()
	// merging marks a run that merges shards' records (Merge): it keeps
	// the shard files it read in --out (cleanOut).
	merging bool
	// coldMonitors are the liveness monitors cold in the initial state
	// (precheck): a search that finds nothing warns of them.
	coldMonitors []string
	// sharedMap names a map that every execution shares (precheck,
	// engine.SharedMap), "" when none is.
	sharedMap string
	// orderWarned is set once orderWarning has warned.
	orderWarned bool
	// shardViolations counts the violating paths the shards merged found
	// (each shard's own, past the budget too).
	shardViolations int
	// walkedPrefix is the prefix trace of Options.PrefixSteps, written
	// once the previous results are removed.
	walkedPrefix *trace.Trace
	// earlyHang is a handler that did not return on the walk of the check
	// before the search (precheck): reported if the search finds nothing.
	earlyHang *explore.Violation
	// logs are the logs to write once the traces are (writeTraceAndLog):
	// each replays its whole path, so they are written side by side with
	// the report page (finish).
	logs []logJob
	// phase is the phase the run is in, since phaseFrom (progress), and
	// phaseOn says it has begun one.
	phase     Phase
	phaseFrom time.Time
	phaseOn   bool
}

// timePhase moves the run to phase ph at now, adding the time of the phase
// it leaves to the report's (Report.Phases).
func (p *pipeline) timePhase(ph Phase, now time.Time) {
	if p.phaseOn && p.phase == ph {
		return
	}
	p.endPhase(now)
	p.phase, p.phaseFrom, p.phaseOn = ph, now, true
}

// endPhase adds the time of the phase the run is in to the report's.
func (p *pipeline) endPhase(now time.Time) {
	if !p.phaseOn {
		return
	}
	p.phaseOn = false
	d := now.Sub(p.phaseFrom)
	for i := range p.rep.Phases {
		if p.rep.Phases[i].Phase == p.phase {
			p.rep.Phases[i].Time += d
			return
		}
	}
	p.rep.Phases = append(p.rep.Phases, PhaseTime{Phase: p.phase, Time: d})
}

// logJob is a log to write: the replay of trace t, as NAME.log at path.
type logJob struct {
	t          *trace.Trace
	name, path string
}

// progress tells the caller what the run does now.
func (p *pipeline) progress(ph Phase, format string, args ...any) {
	p.timePhase(ph, time.Now())
	if p.opts.Progress != nil {
		p.opts.Progress(Progress{Phase: ph, Message: fmt.Sprintf(format, args...)})
	}
}

// finish completes the report and writes report.json; err is the error of
// writing the finding's files, reported after report.json is written.
func (p *pipeline) finish(err error) (*Report, error) {
	if p.rep.First() == nil && len(p.coldMonitors) > 0 {
		p.rep.Warnings = append(p.rep.Warnings, coldMonitorWarning(p.coldMonitors))
	}
	if n := p.shardViolations; n > 0 && p.rep.First() == nil && p.ctx.Err() == nil {
		// The one-process search stops at its budget before them: so
		// does the merge, but the shards' output said they found some.
		them := "them"
		if n == 1 {
			them = "it"
		}
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the shards found %s past this search's budget (it searches the paths one process "+
			"would, in its order): a search with a larger --max-paths (Options.MaxPaths) reaches %s", plural(n, "violating path"), them))
	}
	if st := p.rep.Stats; p.rep.First() == nil && p.walkOnly && st.Walks > 0 && st.Transitions < 2*st.Walks {
		p.rep.Warnings = append(p.rep.Warnings, shortWalksWarning(float64(st.Transitions)/float64(st.Walks)))
	}
	page := p.rep.First() != nil && p.opts.Out != "" && err == nil && p.ctx.Err() == nil
	if page {
		p.rep.Files[FileReportHTML] = p.outPath(htmlreport.PageFile)
	} else if p.rep.First() != nil && p.opts.Out != "" && err == nil {
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the report page was not written: %s (%s report %s writes it)", p.stopWhy(), p.opts.Command, QuotePath(p.opts.Out)))
	}
	for _, l := range p.logs {
		p.rep.Files[FileRole(l.name+"_log")] = l.path
	}
	p.rep.Incomplete = p.ctx.Err() != nil
	if p.memoryLimited() {
		p.rep.MemoryLimited = true
		if p.rep.Stats.Stop == explore.StopInterrupted || p.rep.Stats.Stop == explore.StopNone {
			p.rep.Stats.Stop = explore.StopMemory
		}
	}
	p.checkLogOrder()
	if p.opts.Out != "" {
		p.progress(PhaseFiles, "writing report.json...")
	}
	p.endPhase(time.Now())
	p.rep.Elapsed = time.Since(p.start)
	if werr := p.writeReport(); werr != nil && err == nil {
		err = werr
	}
	if err != nil || len(p.logs) == 0 && !page {
		return p.rep, err
	}
	// The logs and the page each replay whole paths: they are written side
	// by side, and report.json once more when they are done, with the
	// whole run's time and without a file that could not be written.
	if page {
		p.progress(PhaseFiles, "writing the logs and the report page...")
	} else {
		p.progress(PhaseFiles, "writing the logs...")
	}
	done := p.filesBudget()
	logErrs := make([]error, len(p.logs))
	var pageErr error
	var wg sync.WaitGroup
	for i := range p.logs {
		wg.Go(func() { logErrs[i] = writeLog(p.ctx, p.logs[i].t, p.logs[i].path, p.opts.HandlerTimeout) })
	}
	if page {
		wg.Go(func() {
			pageErr = htmlreport.WriteDir(p.opts.Out, htmlreport.Options{Tool: p.opts.Command, HandlerTimeout: p.opts.HandlerTimeout, Context: p.ctx, System: p.sys})
		})
	}
	wg.Wait()
	for i, lerr := range logErrs {
		switch {
		case lerr == nil:
		case p.ctx.Err() != nil:
			// Interrupted while replaying: the log is left out (the
			// replay command writes it), the trace is there.
			p.rep.LogsSkipped = true
			delete(p.rep.Files, FileRole(p.logs[i].name+"_log"))
		case errors.Is(lerr, engine.ErrBadChoice):
			// Not an output problem: the trace does not replay.
			delete(p.rep.Files, FileRole(p.logs[i].name+"_log"))
			p.rep.Warnings = append(p.rep.Warnings, divergedWarning(p.logs[i].name+".log", p.logs[i].name+".trace", lerr))
		default:
			// The log is a view of the trace, which is written: say
			// why it is missing rather than fail the run.
			delete(p.rep.Files, FileRole(p.logs[i].name+"_log"))
			p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("%s.log was not written: %v (%s replay --trace %s --log FILE writes it)",
				p.logs[i].name, lerr, p.opts.Command, QuotePath(p.outPath(p.logs[i].name+".trace"))))
		}
	}
	switch {
	case pageErr != nil && p.ctx.Err() != nil:
		delete(p.rep.Files, FileReportHTML)
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the report page was not written: %s (%s report %s writes it)", p.stopWhy(), p.opts.Command, QuotePath(p.opts.Out)))
	case errors.Is(pageErr, engine.ErrBadChoice):
		// The run's own traces do not replay: not another version of the
		// system, a service that does not behave the same on a replay.
		delete(p.rep.Files, FileReportHTML)
		p.rep.Warnings = append(p.rep.Warnings, divergedWarning("the report page", "a path it shows", pageErr))
	case pageErr != nil:
		// The page is a view of the evidence, which is written: say why
		// it is missing rather than fail the run.
		delete(p.rep.Files, FileReportHTML)
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the report page was not written: %v", pageErr))
	}
	done()
	p.rep.Incomplete = p.ctx.Err() != nil
	p.rep.MemoryLimited = p.rep.MemoryLimited || p.memoryLimited()
	p.endPhase(time.Now()) // the logs and the page
	p.rep.Elapsed = time.Since(p.start)
	if werr := p.writeReport(); werr != nil && err == nil {
		err = werr
	}
	return p.rep, err
}

// stopWhy says why the run's context ended, for a file it left out.
func (p *pipeline) stopWhy() string {
	switch {
	case p.memoryLimited():
		return "the run stopped at the memory limit"
	case errors.Is(context.Cause(p.ctx), errTimeBudget):
		return fmt.Sprintf("the time budget ended (--time %v)", p.opts.Time)
	}
	return "the run was interrupted"
}

// divergedWarning explains a file that was not written because what it
// replays does not replay: the execution took another way on a replay from
// the initial state than in the run.
func divergedWarning(file, what string, err error) string {
	return fmt.Sprintf("%s was not written: %s does not replay from the initial state as the run went (%v). The run's "+
		"paths come from copies of states and from replays; one took another way, so something outside the nodes' state "+
		"steers the service (a pointer's address, a package variable, a goroutine) and the determinism check did not "+
		"catch it: the findings are not to be trusted until it is fixed", file, what, strings.TrimPrefix(err.Error(), "replay: "))
}

// finding turns a violating path into a finding: its kind, verdict and
// certainty, and the trace that replays it.
func (p *pipeline) finding(v *explore.Violation) Finding {
	if v.Outcome == walks.Failed && errors.Is(v.Err, engine.ErrBadChoice) {
		// The search re-runs a path's first steps from the initial state
		// with their recorded choices (Algorithm 1); one that no longer
		// fits the events ready is replays that differ, not a handler's
		// failure.
		nd := &engine.NondeterminismError{Step: v.Steps, Node: -1, StepNode: -1, Replays: 2,
			Detail: "the search ran these steps again from the initial state with the choices they were made with, and a choice no longer fit the events ready: " + v.Err.Error()}
		return *p.nondeterminism(nd, v.Choices, v.FailuresUntil)
	}
	f := Finding{Property: v.Property, Outcome: v.Outcome, Steps: v.Steps, PathSteps: v.Steps, Path: v.Path, Depth: v.LiveAfter, Err: v.Err}
	f.Node, f.Stack = errNode(v.Err)
	switch {
	case v.Outcome == walks.Failed && errors.Is(v.Err, engine.ErrHang):
		f.Kind, f.Certainty, f.Verdict = KindHandlerHang, Certain, VerdictSafety
	case v.Outcome == walks.Failed && errors.Is(v.Err, engine.ErrEscape):
		f.Kind, f.Certainty, f.Verdict, f.Property = KindEscape, Certain, VerdictNondeterministic, walks.DeterminismProperty
	case v.Outcome == walks.Failed && errors.Is(v.Err, engine.ErrMisuse):
		f.Kind, f.Certainty, f.Verdict = KindMisuse, Certain, VerdictSafety
	case v.Outcome == walks.Failed && v.Verdict == explore.Safety:
		f.Kind, f.Certainty, f.Verdict = KindHandlerPanic, Certain, VerdictSafety
		if hp := (*engine.HandlerPanicError)(nil); errors.As(v.Err, &hp) && hp.Monitor != "" {
			f.Property = hp.Monitor // the monitor panicked, as when its Hot does
		}
	case v.Verdict == explore.Safety:
		f.Kind, f.Certainty, f.Verdict = KindSafety, Certain, VerdictSafety
	case v.Outcome == walks.Quiescent:
		f.Kind, f.Certainty, f.Verdict = KindDead, Certain, VerdictLiveness
	case v.Outcome == walks.Observed:
		f.Kind, f.Certainty, f.Verdict = KindLasso, Suspected, VerdictLiveness
		if fd := observedFinding(v); fd != nil {
			f.Kind = kindOf(fd.Kind)
			if fd.Proof() {
				f.Certainty = Certain
			}
		}
	default:
		f.Kind, f.Certainty, f.Verdict = KindDead, Suspected, VerdictLiveness
	}
	t := p.base
	t.Kind, t.Property, t.Choices, t.Steps = f.Verdict.traceKind(), f.Property, v.Choices, v.Steps
	t.FailuresUntil, t.Depth = v.FailuresUntil, v.LiveAfter
	if f.Kind == KindHandlerHang {
		// The trace ends before the hung step; replays run that step
		// under the same watchdog.
		t.HandlerTimeout = p.opts.HandlerTimeout
	}
	f.Trace = &t
	if v.Checked {
		p.linFinding(&f, v)
	}
	if f.Kind == KindSafety && f.Err == nil {
		f.Err = p.monitorFailure(f.Property, v)
	}
	return f
}

// monitorFailure returns the assertion failure of monitor name (when the
// property violated is a monitor's) at the end of v's path: the text of the
// error its Handle returned, which the property alone does not carry.
func (p *pipeline) monitorFailure(name string, v *explore.Violation) error {
	for i := range p.cfg.Monitors {
		if p.cfg.Monitors[i].Name != name {
			continue
		}
		s, err := engine.Replay(p.cfg, v.Choices, v.Steps, engine.Options{FailuresUntil: v.FailuresUntil})
		if err != nil {
			return nil
		}
		if _, failure := s.Monitor(i); failure != "" {
			return &engine.MonitorError{Monitor: name, Step: s.Steps(), Failure: failure}
		}
	}
	return nil
}

// errNode returns the node a handler failure, an escape or a
// nondeterminism names (-1: none), and a panic's own stack frames. A
// nondeterminism whose nodes agree names the node whose handler ran the
// step (what it left pending differs).
func errNode(err error) (int, string) {
	var hp *engine.HandlerPanicError
	var hang *engine.HangError
	var esc *engine.EscapeError
	var mc *engine.MessageChangedError
	var ss *engine.SharedStateError
	var pw *engine.PropertyWriteError
	var pp *engine.PropertyPanicError
	var nd *engine.NondeterminismError
	switch {
	case errors.As(err, &pw):
		return int(pw.Node), ""
	case errors.As(err, &pp) && pp.Condition:
		return pp.Node, pp.Stack
	case errors.As(err, &pp):
		return -1, pp.Stack
	case errors.As(err, &hp):
		return int(hp.Node), hp.Stack
	case errors.As(err, &hang):
		return int(hang.Node), ""
	case errors.As(err, &esc):
		return int(esc.Node), ""
	case errors.As(err, &mc):
		return int(mc.From), ""
	case errors.As(err, &ss):
		return int(ss.Node), ""
	case errors.As(err, &nd) && (nd.Monitor != "" || nd.Property != ""):
		return -1, "" // the monitor's or the property's, no node's
	case errors.As(err, &nd) && nd.Node < 0:
		return nd.StepNode, ""
	case errors.As(err, &nd):
		return nd.Node, ""
	}
	return -1, ""
}

// analyse checks the first violation replays deterministically and finds
// its critical transition or lasso.
func (p *pipeline) analyse(v *explore.Violation, lr *lassoRun) {
	f := &p.rep.Findings[0]
	if f.Kind == KindTemperature {
		p.temperature(f, v)
		return
	}
	if f.Kind != KindHandlerHang && f.Kind != KindEscape {
		p.progress(PhaseCheck, "checking the violating path replays deterministically...")
		if err := p.checkDeterminism(v.Choices, engine.Options{FailuresUntil: v.FailuresUntil}, v.Steps, "the violating path (error.trace)"); errors.Is(err, engine.ErrNondeterministic) {
			nf := p.nondeterminism(err, v.Choices, v.FailuresUntil)
			*f = *nf
			return
		}
	}
	if f.Kind == KindSafety {
		f.AlsoViolated, f.Events, f.FailureSteps = p.alsoViolated(v)
	}
	if f.Verdict != VerdictLiveness {
		return
	}
	if why := p.unreproduced(v); why != "" {
		// The search's own run of these choices and the replays of them
		// in fresh simulators, which agree with one another, end apart:
		// the service depends on something the replays side by side
		// share and the search's run did not (addresses, a cache that
		// earlier executions filled), or macemc erred; either way the
		// verdict cannot stand.
		nd := &engine.NondeterminismError{Step: v.Steps, Node: -1, StepNode: -1, Replays: 1,
			Detail: why + ", and replays of them side by side agree with one another: the search's own run of these choices went otherwise " +
				"(it depended on something the replays share and it did not: pointer addresses, a package variable or cache that earlier executions filled; or macemc erred)"}
		*f = *p.nondeterminism(nd, v.Choices, v.FailuresUntil)
		return
	}
	if !p.opts.NoCritical {
		p.critical(f, v)
	}
	p.lassoCheck(f, v, lr)
	if c, l := f.Critical, f.Lasso; c != nil && l != nil && f.Kind == KindLasso && c.Condition == critical.C2 && !c.Interrupted && (l.Proof || c.Recovered >= 0) {
		lassoCritical(f, l.Proof)
	}
}

// lassoCritical replaces the C2 answer of a lasso's violation by what it
// means there. Algorithm 3 ran on the path the search found, which repeats
// the cycle up to d_max, and stopped past the lasso's trace (it ends after
// the cycle's first round): its step and live alternative are of that
// path, not the trace, and its advice to raise d_max does not apply to a
// lasso that proves the violation. A lasso is a transient-state
// violation, which has no critical transition (seed 003 §2), unless no
// walk recovered even from the initial state; a suspected one (proof
// false: partial hashing) is one if its cycle can go on forever.
func lassoCritical(f *Finding, proof bool) {
	c := f.Critical
	switch {
	case !proof && c.Recovered >= 0:
		c.Explain = fmt.Sprintf("No critical transition: the search for one ran on the path that went on repeating the cycle (to d_max, beyond the %d steps of the trace), "+
			"and random walks from its states still reached live states (from its state %d): no state of it is dead, so this is a transient-state violation (seed 003 §2), which has none, "+
			"if the cycle can go on forever in a fair execution (the lasso below says why it is only suspected; mdb's j cycle shows it).", f.Steps, c.Recovered)
	case c.Recovered < 0 && c.Dead == 0:
		c.Explain = "No critical transition: no random walk from the states probed, the initial state among them, reached a live state, " +
			"so the system looks dead from the start and the lasso proves it can stay so; check the driver's requests, the failure budgets and the liveness properties, " +
			"or raise --walk-depth if a live state needs more steps."
	case f.Lasso != nil && c.Recovered < f.Lasso.Stem:
		// No walk was run from a state of the cycle: the path's states
		// that recovered all come before it.
		c.Explain = fmt.Sprintf("No critical transition found: random walks recovered from the path's states up to state %d, before its cycle begins (at step %d), "+
			"and none was run from a state of the cycle (Algorithm 3 probes no state past d_max/2 = %d): whether the system can become live from the cycle is not known. "+
			"Raise --walk-depth, or look at the cycle in mdb (j cycle; R runs a random branch from where you are).", c.Recovered, f.Lasso.Stem, c.WalkDepth/2)
	default:
		// A walk recovered from a state of the cycle, and every state of
		// a cycle reaches every other.
		c.Explain = "No critical transition, as expected of this lasso: random walks from its states still reach live states, " +
			"so it is a transient-state violation (seed 003 §2), which has none: the system can become live from every state of the cycle, and a fair execution may still never do so."
	}
	c.Step, c.Event, c.Node, c.Kind, c.Message = -1, "", -1, "", ""
	c.LiveSteps, c.Shared = 0, 0
	f.Live = nil
}

// alsoViolated replays the safety violation v's path and lists the other
// safety properties and monitor assertions that fail in its last state
// (Finding.AlsoViolated), and its transitions' summaries (Finding.Events).
func (p *pipeline) alsoViolated(v *explore.Violation) (also, events []string, failures []int) {
	s, err := engine.Replay(p.cfg, v.Choices, 0, engine.Options{FailuresUntil: v.FailuresUntil})
	for err == nil && s.Steps() < v.Steps && p.ctx.Err() == nil {
		var ok bool
		if ok, err = s.Step(); !ok {
			break
		}
		ev := s.LastEvent()
		events = append(events, ev.Summary())
		if ev.Kind.IsFailure() {
			failures = append(failures, len(events))
		}
	}
	if err != nil || s.Steps() != v.Steps {
		return nil, nil, nil
	}
	monitor := map[string]bool{}
	for i := range p.cfg.Monitors {
		monitor[p.cfg.Monitors[i].Name] = true
	}
	for i := range p.cfg.Safety {
		// A monitor's safety property is the monitor's: listed below,
		// with its assertion's message.
		if prop := &p.cfg.Safety[i]; prop.Name != v.Property && !monitor[prop.Name] {
			if ok, err := s.Holds(prop); !ok && err == nil {
				also = append(also, prop.Name)
			}
		}
	}
	for i := range p.cfg.Monitors {
		if name := p.cfg.Monitors[i].Name; name != v.Property {
			if _, failure := s.Monitor(i); failure != "" {
				also = append(also, name+": "+failure)
			}
		}
	}
	return also, events, failures
}

// unreproduced replays the liveness violation v's path in a fresh
// simulator and says how its end differs from what the search saw ("":
// it does not): a live state where the search saw its property fail, or
// events ready where the search saw the system fall quiescent. After the
// determinism check has passed, such a difference comes from what replays
// side by side share and the search's run did not (pointer addresses, a
// cache earlier executions filled), or from an error of macemc's (a
// simulator running the path with another execution's Contexts); it makes
// the verdict wrong, so it is looked for, and the finding becomes one of
// nondeterminism. A replay that cannot run says nothing.
func (p *pipeline) unreproduced(v *explore.Violation) string {
	if v.Outcome != walks.Quiescent && v.Outcome != walks.Dead {
		return ""
	}
	s, err := engine.Replay(p.cfg, v.Choices, 0, engine.Options{FailuresUntil: v.FailuresUntil})
	for err == nil && s.Steps() < v.Steps && p.ctx.Err() == nil {
		var ok bool
		if ok, err = s.Step(); !ok {
			break
		}
	}
	if err != nil || s.Steps() != v.Steps {
		return ""
	}
	for i := range p.cfg.Liveness {
		if prop := &p.cfg.Liveness[i]; prop.Name == v.Property {
			if ok, err := s.Holds(prop); ok && err == nil {
				return fmt.Sprintf("the search saw %s fail at the end of the path (step %d), but it holds at the end of a replay of the path's choices", safetext.QuoteUnsafe(prop.Name), v.Steps)
			}
		}
	}
	if n := len(s.Ready()); v.Outcome == walks.Quiescent && n > 0 {
		return fmt.Sprintf("the search saw the system fall quiescent after step %d, but a replay of the path's choices has %s ready there", v.Steps, plural(n, "event"))
	}
	return ""
}

// nondeterminism is the finding of a path whose replays diverged.
func (p *pipeline) nondeterminism(err error, choices []int32, failuresUntil int) *Finding {
	t := p.base
	t.Kind, t.Property, t.Choices, t.FailuresUntil = trace.KindNondeterministic, walks.DeterminismProperty, choices, failuresUntil
	var mc *engine.MessageChangedError
	var ss *engine.SharedStateError
	var pw *engine.PropertyWriteError
	switch {
	case errors.As(err, &mc):
		t.Property = walks.MessagesProperty
	case errors.As(err, &ss):
		t.Property = walks.SharedProperty
	case errors.As(err, &pw):
		t.Property = walks.ReadOnlyProperty
	}
	f := &Finding{Kind: KindNondeterminism, Certainty: Certain, Verdict: VerdictNondeterministic, Property: t.Property,
		Outcome: walks.Failed, Err: err, Trace: &t}
	f.Node, _ = errNode(err)
	var nd *engine.NondeterminismError
	var esc *engine.EscapeError
	switch {
	case errors.As(err, &esc):
		f.Kind, f.Steps = KindEscape, esc.Step
	case errors.As(err, &mc):
		f.Kind, f.Steps = KindEscape, mc.Delivered
	case errors.As(err, &ss):
		f.Kind, f.Steps = KindEscape, ss.Step
	case errors.As(err, &pw):
		f.Kind, f.Steps = KindEscape, pw.Step
	case errors.As(err, &nd):
		f.Steps = nd.Step
	}
	t.Steps = len(choices) // replay what there is: a replay stops where the choices run out
	if s, rerr := engine.Replay(p.cfg, choices, -1, engine.Options{FailuresUntil: failuresUntil}); rerr == nil {
		t.Steps = s.Steps()
	}
	return f
}

// defaultReplays is the determinism checks' default number of replays of a
// path of steps steps, when Options.Replays does not say: 64 for paths up
// to 1,562 steps and fewer for longer ones (100,000 steps in all), down to
// engine.DefaultReplays (the replays cost steps times replays steps, with
// two state encodings a step for the escape checks). A handler that lets
// the order of a two-entry map decide something once in a path makes a
// replay differ from the first only about one time in five to eight (Go's
// swiss-table maps): 32 replays caught it in 97-100 of 100 runs, 64 in all
// of them; see scripts/nondet. A longer path's first steps get 64 replays
// too (checkReplays).
func defaultReplays(steps int) int {
	return min(64, max(engine.DefaultReplays, 100_000/max(steps, 1)))
}

// headSteps is the longest path the default replays check 64 times; a
// longer one has its first headSteps steps replayed 64 times as well
// (checkReplays).
const headSteps = 100_000 / 64

// checkReplays is engine.CheckDeterminismUntil with replays replays (0:
// the default for a path of steps steps). With the default, a path longer
// than headSteps steps, replayed whole only a few times (5 for a
// 20,000-step liveness path), also has its first headSteps steps replayed
// 64 times, in the replays' first 100,000 steps more: that is where the
// search's own choices are (the bounded prefix, the failures), and a
// choice left to a map's order there, which a few replays pass over one
// time in four or five, is then caught as on a short path.
//
// The default is also cut to what fits in room bytes (replaysWithin): the
// replays run side by side, each holding a copy of the state, and 64
// copies of a state of 100 MB took 13 GB. The returned replayCut says
// when it was (nil: it was not).
func checkReplays(cfg *sim.Config, choices []int32, opts engine.Options, steps, replays int, room int64, stop func() bool) (*replayCut, *engine.OrderDifference, error) {
	if replays > 0 {
		order, err := engine.CheckDeterminismOrder(cfg, choices, opts, replays, stop)
		return nil, order, err
	}
	head, headBytes, endBytes := measurePath(cfg, choices, opts, steps > headSteps, stop)
	var cut *replayCut
	fit := func(want int, size int64) int {
		n := replaysWithin(want, size, room)
		if n < want && cut == nil {
			cut = &replayCut{Replays: n, Want: want, StateBytes: size, Room: room}
		}
		return n
	}
	var order *engine.OrderDifference
	if head != nil {
		var err error
		if order, err = engine.CheckDeterminismOrder(cfg, head, opts, fit(defaultReplays(headSteps), headBytes), stop); err != nil {
			return cut, order, err
		}
	}
	whole, err := engine.CheckDeterminismOrder(cfg, choices, opts, fit(defaultReplays(steps), endBytes), stop)
	if order == nil {
		order = whole
	}
	return cut, order, err
}

// measurePath replays the path choices once and returns, with withHead,
// the choices of its first headSteps steps (cut where a step begins; nil
// when the replay does not get that far: the check of the whole path says
// why) and the memory its state holds there (engine.Sim.StateBytes), and
// the memory its state holds at its end (0 when the replay fails or stop,
// if not nil, returns true: it is asked before every step, as the check's
// replays ask).
func measurePath(cfg *sim.Config, choices []int32, opts engine.Options, withHead bool, stop func() bool) (head []int32, headBytes, endBytes int64) {
	opts.CheckEscapes, opts.CheckMessages, opts.Logger = false, false, nil
	s, err := engine.Replay(cfg, choices, 0, opts)
	if err != nil {
		return nil, 0, 0
	}
	for len(s.Choices()) < len(choices) {
		if withHead && head == nil && s.Steps() == headSteps {
			head, headBytes = choices[:s.StepStart(headSteps)], s.StateBytes()
		}
		if stop != nil && stop() {
			return head, headBytes, 0
		}
		ok, err := s.Step()
		if err != nil {
			return head, headBytes, 0
		}
		if !ok {
			break
		}
	}
	if withHead && head == nil && s.Steps() == headSteps {
		head, headBytes = choices[:s.StepStart(headSteps)], s.StateBytes()
	}
	return head, headBytes, s.StateBytes()
}

// replayRoom is the memory the determinism checks' replays may hold at
// once when no memory limit says otherwise (the replay command, a search
// with --max-memory none): half of the heap bound of the commands without
// a limit.
const replayRoom int64 = engine.DefaultHeapBound / 2

// replaysWithin is how many replays of a path whose state holds stateBytes
// (engine.Sim.StateBytes, at the path's end) fit in room, with the garbage
// collector's headroom and the one replay engine.CheckDeterminismUntil
// keeps beside them: want, or fewer when they do not fit, but at least 2
// (a check needs two).
func replaysWithin(want int, stateBytes, room int64) int {
	if stateBytes <= 0 {
		return want
	}
	return int(max(2, min(int64(want), room/(gcFactor*stateBytes)-1)))
}

// replayCut says that a determinism check replayed a path fewer times than
// its default, for memory.
type replayCut struct {
	Replays, Want    int
	StateBytes, Room int64
}

// warning says what the cut costs and how to avoid it.
func (c *replayCut) warning() string {
	return fmt.Sprintf("the determinism check replayed a path %d times side by side, not %d: its state holds about %s (each replay holds a copy), "+
		"and the run's memory leaves %s for them; a handler that lets a map's order decide something once is caught less often "+
		"(make the state smaller, raise --max-memory, or set --replays)", c.Replays, c.Want, FormatBytes(c.StateBytes), FormatBytes(c.Room))
}

// precheck replays a seeded walk of up to 1,000 steps several times (see
// replays) and compares the states step by step; it returns the
// nondeterminism finding when they differ. A handler that panics or hangs on the way ends the walk
// there: the search itself finds and reports it.
func (p *pipeline) precheck() *Finding {
	s, err := engine.NewGuarded(p.cfg, engine.Options{Chooser: walks.NewChooser(walks.SeedFor(p.opts.Seed, 1<<41), false)}, p.opts.HandlerTimeout)
	if f := p.memoryHang(err); f != nil {
		return f
	}
	if err != nil {
		return nil // Start panicked or hung: the search reports it
	}
	p.valueReceiverWarnings(s)
	for i := range s.Monitors() {
		if m, _ := s.Monitor(i); m != nil {
			if lm, ok := m.(sim.LivenessMonitor); ok && !lm.Hot() && i < len(p.cfg.Monitors) {
				p.coldMonitors = append(p.coldMonitors, p.cfg.Monitors[i].Name)
			}
		}
	}
	// A shadow replays the walk's choices a step behind it, booted after
	// it: the walk is the first execution of the process (of the run, in
	// a library), so a cache of a package's that handlers fill changes
	// the shadow's run, where replays that all start later agree.
	follow := engine.NewRecorded(nil)
	shadow, shadowErr := engine.New(p.cfg, engine.Options{Chooser: follow})
	var across error
	steps, hidden := 0, ""
	// The walk checks the properties in every state, under the watchdog:
	// the determinism check after it runs them again on the same states
	// with none (a predicate that does not return would hang it, and
	// Ctrl-C with it). The shadow checks them too, so that a predicate
	// that writes the state (which the determinism check names) leaves
	// the two alike.
	props := slices.Concat(p.cfg.Safety, p.cfg.Liveness)
	checkProps := func() {
		for i := range props {
			_, _ = s.Holds(&props[i])
			if shadowErr == nil && across == nil {
				_, _ = shadow.Holds(&props[i])
			}
		}
	}
	err = s.Guard(p.opts.HandlerTimeout, func() error {
		for s.Steps() < 1000 && p.ctx.Err() == nil {
			checkProps()
			if hidden == "" && !p.opts.NoHashing {
				if hidden = s.HiddenState(); hidden != "" {
					p.rep.Warnings = append(p.rep.Warnings, hiddenWarning(hidden, s.Steps()))
				}
			}
			if ok, err := s.Step(); err != nil || !ok {
				break
			}
			steps = s.Steps()
			if shadowErr == nil && across == nil {
				follow.Seq = s.ChoiceValues()
				if ok, err := shadow.Step(); !ok || err != nil || shadow.Hash() != s.Hash() {
					across = firstAndLater(s, shadow)
					break
				}
			}
		}
		return nil
	})
	if f := p.memoryHang(err); f != nil {
		return f
	}
	if err != nil {
		// A hang: the search finds it too, unless it cuts the path
		// there at a state it saw before (a lock left held is no
		// state); then it is reported after the search.
		p.earlyHang = hangViolation(err)
		return nil
	}
	if across != nil {
		choices := s.ChoiceValues()[:s.StepStart(steps)]
		if ne, ok := across.(*engine.NondeterminismError); ok && !ne.SharedMap {
			// The first run and a later one differ; so do replays side by
			// side of a service that is nondeterministic in the common
			// ways (a map's order, a global random source, the clock).
			// Then theirs is the finding, and its advice: the state kept
			// across executions is only what remains when they agree.
			if err := p.checkDeterminism(choices, engine.Options{}, steps, precheckPath); errors.Is(err, engine.ErrNondeterministic) {
				return p.nondeterminism(err, choices, 0)
			}
		}
		var esc *engine.EscapeError
		if !errors.As(across, &esc) || esc.Call == "" {
			// A node changed outside its handlers, or the first run and
			// a later one differ: a property, a monitor's Hot or a
			// driver condition that writes the state does that too.
			if pw := engine.PredicateWriter(p.cfg, choices, engine.Options{}, steps); pw != nil {
				across = pw
			}
		}
		return p.nondeterminism(across, choices, 0)
	}
	if shadowErr == nil {
		if node, path, ok := engine.SharedMap(s, shadow); ok {
			p.sharedMap = fmt.Sprintf("node %d's %s", node, cmp.Or(path, "struct"))
		}
	}
	choices := s.ChoiceValues()[:s.StepStart(steps)]
	if err := p.checkDeterminism(choices, engine.Options{}, steps, precheckPath); errors.Is(err, engine.ErrNondeterministic) {
		return p.nondeterminism(err, choices, 0)
	}
	return nil
}

// firstAndLater describes how first, the first execution of some choices
// in the process, and later, a replay of them booted after it, differ
// after first's last step (engine.DiffStates), as state kept across
// executions (NondeterminismError.Across), naming a map the nodes of both
// hold (engine.SharedMap).
func firstAndLater(first, later *engine.Sim) error {
	err := engine.DiffStates(first, later)
	shared, path, sharing := engine.SharedMap(first, later)
	ne, ok := err.(*engine.NondeterminismError)
	switch {
	case ok && ne.Node >= 0 && sharing:
		ne.Detail += fmt.Sprintf(" (the nodes of both runs hold one map, node %d's %s, which Build or a package variable made once)", shared, path)
		ne.SharedMap = true
	case sharing:
		// The nodes agree, or one changed under the other's hash: they
		// hold one map, which both runs wrote.
		ne = &engine.NondeterminismError{Step: first.Steps(), Event: first.LastEvent().String(), StepNode: -1,
			Node: int(shared), Type: fmt.Sprintf("%T", first.Service(shared)), Path: path,
			Detail: "the nodes of both runs hold this one map (Build, or a package variable, made it once), and what one run writes there the other reads", SharedMap: true}
	case !ok:
		return err // a node changed after its handler: an escape
	}
	ne.Replays, ne.Across = 2, true
	return ne
}

// precheckPath names the walk of the check before the search, for warnings.
const precheckPath = "the seeded walk of the check before the search, which is not saved"

// postcheckWalks is how many walks postcheck checks.
const postcheckWalks = 16

// postcheck looks, after a search that found nothing, for what the
// search's verdicts cannot see: a message its sender changed in flight,
// memory two nodes share, a goroutine, replays that differ. The search
// checks that only on the walk before it (precheck) and on the paths of
// its violations, and such a fault often needs a failure to show (a list
// that a sender changes only once a node is suspected, the walk before the
// search having had none). So postcheckWalks more seeded walks of up to
// 1,000 steps, failures on as in the bounded search, are each replayed
// twice with those checks; the first that fails is the finding. A walk
// that meets a handler failure ends there (the search's budget did not
// reach that path; its check covers the steps before).
func (p *pipeline) postcheck() *Finding {
	stop := func() bool { return p.ctx.Err() != nil }
	for i := range uint64(postcheckWalks) {
		s, err := engine.NewGuarded(p.cfg, engine.Options{Chooser: walks.NewChooser(walks.SeedFor(p.opts.Seed, 1<<41+1+i), false)}, p.opts.HandlerTimeout)
		if err != nil {
			return nil
		}
		steps := 0
		err = s.Guard(p.opts.HandlerTimeout, func() error {
			for s.Steps() < 1000 && !stop() {
				if ok, err := s.Step(); err != nil || !ok {
					break
				}
				steps = s.Steps()
			}
			return nil
		})
		if v := hangViolation(err); v != nil && !stop() {
			return p.hangAfterSearch(v, fmt.Sprintf("on walk %d of the %d that a search that finds nothing checks for code acting outside its handlers", i+1, postcheckWalks))
		}
		if err != nil || stop() {
			return nil
		}
		choices := s.ChoiceValues()[:s.StepStart(steps)]
		order, err := engine.CheckDeterminismOrder(p.cfg, choices, engine.Options{}, 2, stop)
		p.orderWarning(order, fmt.Sprintf("seeded walk %d of the %d of the checks after a search that found nothing, which are not saved", i+1, postcheckWalks))
		if errors.Is(err, engine.ErrNondeterministic) {
			p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the search found nothing; the fault above was found after it, on walk %d of the %d that a search that finds nothing checks for code acting outside its handlers", i+1, postcheckWalks))
			return p.nondeterminism(err, choices, 0)
		}
	}
	return nil
}

// coldMonitorWarning says what a search that found nothing did not check
// of liveness monitors that are cold in the initial state (names).
func coldMonitorWarning(names []string) string {
	return fmt.Sprintf("liveness monitor %s is cold in the initial state. As in MaceMC (seed 003 Algorithm 2), each path's walk ends at its first live state "+
		"after the search depth, so an obligation a monitor takes on later (hot from an event on) is judged only on the bounded prefixes that reach that event: "+
		"make the monitor hot from the start of the scenario until its obligation is met, raise --depth, "+
		"or search from a --prefix that reaches the event", strings.Join(shownNames(names), ", "))
}

// shortWalksWarning says what a walk search whose walks took mean steps
// on average (under 2) checked: little.
func shortWalksWarning(mean float64) string {
	return fmt.Sprintf("the walks took %.1f steps on average: each ends at its first live state (seed 003 Algorithm 2), and safety is checked only "+
		"on the states before it, so with states live that soon little beyond the initial state was checked. Check that the liveness properties "+
		"and monitors say what you mean (a liveness monitor that is never hot makes every state live), or use --strategy random or dfs, "+
		"whose bounded paths are checked for safety whatever the liveness", mean)
}

// valueReceiverWarnings warns of every node type with state whose handlers
// have value receivers (engine.ValueReceivers): what they change is lost.
func (p *pipeline) valueReceiverWarnings(s *engine.Sim) {
	seen := map[reflect.Type]bool{}
	for id := range p.cfg.Nodes {
		svc := s.Service(sim.NodeID(id))
		t := reflect.TypeOf(svc)
		if seen[t] {
			continue
		}
		seen[t] = true
		if ms := engine.ValueReceivers(svc); len(ms) > 0 {
			p.rep.Warnings = append(p.rep.Warnings, valueReceiverWarning(t, ms))
		}
	}
}

// valueReceiverWarning words the warning of valueReceiverWarnings for
// node type t and its handlers ms.
func valueReceiverWarning(t reflect.Type, ms []string) string {
	fix := fmt.Sprintf("func (n *%s) %s(...)", t.Elem().Name(), ms[0])
	if len(ms) == 1 {
		return fmt.Sprintf("%s's %s has a value receiver: it runs on a copy of the node, and what it changes in the node's fields is lost; "+
			"give it a pointer receiver (%s) unless it only sends", t, ms[0], fix)
	}
	return fmt.Sprintf("%s's %s have value receivers: each runs on a copy of the node, and what it changes in the node's fields is lost; "+
		"give them pointer receivers (%s) unless they only send", t, andList(ms), fix)
}

// hiddenWarning says what a state that hashing cannot read all of
// (engine.Sim.HiddenState) costs the search, and how to let it prune again.
func hiddenWarning(what string, step int) string {
	return fmt.Sprintf("state hashing cannot read all of the state: %s (step %d of the walk before the search). "+
		"A state that holds it is never taken for another, so the search cuts no path there (as with --no-hashing): "+
		"it stays right but repeats work. Tag the field `macemc:\"-\"` if what it holds is no state, "+
		"or keep that state in fields, or give the type that holds it a canonical form (sim.RegisterCanonical: "+
		"the way for a library's type, whose fields you cannot tag)", what, step)
}

// hangViolation is the violation of a handler that did not return
// (engine.HangError in err), nil for another error.
func hangViolation(err error) *explore.Violation {
	var he *engine.HangError
	if !errors.As(err, &he) {
		return nil
	}
	return &explore.Violation{Verdict: explore.Safety, Outcome: walks.Failed, Property: walks.HangPropertyOf(err), Choices: he.Choices, Steps: he.Step, Err: err}
}

// hangAfterSearch reports, after a search that found nothing, a handler
// that did not return on a walk of the checks around it (where says
// which): the search did not reach it.
func (p *pipeline) hangAfterSearch(v *explore.Violation, where string) *Finding {
	what := "handler"
	if v.Property == walks.OutsideHangProperty {
		what = "code (outside the handlers)"
	}
	p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the search found nothing; the %s below that does not return was met %s. "+
		"The search did not reach it: its path lies past the budget, or the search cut it at a state it took for one it had explored, "+
		"as it does when what makes it hang is no state hashing reads (a lock a handler left held, a sync type's or a "+
		"channel's waiters, a predicate that hangs only on its first call; --no-hashing searches without cutting)", what, where))
	f := p.finding(v)
	return &f
}

// memoryHang returns the finding of err when it is a handler given up on
// because it allocated past the memory limit without returning
// (engine.HangError.Memory): the run stops (its heap is past the limit),
// so the search would not meet it again.
func (p *pipeline) memoryHang(err error) *Finding {
	var he *engine.HangError
	if !errors.As(err, &he) || !he.Memory {
		return nil
	}
	f := p.finding(hangViolation(err))
	return &f
}

// checkDeterminism replays choices as engine.CheckDeterminismN does (the
// number of replays by the path's length, Options.Replays), giving up
// without a verdict when the run is cancelled.
func (p *pipeline) checkDeterminism(choices []int32, opts engine.Options, steps int, path string) error {
	room := replayRoom
	if b := heapBound(EstimateMemory(p.cfg, &p.opts), &p.opts); b > 0 {
		room = b / 2
	}
	cut, order, err := checkReplays(p.cfg, choices, opts, steps, p.opts.Replays, room, func() bool { return p.ctx.Err() != nil })
	if cut != nil {
		p.warnOnce(cut.warning())
	}
	p.orderWarning(order, path)
	return err
}

// orderWarning warns, once a run, of a handler that did the same things in
// another order in replays whose states agreed (engine.OrderDifference):
// not a finding, since the verdicts do not depend on it, but the logs of
// the system differ from run to run.
func (p *pipeline) orderWarning(d *engine.OrderDifference, path string) {
	if d != nil && !p.orderWarned {
		p.orderWarned = true
		p.rep.Warnings = append(p.rep.Warnings, d.Describe(path))
	}
}

// checkLogOrder looks, unless a check warned already, at the paths whose
// logs the run writes that no determinism check replayed (the live
// alternative, the minimized path) for handlers that act in a map's order
// (orderWarning): their logs would differ from run to run. Paths longer
// than orderCheckSteps are left out, as is everything once the run is
// interrupted or out of time.
func (p *pipeline) checkLogOrder() {
	for _, l := range p.logs {
		if p.orderWarned || p.ctx.Err() != nil {
			return
		}
		if l.name == "error" || l.t.Steps > orderCheckSteps {
			continue
		}
		order, _ := engine.CheckDeterminismOrder(p.cfg, l.t.Choices, l.t.Options(), orderCheckReplays, func() bool { return p.ctx.Err() != nil })
		what := map[string]string{"live": "the live alternative", "min": "the minimized path"}[l.name]
		p.orderWarning(order, fmt.Sprintf("%s (%s.trace)", cmp.Or(what, "the path"), l.name))
	}
}

// orderCheckSteps and orderCheckReplays bound checkLogOrder: a live
// alternative is most often a few dozen steps.
const (
	orderCheckSteps   = 5_000
	orderCheckReplays = 8
)

// warnOnce adds the warning w to the report unless it holds it already.
func (p *pipeline) warnOnce(w string) {
	if !slices.Contains(p.rep.Warnings, w) {
		p.rep.Warnings = append(p.rep.Warnings, w)
	}
}

// runName names a system, its parameters and its --faults, as a prefix
// trace records them.
func runName(system, params, faults string) string {
	if faults == "" {
		return fmt.Sprintf("%s %s (no --faults)", safetext.QuoteUnsafe(system), params)
	}
	return fmt.Sprintf("%s %s (--faults %s)", safetext.QuoteUnsafe(system), params, safetext.QuoteUnsafe(faults))
}

// prefix sets up a prefix search: from a prefix trace (Options.Prefix) or
// from a walk to a live steady state (Options.PrefixSteps).
func (p *pipeline) prefix(ecfg *explore.Config) error {
	o := &p.opts
	switch {
	case o.Prefix != "":
		if err := p.prefixNotAResult(); err != nil {
			return err
		}
		t, err := trace.Read(o.Prefix)
		if err != nil {
			return fmt.Errorf("%w: --prefix: %w", ErrInput, err)
		}
		if t.System != p.sys.Name || sim.Params(t.Params).Canonical() != p.params.Canonical() || t.Faults != o.Faults {
			return fmt.Errorf("%w: --prefix %s was recorded on %s, not %s", ErrInput, o.Prefix,
				runName(t.System, sim.Params(t.Params).Text(), t.Faults), runName(p.sys.Name, p.params.Text(), o.Faults))
		}
		if err := p.prefixRoom(t.Steps); err != nil {
			return fmt.Errorf("%w: --prefix %s: %w", ErrInput, o.Prefix, err)
		}
		// Another build may run the prefix's choices into another state.
		t.Sys = p.sys
		if err := CheckFits(t); err != nil {
			return fmt.Errorf("--prefix %s: %w", o.Prefix, err)
		}
		if len(p.cfg.Liveness) > 0 {
			// A prefix is to be a live steady state (seed 003 §4.2): from
			// one that is not, a liveness violation may be the prefix's own.
			if s, err := engine.Replay(p.cfg, t.Choices, t.Steps, t.Options()); err == nil && !walks.IsLive(s, &walks.Config{Liveness: p.cfg.Liveness}) {
				p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("--prefix %s ends in a state that is not live (after its %s): a search from it finds what the prefix already did, if it doomed the system; "+
					"a prefix is to be a live steady state (--prefix-steps walks to one)", o.Prefix, plural(t.Steps, "step")))
			}
		}
		ecfg.Prefix, ecfg.PrefixSteps = t.Choices, t.Steps
		p.rep.PrefixSteps = t.Steps
	case o.PrefixSteps > 0:
		p.progress(PhasePrefix, "walking to a live steady state of at least %d steps...", o.PrefixSteps)
		choices, steps, err := steadyPrefix(p.ctx, p.cfg, o.PrefixSteps, o.WalkDepth, o.Seed)
		if err != nil {
			return err
		}
		if err := p.prefixRoom(steps); err != nil {
			// The prefix runs to a steady state at least this long: its
			// length is known only now.
			return fmt.Errorf("%w: --prefix-steps %d: %w", ErrOptions, o.PrefixSteps, err)
		}
		pt := p.base
		pt.Kind, pt.Choices, pt.Steps, pt.NoFailures = trace.KindPrefix, choices, steps, true
		p.walkedPrefix = &pt // written once the previous results are removed
		ecfg.Prefix, ecfg.PrefixSteps = choices, steps
		p.rep.PrefixSteps = steps
	}
	return nil
}

// prefixRoom checks that walks of d_max steps, counted from the initial
// state, leave room to search from the end of a prefix of this many steps:
// the strategy's first bounded part and a walk beyond it at least as long
// (see checkWalkRoom).
func (p *pipeline) prefixRoom(steps int) error {
	o := &p.opts
	if need := steps + 2*p.firstDepth; len(p.cfg.Liveness) > 0 && need > o.WalkDepth {
		return fmt.Errorf("the prefix has %d steps, and walks of --walk-depth %d steps (counted from the initial state) leave too little room to search from its end (--strategy %s's first bounded part, %d steps, and a walk at least as long after it): raise --walk-depth to %d or more",
			steps, o.WalkDepth, p.strat.Name(), p.firstDepth, need)
	}
	return nil
}

// steadyPrefix walks from the initial state, failures off, until the
// system is live after at least minSteps steps.
func steadyPrefix(ctx context.Context, cfg *sim.Config, minSteps, maxSteps int, seed uint64) ([]int32, int, error) {
	if len(cfg.Liveness) == 0 {
		return nil, 0, &OptionError{Field: "PrefixSteps", Flag: "prefix-steps", Value: minSteps, Range: "0: the system has no liveness property to recognise a steady state"}
	}
	for attempt := uint64(0); attempt < 20; attempt++ {
		s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(walks.SeedFor(seed, 1<<40+attempt)), NoFailures: true})
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %w", ErrSystem, err)
		}
		for s.Steps() < max(maxSteps, minSteps) {
			if ctx.Err() != nil { // every step: handlers may take seconds each
				return nil, 0, fmt.Errorf("%w: interrupted while walking to a live steady state", ErrInterrupted)
			}
			ok, err := s.Step()
			if err != nil || !ok {
				break
			}
			if s.Steps() >= minSteps && walks.IsLive(s, &walks.Config{Liveness: cfg.Liveness}) {
				return s.ChoiceValues(), s.Steps(), nil
			}
		}
	}
	return nil, 0, &OptionError{Field: "PrefixSteps", Flag: "prefix-steps", Value: minSteps,
		Range: fmt.Sprintf("a step count after which 20 walks reach a live state within --walk-depth %d: lower it or raise --walk-depth", maxSteps)}
}

// strategyParams resolves the strategy's own options.
func strategyParams(s explore.Strategy, given map[string]string) (sim.Params, error) {
	spec := &sim.System{Name: "strategy " + s.Name(), Params: s.Params()}
	p, err := spec.Resolve(given)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return p, nil
}

// lockOut makes the output directory, checks its result files can be
// replaced, and takes its lock (see lockOut).
func (p *pipeline) lockOut() error {
	p.unlockOut = func() {}
	if p.opts.Out == "" {
		return nil
	}
	if err := CheckOut(p.opts.Out, ResultFiles...); err != nil {
		return err
	}
	release, err := lockOut(p.opts.Out)
	if err != nil {
		return err
	}
	p.unlockOut = release
	return nil
}

// cleanOut removes the result files of a previous run in the output
// directory, so that they cannot pair with this run's; but for the prefix
// trace this run searches from (--prefix DIR/prefix.trace), which is this
// run's too.
func (p *pipeline) cleanOut() error {
	if p.opts.Out == "" {
		return nil
	}
	names := ResultFiles
	if !p.merging {
		// A shard's records left there would go into a later merge of
		// the directory beside this run's results (a merge into one of
		// its shards' directories keeps them: they are its input).
		names = append(slices.Clip(names), ShardFile)
	}
	for _, name := range names {
		if name == "prefix.trace" && p.opts.Prefix != "" && sameFile(p.opts.Prefix, p.outPath(name)) {
			continue
		}
		if err := os.Remove(p.outPath(name)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("%w: %w", ErrOutput, err)
		}
	}
	return nil
}

// prefixNotAResult refuses a --prefix that is one of the result files this
// run replaces in --out (but its prefix.trace, which it keeps).
func (p *pipeline) prefixNotAResult() error {
	if p.opts.Out == "" {
		return nil
	}
	for _, name := range ResultFiles {
		if name != "prefix.trace" && sameFile(p.opts.Prefix, p.outPath(name)) {
			return fmt.Errorf("%w: --prefix %s is a result file of --out %s, which this run replaces: copy it elsewhere first, or give another --out", ErrInput, p.opts.Prefix, p.opts.Out)
		}
	}
	return nil
}

// sameFile reports whether paths a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/lasso"
)

// lassoFlags are search's lasso-detection and temperature flags.
type lassoFlags struct {
	on          bool
	replays     int
	partial     bool
	nodeFair    bool
	temperature int
	run         *lassoRun // set while a search runs with detectors
}

func (l *lassoFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&l.on, "lasso", false, "detect hot fair lassos during walks: a repeated state, a cycle with no live state in which nothing is starved, replayed --lasso-replays times (seed 000)")
	fs.IntVar(&l.replays, "lasso-replays", lasso.DefaultReplays, "RT: times a suspected cycle is replayed before it is reported")
	fs.BoolVar(&l.partial, "partial-hash", false, "compare states by node type (or a service's LassoKey) and pending message types only, for systems whose exact state never repeats")
	fs.BoolVar(&l.nodeFair, "lasso-node-fairness", false, "count a cycle as fair when every node with an enabled event runs (seed 000's definition) instead of every connection, timer and driver")
	fs.IntVar(&l.temperature, "temperature", 0, "temperature method (seed 000 Algorithm 2): report a walk with this many steps in a row into non-live states (0: off)")
}

func (l *lassoFlags) validate() error {
	if l.replays <= 0 || l.temperature < 0 {
		return usagef("--lasso-replays must be positive and --temperature not negative")
	}
	return nil
}

// options returns the detector options the flags ask for (the action
// fields are set by the caller).
func (l *lassoFlags) options() lasso.Options {
	o := lasso.Options{Replays: l.replays}
	if l.partial {
		o.Hash = lasso.Partial
	}
	if l.nodeFair {
		o.Fairness = lasso.NodeFairness
	}
	return o
}

// lassoRun is the lasso state of one search command.
type lassoRun struct {
	mon *lasso.Monitor
}

// lassoSetup hooks lasso detection and the temperature method into the
// search's walks. Both report what they find as the walk's verdict
// (lasso.Report), so that the search commits it in path order like any
// violation (outcome walks.Observed, the finding in Violation.Observed):
// a confirmed lasso's walk first repeats the cycle up to d_max (the path
// the critical-transition search probes), and an alarm's walk goes on to
// its first live state (a false alarm) or d_max.
func lassoSetup(scfg *search.Config, f *searchFlags) *lassoRun {
	l := &f.lasso
	if !l.on && l.temperature == 0 {
		return nil
	}
	o := l.options()
	o.NoLasso = !l.on
	o.OnLasso = lasso.Report
	o.Temperature = l.temperature
	o.OnAlarm = lasso.Report
	o.Until = f.walkDepth
	o.MaxStates = f.walkDepth + 1
	r := &lassoRun{mon: lasso.NewMonitor(o)}
	scfg.Observe = r.mon.Observer
	l.run = r
	return r
}

// observedFinding returns the lasso or temperature alarm a detector ended
// v's walk with, or nil for a violation of another kind.
func observedFinding(v *search.Violation) *lasso.Finding {
	if v.Outcome != walks.Observed {
		return nil
	}
	fd, _ := v.Observed.(*lasso.Finding)
	return fd
}

// outcomeText is a violation's outcome as the report gives it: the walk's
// outcome ("dead", "quiescent", "unsafe", "failed"), or the kind of the
// finding a detector reported ("lasso", "temperature").
func outcomeText(v *search.Violation) string {
	if fd := observedFinding(v); fd != nil {
		return fd.Kind
	}
	return v.Outcome.String()
}

// refuted reports whether the walk of violation v confirmed a lasso that
// then stopped repeating (partial hashing): its path is no lasso.
func (r *lassoRun) refuted(v *search.Violation) bool {
	if r == nil {
		return false
	}
	for _, fd := range r.mon.Findings() {
		if fd.Kind == lasso.KindLasso && fd.Refuted && len(fd.Choices) <= len(v.Choices) && slices.Equal(fd.Choices, v.Choices[:len(fd.Choices)]) {
			return true
		}
	}
	return false
}

// statsReport summarises what the detectors saw.
func (r *lassoRun) statsReport(f *searchFlags) *LassoStats {
	if r == nil {
		return nil
	}
	st := r.mon.Stats()
	o := r.mon.Options()
	out := &LassoStats{Walks: st.Walks, States: st.States, Repeats: st.Repeats, Unfair: st.Unfair, Mismatched: st.Mismatched,
		Discarded: st.Discarded, Confirmed: st.Confirmed, Refuted: st.Refuted, Alarms: st.Alarms, Recovered: st.Recovered,
		Hash: o.Hash.String(), Fairness: o.Fairness.String(), Replays: o.Replays, Temperature: o.Temperature}
	var lassos, alarms int
	for _, fd := range r.mon.Findings() {
		switch fd.Kind {
		case lasso.KindLasso:
			if fd.Refuted {
				continue
			}
			lassos++
			out.MeanTrace += float64(fd.Steps)
			out.MeanStem += float64(fd.Stem)
			out.MeanCycle += float64(fd.CycleLen)
		case lasso.KindTemperature:
			alarms++
			out.MeanAlarm += float64(fd.Steps)
		}
	}
	if lassos > 0 {
		out.MeanTrace /= float64(lassos)
		out.MeanStem /= float64(lassos)
		out.MeanCycle /= float64(lassos)
	}
	if alarms > 0 {
		out.MeanAlarm /= float64(alarms)
	}
	switch {
	case f.lasso.on && f.lasso.temperature > 0:
		out.Method = "lasso+temperature"
	case f.lasso.on:
		out.Method = "lasso"
	default:
		out.Method = "temperature"
	}
	return out
}

// findLasso looks for a lasso in a liveness violation's path, observing
// from its initial state: a suspected dead path may contain one that its
// walk's detector did not confirm (or that was not watched for).
func findLasso(cfg *sim.Config, v *search.Violation, f *searchFlags) (*lasso.Finding, error) {
	fd, err := lasso.Analyze(cfg, engine.Options{FailuresUntil: v.FailuresUntil}, v.Choices, 0, f.lasso.options())
	if err != nil {
		return nil, fmt.Errorf("lasso detection: %w", err)
	}
	return fd, nil
}

// lassoFromEnd runs walks with lasso detection from the end of a
// suspected violation's path.
func lassoFromEnd(cfg *sim.Config, v *search.Violation, f *searchFlags) (*lasso.Finding, error) {
	fd, _, err := lasso.WalkFrom(lasso.WalkConfig{
		System: cfg, Options: engine.Options{FailuresUntil: v.FailuresUntil}, Choices: v.Choices, Steps: v.Steps,
		Walks: f.kWalks, MaxSteps: min(max(f.walkDepth/4, 1000), f.walkDepth), Seed: f.seed,
		HandlerTimeout: f.handlerTimeout, Lasso: f.lasso.options(),
	})
	if err != nil {
		return nil, fmt.Errorf("lasso detection: %w", err)
	}
	return fd, nil
}

// lassoReport fills the report's lasso fields; source says where the
// cycle was found.
func lassoReport(rep *Report, fd *lasso.Finding, source string) {
	stem := fd.Stem
	// A dead state (C1) is the stronger diagnosis: the kind stays "dead"
	// and the lasso is the second view of the same violation.
	if rep.Critical == nil || rep.Critical.Condition != "C1" {
		rep.Kind = "lasso"
	}
	rep.Stem = &stem
	rep.Cycle = fd.Cycle()
	rep.Lasso = &LassoReport{Stem: fd.Stem, CycleLength: fd.CycleLen, Confirmed: fd.Replays, Note: fd.Note(),
		Hash: fd.Hashing.String(), Proof: fd.Proof(), Repeated: fd.Spun, Source: source, Events: eventTexts(fd.Events)}
	if fd.Property != "" {
		rep.Property = fd.Property
	}
}

func eventTexts(evs []engine.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.String()
	}
	return out
}

// lassoTrace turns the dead path's trace into the lasso's: the execution
// up to the end of the first round of the cycle, with the cycle marked.
func lassoTrace(et *trace.Trace, fd *lasso.Finding) {
	et.Choices, et.Steps = fd.Choices, fd.Steps
	et.CycleStart, et.CycleLen, et.Note = fd.Stem, fd.CycleLen, fd.Note()
	et.Depth = min(et.Depth, fd.Stem)
	if et.Critical > fd.Steps {
		et.Critical = -1
	}
}

// temperatureViolation reports a temperature alarm: the path to the alarm,
// a lasso in it if there is one (then the alarm was a true one), and
// whether the execution became live after the alarm (a false alarm).
func (a *App) temperatureViolation(rep *Report, base *trace.Trace, cfg *sim.Config, v *search.Violation, fd *lasso.Finding, f *searchFlags) error {
	rep.Verdict, rep.Kind, rep.Outcome = search.Liveness.String(), "temperature", outcomeText(v)
	rep.Property, rep.Steps, rep.Path, rep.Depth = fd.Property, fd.Steps, v.Path, fd.Start
	opts := engine.Options{FailuresUntil: fd.FailuresUntil}
	if err := engine.CheckDeterminism(cfg, fd.Choices, opts); err != nil {
		return usageError{fmt.Errorf("cannot trust this result: %w", err)}
	}
	tr := &TemperatureReport{Threshold: fd.Threshold, AlarmStep: fd.Steps, LiveAt: fd.LiveAt, Note: fd.Note()}
	et := *base
	et.Kind, et.Property, et.Choices, et.Steps = search.Liveness.String(), fd.Property, fd.Choices, fd.Steps
	et.FailuresUntil, et.Depth, et.Note = fd.FailuresUntil, fd.Start, fd.Note()
	lf, err := lasso.Analyze(cfg, opts, fd.Choices, 0, f.lasso.options())
	if err != nil {
		return fmt.Errorf("lasso detection: %w", err)
	}
	switch {
	case lf != nil:
		tr.Verdict = "lasso"
		tr.Note += fmt.Sprintf(" But the path to the alarm contains a confirmed lasso (a cycle of %d steps from state %d), so the alarm is a true liveness violation", lf.CycleLen, lf.Stem)
		if fd.LiveAt > 0 {
			tr.Note += "; this execution merely left the cycle by chance, as random scheduling does"
		}
		tr.Note += "."
		stem := lf.Stem
		rep.Stem, rep.Cycle = &stem, lf.Cycle()
		rep.Lasso = &LassoReport{Stem: lf.Stem, CycleLength: lf.CycleLen, Confirmed: lf.Replays, Note: lf.Note(), Hash: lf.Hashing.String(),
			Proof: lf.Proof(), Repeated: lf.Spun, Source: "temperature alarm path", Events: eventTexts(lf.Events)}
		et.CycleStart, et.CycleLen = lf.Stem, lf.CycleLen
	case fd.LiveAt > 0:
		tr.Verdict = "false alarm"
		tr.Note += fmt.Sprintf(" There is no lasso in the path to the alarm: a false alarm, the threshold %d is too low for this system (raise --temperature).", fd.Threshold)
	default:
		tr.Verdict = "unknown"
		tr.Note += " There is no lasso in the path to the alarm, and the execution stayed hot as long as the walk went on: a suspected violation (try --lasso, --partial-hash, or the critical transition of a plain search)."
	}
	rep.Temperature = tr
	if err := a.writeTraceAndLog(rep, &et, f.out, "error"); err != nil {
		return err
	}
	rep.Replay = fmt.Sprintf("%s replay --trace %s --log %s", a.Name, quote(rep.Files["error_trace"]), quote(rep.Files["error_log"]))
	rep.Debug = fmt.Sprintf("mdb %s", quote(f.out))
	return nil
}

// lassoCheck fills the report and the trace with the lasso behind a
// liveness violation: for a lasso a detector reported (outcome Observed),
// the earliest one in its path, which may start before the walk did, or
// else the detector's own; for a dead path, one in the path (always with
// --lasso) and, when the critical-transition search found no dead state
// (C2), in walks from its end.
func lassoCheck(rep *Report, et *trace.Trace, cfg *sim.Config, v *search.Violation, f *searchFlags, cr *critical.Result, prog *progress) error {
	observed := observedFinding(v)
	if observed != nil && observed.Kind != lasso.KindLasso {
		observed = nil
	}
	if observed == nil && (v.Verdict != search.Liveness || v.Outcome != walks.Dead) {
		return nil
	}
	c2 := cr != nil && cr.Condition == critical.C2
	if observed == nil && !f.lasso.on && !c2 {
		return nil
	}
	var fd *lasso.Finding
	if !f.lasso.run.refuted(v) {
		prog.line("looking for a lasso in the violating path...")
		var err error
		if fd, err = findLasso(cfg, v, f); err != nil {
			return err
		}
	}
	source := "violating path"
	if fd == nil && observed != nil {
		fd, source = observed, "search walk"
	}
	if fd == nil && c2 {
		prog.line("critical transition C2: looking for a lasso in walks from the path's end...")
		var err error
		if fd, err = lassoFromEnd(cfg, v, f); err != nil {
			return err
		}
		source = "walks from the violating path's end"
	}
	prog.clear()
	if fd == nil {
		return nil
	}
	lassoReport(rep, fd, source)
	rep.Steps = fd.Steps
	lassoTrace(et, fd)
	return nil
}

// printLasso prints the lasso, temperature and detector parts of a report.
func printLasso(w io.Writer, r *Report) {
	if l := r.Lasso; l != nil {
		what := "lasso"
		if r.Kind == "temperature" {
			what = "lasso in the alarm's path"
		}
		fmt.Fprintf(w, "%s: a stem of %d steps, then a cycle of %d steps (transitions %d-%d), replayed %d times (%s hashing)\n",
			what, l.Stem, l.CycleLength, l.Stem+1, l.Stem+l.CycleLength, l.Confirmed, l.Hash)
		const show = 24
		for i, ev := range l.Events {
			if i == show {
				fmt.Fprintf(w, "    ... %d more\n", len(l.Events)-show)
				break
			}
			fmt.Fprintf(w, "    %d  %s\n", l.Stem+1+i, ev)
		}
		fmt.Fprintf(w, "  %s\n", l.Note)
	}
	if t := r.Temperature; t != nil {
		fmt.Fprintf(w, "temperature: %d at step %d, verdict %s\n  %s\n", t.Threshold, t.AlarmStep, t.Verdict, t.Note)
	}
	if s := r.LassoStats; s != nil {
		fmt.Fprintf(w, "%s over %d walks: %s\n", s.Method, s.Walks, strings.Join(s.summary(), ", "))
	}
}

func (s *LassoStats) summary() []string {
	var out []string
	if s.Method != "temperature" {
		out = append(out, fmt.Sprintf("%d lassos confirmed", s.Confirmed))
		if s.Refuted > 0 {
			out = append(out, fmt.Sprintf("%d refuted", s.Refuted))
		}
		out = append(out, fmt.Sprintf("%d hot fair cycles discarded by replay, %d unfair cycles ignored", s.Discarded, s.Unfair))
	}
	if s.Temperature > 0 {
		out = append(out, fmt.Sprintf("%d temperature alarms (%d of them became live later)", s.Alarms, s.Recovered))
	}
	return out
}

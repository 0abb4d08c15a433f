package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/lasso"
)

// lassoOptions returns the detector options o asks for (the action fields
// are set by the caller).
func lassoOptions(o *LassoOptions) lasso.Options {
	lo := lasso.Options{Replays: o.Replays}
	if o.Partial {
		lo.Hash = lasso.Partial
	}
	if o.NodeFairness {
		lo.Fairness = lasso.NodeFairness
	}
	return lo
}

// lassoRun is the lasso detection of one run.
type lassoRun struct {
	mon *lasso.Monitor
}

// lassoSetup hooks lasso detection and the temperature method into the
// search's walks. Both report what they find as the walk's verdict
// (lasso.Report), so that the search commits it in path order like any
// violation (outcome walks.Observed): a confirmed lasso's walk first
// repeats the cycle up to d_max (the path the critical-transition search
// probes), and an alarm's walk goes on to its first live state (a false
// alarm) or d_max.
func (p *pipeline) lassoSetup(ecfg *explore.Config) *lassoRun {
	l := &p.opts.Lasso
	if !l.On && l.Temperature == 0 {
		return nil
	}
	o := lassoOptions(l)
	o.NoLasso = !l.On
	o.OnLasso = lasso.Report
	o.Temperature = l.Temperature
	o.OnAlarm = lasso.Report
	o.Until = p.opts.WalkDepth
	o.MaxStates = p.opts.WalkDepth + 1
	r := &lassoRun{mon: lasso.NewMonitor(o)}
	// Count only the walks of committed paths: the same for any workers.
	r.mon.Committed = true
	ecfg.Observe = r.mon.Observer
	return r
}

// observedFinding returns the lasso or temperature alarm a detector ended
// v's walk with, or nil for a violation of another kind.
func observedFinding(v *explore.Violation) *lasso.Finding {
	if v.Outcome != walks.Observed {
		return nil
	}
	fd, _ := v.Observed.(*lasso.Finding)
	return fd
}

func kindOf(k lasso.Kind) Kind {
	if k == lasso.KindTemperature {
		return KindTemperature
	}
	return KindLasso
}

// refuted reports whether the walk of violation v confirmed a lasso that
// then stopped repeating (partial hashing): its path is no lasso.
func (r *lassoRun) refuted(v *explore.Violation) bool {
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

// stats summarises what the detectors saw.
func (r *lassoRun) stats(opts Options) *LassoStats {
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
	case opts.Lasso.On && opts.Lasso.Temperature > 0:
		out.Method = "lasso+temperature"
	case opts.Lasso.On:
		out.Method = "lasso"
	default:
		out.Method = "temperature"
	}
	return out
}

// lassoOf describes a detector's lasso found at origin; source says so in
// words.
func lassoOf(fd *lasso.Finding, origin LassoOrigin, source string) *Lasso {
	return &Lasso{Stem: fd.Stem, Length: fd.CycleLen, Confirmed: fd.Replays, Note: fd.Note(), Hash: fd.Hashing.String(),
		Proof: fd.Proof(), Repeated: fd.Spun, Origin: origin, Source: source, Events: eventTexts(fd.Events),
		NodeFair: fd.Fairness == lasso.NodeFairness}
}

func eventTexts(evs []engine.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Summary()
	}
	return out
}

// lassoCheck records the lasso behind a liveness violation: for a lasso a
// detector reported (outcome Observed), the earliest one in its path,
// which may start before the walk did, or else the detector's own; for a
// dead path, one in the path (always with Options.Lasso) and, when the
// critical-transition search found no dead state (C2), in walks from its
// end. The trace then ends with the first round of the cycle.
func (p *pipeline) lassoCheck(f *Finding, v *explore.Violation, lr *lassoRun) {
	if p.ctx.Err() != nil {
		return
	}
	o := &p.opts
	observed := observedFinding(v)
	if observed != nil && observed.Kind != lasso.KindLasso {
		observed = nil
	}
	if observed == nil && v.Outcome != walks.Dead {
		return
	}
	c2 := f.Critical != nil && f.Critical.Condition == critical.C2
	if observed == nil && !o.Lasso.On && !c2 {
		return
	}
	lo := lassoOptions(&o.Lasso)
	var fd *lasso.Finding
	if !lr.refuted(v) {
		p.progress(PhaseLasso, "looking for a lasso in the violating path...")
		var err error
		if fd, err = lasso.AnalyzeContext(p.ctx, p.cfg, engine.Options{FailuresUntil: v.FailuresUntil}, v.Choices, 0, lo); err != nil {
			f.Lasso = &Lasso{Note: lassoFailed(p, err)}
			return
		}
	}
	origin, source := OriginPath, originText[OriginPath]
	if v.Graph != nil {
		origin, source = OriginGraph, v.Graph.String()
	}
	if fd == nil && observed != nil {
		fd, origin, source = observed, OriginSearchWalk, originText[OriginSearchWalk]
	}
	if fd == nil && c2 {
		p.progress(PhaseLasso, "critical transition C2: looking for a lasso in walks from the path's end...")
		var err error
		fd, _, err = lasso.WalkFrom(lasso.WalkConfig{
			System: p.cfg, Options: engine.Options{FailuresUntil: v.FailuresUntil}, Choices: v.Choices, Steps: v.Steps,
			Walks: o.Walks, MaxSteps: min(max(o.WalkDepth/4, 1000), o.WalkDepth), Seed: o.Seed,
			HandlerTimeout: o.HandlerTimeout, Lasso: lo, Context: p.ctx,
		})
		if err != nil {
			f.Lasso = &Lasso{Note: lassoFailed(p, err)}
			return
		}
		origin, source = OriginEndWalks, originText[OriginEndWalks]
	}
	if fd == nil {
		return
	}
	f.Lasso = lassoOf(fd, origin, source)
	if len(fd.Never) == 0 && len(p.cfg.Liveness) > 1 {
		for _, pr := range p.cfg.Liveness {
			f.Lasso.InTurn = append(f.Lasso.InTurn, pr.Name)
		}
	}
	// A dead state (C1) is the stronger diagnosis: the kind stays dead
	// and the lasso is the second view of the same violation.
	if f.Critical == nil || f.Critical.Condition != critical.C1 {
		f.Kind, f.Certainty = KindLasso, Suspected
	}
	if fd.Proof() {
		f.Certainty = Certain
	}
	if fd.Property != "" {
		f.Property = fd.Property
	}
	f.Steps = fd.Steps
	t := f.Trace
	t.Choices, t.Steps = fd.Choices, fd.Steps
	t.CycleStart, t.CycleLen, t.Note = fd.Stem, fd.CycleLen, fd.Note()
	t.Depth = min(t.Depth, fd.Stem)
	if t.Critical > fd.Steps {
		t.Critical = -1
	}
}

// lassoFailed says why lasso detection stopped.
func lassoFailed(p *pipeline, err error) string {
	if p.ctx.Err() != nil {
		return "lasso detection was interrupted"
	}
	return fmt.Sprintf("lasso detection failed: %v", err)
}

// temperature reports a temperature alarm: the path to the alarm, a lasso
// in it if there is one (then the alarm was a true one), and whether the
// execution became live after the alarm (a false alarm).
func (p *pipeline) temperature(f *Finding, v *explore.Violation) {
	fd := observedFinding(v)
	f.Property, f.Steps, f.Depth = fd.Property, fd.Steps, fd.Start
	opts := engine.Options{FailuresUntil: fd.FailuresUntil}
	t := f.Trace
	t.Property, t.Choices, t.Steps = fd.Property, fd.Choices, fd.Steps
	t.FailuresUntil, t.Depth, t.Note = fd.FailuresUntil, fd.Start, fd.Note()
	p.progress(PhaseCheck, "checking the alarm's path replays deterministically...")
	if err := p.checkDeterminism(fd.Choices, opts, fd.Steps, "the violating path (error.trace)"); err != nil {
		*f = *p.nondeterminism(err, fd.Choices, fd.FailuresUntil)
		return
	}
	tr := &Temperature{Threshold: fd.Threshold, AlarmStep: fd.Steps, LiveAt: fd.LiveAt, Note: fd.Note()}
	f.Temperature = tr
	lf, err := lasso.AnalyzeContext(p.ctx, p.cfg, opts, fd.Choices, 0, lassoOptions(&p.opts.Lasso))
	switch {
	case err != nil:
		tr.Verdict = "unknown"
		tr.Note += " " + strings.ToUpper(lassoFailed(p, err)[:1]) + lassoFailed(p, err)[1:] + " on the alarm's path."
	case lf != nil:
		tr.Verdict = "lasso"
		tr.Note += fmt.Sprintf(" But the path to the alarm contains a confirmed lasso (a cycle of %d steps from state %d), so the alarm is a true liveness violation", lf.CycleLen, lf.Stem)
		if fd.LiveAt > 0 {
			tr.Note += "; this execution merely left the cycle by chance, as random scheduling does"
		}
		tr.Note += "."
		f.Lasso = lassoOf(lf, OriginAlarm, originText[OriginAlarm])
		t.CycleStart, t.CycleLen = lf.Stem, lf.CycleLen
		if lf.Proof() {
			f.Certainty = Certain
		}
	case fd.LiveAt > 0:
		tr.Verdict = "false alarm"
		tr.Note += fmt.Sprintf(" There is no lasso in the path to the alarm: a false alarm, the threshold %d is too low for this system (raise --temperature).", fd.Threshold)
	default:
		tr.Verdict = "unknown"
		tr.Note += " There is no lasso in the path to the alarm, and the execution stayed hot as long as the walk went on: a suspected violation (try --lasso, --partial-hash, or the critical transition of a plain search)."
	}
}

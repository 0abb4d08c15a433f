package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/internal/recovered"
	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// critical finds the critical transition of the dead path v (seed 003
// Algorithm 3) and records it, with the live alternative, in f.
func (p *pipeline) critical(f *Finding, v *explore.Violation) {
	o := &p.opts
	// The determinism check of the path, before, may have used the whole
	// analysis budget: then no probe ran, and the text says why.
	spent := errors.Is(context.Cause(p.ctx), errTimeBudget)
	p.progress(PhaseCritical, "searching for the critical transition (k=%d, d_max=%d)...", o.Walks, o.WalkDepth)
	ccfg := critical.Config{
		Sim: p.cfg, Options: engine.Options{FailuresUntil: v.FailuresUntil}, Choices: v.Choices, Steps: v.Steps,
		DInit: min(v.LiveAfter, v.Steps), WalkDepth: max(o.WalkDepth, v.Steps), Walks: o.Walks, Seed: o.Seed, Workers: o.Workers,
		WalkFailures: o.WalkFailures, HandlerTimeout: o.HandlerTimeout, ConfirmBudget: o.ConfirmBudget,
		Progress: func(pr critical.Probe) {
			p.progress(PhaseCritical, "critical transition: %s probe at step %d recovers=%v", pr.Phase, pr.Step, pr.Recovers)
		},
	}
	if o.NoConfirm {
		ccfg.ConfirmWalks = -1
	}
	var cr critical.Result
	var c *Critical
	err := recovered.Call(func() (err error) {
		cr, c, err = findCritical(p.ctx, ccfg, v.Outcome == walks.Quiescent)
		return err
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			// Interrupted: report how far the probes had narrowed the
			// critical transition, and the live alternative found so far.
			lo, hi := probeBounds(cr.Probes)
			rerun := o.Command + " critical --trace " + QuotePath(p.outPath("error.trace"))
			explain := interruptedText(lo, hi, o.Walks, rerun, stopCause(p.ctx, err))
			if spent && len(cr.Probes) == 0 {
				explain = fmt.Sprintf("The critical transition was not searched: the check that the violating path replays deterministically used the whole analysis budget "+
					"(--time %v, given to the search and again to the analysis after it). Run the search for it on the trace with `%s`.", o.Time, rerun)
			}
			f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Probes: len(cr.Probes), Elapsed: cr.Elapsed, Interrupted: true,
				Recovered: lo, Dead: hi, Explain: explain}
			p.liveAlternative(f, v, cr.Live, -1, critical.Condition(0))
			return
		}
		if errors.Is(err, engine.ErrNondeterministic) {
			// A copy of a state of the path took another way than the
			// path did: the service is nondeterministic in a way that
			// replays from the initial state, alike, did not show (its
			// behaviour depends on pointer addresses, say). Nothing that
			// rests on copies, nor the verdict, can be trusted.
			*f = *p.nondeterminism(err, v.Choices, v.FailuresUntil)
			return
		}
		f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Recovered: -1, Dead: -1, Explain: fmt.Sprintf("The critical-transition search failed: %v", err)}
		return
	}
	f.Critical = c
	f.Trace.Critical, f.Trace.Condition = cr.Step, cr.Condition.String()
	if cr.Failed > 0 {
		// The walks met a failure of the system's code the search did
		// not: a bug of its own, and walks that told nothing.
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("%s of the critical-transition search ended in a failure of the system's code that the search did not meet (first: %s): "+
			"each was counted as not recovering, so the critical transition above may be wrong; fix that failure and search again", plural(cr.Failed, "recovery walk"), safetext.QuoteUnsafe(cr.FailedError)))
	}
	if cr.Condition == critical.C1 {
		// A dead state is the diagnosis; a lasso found beside it is a
		// second view of the same violation. The walks make it likely; a
		// quiescent state or an exact lasso already made it certain.
		f.Kind, f.Certainty = KindDead, max(f.Certainty, Likely)
	}
	if cr.Live != nil {
		c.LiveSteps, c.Shared = cr.Live.Steps, cr.Live.Shared
	}
	p.liveAlternative(f, v, cr.Live, cr.Step, cr.Condition)
	p.minimize(f, ccfg, &cr)
}

// liveAlternative records the live alternative of a critical-transition
// search as the finding's live trace.
func (p *pipeline) liveAlternative(f *Finding, v *explore.Violation, live *critical.Alternative, step int, cond critical.Condition) {
	if live == nil {
		return
	}
	lt := p.base
	lt.Kind, lt.Choices, lt.Steps, lt.Shared = trace.KindLive, live.Choices, live.Steps, live.Shared
	lt.FailuresUntil, lt.Depth, lt.Critical = v.FailuresUntil, v.LiveAfter, step
	if cond != 0 {
		lt.Condition = cond.String()
	}
	if p.opts.WalkFailures {
		lt.FailuresUntil = 0
	}
	f.Live = &lt
}

// probeBounds returns the highest probed state that recovered and the
// lowest above it from which no walk recovered (-1 for none): the critical
// transition lies between them. (A state that k walks called dead may
// recover in its confirmation sample: it then counts as recovered.)
func probeBounds(probes []critical.Probe) (recovered, dead int) {
	recovered, dead = -1, -1
	for _, pr := range probes {
		if pr.Recovers {
			recovered = max(recovered, pr.Step)
		}
	}
	for _, pr := range probes {
		if !pr.Recovers && pr.Step > recovered && (dead < 0 || pr.Step < dead) {
			dead = pr.Step
		}
	}
	return recovered, dead
}

// interruptedText explains an interrupted critical-transition search.
func interruptedText(recovered, dead, k int, rerun, cause string) string {
	s := cause + " before the critical transition was found."
	switch {
	case recovered >= 0 && dead == recovered+1:
		s += fmt.Sprintf(" The probes had narrowed it to transition %d (state %d recovered, and none of k = %d walks recovered from state %d); the confirmation of state %d with more walks had not finished.", dead, recovered, k, dead, dead)
	case recovered >= 0 && dead >= 0:
		s += fmt.Sprintf(" The probes had narrowed it to transitions %d-%d: state %d recovered, and none of k = %d walks recovered from state %d.", recovered+1, dead, recovered, k, dead)
	case recovered >= 0:
		s += fmt.Sprintf(" State %d still recovered: the critical transition, if any, is later.", recovered)
	case dead >= 0:
		s += fmt.Sprintf(" None of k = %d walks recovered from state %d: the critical transition is at or before it.", k, dead)
	default:
		s += " No probe had finished."
	}
	return s + " Re-run it on the trace with `" + rerun + "`."
}

// stopCause says what ended a run whose context ctx ended with err: its
// time budget (Options.Time), the deadline of the caller's context, or an
// interruption (a cancel, Ctrl-C).
func stopCause(ctx context.Context, err error) string {
	switch {
	case errors.Is(context.Cause(ctx), errTimeBudget):
		return "The time budget (--time) ran out"
	case errors.Is(err, context.DeadlineExceeded):
		return "The run's context reached its deadline"
	}
	return "The run was interrupted"
}

// findCritical runs critical.Find on c (Algorithm 3, the search below
// d_init when no walk recovers from it, and the confirmation of the answer:
// critical/doc.go) and describes the answer. A path that fell quiescent
// (quiescent) and from whose initial state no walk recovers is dead from
// the start: C1 at step 0, with no critical transition (and nothing to
// minimize).
func findCritical(ctx context.Context, c critical.Config, quiescent bool) (critical.Result, *Critical, error) {
	cr, err := critical.Find(ctx, c)
	if err != nil {
		return cr, nil, err
	}
	note := ""
	if cr.Below {
		note = fmt.Sprintf("no walk recovered from the search depth (step %d), so the critical transition was searched in the path's prefix below it", cr.DInit)
	}
	lo, hi := probeBounds(cr.Probes)
	if cr.HasEvent {
		cr.EventText = cr.Event.Summary() // as the report names it, in Explain too
	}
	cc := &Critical{Step: cr.Step, Condition: cr.Condition, Event: cr.EventText, Node: int(cr.Event.Node), Kind: cr.Event.Kind.String(),
		Walks: cr.Walks, WalkDepth: cr.WalkDepth, Probes: len(cr.Probes), Elapsed: cr.Elapsed, Explain: cr.Explain(), Note: note,
		Recovered: lo, Dead: hi, Confidence: cr.Confidence, Refined: cr.Refined, Unchanged: cr.Unchanged}
	if cr.Event.Msg != nil && cr.Event.Kind != engine.EvApp {
		cc.Message = sim.MessageName(cr.Event.Msg)
	}
	if !cr.HasEvent || cr.Condition == critical.C2 {
		// C2 names no transition (its step is where the search stopped:
		// Recovered and Dead bound it).
		cc.Event, cc.Node, cc.Kind, cc.Message = "", -1, "", ""
	}
	if cr.Condition == critical.C2 {
		cc.Step = -1
	}
	if dead, confirmed := deadAtStart(cr.Probes); cr.Condition == critical.C2 && cr.AtDInit && quiescent && dead {
		// No walk from the initial state becomes live, and this path
		// falls quiescent without a live state: the system is dead from
		// the start, and no transition is critical.
		cr.Condition, cr.Step = critical.C1, 0
		cr.Event, cr.EventText, cr.HasEvent = engine.Event{}, "", false
		cc.Condition, cc.Step, cc.Note = critical.C1, 0, ""
		cc.Event, cc.Node, cc.Kind, cc.Message = "", -1, "", ""
		more := ""
		if confirmed > 0 {
			more = fmt.Sprintf(", nor any of %s more (the confirmation sample)", plural(confirmed, "walk"))
		}
		cc.Explain = fmt.Sprintf("Dead from the start (step 0): none of k = %d random walks from the initial state reached a live state within d_max = %d steps%s, "+
			"and this path falls quiescent after %s without one. No transition is critical: as configured, the system does not become live; "+
			"check the driver's requests, the failure budgets and the liveness properties, and that the nodes arm their timers with sim.Context.SetTimer "+
			"(a timer of package time, such as time.AfterFunc or time.NewTimer, is no event of the simulator's: it never fires in an execution, "+
			"and its callback, if it runs at all, runs outside the handlers).", cr.Walks, cr.WalkDepth, more, plural(cr.ESteps, "step"))
		if n := bootChoices(c); n > 0 {
			cc.Explain = fmt.Sprintf("Dead from the start (step 0): the nodes chose while they booted (%s, Rand or Elapsed in Start), and the initial state these answers made is dead: "+
				"none of k = %d random walks from it reached a live state within d_max = %d steps%s, and this path falls quiescent after %s without one. "+
				"No transition is critical: the choices at boot decided it (the log's first lines name them); other answers start from other initial states.",
				plural(n, "choice"), cr.Walks, cr.WalkDepth, more, plural(cr.ESteps, "step"))
		}
		if note := cr.UnsafeNote(); note != "" {
			cc.Explain += " " + note
		}
	}
	return cr, cc, nil
}

// bootChoices returns the number of choices E's nodes made while they
// booted (0 when E does not replay).
func bootChoices(c critical.Config) int {
	s, err := engine.Replay(c.Sim, c.Choices, 0, c.Options)
	if err != nil {
		return 0
	}
	return len(s.Choices())
}

// Headline is the critical transition in one line, as reports print it:
// the step and its event (C1), "dead from step 0" (C1 with no transition)
// or that none was found within the search depth (C2).
func (c *Critical) Headline() string { return c.headline(false) }

// headline is Headline, without the time when stable is set.
func (c *Critical) headline(stable bool) string {
	how := c.budget(stable)
	switch {
	case c.Condition == critical.C2 && !c.Interrupted:
		// C2 names no transition: it is where the search stopped.
		return fmt.Sprintf("no critical transition found within the search depth (condition C2, %s)", how)
	case c.Step < 0:
		return "no critical transition: " + c.Explain
	case c.Event == "":
		return fmt.Sprintf("dead from step %d (condition %s, %s)", c.Step, c.Condition, how)
	}
	dead := "dead from this step"
	if cf := c.Confidence; cf != nil && cf.Thin && cf.At.Recovered == 0 {
		// The confirmation could not tell the state from the one before:
		// it may be near dead rather than dead (see its explanation).
		dead = "dead from this step, on thin evidence"
	}
	return fmt.Sprintf("critical transition: step %d, %s (condition %s: %s, %s)", c.Step, c.Event, c.Condition, dead, how)
}

// budget is what the search spent: k, d_max, probes and (unless stable)
// its time.
func (c *Critical) budget(stable bool) string {
	if stable {
		return fmt.Sprintf("k=%d, d_max=%d, %d probes", c.Walks, c.WalkDepth, c.Probes)
	}
	return fmt.Sprintf("k=%d, d_max=%d, %d probes, %.2fs", c.Walks, c.WalkDepth, c.Probes, c.Elapsed.Seconds())
}

// deadAtStart reports whether the initial state was probed and no walk
// from it recovered, its confirmation sample's included (confirmed counts
// that sample's walks), each falling quiescent or unsafe before d_max.
func deadAtStart(probes []critical.Probe) (dead bool, confirmed int) {
	for _, p := range probes {
		if p.Step != 0 {
			continue
		}
		if p.Recovers || p.AtDMax > 0 || p.Failed > 0 {
			// A walk that failed (a handler or a property panicked or
			// hung) cannot tell whether the state recovers.
			// A walk that ran to d_max still running may have become
			// live later: d_max may be below the system's shortest
			// live execution, and C2's advice (raise it) stands.
			return false, 0
		}
		dead = true
		if p.Phase == critical.PhaseConfirm {
			confirmed += p.Walks
		}
	}
	return dead, confirmed
}

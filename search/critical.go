package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// critical finds the critical transition of the dead path v (seed 003
// Algorithm 3) and records it, with the live alternative, in f.
func (p *pipeline) critical(f *Finding, v *explore.Violation) {
	o := &p.opts
	p.progress(PhaseCritical, "searching for the critical transition (k=%d, d_max=%d)...", o.Walks, o.WalkDepth)
	ccfg := critical.Config{
		Sim: p.cfg, Options: engine.Options{FailuresUntil: v.FailuresUntil}, Choices: v.Choices, Steps: v.Steps,
		DInit: min(v.LiveAfter, v.Steps), WalkDepth: max(o.WalkDepth, v.Steps), Walks: o.Walks, Seed: o.Seed, Workers: o.Workers,
		WalkFailures: o.WalkFailures, HandlerTimeout: o.HandlerTimeout, Context: p.ctx,
		Progress: func(pr critical.Probe) {
			p.progress(PhaseCritical, "critical transition: probe at step %d recovers=%v", pr.Step, pr.Recovers)
		},
	}
	cr, c, err := findCritical(ccfg, v.Outcome == walks.Quiescent)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			// Interrupted: report how far the probes had narrowed the
			// critical transition, and the live alternative found so far.
			lo, hi := probeBounds(cr.Probes)
			f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Probes: len(cr.Probes), Elapsed: cr.Elapsed, Interrupted: true,
				Recovered: lo, Dead: hi, Explain: interruptedText(lo, hi, o.Walks)}
			p.liveAlternative(f, v, cr.Live, -1, critical.Condition(0))
			return
		}
		f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Recovered: -1, Dead: -1, Explain: fmt.Sprintf("The critical-transition search failed: %v", err)}
		return
	}
	c.Recovered, c.Dead = probeBounds(cr.Probes)
	f.Critical = c
	f.Trace.Critical, f.Trace.Condition = cr.Step, cr.Condition.String()
	if cr.Condition == critical.C1 {
		// A dead state is the diagnosis; a lasso found beside it is a
		// second view of the same violation.
		f.Kind, f.Certainty = KindDead, Likely
	}
	if cr.Live != nil {
		c.LiveSteps, c.Shared = cr.Live.Steps, cr.Live.Shared
	}
	p.liveAlternative(f, v, cr.Live, cr.Step, cr.Condition)
}

// findCritical runs Algorithm 3 on ccfg with macemc's corner cases (see
// the README's deviations): when no walk recovers from d_init (the search
// depth), it probes again from the initial state and keeps a C1 found
// there; a path that fell quiescent (quiescent) and from whose initial state
// no walk recovers is dead from the start. It returns the result (Condition
// C1 for dead from the start) and its description.
func findCritical(ccfg critical.Config, quiescent bool) (critical.Result, *Critical, error) {
	depth := ccfg.DInit
	cr, err := critical.Find(ccfg)
	note := ""
	if err == nil && cr.Condition == critical.C2 && cr.AtDInit && ccfg.DInit > 0 {
		// Algorithm 3's corner case: no walk recovers from d_init, the
		// search depth. Liveness was not checked before it, so the
		// critical transition may lie inside the bounded search: probe
		// again from the initial state (a deviation that only adds
		// information; the C2 answer stands if this finds no C1).
		ccfg.DInit = 0
		// A path that fell quiescent keeps the second answer either way:
		// no recovery from the initial state makes it dead from the start.
		if again, err2 := critical.Find(ccfg); err2 == nil && (again.Condition == critical.C1 || again.AtDInit && quiescent) {
			cr = again
			note = fmt.Sprintf("no walk recovered from the search depth (step %d), so the critical transition was searched from the initial state", depth)
		}
	}
	if err != nil {
		return cr, nil, err
	}
	c := &Critical{Step: cr.Step, Condition: cr.Condition, Event: cr.Event.String(), Node: int(cr.Event.Node), Kind: cr.Event.Kind.String(),
		Walks: cr.Walks, WalkDepth: cr.WalkDepth, Probes: len(cr.Probes), Elapsed: cr.Elapsed, Explain: cr.Explain(), Note: note}
	if cr.Event.Msg != nil && cr.Event.Kind != engine.EvApp {
		c.Message = sim.MessageName(cr.Event.Msg)
	}
	if !cr.HasEvent {
		c.Event, c.Node, c.Kind = "", -1, ""
	}
	if cr.Condition == critical.C2 && cr.AtDInit && cr.Step == 0 && quiescent {
		// No walk from the initial state becomes live, and this path
		// falls quiescent without a live state: the system is dead from
		// the start, and no transition is critical.
		cr.Condition = critical.C1
		c.Condition, c.Note = critical.C1, ""
		c.Explain = fmt.Sprintf("Dead from the start (step 0): none of k = %d random walks from the initial state reached a live state within d_max = %d steps, "+
			"and this path falls quiescent after %d steps without one. No transition is critical: as configured, the system does not become live; "+
			"check the driver's requests, the failure budgets and the liveness properties.", cr.Walks, cr.WalkDepth, cr.ESteps)
	}
	return cr, c, nil
}

// Headline is the critical transition in one line, as reports print it:
// the step and its event (C1), "dead from step 0" (C1 with no transition)
// or that none was found within the search depth (C2).
func (c *Critical) Headline() string { return c.headline(false) }

// headline is Headline, without the time when stable is set.
func (c *Critical) headline(stable bool) string {
	how := fmt.Sprintf("k=%d, d_max=%d, %d probes, %.2fs", c.Walks, c.WalkDepth, c.Probes, c.Elapsed.Seconds())
	if stable {
		how = fmt.Sprintf("k=%d, d_max=%d, %d probes", c.Walks, c.WalkDepth, c.Probes)
	}
	switch {
	case c.Step < 0:
		return "no critical transition: " + c.Explain
	case c.Condition == critical.C2:
		// C2 names no transition: it is where the search stopped.
		return fmt.Sprintf("no critical transition found within the search depth (condition C2, %s)", how)
	case c.Event == "":
		return fmt.Sprintf("dead from step %d (condition %s, %s)", c.Step, c.Condition, how)
	}
	return fmt.Sprintf("critical transition: step %d, %s (condition %s: dead from this step, %s)", c.Step, c.Event, c.Condition, how)
}

// liveAlternative records the live alternative of a critical-transition
// search as the finding's live trace.
func (p *pipeline) liveAlternative(f *Finding, v *explore.Violation, live *critical.Alternative, step int, cond critical.Condition) {
	if live == nil {
		return
	}
	lt := p.base
	lt.Kind, lt.Choices, lt.Steps, lt.Shared = "live", live.Choices, live.Steps, live.Shared
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
// lowest from which no walk recovered (-1 for none): the critical
// transition lies between them.
func probeBounds(probes []critical.Probe) (recovered, dead int) {
	recovered, dead = -1, -1
	for _, pr := range probes {
		switch {
		case pr.Recovers:
			recovered = max(recovered, pr.Step)
		case dead < 0 || pr.Step < dead:
			dead = pr.Step
		}
	}
	return recovered, dead
}

// interruptedText explains an interrupted critical-transition search.
func interruptedText(recovered, dead, k int) string {
	s := "The run was interrupted before the critical transition was found."
	switch {
	case recovered >= 0 && dead >= 0:
		s += fmt.Sprintf(" The probes had narrowed it to transitions %d-%d: state %d recovered, and none of k = %d walks recovered from state %d.", recovered+1, dead, recovered, k, dead)
	case recovered >= 0:
		s += fmt.Sprintf(" State %d still recovered: the critical transition, if any, is later.", recovered)
	case dead >= 0:
		s += fmt.Sprintf(" None of k = %d walks recovered from state %d: the critical transition is at or before it.", k, dead)
	default:
		s += " No probe had finished."
	}
	return s + " Re-run it on the trace with `macemc critical --trace`."
}

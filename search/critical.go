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
			f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Probes: len(cr.Probes), Interrupted: true,
				Explain: "The run was interrupted before the critical transition was found."}
			return
		}
		f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Explain: fmt.Sprintf("The critical-transition search failed: %v", err)}
		return
	}
	f.Critical = c
	f.Trace.Critical, f.Trace.Condition = cr.Step, cr.Condition.String()
	if cr.Condition == critical.C1 {
		// A dead state is the diagnosis; a lasso found beside it is a
		// second view of the same violation.
		f.Kind, f.Certainty = KindDead, Likely
	}
	if cr.Live != nil {
		c.LiveSteps, c.Shared = cr.Live.Steps, cr.Live.Shared
		lt := p.base
		lt.Kind, lt.Choices, lt.Steps, lt.Shared = "live", cr.Live.Choices, cr.Live.Steps, cr.Live.Shared
		lt.FailuresUntil, lt.Depth, lt.Critical, lt.Condition = v.FailuresUntil, v.LiveAfter, cr.Step, cr.Condition.String()
		if o.WalkFailures {
			lt.FailuresUntil = 0
		}
		f.Live = &lt
	}
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
func (c *Critical) Headline() string {
	how := fmt.Sprintf("k=%d, d_max=%d, %d probes, %.2fs", c.Walks, c.WalkDepth, c.Probes, c.Elapsed.Seconds())
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

package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// critical finds the critical transition of the dead path v (seed 003
// Algorithm 3) and records it, with the live alternative, in f.
func (p *pipeline) critical(f *Finding, v *explore.Violation) {
	o := &p.opts
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
	// Find searches below d_init itself when no walk recovers from it,
	// and confirms its answer (critical/doc.go).
	cr, err := critical.Find(p.ctx, ccfg)
	note := ""
	if cr.Below {
		note = fmt.Sprintf("no walk recovered from the search depth (step %d), so the critical transition was searched in the path's prefix below it", v.LiveAfter)
	}
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
	lo, hi := probeBounds(cr.Probes)
	c := &Critical{Step: cr.Step, Condition: cr.Condition, Event: cr.Event.String(), Node: int(cr.Event.Node), Kind: cr.Event.Kind.String(),
		Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Probes: len(cr.Probes), Elapsed: cr.Elapsed, Explain: cr.Explain(), Note: note,
		Recovered: lo, Dead: hi, Confidence: cr.Confidence, Refined: cr.Refined}
	if cr.Event.Msg != nil && cr.Event.Kind != engine.EvApp {
		c.Message = sim.MessageName(cr.Event.Msg)
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

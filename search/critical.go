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
			f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Probes: len(cr.Probes), Interrupted: true,
				Explain: "The run was interrupted before the critical transition was found."}
			return
		}
		f.Critical = &Critical{Step: -1, Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Explain: fmt.Sprintf("The critical-transition search failed: %v", err)}
		return
	}
	c := &Critical{Step: cr.Step, Condition: cr.Condition, Event: cr.Event.String(), Node: int(cr.Event.Node), Kind: cr.Event.Kind.String(),
		Walks: o.Walks, WalkDepth: ccfg.WalkDepth, Probes: len(cr.Probes), Elapsed: cr.Elapsed, Explain: cr.Explain(), Note: note,
		Confidence: cr.Confidence, Refined: cr.Refined}
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
		lt := p.base
		lt.Kind, lt.Choices, lt.Steps, lt.Shared = "live", cr.Live.Choices, cr.Live.Steps, cr.Live.Shared
		lt.FailuresUntil, lt.Depth, lt.Critical, lt.Condition = v.FailuresUntil, v.LiveAfter, cr.Step, cr.Condition.String()
		if o.WalkFailures {
			lt.FailuresUntil = 0
		}
		f.Live = &lt
	}
	p.minimize(f, ccfg, &cr)
}

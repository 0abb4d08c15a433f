package search

import (
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
	"github.com/macemc/macemc/walks/lasso"
)

// DefaultGraphStates bounds the explored state graph by default.
const DefaultGraphStates = 1 << 18

// GraphOptions configure the explored state graph (seed 002): the bounded
// search records every state it reaches and every transition between
// them, and after every round looks in what it recorded for a fair cycle
// of hot states, a lasso that needs no walk to stumble on it. On a finite
// state space that the search exhausts, finding none proves that every
// fair execution becomes live again (Report.GraphVerdict), unless fair
// cycles that only wait on a timeout were set aside as unfair to time
// (explore.GraphStats.TimeWaits).
type GraphOptions struct {
	// Off turns the graph off.
	Off bool
	// MaxStates bounds it (default DefaultGraphStates, 262,144 states;
	// about 250 bytes a state with its transitions).
	MaxStates int
}

// graphConfig returns the executor's graph configuration for the run.
func (p *pipeline) graphConfig() *explore.GraphConfig {
	o := &p.opts
	if o.Graph.Off || p.walkOnly {
		// The walk strategy's paths have no bounded part: its graph would
		// hold the initial state alone.
		return nil
	}
	gc := &explore.GraphConfig{MaxStates: o.Graph.MaxStates, NodeFairness: o.Lasso.NodeFairness, Confirm: p.confirmLasso}
	if o.Lasso.Partial {
		gc.Key = lasso.PartialHash
	}
	return gc
}

// confirmLasso checks a lasso of the explored graph on the system as a
// lasso detector watching a walk would (seed 000's replays, RT times):
// the walk runs the candidate's stem and first round of its cycle, the
// detector confirms the cycle there (or an earlier one) and repeats it up
// to d_max, so that the violation is shaped like one a search walk found.
func (p *pipeline) confirmLasso(c explore.Candidate) *explore.Violation {
	o := &p.opts
	lo := lassoOptions(&o.Lasso)
	lo.OnLasso, lo.Until, lo.MaxStates = lasso.Report, o.WalkDepth, o.WalkDepth+1
	end := c.Stem + c.Length
	obs := &candidateObserver{d: lasso.NewDetector(lo), end: end}
	s, err := engine.New(p.cfg, engine.Options{FailuresUntil: c.Stem,
		Chooser: &engine.Prefix{Seq: c.Choices, Then: engine.NewRandom(walks.SeedFor(o.Seed, 1<<43))}})
	if err != nil {
		return nil
	}
	var res walks.Result
	err = s.Guard(o.HandlerTimeout, func() error {
		res = walks.Walk(s, &walks.Config{MaxSteps: max(o.WalkDepth, end), LiveAfter: c.Stem, Safety: p.cfg.Safety, Liveness: p.cfg.Liveness, Observe: obs})
		return nil
	})
	if err != nil || res.Outcome != walks.Observed {
		return nil
	}
	return &explore.Violation{Outcome: walks.Observed, Property: res.Property, Observed: res.Observed, Choices: s.ChoiceValues(),
		Steps: s.Steps(), LiveAfter: c.Stem, FailuresUntil: c.Stem}
}

// candidateObserver is the detector of a candidate's walk; it ends the walk
// without a verdict when the candidate's cycle is over and no lasso was
// confirmed.
type candidateObserver struct {
	d   *lasso.Detector
	end int
	cut bool
}

func (o *candidateObserver) Observe(s *engine.Sim) bool {
	if !o.d.Observe(s) {
		return false
	}
	if s.Steps() >= o.end && o.d.Finding() == nil {
		o.cut = true
		return false
	}
	return true
}

func (o *candidateObserver) Verdict() (string, any) {
	if o.cut {
		return "", nil
	}
	return o.d.Verdict()
}

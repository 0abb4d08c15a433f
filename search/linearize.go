package search

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// History is a linearizability finding's evidence: the clients' history of
// the violating execution and a minimal part of it that is not
// linearizable.
type History struct {
	// Events is the whole history, Minimal a minimal non-linearizable
	// sub-history (lin.Checker.Minimize): the operations that must be
	// there for no order of them to explain what the clients saw.
	Events, Minimal []sim.HistoryEvent
	// TypeMismatch, when not nil, is an operation of Minimal whose result
	// the model computes with another type than the client's response: a
	// likely explanation of the verdict (lin.Checker.TypeMismatch).
	TypeMismatch *lin.TypeMismatch
	// Lines, MinimalLines and TypeHint are the same as report.json gives
	// them (one line an event; TypeMismatch in words): all a History read
	// back from report.json (ReadReport) holds.
	Lines, MinimalLines []string
	TypeHint            string
}

// LinStats say what the linearizability check saw over the search:
// Checked executions (paths judged where they ended), Distinct histories
// among them (distinct up to the real-time order of their operations), of
// which Illegal were not linearizable and Unknown could not be decided
// within the timeout (never counted as linearizable), and on ModelFailed
// the model failed: it panicked or changed a state it was given (each such
// history is a finding: Finding.Err says how).
type LinStats struct {
	Checked     int64 `json:"checked"`
	Distinct    int64 `json:"distinct_histories"`
	Illegal     int64 `json:"not_linearizable"`
	Unknown     int64 `json:"unknown"`
	ModelFailed int64 `json:"model_failed,omitempty"`
}

// linCheck is the linearizability check as the executor's path check.
type linCheck struct{ c *lin.Checker }

// Check implements explore.PathCheck.
func (l linCheck) Check(s *engine.Sim) explore.Judgement {
	j := explore.Judgement{Key: s.HistoryHash(), Property: lin.Property}
	switch l.c.CheckSim(s) {
	case lin.Illegal:
		j.Outcome = explore.CheckViolated
		j.Detail = slices.Clone(s.History())
	case lin.Unknown:
		j.Outcome = explore.CheckUnknown
	case lin.ModelFailed:
		j.Outcome = explore.CheckFailed
		j.Detail = slices.Clone(s.History())
	}
	return j
}

// linSetup installs the linearizability check when the system has a model
// (and it was not deselected).
func (p *pipeline) linSetup(ecfg *explore.Config) {
	if p.cfg.Model == nil {
		return
	}
	p.lin = lin.New(p.cfg.Model, p.opts.LinTimeout)
	ecfg.Check = linCheck{p.lin}
}

// linStats returns the check's statistics, or nil without a check.
func (p *pipeline) linStats(st *explore.Stats) *LinStats {
	if p.lin == nil {
		return nil
	}
	return &LinStats{Checked: st.Checked, Distinct: st.CheckedDistinct, Illegal: st.CheckedViolated, Unknown: st.CheckedUnknown, ModelFailed: st.CheckedFailed}
}

// linFinding completes a linearizability finding: its history and a
// minimal non-linearizable part of it, or, when the model panicked on the
// history, how (Finding.Err, a *lin.ModelPanicError or
// *lin.ModelMutationError).
func (p *pipeline) linFinding(f *Finding, v *explore.Violation) {
	f.Kind, f.Certainty, f.Verdict = KindLinearizability, Certain, VerdictSafety
	events, _ := v.Observed.([]sim.HistoryEvent)
	f.History = &History{Events: events}
	if p.lin != nil {
		if err := p.lin.ModelErr(events); err != nil {
			f.Err = err
			f.Trace.Kind = "linearizability"
			return
		}
	}
	if p.lin != nil && v == p.first {
		p.progress(PhaseCheck, "minimizing the non-linearizable history...")
		f.History.Minimal = p.lin.Minimize(events)
		f.History.TypeMismatch = p.lin.TypeMismatch(f.History.Minimal, events)
	}
	f.Trace.Kind = "linearizability"
}

// linFiles writes the HTML visualizations of a linearizability finding's
// minimal and whole histories (porcupine's).
func (p *pipeline) linFiles(f *Finding) error {
	if p.opts.Out == "" || f.History == nil || p.lin == nil || errors.Is(f.Err, lin.ErrModel) {
		return nil // a visualization runs the model, which fails on this history
	}
	write := func(name string, role FileRole, h []sim.HistoryEvent) error {
		if len(h) == 0 {
			return nil
		}
		path := p.outPath(name)
		var buf bytes.Buffer
		if _, err := p.lin.Visualize(h, &buf); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrOutput, path, err)
		}
		if err := trace.WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return fmt.Errorf("%w: %w", ErrOutput, err)
		}
		p.rep.Files[role] = path
		return nil
	}
	if err := write("history.html", FileHistoryHTML, f.History.Minimal); err != nil {
		return err
	}
	return write("history-full.html", FileHistoryFullHTML, f.History.Events)
}

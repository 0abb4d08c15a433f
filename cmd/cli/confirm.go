package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim/trace"
)

// ConfidenceReport is the confirmation of a C1 critical transition at
// step c (critical.Confidence): many more walks from states c-1 and c.
type ConfidenceReport struct {
	BeforeStep      int `json:"before_step"`
	BeforeWalks     int `json:"before_walks"`
	BeforeRecovered int `json:"before_recovered"`
	Step            int `json:"step"`
	Walks           int `json:"walks"`
	Recovered       int `json:"recovered"`
	// Upper95 bounds the probability that a walk from c recovers (95%).
	Upper95 float64 `json:"upper95"`
	// Chance is the probability of Walks failures in a row from a state
	// that recovers as often as c-1 did.
	Chance float64 `json:"chance"`
	// Certain: c lies past the quiescent end of the path.
	Certain bool   `json:"certain,omitempty"`
	Thin    bool   `json:"thin"`
	Text    string `json:"text"`
}

func confidenceReport(c *critical.Confidence) *ConfidenceReport {
	if c == nil {
		return nil
	}
	return &ConfidenceReport{
		BeforeStep: c.Before.Step, BeforeWalks: c.Before.Walks, BeforeRecovered: c.Before.Recovered,
		Step: c.At.Step, Walks: c.At.Walks, Recovered: c.At.Recovered,
		Upper95: c.Upper95, Chance: c.Chance, Certain: c.Certain, Thin: c.Thin, Text: c.String(),
	}
}

// MinimizedReport is the minimized doomed path (critical.Minimized),
// written as min.trace.
type MinimizedReport struct {
	// StepsBefore is the critical step of the error path, StepsAfter the
	// length of the minimized path, whose last step is the same critical
	// transition.
	StepsBefore int `json:"steps_before"`
	StepsAfter  int `json:"steps_after"`
	// OneMinimal: dropping any single further event breaks it.
	OneMinimal bool     `json:"one_minimal"`
	Tests      int      `json:"tests"`
	ElapsedS   float64  `json:"elapsed_s"`
	Kept       []int    `json:"kept"`
	Events     []string `json:"events"`
	Note       string   `json:"note,omitempty"`
}

// doomedFlags are the flags of confirmation and minimization.
type doomedFlags struct {
	confirmWalks   int
	confirmBudget  int64
	noMinimize     bool
	minimizeBudget int64
}

func (d *doomedFlags) add(fs *pflag.FlagSet) {
	fs.IntVar(&d.confirmWalks, "confirm-walks", critical.DefaultConfirmWalks, "walks that confirm a critical transition from its state and the one before (0: do not confirm)")
	fs.Int64Var(&d.confirmBudget, "confirm-budget", critical.DefaultConfirmBudget, "transitions each confirmation sample may take")
	fs.BoolVar(&d.noMinimize, "no-minimize", false, "do not minimize the doomed path (min.trace)")
	fs.Int64Var(&d.minimizeBudget, "minimize-budget", critical.DefaultMinimizeBudget, "transitions the minimization of the doomed path may take")
}

func (d *doomedFlags) validate() error {
	if d.confirmWalks < 0 || d.confirmBudget <= 0 || d.minimizeBudget <= 0 {
		return usagef("--confirm-walks must not be negative; --confirm-budget and --minimize-budget must be positive")
	}
	if d.confirmWalks == 0 {
		d.confirmWalks = -1 // critical: no confirmation
	}
	return nil
}

// minimize reduces the doomed path of a C1 answer to a 1-minimal one and
// writes it as min.trace (and min.log).
func (a *App) minimize(ctx context.Context, rep *Report, base *trace.Trace, cr *critical.Result, ccfg critical.Config, f *searchFlags, prog *progress) error {
	if f.doomed.noMinimize || cr.Condition != critical.C1 || !cr.HasEvent {
		return nil
	}
	prog.line("minimizing the doomed path (%d steps)...", cr.Step)
	ccfg.Progress = nil
	m, err := critical.Minimize(ctx, ccfg, cr.Step, critical.MinimizeConfig{Budget: f.doomed.minimizeBudget})
	prog.clear()
	if m == nil {
		// The answer's own prefix did not pass the test again (a near-dead
		// state): say so and go on without a minimized path.
		rep.Minimized = &MinimizedReport{StepsBefore: cr.Step, Note: fmt.Sprintf("not minimized: %v", err)}
		return nil
	}
	mt := m.Trace(base)
	mt.Property = rep.Property
	if err := a.writeTraceAndLog(rep, mt, f.out, "min"); err != nil {
		return err
	}
	mr := &MinimizedReport{StepsBefore: m.From, StepsAfter: m.Steps, OneMinimal: m.Minimal, Tests: m.Tests,
		ElapsedS: m.Elapsed.Seconds(), Kept: m.Kept, Note: mt.Note}
	for _, e := range m.Events {
		mr.Events = append(mr.Events, e.String())
	}
	rep.Minimized = mr
	return nil
}

// printDoomed prints the confirmation and the minimized path.
func printDoomed(w io.Writer, r *Report) {
	if c := r.Confidence; c != nil {
		fmt.Fprintf(w, "  %s\n", c.Text)
	}
	if m := r.Minimized; m != nil {
		if m.StepsAfter == 0 {
			fmt.Fprintf(w, "minimized doomed path: %s\n", m.Note)
			return
		}
		how := "1-minimal"
		if !m.OneMinimal {
			how = "not proved 1-minimal"
		}
		fmt.Fprintf(w, "minimized doomed path: %d steps instead of %d (%s, %d tests, %.2fs): %s\n", m.StepsAfter, m.StepsBefore, how, m.Tests, m.ElapsedS, r.Files["min_trace"])
		for i, e := range m.Events {
			fmt.Fprintf(w, "  %3d  %s\n", i+1, e)
		}
	}
}

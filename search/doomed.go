package search

import (
	"fmt"
	"io"
	"time"

	"github.com/macemc/macemc/critical"
)

// Minimized is the report's view of a minimized doomed path
// (critical.Minimized): a subsequence of the dead path's transitions up to
// its C1 critical transition that is still doomed, 1-minimal unless a
// budget ended the reduction, written as min.trace.
type Minimized struct {
	// StepsBefore is the dead path's critical step, StepsAfter the
	// minimized path's length (0 when it could not be minimized: Note
	// says why). Its last transition is the same critical transition.
	StepsBefore, StepsAfter int
	// OneMinimal: dropping any one more transition breaks it.
	OneMinimal bool
	// Kept are the dead path's transitions kept; Events the minimized
	// path's transitions.
	Kept   []int
	Events []string
	// Tests is the number of subsets tried; Elapsed the time taken.
	Tests   int
	Elapsed time.Duration
	Note    string
}

// minimize reduces the doomed path of a C1 answer (critical.Minimize) and
// records it in f for min.trace and the report.
func (p *pipeline) minimize(f *Finding, ccfg critical.Config, cr *critical.Result) {
	o := &p.opts
	if !o.Minimize || cr.Condition != critical.C1 || !cr.HasEvent || p.ctx.Err() != nil {
		return
	}
	p.progress(PhaseCritical, "minimizing the doomed path (%d steps)...", cr.Step)
	ccfg.Progress = nil
	m, err := critical.Minimize(p.ctx, ccfg, cr.Step, critical.MinimizeConfig{Budget: o.MinimizeBudget})
	if m == nil {
		f.Minimized = &Minimized{StepsBefore: cr.Step, Note: fmt.Sprintf("not minimized: %v", err)}
		return
	}
	mt := m.Trace(f.Trace)
	f.Min = mt
	mr := &Minimized{StepsBefore: m.From, StepsAfter: m.Steps, OneMinimal: m.Minimal, Kept: m.Kept, Tests: m.Tests, Elapsed: m.Elapsed, Note: mt.Note}
	for _, e := range m.Events {
		mr.Events = append(mr.Events, e.String())
	}
	f.Minimized = mr
}

type confidenceJSON struct {
	BeforeStep      int     `json:"before_step"`
	BeforeWalks     int     `json:"before_walks"`
	BeforeRecovered int     `json:"before_recovered"`
	Step            int     `json:"step"`
	Walks           int     `json:"walks"`
	Recovered       int     `json:"recovered"`
	Upper95         float64 `json:"upper95"`
	Chance          float64 `json:"chance"`
	Certain         bool    `json:"certain,omitempty"`
	Thin            bool    `json:"thin"`
	Text            string  `json:"text"`
}

func newConfidenceJSON(c *critical.Confidence) *confidenceJSON {
	if c == nil {
		return nil
	}
	return &confidenceJSON{
		BeforeStep: c.Before.Step, BeforeWalks: c.Before.Walks, BeforeRecovered: c.Before.Recovered,
		Step: c.At.Step, Walks: c.At.Walks, Recovered: c.At.Recovered,
		Upper95: c.Upper95, Chance: c.Chance, Certain: c.Certain, Thin: c.Thin, Text: c.String(),
	}
}

type minimizedJSON struct {
	StepsBefore int      `json:"steps_before"`
	StepsAfter  int      `json:"steps_after"`
	OneMinimal  bool     `json:"one_minimal"`
	Tests       int      `json:"tests"`
	ElapsedS    float64  `json:"elapsed_s"`
	Kept        []int    `json:"kept,omitempty"`
	Events      []string `json:"events,omitempty"`
	Note        string   `json:"note,omitempty"`
}

func newMinimizedJSON(m *Minimized) *minimizedJSON {
	if m == nil {
		return nil
	}
	return &minimizedJSON{StepsBefore: m.StepsBefore, StepsAfter: m.StepsAfter, OneMinimal: m.OneMinimal, Tests: m.Tests,
		ElapsedS: m.Elapsed.Seconds(), Kept: m.Kept, Events: m.Events, Note: m.Note}
}

// writeDoomed prints the minimized path of a finding (the critical
// transition's explanation gives the confirmation).
func writeDoomed(w io.Writer, f *Finding, stable bool) {
	m := f.Minimized
	if m == nil {
		return
	}
	if m.StepsAfter == 0 {
		fmt.Fprintf(w, "minimized doomed path: %s\n", m.Note)
		return
	}
	how := "1-minimal"
	if !m.OneMinimal {
		how = "not proved 1-minimal"
	}
	took := fmt.Sprintf(", %.2fs", m.Elapsed.Seconds())
	if stable {
		took = ""
	}
	fmt.Fprintf(w, "minimized doomed path: %d steps instead of %d (%s, %d tests%s), min.trace:\n", m.StepsAfter, m.StepsBefore, how, m.Tests, took)
	for i, e := range m.Events {
		fmt.Fprintf(w, "  %3d  %s\n", i+1, e)
	}
}

package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/internal/recovered"
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
	// Stopped says what ended a minimization that is not proved
	// 1-minimal: its bound of tests (Options.MinimizeTests), its budget of
	// transitions (Options.MinimizeBudget) or an interruption.
	Stopped string
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
	var m *critical.Minimized
	err := recovered.Call(func() (err error) {
		m, err = critical.Minimize(p.ctx, ccfg, cr.Step, critical.MinimizeConfig{Budget: o.MinimizeBudget, MaxTests: o.MinimizeTests})
		return err
	})
	if m == nil {
		note := fmt.Sprintf("not minimized: %v", err)
		if p.ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			// The run's --time (or an interruption) ended it first.
			cause := stopCause(p.ctx, err)
			note = "not minimized: " + strings.ToLower(cause[:1]) + cause[1:] + " first"
		}
		f.Minimized = &Minimized{StepsBefore: cr.Step, Note: note}
		return
	}
	mt := m.Trace(f.Trace)
	f.Min = mt
	mr := &Minimized{StepsBefore: m.From, StepsAfter: m.Steps, OneMinimal: m.Minimal, Kept: m.Kept, Tests: m.Tests, Elapsed: m.Elapsed, Note: mt.Note}
	switch {
	case m.Minimal:
	case m.Stop == "check":
		mr.Stopped = fmt.Sprintf("a check with fresh walks, which recovered from the end of %s it had accepted", plural(m.Rejected, "shorter path"))
	case m.Unchecked > 0:
		mr.Stopped = fmt.Sprintf("its budget of %d transitions (--minimize-budget), which ended before the check with fresh walks of the %d-step path it had found, so the dead path's own prefix is kept", o.MinimizeBudget, m.Unchecked)
	case m.Tests >= o.MinimizeTests:
		mr.Stopped = fmt.Sprintf("its bound of %d tests (--minimize-tests)", o.MinimizeTests)
	case p.ctx.Err() != nil:
		mr.Stopped = "an interruption"
	default:
		mr.Stopped = fmt.Sprintf("its budget of %d transitions (--minimize-budget)", o.MinimizeBudget)
	}
	for _, e := range m.Events {
		mr.Events = append(mr.Events, e.Summary())
	}
	f.Minimized = mr
}

type confidenceJSON struct {
	Partial         bool    `json:"partial,omitempty"`
	BeforeStep      int     `json:"before_step"`
	BeforeWalks     int     `json:"before_walks"`
	BeforeRecovered int     `json:"before_recovered"`
	BeforeLive      bool    `json:"before_live,omitempty"`
	BeforeForced    bool    `json:"before_forced,omitempty"`
	Step            int     `json:"step"`
	Walks           int     `json:"walks"`
	Recovered       int     `json:"recovered"`
	Upper95         float64 `json:"upper95"`
	Chance          float64 `json:"chance"`
	Forced          bool    `json:"forced,omitempty"`
	Quiescent       bool    `json:"quiescent,omitempty"`
	Cycles          bool    `json:"cycles,omitempty"`
	Certain         bool    `json:"certain,omitempty"`
	Thin            bool    `json:"thin"`
	Text            string  `json:"text"`
}

func newConfidenceJSON(c *critical.Confidence) *confidenceJSON {
	if c == nil {
		return nil
	}
	return &confidenceJSON{
		BeforeStep: c.Before.Step, BeforeWalks: c.Before.Walks, BeforeRecovered: c.Before.Recovered, BeforeLive: c.Before.Live,
		BeforeForced: c.Before.Forced, Step: c.At.Step, Walks: c.At.Walks, Recovered: c.At.Recovered, Forced: c.At.Forced,
		Quiescent: c.At.Quiescent, Cycles: c.At.Cycles, Upper95: c.Upper95, Chance: c.Chance, Certain: c.Certain, Thin: c.Thin, Partial: c.Partial, Text: c.String(),
	}
}

// decode reads a confidence section back, checking its counts and
// probabilities.
func (j *confidenceJSON) decode() (*critical.Confidence, error) {
	if j == nil {
		return nil, nil
	}
	prob := func(x float64) bool { return x >= 0 && x <= 1 }
	if j.BeforeWalks < 0 || j.Walks < 0 || j.BeforeRecovered < 0 || j.Recovered < 0 || j.BeforeRecovered > j.BeforeWalks ||
		j.Recovered > j.Walks || j.BeforeStep < -1 || j.Step < 0 || !prob(j.Upper95) || !prob(j.Chance) {
		return nil, fmt.Errorf("%w: confidence: counts or probabilities out of range", ErrReport)
	}
	c := &critical.Confidence{
		Before: critical.Probe{Step: j.BeforeStep, Phase: critical.PhaseConfirm, Walks: j.BeforeWalks, Recovered: j.BeforeRecovered,
			Recovers: j.BeforeRecovered > 0 || j.BeforeLive, Live: j.BeforeLive, Forced: j.BeforeForced, Witness: -1},
		At: critical.Probe{Step: j.Step, Phase: critical.PhaseConfirm, Walks: j.Walks, Recovered: j.Recovered, Recovers: j.Recovered > 0,
			Forced: j.Forced, Quiescent: j.Forced && j.Quiescent, Cycles: j.Forced && j.Cycles, Witness: -1},
		Upper95: j.Upper95, Chance: j.Chance, Certain: j.Certain, Thin: j.Thin, Partial: j.Partial,
	}
	switch {
	case j.BeforeLive:
		c.BeforeRate = 1
	case j.BeforeWalks > 0:
		c.BeforeRate = float64(j.BeforeRecovered) / float64(j.BeforeWalks)
	}
	return c, nil
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
	Stopped     string   `json:"stopped,omitempty"`
}

// decode reads a minimized section back, checking that its transitions
// are an increasing subsequence of the dead path's, ending with its
// critical one.
func (j *minimizedJSON) decode() (*Minimized, error) {
	if j == nil {
		return nil, nil
	}
	bad := func(what string) (*Minimized, error) {
		return nil, fmt.Errorf("%w: minimized path: %s", ErrReport, what)
	}
	if j.StepsBefore < 0 || j.StepsAfter < 0 || j.StepsAfter > j.StepsBefore || j.Tests < 0 {
		return bad("counts out of range")
	}
	if j.StepsAfter > 0 && (len(j.Kept) != j.StepsAfter || len(j.Events) != j.StepsAfter || j.Kept[len(j.Kept)-1] != j.StepsBefore) {
		return bad("its transitions do not match its length")
	}
	for i, k := range j.Kept {
		if k < 1 || i > 0 && k <= j.Kept[i-1] {
			return bad("its transitions are not increasing steps of the dead path")
		}
	}
	el, err := seconds(j.ElapsedS)
	if err != nil {
		return nil, err
	}
	return &Minimized{StepsBefore: j.StepsBefore, StepsAfter: j.StepsAfter, OneMinimal: j.OneMinimal, Kept: j.Kept, Events: j.Events,
		Tests: j.Tests, Elapsed: el, Note: j.Note, Stopped: j.Stopped}, nil
}

func newMinimizedJSON(m *Minimized) *minimizedJSON {
	if m == nil {
		return nil
	}
	return &minimizedJSON{StepsBefore: m.StepsBefore, StepsAfter: m.StepsAfter, OneMinimal: m.OneMinimal, Tests: m.Tests,
		ElapsedS: m.Elapsed.Seconds(), Kept: m.Kept, Events: m.Events, Note: m.Note, Stopped: m.Stopped}
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
		if m.Stopped != "" {
			how += ": ddmin stopped at " + m.Stopped
		}
	}
	took := fmt.Sprintf(", %.2fs", m.Elapsed.Seconds())
	if stable {
		took = ""
	}
	if m.StepsAfter == m.StepsBefore {
		needed := "all " + plural(m.StepsAfter, "step") + " are needed"
		switch {
		case !m.OneMinimal:
			needed = "none of its " + plural(m.StepsAfter, "step") + " dropped"
		case m.StepsAfter == 1:
			needed = "its 1 step is needed"
		}
		fmt.Fprintf(w, "minimized doomed path: %s (%s, %s%s), min.trace:\n", needed, how, plural(m.Tests, "test"), took)
	} else {
		fmt.Fprintf(w, "minimized doomed path: %s instead of %d (%s, %s%s), min.trace:\n", plural(m.StepsAfter, "step"), m.StepsBefore, how, plural(m.Tests, "test"), took)
	}
	writeEvents(w, m.Events, "min.log")
}

// writeEvents lists a path's transitions, numbered, the middle of a long
// one left out for log, the file that has them all, but for the steps
// keep (from 1: the failures the path needed).
func writeEvents(w io.Writer, events []string, log string, keep ...int) {
	keep = keep[:min(len(keep), shownFailures)]
	kept := make(map[int]bool, len(keep))
	for _, k := range keep {
		kept[k-1] = true
	}
	left := 0 // steps left out since the last one shown
	for i, e := range events {
		if len(events) <= shownEvents || i < shownEvents-shownLast || i >= len(events)-shownLast || kept[i] {
			if left > 0 {
				fmt.Fprintf(w, "  ...  %s (%s has them all)\n", plural(left, "more step"), log)
				left = 0
			}
			fmt.Fprintf(w, "  %3d  %s\n", i+1, e)
			continue
		}
		left++
	}
}

// shownEvents is how many steps of a minimized path the summary lists, the
// last shownLast of them after the others are left out (a 1,011-step path
// took 1,011 lines); report.json and min.log have them all.
const (
	shownEvents = 40
	// shownFailures bounds the failures listed in the middle of a long
	// path, which the summary otherwise leaves out.
	shownFailures = 20
	shownLast     = 5
)

package critical

import (
	"fmt"
	"maps"
	"slices"

	"github.com/macemc/macemc/sim/trace"
)

// FromTrace returns the Config that searches a liveness trace: its system,
// choices, length and options, d_init (the trace's search depth), d_max and
// seed. Walks, Workers and the rest keep their defaults.
func FromTrace(t *trace.Trace) (Config, error) {
	cfg, err := t.Config()
	if err != nil {
		return Config{}, fmt.Errorf("critical: %w", err)
	}
	return Config{
		Sim:       cfg,
		Options:   t.Options(),
		Choices:   t.Choices,
		Steps:     t.Steps,
		DInit:     t.Depth,
		WalkDepth: t.WalkDepth,
		Seed:      t.Seed,
	}, nil
}

// Annotate records the result in the dead path's trace: the critical step
// and the condition.
func (r *Result) Annotate(t *trace.Trace) {
	t.Critical = r.Step
	t.Condition = r.Condition.String()
}

// Trace returns the live alternative as a trace of kind "live" for the
// same system as the dead trace. An alternative with FailuresFrom > 0
// cannot be expressed in a trace's options; Trace then records it anyway
// and says so in Note, and only Alternative.Replay replays it.
func (a *Alternative) Trace(dead *trace.Trace) *trace.Trace {
	t := &trace.Trace{
		Tool:          dead.Tool,
		System:        dead.System,
		Sys:           dead.Sys,
		Params:        maps.Clone(dead.Params),
		Seed:          a.Seed,
		Choices:       slices.Clone(a.Choices),
		Steps:         a.Steps,
		FailuresUntil: a.Options.FailuresUntil,
		NoFailures:    a.Options.NoFailures,
		Properties:    slices.Clone(dead.Properties),
		Faults:        dead.Faults,
		Kind:          trace.KindLive,
		Depth:         dead.Depth,
		WalkDepth:     dead.WalkDepth,
		Critical:      dead.Critical,
		Condition:     dead.Condition,
		Shared:        a.Shared,
		Note:          fmt.Sprintf("live alternative: recovery walk %d from state %d of the dead path", a.Walk, a.From),
	}
	if a.FailuresFrom > 0 {
		t.Note += fmt.Sprintf("; failures were switched back on at step %d, which trace options cannot express", a.FailuresFrom)
	}
	return t
}

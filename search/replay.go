package search

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// PropertyState is whether a property holds in a replayed state.
type PropertyState struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"` // "safety", "liveness" or "linearizability"
	Holds bool   `json:"holds"`
	// Unknown marks a linearizability check that timed out: Holds is
	// false, but no violation is claimed.
	Unknown bool `json:"unknown,omitempty"`
}

// Replayed is what replaying a trace showed.
type Replayed struct {
	// Steps is how many steps were replayed, of the trace's Total.
	Steps, Total int
	// Properties hold or not in the last state replayed.
	Properties []PropertyState
	// Reproduced says the replay ran the whole trace and ended as the
	// trace records: the violated property does not hold, the handler
	// failure it records happened again, or (a nondeterministic service)
	// replays of its choices differed again.
	Reproduced bool
	// Err is the handler failure the replay stopped at, if any; for a
	// trace of a nondeterministic service, how its replays differed.
	Err error
	// Trace is the trace replayed.
	Trace *trace.Trace
	// Diverged, when set, says that the replay left the execution the
	// trace recorded (trace.Trace.States): the system's code changed
	// since, or it is nondeterministic. What the replay shows from that
	// step on is another execution.
	Diverged *trace.DivergedError
	// Unchecked, when set, says why the replay's states were not compared
	// with those the trace recorded (another version of the engine's
	// hashing wrote them).
	Unchecked string
}

// ReplayLog is Replay with the log streamed into the file at path, written
// whole or not at all; only a regular file is replaced (never /dev/null, a
// FIFO or a symlink).
func ReplayLog(t *trace.Trace, steps int, path string) (*Replayed, error) {
	return ReplayLogContext(context.Background(), t, steps, path)
}

// ReplayLogContext is ReplayLog, writing nothing (the error is ctx's) when
// ctx ends before the log is whole: the replay stops there.
func ReplayLogContext(ctx context.Context, t *trace.Trace, steps int, path string) (*Replayed, error) {
	if err := trace.CheckReplaceable(path); err != nil {
		return nil, fmt.Errorf("%w: log %w", ErrOutput, err)
	}
	if err := trace.CheckNotTrace(path); err != nil {
		return nil, fmt.Errorf("%w: log %w", ErrOutput, err)
	}
	var r *Replayed
	var rerr error
	werr := trace.WriteAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if r, rerr = ReplayContext(ctx, t, steps, CancelWriter(ctx, bw)); rerr != nil {
			return rerr
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return bw.Flush()
	})
	switch {
	case rerr != nil:
		return nil, rerr
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case werr != nil:
		return nil, fmt.Errorf("%w: log %w", ErrOutput, werr)
	}
	return r, nil
}

// CancelWriter returns a writer to w that fails with ctx's error once ctx
// is done: a replay logging to it stops writing (and runs on to its end,
// without the cost of the log).
func CancelWriter(ctx context.Context, w io.Writer) io.Writer { return &cancelWriter{ctx: ctx, w: w} }

type cancelWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *cancelWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// WriteText says what the replay of the trace read from source showed: the
// steps replayed, the handler failure it stopped at, the properties, and
// whether the violation reproduced; logPath names the log written, if any.
func (r *Replayed) WriteText(w io.Writer, source, logPath string) error {
	ew := &errWriter{w: w}
	t := r.Trace
	// The trace's names and parameters are shown as safetext.QuoteUnsafe
	// shows them: a trace is input nobody vouches for.
	name := safetext.QuoteUnsafe(t.System)
	if params := sim.Params(t.Params).Text(); params != "" {
		name += " (" + params + ")"
	}
	prop := safetext.QuoteUnsafe(t.Property)
	fmt.Fprintf(ew, "replayed %s: system %s, %d of %d steps (%s)\n", safetext.QuoteUnsafe(source), name, r.Steps, r.Total, t.Kind)
	var mc *engine.MessageChangedError
	var ss *engine.SharedStateError
	var pw *engine.PropertyWriteError
	changed, shared := errors.As(r.Err, &mc), errors.As(r.Err, &ss)
	switch {
	case changed:
		fmt.Fprintf(ew, "  a message changed in flight: %v\n", r.Err)
	case shared:
		fmt.Fprintf(ew, "  nodes share memory: %v\n", r.Err)
	case errors.As(r.Err, &pw):
		fmt.Fprintf(ew, "  a property changed the state: %v\n", r.Err)
	case r.Err != nil && t.Kind == trace.KindNondeterministic:
		fmt.Fprintf(ew, "  replays of these choices differ: %v\n", r.Err)
	case errors.Is(r.Err, lin.ErrModel):
		fmt.Fprintf(ew, "  the linearizability check failed on the clients' history: %v\n", r.Err)
	case r.Err != nil:
		fmt.Fprintf(ew, "  stopped: %v\n", r.Err)
	}
	if r.Diverged != nil {
		fmt.Fprintf(ew, "  %v\n", r.Diverged)
	}
	if r.Unchecked != "" {
		fmt.Fprintf(ew, "  note: %s\n", r.Unchecked)
	}
	for _, p := range r.Properties {
		fmt.Fprintf(ew, "  %-8s %-20s holds=%v\n", p.Kind, safetext.QuoteUnsafe(p.Name), p.Holds)
	}
	switch {
	case t.Kind == trace.KindLive && t.Critical >= 0 && t.Condition != "":
		fmt.Fprintf(ew, "the live alternative of a dead path whose critical transition is step %d (%s): compare them there\n", t.Critical, t.Condition)
	case t.Condition == critical.C2.String():
		fmt.Fprintf(ew, "no critical transition found within the search depth (C2)\n")
	case t.Critical >= 0 && t.Condition != "":
		fmt.Fprintf(ew, "critical transition: step %d (%s)\n", t.Critical, t.Condition)
	}
	switch {
	case r.Reproduced && changed:
		fmt.Fprintf(ew, "reproduced: the %s node %d sent to node %d changed in flight\n", safetext.QuoteUnsafe(mc.Message), mc.From, mc.To)
	case r.Reproduced && shared:
		fmt.Fprintf(ew, "reproduced: node %d's state changed while node %d's handler ran\n", ss.Node, ss.By)
	case r.Reproduced && t.Kind == trace.KindNondeterministic:
		fmt.Fprintln(ew, "reproduced: the service is nondeterministic (replays of the same choices differ)")
	case r.Reproduced && r.Diverged != nil:
		fmt.Fprintf(ew, "reproduced: %s, by another execution than the trace's (above)\n", prop)
	case r.Reproduced && errors.Is(r.Err, lin.ErrModel):
		fmt.Fprintf(ew, "reproduced: %s (the model failed on the history)\n", prop)
	case r.Reproduced:
		fmt.Fprintf(ew, "reproduced: %s\n", prop)
	case t.Kind == trace.KindLive || t.Kind == trace.KindPrefix:
		// Live by design: there is no violation to reproduce (a live
		// alternative that critical wrote keeps the dead path's
		// property, for the report).
	case t.Property != "" && r.Diverged != nil:
		fmt.Fprintf(ew, "not reproduced: %s, but this replay is not the trace's execution (above): it says nothing of the bug\n", prop)
	case t.Property != "" && r.Steps < r.Total:
		fmt.Fprintf(ew, "not reproduced: %s (replay the whole trace to see it)\n", prop)
	case t.Kind == trace.KindNondeterministic:
		fmt.Fprintf(ew, "not reproduced: %s, in this replay of the whole trace: what made the search's replays differ "+
			"(a goroutine or timer of the handlers', the wall clock, state shared across runs) did not show this time; replay again, "+
			"or search again, whose check replays the path many times side by side\n", prop)
	case t.Property != "":
		fmt.Fprintf(ew, "not reproduced: %s, in a replay of the whole trace\n", prop)
	}
	if logPath != "" {
		fmt.Fprintf(ew, "log: %s\n", safetext.QuoteUnsafe(logPath))
	}
	return ew.err
}

// MarshalJSON writes what `macemc replay --json` prints.
func (r *Replayed) MarshalJSON() ([]byte, error) {
	t := r.Trace
	m := map[string]any{"system": t.System, "params": t.Params, "kind": t.Kind, "property": t.Property, "steps": r.Steps, "total": r.Total,
		"critical": t.Critical, "condition": t.Condition, "properties": r.Properties, "reproduced": r.Reproduced}
	if t.Kind == trace.KindLive {
		// A live alternative records the critical transition of the dead
		// path it is an alternative of: it has none of its own.
		m["critical"], m["condition"] = -1, ""
		if t.Critical >= 0 && t.Condition != "" {
			m["dead_path_critical"], m["dead_path_condition"] = t.Critical, t.Condition
		}
	}
	if r.Err != nil {
		m["error"] = r.Err.Error()
	}
	if r.Unchecked != "" {
		m["unchecked"] = r.Unchecked
	}
	if d := r.Diverged; d != nil {
		m["diverged"] = map[string]any{"step": d.Step, "since": d.Since, "recorded_build": d.Recorded, "build": d.Build,
			"same_build": d.SameBuild(), "text": d.Error()}
	}
	return json.Marshal(m)
}

// Replay replays t up to steps steps (all of it when steps < 0), logging
// every transition to log (nil: no log), and says whether the violation it
// records reproduces. A trace read from a file names its system, which
// must then be registered (sim.Register), unless t.Sys is set to it (the
// traces of a Report's findings carry theirs); so for RefineCritical.
// The log opens and ends with the "#" lines of a search's logs: the
// system and the steps replayed, then where the replay ended.
func Replay(t *trace.Trace, steps int, log io.Writer) (*Replayed, error) {
	return ReplayContext(context.Background(), t, steps, log)
}

// ReplayContext is Replay, stopping within a step when ctx ends (its
// error is then ctx's).
func ReplayContext(ctx context.Context, t *trace.Trace, steps int, log io.Writer) (*Replayed, error) {
	if log == nil {
		return replay(ctx, t, steps, nil)
	}
	if _, err := traceConfig(t); err != nil {
		// Nothing replays: no line of a log is written either.
		return nil, err
	}
	if steps > t.Steps {
		return nil, fmt.Errorf("%w: --steps %d, the trace has %d steps", ErrInput, steps, t.Steps)
	}
	ew := &errWriter{w: log, quiet: true}
	writeLogHeader(ew, t, steps)
	r, err := replay(ctx, t, steps, ew)
	if err != nil {
		return nil, err
	}
	failed := errors.Is(r.Err, engine.ErrHandlerPanic) || errors.Is(r.Err, engine.ErrHang)
	switch {
	case !failed && r.Steps < t.Steps:
		fmt.Fprintf(ew, "# replay stopped after %d of the path's %d steps (--steps)\n", r.Steps, t.Steps)
	case failed:
		writeLogFooter(ew, r.Steps, r.Err)
	default:
		writeLogFooter(ew, r.Steps, nil)
	}
	if ew.err != nil {
		return nil, fmt.Errorf("%w: log: %w", ErrOutput, ew.err)
	}
	return r, nil
}

// writeLogHeader writes the first line of a path's log: the tool, the
// system and its parameters, the steps logged (of the path's, when fewer:
// steps below 0 means all) and the path's kind.
func writeLogHeader(w io.Writer, t *trace.Trace, steps int) {
	shown := fmt.Sprintf("%d steps", t.Steps)
	if steps >= 0 && steps < t.Steps {
		shown = fmt.Sprintf("%d of %d steps", steps, t.Steps)
	}
	fmt.Fprintf(w, "# macemc %s: system %s %s, %s, %s\n", trace.ToolVersion, safetext.QuoteUnsafe(t.System), sim.Params(t.Params).Text(), shown, t.Kind)
}

// writeLogFooter writes the last lines of a path's log: where the replay
// stopped if a handler failed (err; at step 0, while the system booted),
// and the path's end.
func writeLogFooter(w io.Writer, steps int, err error) {
	switch {
	case err != nil && steps == 0:
		fmt.Fprintf(w, "# replay stopped at boot: %v\n", err)
		return
	case err != nil:
		fmt.Fprintf(w, "# replay stopped at step %d: %v\n", steps, err)
	}
	fmt.Fprintf(w, "# end of path after %d steps\n", steps)
}

// replay is ReplayContext without the log's "#" lines.
func replay(ctx context.Context, t *trace.Trace, steps int, log io.Writer) (*Replayed, error) {
	// A trace may record a handler that allocates without returning: the
	// heap alarm gives up on it as the search did.
	defer engine.WatchHeap(engine.DefaultHeapBound, nil)()
	if steps > t.Steps {
		return nil, fmt.Errorf("%w: --steps %d, the trace has %d steps", ErrInput, steps, t.Steps)
	}
	if steps < 0 {
		steps = t.Steps
	}
	cfg, err := traceConfig(t)
	if err != nil {
		return nil, err
	}
	opts := t.Options()
	if log != nil {
		opts.Logger = engine.NewLogger(log)
	}
	r := &Replayed{Total: t.Steps, Trace: t}
	hooks := trace.ReplayHooks{Stop: func() bool { return ctx.Err() != nil }}
	if log != nil {
		hooks.Diverged = func(d *trace.DivergedError) {
			where := fmt.Sprintf("after step %d", d.Step)
			if d.Step-d.Since > 1 {
				where = fmt.Sprintf("after one of steps %d to %d", d.Since+1, d.Step)
			}
			fmt.Fprintf(log, "# the replay leaves the recorded execution here: its state %s differs from the one the trace recorded, and the steps below are not the trace's (the summary at the end says why)\n", where)
		}
	}
	s, diverged, err := t.ReplayCheckedWith(cfg, steps, opts, hooks)
	if errors.Is(err, trace.ErrStopped) {
		return nil, ctx.Err()
	}
	explainDivergence(cfg, t, diverged)
	r.Diverged = diverged
	if len(t.States) > 0 && t.HashVersion != engine.HashVersion {
		r.Unchecked = fmt.Sprintf("the trace's states were hashed by another version of macemc (hash version %d, this one's %d): the replay is not checked against them", t.HashVersion, engine.HashVersion)
	}
	var failed bool
	switch {
	case err != nil && (errors.Is(err, engine.ErrHandlerPanic) || errors.Is(err, engine.ErrHang)):
		failed, r.Err = true, err
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if s != nil {
		r.Steps = s.Steps()
		// Under the watchdog: a trace may record a predicate that does
		// not return (engine.HangError.Outside).
		if err := s.Guard(t.HandlerTimeout, func() error {
			for _, group := range []struct {
				kind string
				ps   []sim.Property
			}{{"safety", cfg.Safety}, {"liveness", cfg.Liveness}} {
				for i := range group.ps {
					ok, _ := s.Holds(&group.ps[i])
					r.Properties = append(r.Properties, PropertyState{Name: group.ps[i].Name, Kind: group.kind, Holds: ok})
				}
			}
			return nil
		}); err != nil {
			// s is abandoned to the predicate.
			failed, r.Err = true, err
		} else {
			if cfg.Model != nil {
				c := lin.New(cfg.Model, 0)
				v := c.CheckSim(s)
				r.Properties = append(r.Properties, PropertyState{Name: lin.Property, Kind: "linearizability", Holds: v == lin.Ok, Unknown: v == lin.Unknown})
				if v == lin.ModelFailed && r.Err == nil {
					r.Err = c.ModelErr(s.History())
				}
			}
			// After the properties: a hung handler may go on changing its
			// node's state.
			if hangsNext(t, steps, failed) {
				if err := stepGuarded(s, t); err != nil {
					failed, r.Err = true, err
				}
			}
		}
	}
	if t.Kind == trace.KindNondeterministic && steps == t.Steps && !failed {
		// One replay cannot show that replays differ: check as the
		// search did, replaying the choices many times.
		if _, _, err := checkReplays(cfg, t.Choices, t.Options(), t.Steps, 0, replayRoom, nil); errors.Is(err, engine.ErrNondeterministic) {
			r.Err, r.Reproduced = err, true
		}
		return r, nil
	}
	whole := r.Steps == t.Steps || failed
	switch {
	case r.Diverged != nil && t.Kind != trace.KindSafety:
		// Another execution that is not live at its end says nothing
		// of a dead state (a safety violation, though, is one whatever
		// the execution that shows it).
	case !whole || t.Kind == trace.KindLive || t.Kind == trace.KindPrefix:
	case t.Property == walks.HangProperty, t.Property == walks.OutsideHangProperty:
		r.Reproduced = errors.Is(r.Err, engine.ErrHang)
	case t.Property == walks.PanicProperty:
		r.Reproduced = failed
	case failed && monitorPanicked(r.Err, t.Property):
		// The monitor's Handle panicked: the panic is its violation,
		// not a state in which it holds.
		r.Reproduced = true
		for i := range r.Properties {
			if r.Properties[i].Name == t.Property {
				r.Properties[i].Holds = false
			}
		}
	default:
		for _, p := range r.Properties {
			if p.Name == t.Property && !p.Holds && !p.Unknown {
				r.Reproduced = true
			}
		}
	}
	return r, nil
}

// CheckFits replays t and returns an error wrapping ErrInput when the
// replay leaves the execution t recorded (its states, trace.DivergedError)
// or its choices do not fit the system (trace.ErrNoFit): what is run
// from its choices then is not the path it records. A handler failure
// on the way is the caller's to meet.
func CheckFits(t *trace.Trace) error {
	cfg, err := traceConfig(t)
	if err != nil {
		return err
	}
	_, diverged, err := t.ReplayChecked(cfg, -1, t.Options())
	explainDivergence(cfg, t, diverged)
	switch {
	case errors.Is(err, trace.ErrNoFit):
		return fmt.Errorf("%w: %w", ErrInput, err)
	case diverged != nil:
		return fmt.Errorf("%w: %w", ErrInput, diverged)
	}
	return nil
}

// traceConfig builds t's system config; its error wraps ErrInput, and says
// how to replay a system this binary does not know.
func traceConfig(t *trace.Trace) (*sim.Config, error) {
	cfg, err := t.Config()
	switch {
	case errors.Is(err, sim.ErrUnknownSystem):
		return nil, fmt.Errorf("%w: %w (run it with a binary that registers the system: a main package that imports the system's package and calls cli.Main)", ErrInput, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return cfg, nil
}

// explainDivergence compares replays of t's choices in this process when
// the binary that wrote t replays it into another execution (d): the
// system is nondeterministic, and the replays either name the step, node
// and field where they differ, or agree, and then what the system depends
// on was otherwise when t was written (trace.DivergedError.Here).
func explainDivergence(cfg *sim.Config, t *trace.Trace, d *trace.DivergedError) {
	if d == nil || !d.SameBuild() {
		return
	}
	d.Checked = true
	if _, _, err := checkReplays(cfg, t.Choices, t.Options(), t.Steps, 0, replayRoom, nil); errors.Is(err, engine.ErrNondeterministic) {
		d.Here = err
	}
}

// hangsNext reports whether a replay of steps steps of t that did not fail
// must run the next step too: t records a handler that did not return
// after the system booted, so it ends before the hung step (the state
// after it does not exist), and the replay is of the whole trace.
func hangsNext(t *trace.Trace, steps int, failed bool) bool {
	return !failed && steps == t.Steps && t.Steps > 0 && t.Kind == trace.KindSafety && t.Property == walks.HangProperty
}

// stepGuarded runs s's next step under the watchdog, with the timeout of
// the search that wrote t: a *engine.HangError when the handler does not
// return in time. s must not be used afterwards if it did not.
func stepGuarded(s *engine.Sim, t *trace.Trace) error {
	return s.Guard(t.HandlerTimeout, func() error {
		_, err := s.Step()
		if err != nil {
			return fmt.Errorf("replay step %d: %w", s.Steps(), err)
		}
		return nil
	})
}

// CriticalOptions configure RefineCritical; zero values take the trace's
// (d_max, seed) or the defaults.
type CriticalOptions struct {
	Walks, WalkDepth, Workers int
	Seed                      *uint64
	// ConfirmBudget bounds the transitions of each confirmation sample
	// (critical.Config.ConfirmBudget; 0: 60 walks of d_max), as
	// Options.ConfirmBudget does in a search.
	ConfirmBudget int64
	// Time bounds the search as Options.Time bounds a run (0: none): when
	// it runs out, the answer is Interrupted, its explanation says so and
	// how far the probes had narrowed the critical transition, and no file
	// is written.
	Time time.Duration
	// Out is where live.trace, live.log and critical.json go (for a
	// minimized path, min-live.trace, min-live.log and min-critical.json,
	// so that the search's own live alternative beside it stays).
	Out      string
	Progress func(critical.Probe)
	// Command is the name the tool runs under, and TracePath the trace's
	// file, for the command an interrupted search suggests (defaults
	// "macemc" and TRACE).
	Command, TracePath string
}

// tracePathOr is path quoted for a shell, or TRACE when it is "".
func tracePathOr(path string) string {
	if path == "" {
		return "TRACE"
	}
	return QuotePath(path)
}

// Refined is the result of RefineCritical.
type Refined struct {
	Critical *Critical
	// Files maps FileLiveTrace, FileLiveLog and FileCritical to their
	// paths.
	Files map[FileRole]string
}

// RefineCritical re-runs the critical-transition search on a liveness
// trace, typically with a larger k (seed 003 §4.4), and writes the live
// alternative and critical.json to o.Out (refined-live.trace and
// refined-critical.json when o.Out holds a search's report.json, whose
// live.trace goes with it). A minimized path (min.trace) is
// first extended by a walk to d_max (see walkMinimized): its critical
// transition is then its last step when the minimization held, and a
// walk that recovers is an error wrapping ErrNotDead. So is a dead path
// given a d_max (o.WalkDepth) above its length: Algorithm 3 needs an
// execution of d_max steps.
func RefineCritical(ctx context.Context, t *trace.Trace, o CriticalOptions) (*Refined, error) {
	// Its walks may meet a handler that allocates without returning: the
	// heap alarm gives up on it as in the search.
	defer engine.WatchHeap(engine.DefaultHeapBound, nil)()
	if o.Time > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Time, errTimeBudget)
		defer cancel()
	}
	// The files of a minimized path's search are named apart: min.trace
	// sits beside error.trace and the live.trace that goes with it.
	liveTrace, liveLog, critJSON := "live.trace", "live.log", "critical.json"
	if err := CheckFits(t); err != nil {
		return nil, err
	}
	if t.CycleLen > 0 {
		// A lasso's path ends with one round of its cycle: walk it on to
		// d_max. Its states are transient when the walk recovers (the
		// lasso proves the violation, and there is no critical transition);
		// a stem that passes a dead state has one.
		lt := *t
		lt.CycleStart, lt.CycleLen = 0, 0
		ext, err := walkOn(&lt, o, extendWalkStream, "the lasso's path")
		if errors.Is(err, ErrNotDead) {
			return nil, fmt.Errorf("%w (the trace is a lasso, a cycle of %d steps from its state %d that proves the violation; its states still recover, so it has no critical transition: mdb's j cycle shows it)",
				err, t.CycleLen, t.CycleStart)
		}
		if err != nil {
			return nil, err
		}
		t = ext
	}
	minimized := t.Kind == trace.KindMinimized
	if minimized {
		liveTrace, liveLog, critJSON = "min-"+liveTrace, "min-"+liveLog, "min-"+critJSON
		ext, err := walkMinimized(t, o)
		if err != nil {
			return nil, err
		}
		t = ext
	}
	if t.Kind != trace.KindLiveness {
		return nil, fmt.Errorf("%w: the trace records a %q path, not a liveness violation", ErrInput, t.Kind)
	}
	if !minimized && o.WalkDepth > t.Steps {
		// Algorithm 3 searches an execution of d_max steps that never
		// becomes live: a d_max above the dead path's length needs the
		// path walked on to it (and it is not dead if that walk recovers).
		ext, err := walkOn(t, o, extendWalkStream, "the dead path")
		if err != nil {
			return nil, err
		}
		t = ext
	}
	c, err := refineConfig(t, o, minimized)
	if err != nil {
		return nil, err
	}
	if o.Out == "" {
		o.Out = "."
	}
	if !minimized {
		if _, err := os.Lstat(filepath.Join(o.Out, ReportFile)); err == nil {
			// Beside a search's results: its live.trace, critical.json
			// and report.json go together (and with the critical step
			// error.trace records); the refined answer is written apart.
			liveTrace, liveLog, critJSON = "refined-"+liveTrace, "refined-"+liveLog, "refined-"+critJSON
		}
	}
	// Check the results can be written before spending the time, and
	// hold the directory as a search does: a search started there
	// meanwhile would have its results paired with this answer.
	if err := CheckOut(o.Out, liveTrace, liveLog, critJSON); err != nil {
		return nil, err
	}
	release, err := lockOut(o.Out)
	if err != nil {
		return nil, err
	}
	defer release()
	start := time.Now()
	quiescent := false
	if s, err := t.Replay(-1, nil); err == nil {
		quiescent = len(s.Ready()) == 0
	}
	cr, crit, err := findCritical(ctx, c, quiescent)
	interrupted := err != nil && ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
	if err != nil && !interrupted {
		return nil, fmt.Errorf("critical transition: %w", err)
	}
	lo, hi := probeBounds(cr.Probes)
	if interrupted {
		crit = &Critical{Step: -1, Walks: c.Walks, WalkDepth: c.WalkDepth, Probes: len(cr.Probes), Interrupted: true,
			Explain: interruptedText(lo, hi, c.Walks, cmp.Or(o.Command, "macemc")+" critical --trace "+tracePathOr(o.TracePath), stopCause(ctx, err))}
	}
	crit.Elapsed, crit.Recovered, crit.Dead = time.Since(start), lo, hi
	out := &Refined{Files: map[FileRole]string{}, Critical: crit}
	if interrupted {
		// An unfinished answer replaces no file: a finished one written
		// before stays, whole.
		return out, nil
	}
	// The previous answer's files go first: this one may have no live
	// alternative, and its trace must not sit beside an older log.
	for _, name := range []string{liveTrace, liveLog, critJSON} {
		if err := os.Remove(filepath.Join(o.Out, name)); err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %w", ErrOutput, err)
		}
	}
	if cr.Live != nil {
		out.Critical.LiveSteps, out.Critical.Shared = cr.Live.Steps, cr.Live.Shared
		lt := *t
		lt.Kind, lt.Choices, lt.Steps, lt.Shared, lt.Critical, lt.Condition = trace.KindLive, cr.Live.Choices, cr.Live.Steps, cr.Live.Shared, out.Critical.Step, ""
		lt.States = nil
		lt.Condition = cr.Condition.String()
		_ = lt.Stamp() // its states, for replays to check against
		tp, lp := filepath.Join(o.Out, liveTrace), filepath.Join(o.Out, liveLog)
		if err := lt.Write(tp); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOutput, err)
		}
		out.Files[FileLiveTrace] = tp
		if err := WriteLog(&lt, lp); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOutput, err)
		}
		out.Files[FileLiveLog] = lp
	}
	jp := filepath.Join(o.Out, critJSON)
	out.Files[FileCritical] = jp
	if err := WriteJSON(jp, out); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return out, nil
}

// ErrNotDead marks a path that RefineCritical found not dead: the walk
// from its end (a minimized path's, or a dead path's walked on to a d_max
// above its length) reached a live state. It is an ErrInput.
var ErrNotDead = fmt.Errorf("%w: the path is not dead", ErrInput)

// refineConfig returns the critical-transition search of RefineCritical
// on the liveness trace t (a minimized path's extended execution when
// minimized): the trace's settings, o's where given.
func refineConfig(t *trace.Trace, o CriticalOptions, minimized bool) (critical.Config, error) {
	c, err := critical.FromTrace(t)
	if err != nil {
		return c, fmt.Errorf("%w: %w", ErrInput, err)
	}
	c.Walks, c.Workers, c.Progress = o.Walks, o.Workers, o.Progress
	if o.WalkDepth > 0 {
		c.WalkDepth = o.WalkDepth
	}
	if o.ConfirmBudget > 0 {
		c.ConfirmBudget = o.ConfirmBudget
	}
	// The dead path itself is d_max long; a shorter d_max could not judge it.
	c.WalkDepth = max(c.WalkDepth, t.Steps)
	// A path that fell quiescent before the search depth: liveness counts
	// from its end (as the search does).
	c.DInit = min(c.DInit, t.Steps)
	switch {
	case o.Seed != nil:
		c.Seed = *o.Seed
	case minimized:
		c.Seed = walks.SeedFor(c.Seed, minimizedCheckStream)
	}
	c.Minimized = minimized
	if c.Walks == 0 {
		c.Walks = DefaultWalks
	}
	return c, nil
}

// minimizedWalkStream is the random stream of the walk that extends a
// minimized path (walks.SeedFor's stream argument), apart from the
// search's walks and probes.
const minimizedWalkStream = 1 << 44

// minimizedCheckStream seeds the critical-transition search of a minimized
// path (walks.SeedFor's stream argument): the minimization accepted the
// path because the walks of the trace's seed found its end dead, so a
// check with those same walks would only repeat that test.
const minimizedCheckStream = 1<<44 + 1

// extendWalkStream is the random stream of the walk that extends a dead
// path to a d_max above its length (walks.SeedFor's stream).
const extendWalkStream = 1<<44 + 2

// walkMinimized returns the dead execution of a minimized doomed path for
// the critical-transition search: the path, which ends with its critical
// transition, then a random walk to d_max (the trace's, or o.WalkDepth),
// drawn from the trace's seed (or o.Seed), with failures as the trace has
// them (off from its FailuresUntil, as in the search's walks). The walk must
// not reach a live state; if it does, the minimized path is not dead under
// that seed, and the error says so with the step. The result is a liveness
// trace whose d_init is the minimized path's end, so the answer is at or
// before its last step.
func walkMinimized(t *trace.Trace, o CriticalOptions) (*trace.Trace, error) {
	ext, err := walkOn(t, o, minimizedWalkStream, "the minimized path")
	if err != nil {
		return nil, err
	}
	ext.Depth = t.Steps // liveness counts from the minimized path's end
	return ext, nil
}

// walkOn extends the liveness trace t (what names it in errors) with a
// walk from its end (seeded by stream of o's seed, or else the trace's) to
// o's d_max, or the trace's: the dead execution of d_max steps Algorithm 3
// needs. A walk that reaches a live state is an error wrapping ErrNotDead.
func walkOn(t *trace.Trace, o CriticalOptions, stream uint64, what string) (*trace.Trace, error) {
	cfg, err := t.Config()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	seed := t.Seed
	if o.Seed != nil {
		seed = *o.Seed
	}
	depth := t.WalkDepth
	if o.WalkDepth > 0 {
		depth = o.WalkDepth
	}
	depth = max(depth, t.Steps+1)
	opts := t.Options()
	opts.Chooser = &engine.Prefix{Seq: t.Choices, Then: engine.NewRandom(walks.SeedFor(seed, stream))}
	s, err := engine.New(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %s does not start: %w", ErrInput, what, err)
	}
	var res walks.Result
	err = s.Guard(t.HandlerTimeout, func() error {
		res = walks.Walk(s, &walks.Config{MaxSteps: depth, LiveAfter: t.Steps, Safety: cfg.Safety, Liveness: cfg.Liveness})
		return nil
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: the walk after %s: %w", ErrInput, what, err)
	case res.Outcome == walks.Live:
		return nil, fmt.Errorf("%w: %s, under seed %d: the walk from its end (step %d) reached a live state at step %d", ErrNotDead, what, seed, t.Steps, res.Steps)
	case res.Outcome != walks.Dead && res.Outcome != walks.Quiescent:
		return nil, fmt.Errorf("%w: the walk after %s ended %s at step %d, not in a dead state (%v)", ErrInput, what, res.Outcome, res.Steps, res.Err)
	}
	ext := *t
	ext.Kind, ext.Choices, ext.Steps, ext.WalkDepth, ext.Seed = trace.KindLiveness, s.ChoiceValues(), s.Steps(), depth, seed
	ext.Critical, ext.Condition, ext.States = 0, "", nil
	return &ext, nil
}

// MarshalJSON writes the refined critical transition as critical.json has
// it: {"critical": {...}, "files": {...}}.
func (r *Refined) MarshalJSON() ([]byte, error) {
	c := r.Critical
	doc := map[string]any{"files": r.Files, "critical": &criticalJSON{Step: c.Step, Condition: c.Condition.String(), Event: c.Event,
		Node: c.Node, Kind: c.Kind, Message: c.Message, Walks: c.Walks, WalkDepth: c.WalkDepth, Probes: c.Probes, LiveSteps: c.LiveSteps,
		Shared: c.Shared, ElapsedS: c.Elapsed.Seconds(), Explain: c.Explain, Interrupted: c.Interrupted, Recovered: c.Recovered, Dead: c.Dead, Refined: c.Refined, Unchanged: c.Unchanged}}
	if cj := newConfidenceJSON(c.Confidence); cj != nil {
		doc["confidence"] = cj
	}
	return jsonMarshal(doc)
}

// monitorPanicked reports whether err is the panic of monitor name's
// Handle (engine.HandlerPanicError.Monitor).
func monitorPanicked(err error, name string) bool {
	var hp *engine.HandlerPanicError
	return name != "" && errors.As(err, &hp) && hp.Monitor == name
}

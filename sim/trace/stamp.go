package trace

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// The steps whose states a trace records (StateSteps): every step up to
// denseSteps, then every sparseEvery-th, and the last. A divergence in the
// first thousand steps, where a bounded search's choices and a critical
// transition lie, is located to its step; one later to sparseEvery steps.
const (
	denseSteps  = 1000
	sparseEvery = 100
)

// stateCount is the number of steps StateSteps(steps) lists.
func stateCount(steps int) int {
	switch {
	case steps < 0:
		return 0
	case steps <= denseSteps:
		return steps + 1
	}
	n := denseSteps + 1 + (steps-denseSteps)/sparseEvery
	if (steps-denseSteps)%sparseEvery != 0 {
		n++ // the last step
	}
	return n
}

// stateIndex is the position of step's state among those StateSteps(steps)
// lists, or -1 when it lists no state after step.
func stateIndex(step, steps int) int {
	switch {
	case step < 0 || step > steps:
		return -1
	case step <= denseSteps:
		return step
	case (step-denseSteps)%sparseEvery == 0:
		return denseSteps + (step-denseSteps)/sparseEvery
	case step == steps:
		return stateCount(steps) - 1
	}
	return -1
}

// StateSteps lists the steps after which a trace of steps steps records
// the state's hash (Trace.States): every step from 0 (the initial state)
// to 1,000, then every 100th, and the last.
func StateSteps(steps int) []int {
	out := make([]int, 0, stateCount(steps))
	for step := 0; step <= steps; step++ {
		if stateIndex(step, steps) >= 0 {
			out = append(out, step)
		}
	}
	return out
}

// BuildID names the running binary: the Go build ID the linker stamps in
// every executable, which changes whenever any of the code linked in does;
// without one (a binary the ID cannot be read from), its main module's
// version-control revision ("vcs:REV", with "+modified" when the tree
// had changes); else "".
func BuildID() string { return buildID() }

var buildID = sync.OnceValue(func() string {
	if id := executableBuildID(); id != "" {
		return id
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return "vcs:" + rev + modified
})

// goBuildPrefix starts the build ID the Go linker writes near the start of
// a non-ELF executable's text; goBuildEnd ends it.
const (
	goBuildPrefix = "\xff Go build ID: \""
	goBuildEnd    = "\"\n \xff"
)

// executableBuildID reads the Go build ID of the running executable: from
// its ELF note, or from the first 32 KiB of another format; "" when it
// cannot.
func executableBuildID() string {
	// On Linux, /proc/self/exe is the file the process runs even when its
	// path was rebuilt since (a user editing code while a long search
	// runs): the build that writes the trace is the one that ran.
	path := "/proc/self/exe"
	if _, err := os.Stat(path); err != nil {
		if path, err = os.Executable(); err != nil {
			return ""
		}
	}
	if f, err := elf.Open(path); err == nil {
		defer f.Close()
		if sec := f.Section(".note.go.buildid"); sec != nil {
			if data, err := sec.Data(); err == nil {
				return noteBuildID(data)
			}
		}
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	i := bytes.Index(head, []byte(goBuildPrefix))
	if i < 0 {
		return ""
	}
	rest := head[i+len(goBuildPrefix):]
	j := bytes.Index(rest, []byte(goBuildEnd))
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// noteBuildID reads the build ID from an ELF note "Go" of type 4: name
// size, descriptor size, type, the name padded to 4 bytes, the ID.
func noteBuildID(note []byte) string {
	if len(note) < 16 {
		return ""
	}
	le := binary.LittleEndian
	nameSize, descSize, typ := le.Uint32(note), le.Uint32(note[4:]), le.Uint32(note[8:])
	if nameSize != 4 || typ != 4 || string(note[12:15]) != "Go\x00" || uint64(len(note)-16) < uint64(descSize) {
		return ""
	}
	return string(note[16 : 16+descSize])
}

// BuildName is how a message names a build (BuildID): "build " and the
// last part of a Go build ID (the linked binary's own), at most 12
// characters of it; "revision REV" for a version-control revision; "an
// unknown build" for "".
func BuildName(b string) string {
	switch {
	case b == "":
		return "an unknown build"
	case strings.HasPrefix(b, "vcs:"):
		return "revision " + strings.TrimPrefix(b, "vcs:")
	}
	if i := strings.LastIndexByte(b, '/'); i >= 0 {
		b = b[i+1:]
	}
	if len(b) > 12 {
		b = b[:12]
	}
	return "build " + b
}

// Stamp records who wrote the trace and what its execution looked like:
// Build (BuildID), HashVersion (engine.HashVersion) and States, the state
// hash after each step StateSteps(Steps) lists, from a replay of the trace
// (its system must be registered, or Sys set). A replay that fails before
// the last step (a trace of a handler failure) records the states up to
// there; a state too large to hash (engine.Sim.HashErr) records none.
// A trace of a nondeterministic service (KindNondeterministic) records no
// states: its replays do not agree on them. Stamp returns why the states
// could not be recorded; the trace is still whole without them.
func (t *Trace) Stamp() error { return t.StampContext(context.Background()) }

// StampContext is Stamp, given up (no states recorded, ctx's error
// returned) when ctx is cancelled: a path of millions of steps takes
// seconds to replay.
func (t *Trace) StampContext(ctx context.Context) error {
	t.Build, t.HashVersion, t.States = BuildID(), engine.HashVersion, nil
	if t.Kind == KindNondeterministic {
		return nil
	}
	cfg, err := t.Config()
	if err != nil {
		return fmt.Errorf("trace: stamp: %w", err)
	}
	states := make([]byte, 0, 8*stateCount(t.Steps))
	s, err := t.replayEach(cfg, t.Steps, t.Options(), func(s *engine.Sim) error {
		if stateIndex(s.Steps(), t.Steps) >= 0 {
			states = binary.LittleEndian.AppendUint64(states, s.Hash())
		}
		if s.Steps()&1023 == 0 {
			return ctx.Err()
		}
		return nil
	})
	switch {
	case len(states) == 0 || ctx.Err() != nil || errors.Is(err, engine.ErrHang):
		// Not booted, given up, or abandoned to a handler.
		return fmt.Errorf("trace: stamp: %w", err)
	case s.HashErr() != nil:
		return fmt.Errorf("trace: stamp: %w", s.HashErr())
	}
	// A step that failed (a trace of a handler failure) ends the states.
	t.States = states
	return nil
}

// replayEach replays the trace's choices on cfg with opts up to step steps,
// under the watchdog with the trace's handler timeout (another build's
// handler may not return), and calls each in every state from the initial
// one on; an error of each ends the replay. A choice the system does not
// offer, or an execution that ends before steps, is an error wrapping
// engine.ErrBadChoice. When the system does not boot, the simulator is
// engine.Replay's (nil, or its failed state) with its error; after an
// error wrapping engine.ErrHang it is abandoned.
func (t *Trace) replayEach(cfg *sim.Config, steps int, opts engine.Options, each func(*engine.Sim) error) (*engine.Sim, error) {
	s, err := engine.Replay(cfg, t.Choices, 0, opts)
	if err != nil {
		return s, err
	}
	err = s.Guard(t.HandlerTimeout, func() error {
		for {
			if err := each(s); err != nil {
				return err
			}
			if s.Steps() >= steps {
				return nil
			}
			ok, err := s.Step()
			switch {
			case err != nil:
				return fmt.Errorf("replay step %d: %w", s.Steps(), err)
			case !ok:
				return fmt.Errorf("replay: %w: quiescent after %d steps, %d asked", engine.ErrBadChoice, s.Steps(), steps)
			}
		}
	})
	return s, err
}

// DivergedError says that a replay of a trace did not go through the
// states the trace recorded (Trace.States): the build replaying it runs
// another execution from the same choices.
type DivergedError struct {
	// Step is the first step after which the state differs from the
	// recorded one; Since the last step before it whose state was
	// recorded and matched (-1: none), so the divergence happened in
	// one of steps Since+1 to Step.
	Step, Since int
	// Recorded is the build that wrote the trace, Build the one
	// replaying it (BuildID; "" when unknown).
	Recorded, Build string
	// Checked says that replays of the trace's choices were compared in
	// the replaying process (by the binary that wrote the trace: see
	// SameBuild), and Here how they differed (an
	// *engine.NondeterminismError naming the step, node and field), nil
	// when they agreed.
	Checked bool
	Here    error
}

// SameBuild reports whether the trace was written by the binary that
// replays it: the system is then nondeterministic.
func (e *DivergedError) SameBuild() bool { return e.Build != "" && e.Build == e.Recorded }

func (e *DivergedError) Error() string {
	where := fmt.Sprintf("after step %d", e.Step)
	if e.Step-e.Since > 1 {
		where = fmt.Sprintf("after one of steps %d to %d", e.Since+1, e.Step)
	}
	cause := fmt.Sprintf("the trace was written by %s, this is %s: the system's code (or macemc) changed since, so its choices now run another execution; search again (the same flags and seed) to see whether this build has the bug",
		BuildName(e.Recorded), BuildName(e.Build))
	switch {
	case e.SameBuild() && e.Checked && e.Here != nil:
		cause = fmt.Sprintf("this is the binary that wrote it, so the system is nondeterministic, and replays of its choices in this process differ too: %v", e.Here)
	case e.SameBuild() && e.Checked:
		cause = "this is the binary that wrote it, so the system is nondeterministic, but replays of its choices in this process agree: " +
			"what it depends on was otherwise when the trace was written (a file it reads, an environment variable, the time, a package variable set before the run)"
	case e.SameBuild():
		cause = "this is the binary that wrote it, so the system is nondeterministic (a search checks every violation for that and names the node and field)"
	}
	return fmt.Sprintf("the replay is not the recorded execution: its state %s differs from the one the trace recorded; %s", where, cause)
}

// ErrNoFit marks a trace whose choices do not fit the system replaying it
// (a choice beyond the options there, or an execution that ends early).
var ErrNoFit = errors.New("the trace does not fit this system")

// ReplayChecked replays the trace's choices up to step steps (all of them
// when steps < 0) on cfg with opts, as engine.Replay does, and compares the
// state after every step the trace recorded (States) with the replay's.
// diverged is the first difference (nil: none, or nothing recorded, or
// states of another engine.HashVersion). A choice the system does not
// offer, or an execution that ends before steps, is an error wrapping
// engine.ErrBadChoice and ErrNoFit that says where the states diverged
// before it, if they did.
func (t *Trace) ReplayChecked(cfg *sim.Config, steps int, opts engine.Options) (s *engine.Sim, diverged *DivergedError, err error) {
	return t.ReplayCheckedWith(cfg, steps, opts, ReplayHooks{})
}

// ReplayHooks are what ReplayCheckedWith calls as the replay goes.
type ReplayHooks struct {
	// Diverged, when not nil, is called as soon as the replay's state
	// differs from the recorded one, right after the step where it
	// does: a replay that logs its steps (engine.Options.Logger) can say
	// so in its log, where a reader of the steps meets it.
	Diverged func(*DivergedError)
	// Stop, when not nil, is asked before every step; when it says so
	// the replay ends there with ErrStopped (a user's Ctrl-C: a replay
	// of 200,000 steps takes seconds).
	Stop func() bool
}

// ErrStopped ends a replay that ReplayHooks.Stop stopped.
var ErrStopped = errors.New("trace: the replay was stopped")

// ReplayCheckedWith is ReplayChecked with hooks.
func (t *Trace) ReplayCheckedWith(cfg *sim.Config, steps int, opts engine.Options, hooks ReplayHooks) (s *engine.Sim, diverged *DivergedError, err error) {
	if steps < 0 {
		steps = t.Steps
	}
	check := t.HashVersion == engine.HashVersion && len(t.States) > 0
	since := -1
	s, err = t.replayEach(cfg, steps, opts, func(s *engine.Sim) error {
		step := s.Steps()
		if i := stateIndex(step, t.Steps); check && diverged == nil && i >= 0 && 8*i+8 <= len(t.States) {
			if binary.LittleEndian.Uint64(t.States[8*i:]) == s.Hash() {
				since = step
			} else {
				diverged = &DivergedError{Step: step, Since: since, Recorded: t.Build, Build: BuildID()}
				if hooks.Diverged != nil {
					hooks.Diverged(diverged)
				}
			}
		}
		if hooks.Stop != nil && step < steps && hooks.Stop() {
			return ErrStopped
		}
		return nil
	})
	if errors.Is(err, engine.ErrBadChoice) {
		err = t.noFit(err, diverged)
	}
	return s, diverged, err
}

// noFit wraps a bad choice with ErrNoFit and what explains it.
func (t *Trace) noFit(err error, diverged *DivergedError) error {
	if diverged != nil {
		return fmt.Errorf("%w: %w; %w", ErrNoFit, err, diverged)
	}
	why := "the system's code changed since the trace was written, or it is nondeterministic"
	if t.HashVersion == engine.HashVersion && len(t.States) > 0 {
		// Every recorded state matched up to here: the step's handler
		// or what the system offers changed.
		why = "the states recorded matched up to here: the system's code changed since the trace was written, or it is nondeterministic"
	}
	return fmt.Errorf("%w: %w (%s)", ErrNoFit, err, why)
}

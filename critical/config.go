package critical

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Sentinel errors of package critical. Errors returned by Find, Recovers,
// Confirm and Minimize wrap one of these (or the context's error when the
// context ends), so errors.Is tells them apart.
var (
	// ErrBadConfig marks a Config that cannot be searched: no system, no
	// liveness property, DInit outside E or not below WalkDepth.
	ErrBadConfig = errors.New("critical: bad config")
	// ErrReplay marks an execution E whose recorded choices do not replay
	// on the system (the service changed, is nondeterministic, or the
	// options differ from the ones E ran with). It wraps the simulator's
	// error.
	ErrReplay = errors.New("critical: replay failed")
	// ErrNotDead marks an execution E that, replayed, reaches a live state
	// after DInit: it is no suspected liveness violation, so it has no
	// critical transition. See NotDeadError for the step.
	ErrNotDead = errors.New("critical: execution reaches a live state after d_init")
	// ErrShort marks an execution E that ends (without falling quiescent)
	// before a state the search has to probe: E must be at least
	// WalkDepth/2 steps long or end in a quiescent state.
	ErrShort = errors.New("critical: execution too short for d_max")
)

// NotDeadError says at which step the replayed execution was live.
type NotDeadError struct {
	Step  int // the first state after DInit in which all liveness properties hold
	DInit int
}

func (e *NotDeadError) Error() string {
	return fmt.Sprintf("critical: execution reaches a live state after d_init: state %d is live (d_init %d); it is not a liveness violation", e.Step, e.DInit)
}

// Unwrap lets errors.Is match ErrNotDead.
func (e *NotDeadError) Unwrap() error { return ErrNotDead }

// Defaults of Config.
const (
	// DefaultWalkDepth is d_max, the total length of a recovery walk's
	// execution (the original MaceMC README's value).
	DefaultWalkDepth = 20000
	// DefaultWalks is k, the number of random walks per probe (the
	// original code's value; seed 003 §4.4 uses 20 to 60).
	DefaultWalks = 20
	// ConfirmWalkLengths sets the default transition budget of a
	// confirmation sample: as many steps as this many walks of d_max steps
	// (1,200,000 at d_max = 20,000). Walks stop being started once the
	// walks counted so far took that many steps of their own: 60 walks
	// from a dead state (enough for strong evidence: a 95% bound below 5%
	// on its recovery, see Confidence.Thin), more from a state whose walks
	// end sooner (fall quiescent, or recover), up to the sample's walk
	// limit. It keeps the confirmation of a `macemc search` run within
	// about half a second on two cores.
	ConfirmWalkLengths = 60
	// ConfirmWalksPerLength bounds the walks of a confirmation sample by
	// its budget as well (Config.ConfirmWalks 0): ten walks per d_max of
	// ConfirmBudget, at least DefaultConfirmWalks and at most
	// MaxConfirmWalks. A walk that falls quiescent after a few steps costs
	// little of a budget counted in transitions, but each walk starts from
	// a copy of the state, whose cost grows with the state (a 51-node
	// system's n² connection queues: about 1.7 ms a walk of 200 steps),
	// so a sample of such walks ran to thousands of them (a trial's
	// 51-node system: 6,061 walks, 10 s) where 600 already put the 95%
	// bound on the state's recovery at 0.5%, a tenth of ThinUpper.
	ConfirmWalksPerLength = 10
	// DefaultConfirmWalks is the most walks a confirmation sample runs
	// from one state (the critical state c and the state c-1 before it)
	// with the default ConfirmBudget: ConfirmWalksPerLength per d_max of
	// it. The bound on c's recovery is then 0.5% at 95% confidence when
	// none of them recovers; a near-dead state that recovers in 1% of
	// walks passes all 600 once in 400 searches (the near-dead states
	// measured recovered in 2% to 14% of walks: doc.go).
	DefaultConfirmWalks = ConfirmWalksPerLength * ConfirmWalkLengths
	// MaxConfirmWalks is the most walks a sample runs however large its
	// budget (with ConfirmBudget negative, no bound in transitions, this
	// many).
	MaxConfirmWalks = 10000
)

// Config describes the suspected liveness violation E and how to search it.
type Config struct {
	// Sim is the system E ran on. Its Liveness properties decide which
	// states are live (all of them hold); its Safety properties are
	// checked during recovery walks.
	Sim *sim.Config
	// Options are the simulator options E ran with: NoFailures and
	// FailuresUntil are part of an execution's description and replay
	// needs them (trace.Trace.Options gives them). Chooser and Logger are
	// ignored. With FailuresUntil set ("gusto": failures in the bounded
	// part, none in walks) recovery walks inject no failure, from a state
	// before FailuresUntil too, unless WalkFailures is set.
	Options engine.Options
	// Choices are E's recorded choices.
	Choices []int32
	// Steps is E's length in transitions; 0 means as many as Choices drive.
	Steps int
	// DInit is the step from which E never reached a live state: the
	// bounded search depth (liveness only counts in states after it).
	DInit int
	// Minimized marks an E that is a minimized doomed path (Minimize)
	// walked on to d_max: DInit is then the minimized path's end, where
	// its critical transition was, not a search depth (Result.Explain
	// says so).
	Minimized bool
	// WalkDepth is d_max: a recovery walk from state i runs until the
	// execution has WalkDepth steps in all (WalkDepth-i steps of its own).
	// Default DefaultWalkDepth.
	WalkDepth int
	// Walks is k, the number of random walks per probe. Default DefaultWalks.
	Walks int
	// Seed seeds the walks: walk j of the probe at state i uses
	// WalkSeed(Seed, i, j).
	Seed uint64
	// Workers is the number of goroutines running a probe's walks.
	// Default runtime.NumCPU(). The answer (critical step, condition,
	// probes, live alternative) does not depend on it.
	Workers int
	// WalkFailures lets recovery walks inject failures (within the
	// system's per-execution bounds) even where E's options had them off.
	// The live alternative then records where failures came back on (see
	// Alternative.FailuresFrom).
	WalkFailures bool
	// HandlerTimeout bounds one handler during a recovery walk (0:
	// engine.DefaultHandlerTimeout; negative: no watchdog). A walk whose
	// handler hangs counts as not recovering.
	HandlerTimeout time.Duration
	// ConfirmWalks is the most walks a confirmation sample runs from one
	// state (0: ConfirmWalksPerLength per WalkDepth of ConfirmBudget, at
	// least DefaultConfirmWalks and at most MaxConfirmWalks; negative: Find
	// does not confirm, and answers as Algorithm 3 alone). See Confirm.
	ConfirmWalks int
	// ConfirmBudget bounds the transitions of one confirmation sample (0:
	// ConfirmWalkLengths·WalkDepth; negative: no bound but ConfirmWalks).
	ConfirmBudget int64
	// Progress, when set, is called after each probe (confirmation
	// samples included), from the goroutine that called Find.
	Progress func(Probe)
}

// validate checks c and fills in defaults.
func (c *Config) validate() error {
	if c.Sim == nil {
		return fmt.Errorf("%w: no system (Config.Sim is nil)", ErrBadConfig)
	}
	if err := c.Sim.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	if len(c.Sim.Liveness) == 0 {
		return fmt.Errorf("%w: the system has no liveness property", ErrBadConfig)
	}
	if c.WalkDepth == 0 {
		c.WalkDepth = DefaultWalkDepth
	}
	if c.Walks == 0 {
		c.Walks = DefaultWalks
	}
	if c.Workers <= 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.ConfirmBudget == 0 {
		c.ConfirmBudget = ConfirmWalkLengths * int64(c.WalkDepth)
	}
	if c.ConfirmWalks == 0 {
		c.ConfirmWalks = confirmWalks(c.ConfirmBudget, c.WalkDepth)
	}
	switch {
	case c.WalkDepth < 0:
		return fmt.Errorf("%w: walk depth %d", ErrBadConfig, c.WalkDepth)
	case c.Walks < 0:
		return fmt.Errorf("%w: %d walks per probe", ErrBadConfig, c.Walks)
	case c.Steps < 0:
		return fmt.Errorf("%w: %d steps", ErrBadConfig, c.Steps)
	case c.DInit < 0:
		return fmt.Errorf("%w: d_init %d", ErrBadConfig, c.DInit)
	case c.DInit >= c.WalkDepth:
		return fmt.Errorf("%w: d_init %d is not below d_max %d", ErrBadConfig, c.DInit, c.WalkDepth)
	}
	c.Options.Chooser, c.Options.Logger = nil, nil
	return nil
}

// confirmWalks is the walk limit of a confirmation sample whose budget is
// budget transitions (negative: none) at d_max depth: ConfirmWalksPerLength
// per d_max, within DefaultConfirmWalks to MaxConfirmWalks.
func confirmWalks(budget int64, depth int) int {
	if budget < 0 || depth <= 0 {
		return MaxConfirmWalks
	}
	lengths := budget / int64(depth)
	if lengths >= MaxConfirmWalks/ConfirmWalksPerLength {
		return MaxConfirmWalks
	}
	return max(int(lengths)*ConfirmWalksPerLength, DefaultConfirmWalks)
}

// WalkSeed returns the seed of recovery walk j of the probe at state i of a
// search seeded with seed. A walk's choices depend only on it, not on which
// worker runs the walk.
func WalkSeed(seed uint64, i, j int) uint64 {
	return walkSeed(seed, i, j)
}

package walks

import (
	"errors"
	"fmt"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Outcome is how a walk ended.
type Outcome int

// The ways a walk ends.
const (
	// Live: a state beyond LiveAfter satisfied every liveness property.
	Live Outcome = iota
	// Dead: MaxSteps were reached without a live state beyond LiveAfter,
	// a suspected liveness violation (seed 003, Algorithm 2).
	Dead
	// Quiescent: nothing was left to run and the state is not live; no
	// event can ever change it, so the violation is certain.
	Quiescent
	// Unsafe: a safety property failed.
	Unsafe
	// Failed: the execution could not go on (a handler panicked, a
	// property panicked, a replayed choice did not fit); see Result.Err.
	Failed
	// Stopped: Config.Observe asked the walk to end early, without a
	// verdict.
	Stopped
	// Finished: MaxSteps or quiescence was reached with no liveness
	// property to check; only safety was checked, and it held.
	Finished
	// Observed: Config.Observe ended the walk with a verdict: a violation
	// the observer recognised (a lasso, a temperature alarm), described by
	// Result.Property and Result.Observed.
	Observed
)

var outcomeNames = [...]string{"live", "dead", "quiescent", "unsafe", "failed", "stopped", "finished", "observed"}

// String returns the outcome's name.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", o)
}

// Violation reports whether the outcome is a (suspected) liveness or safety
// violation, or one an observer reported.
func (o Outcome) Violation() bool {
	return o == Dead || o == Quiescent || o == Unsafe || o == Failed || o == Observed
}

// Observer watches a walk: Observe is called once for the walk's first
// state and after every step, and returning false ends the walk. Verdict
// is then asked why: a property name or a detail (not both empty) is a
// violation the observer recognised, and the walk ends Observed with them
// in Result.Property and Result.Observed; otherwise it ends Stopped.
// Verdict is only called after Observe returned false.
type Observer interface {
	Observe(s *engine.Sim) bool
	Verdict() (property string, detail any)
}

// ObserveFunc is an Observer without verdicts: returning false ends the
// walk with outcome Stopped.
type ObserveFunc func(s *engine.Sim) bool

// Observe calls f.
func (f ObserveFunc) Observe(s *engine.Sim) bool { return f(s) }

// Verdict returns no verdict.
func (f ObserveFunc) Verdict() (string, any) { return "", nil }

// Config says how far to walk and what to check.
type Config struct {
	// MaxSteps is d_max: the walk ends when the execution (counting the
	// steps taken before the walk began) has this many steps.
	MaxSteps int
	// LiveAfter is the search depth: liveness is only checked in states
	// after more than LiveAfter steps (seed 003 §3.1 explains why).
	LiveAfter int
	// Safety properties are checked after every step.
	Safety []sim.Property
	// Liveness properties: a state is live when all of them hold.
	Liveness []sim.Property
	// Observe, when set, is called after every step (and once for the
	// starting state) with the simulator; returning false stops the walk,
	// with outcome Observed when its Verdict names a violation and Stopped
	// otherwise (see Observer). It runs after the safety check and before
	// the liveness check of each state. Lasso detection hooks in here.
	Observe Observer
}

// Result says how a walk ended.
type Result struct {
	Outcome Outcome
	// Steps is the execution's length when the walk ended.
	Steps int
	// Property names the safety property that failed, or the first
	// liveness property that did not hold at the end.
	Property string
	// Err is set for Failed: a handler panic (engine.ErrHandlerPanic), a
	// property panic or a bad choice.
	Err error
	// Observed is the observer's detail of an Observed outcome (e.g. a
	// *lasso.Finding); Property is then the property the observer named.
	Observed any
}

// Walk runs s from its current state with s's chooser until a live state
// beyond LiveAfter, a safety violation, quiescence or MaxSteps. With no
// liveness properties no state is live and only safety is checked.
func Walk(s *engine.Sim, c *Config) (res Result) {
	// Performance: the checks after every step (check.first) run under
	// this one deferred recover, not under one of their own each
	// (Sim.FirstViolated's, one per check, cost a randtree walk 3% of its
	// instructions). A property that panics ends the walk Failed with the
	// *engine.PropertyPanicError FirstViolated would return; a panic
	// anywhere else (an observer, the chooser) is not recovered here.
	var chk check
	defer func() {
		if chk.ps != nil {
			if r := recover(); r != nil {
				name := chk.ps[chk.i].Name
				res = Result{Outcome: Failed, Steps: s.Steps(), Property: name, Err: engine.NewPropertyPanic(name, s.Steps(), r)}
			}
		}
	}()
	v := s.View()
	if c.Observe != nil && !c.Observe.Observe(s) {
		return stopped(s, c)
	}
	if r, done := chk.live(s, v, c); done {
		return r
	}
	for s.Steps() < c.MaxSteps {
		ok, err := s.Step()
		if err != nil {
			return Result{Outcome: Failed, Steps: s.Steps(), Property: failedProperty(err), Err: err}
		}
		if !ok {
			if len(c.Liveness) == 0 {
				return Result{Outcome: Finished, Steps: s.Steps()}
			}
			if IsLive(s, c) {
				return Result{Outcome: Live, Steps: s.Steps()}
			}
			return Result{Outcome: Quiescent, Steps: s.Steps(), Property: firstNotLive(s, c)}
		}
		if i := chk.first(s, v, c.Safety, false); i >= 0 {
			return Result{Outcome: Unsafe, Steps: s.Steps(), Property: c.Safety[i].Name}
		}
		if c.Observe != nil && !c.Observe.Observe(s) {
			return stopped(s, c)
		}
		if r, done := chk.live(s, v, c); done {
			return r
		}
	}
	if len(c.Liveness) == 0 {
		return Result{Outcome: Finished, Steps: s.Steps()}
	}
	if len(s.Ready()) == 0 {
		// Nothing is left to run at d_max itself: quiescent, as one step
		// earlier, not merely not live yet.
		return Result{Outcome: Quiescent, Steps: s.Steps(), Property: firstNotLive(s, c)}
	}
	return Result{Outcome: Dead, Steps: s.Steps(), Property: firstNotLive(s, c)}
}

// stopped ends a walk its observer stopped: Observed with the observer's
// verdict, or Stopped without one.
func stopped(s *engine.Sim, c *Config) Result {
	prop, detail := c.Observe.Verdict()
	if prop == "" && detail == nil {
		return Result{Outcome: Stopped, Steps: s.Steps()}
	}
	return Result{Outcome: Observed, Steps: s.Steps(), Property: prop, Observed: detail}
}

// check is what Walk's deferred recover needs to name a property that
// panicked: the properties being checked (nil between checks) and the
// index of the one running.
type check struct {
	ps []sim.Property
	i  int
}

// first returns the index of the first property in ps that does not hold
// in v's state, or -1: Sim.FirstViolated without its recover, for Walk's.
// after says other predicates ran in this state before these: each is
// timed on its own by the watchdog (Sim.PredicateEnded).
func (k *check) first(s *engine.Sim, v *sim.View, ps []sim.Property, after bool) int {
	k.ps = ps
	for i := range ps {
		k.i = i
		if i > 0 || after {
			s.PredicateEnded()
		}
		if !ps[i].Check(v) {
			k.ps = nil
			return i
		}
	}
	k.ps = nil
	return -1
}

// live ends the walk in a live state beyond LiveAfter.
func (k *check) live(s *engine.Sim, v *sim.View, c *Config) (Result, bool) {
	if s.Steps() <= c.LiveAfter || len(c.Liveness) == 0 {
		return Result{}, false
	}
	if k.first(s, v, c.Liveness, len(c.Safety) > 0) < 0 {
		return Result{Outcome: Live, Steps: s.Steps()}, true
	}
	return Result{}, false
}

// IsLive reports whether every liveness property of c holds in s's state.
func IsLive(s *engine.Sim, c *Config) bool {
	if len(c.Liveness) == 0 {
		return false
	}
	ok, err := s.AllHold(c.Liveness)
	return ok && err == nil
}

func firstNotLive(s *engine.Sim, c *Config) string {
	if len(c.Liveness) == 0 {
		return ""
	}
	i, _ := s.FirstViolated(c.Liveness)
	if i >= 0 {
		return c.Liveness[i].Name
	}
	return ""
}

func failedProperty(err error) string {
	if pe, ok := err.(*engine.PropertyPanicError); ok {
		return pe.Property
	}
	if _, ok := err.(*engine.HandlerPanicError); ok {
		return PanicProperty
	}
	return ""
}

// The names under which a handler that panicked or did not return (or the
// system's code outside the handlers, such as a property's predicate:
// engine.HangError.Outside) is reported as a safety violation, and a service whose replays differ or
// whose message changed in flight (engine.MessageChangedError) as
// nondeterministic (engine.SharedStateError: nodes that share memory;
// engine.PropertyWriteError: a property that changed the state).
const (
	PanicProperty       = "panic in handler"
	HangProperty        = "handler did not return"
	OutsideHangProperty = "code outside the handlers did not return"
	DeterminismProperty = "deterministic replay"
	MessagesProperty    = "messages delivered as sent"
	SharedProperty      = "nodes share no memory"
	ReadOnlyProperty    = "properties only read the state"
)

// HangPropertyOf is the property under which hang err (an
// *engine.HangError) is reported: OutsideHangProperty for the system's
// code outside the handlers, HangProperty otherwise.
func HangPropertyOf(err error) string {
	var he *engine.HangError
	if errors.As(err, &he) && he.Outside != "" {
		return OutsideHangProperty
	}
	return HangProperty
}

// SeedFor derives the random seed of walk number i of a run seeded with
// seed, so that a walk's choices do not depend on which worker runs it.
func SeedFor(seed uint64, i uint64) uint64 {
	z := seed + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

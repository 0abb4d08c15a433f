package engine

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/huandu/go-clone"
	"github.com/macemc/macemc/sim"
)

// Sentinel errors of the guards.
var (
	// ErrHang marks a handler that did not return within the timeout.
	ErrHang = errors.New("sim: handler did not return")
	// ErrNondeterministic marks a service whose replay diverged.
	ErrNondeterministic = errors.New("sim: nondeterministic service")
	// ErrPropertyPanic marks a property predicate that panicked.
	ErrPropertyPanic = errors.New("sim: property panicked")
)

// DefaultHandlerTimeout is how long a handler may run before the watchdog
// reports it (the original tool's default).
const DefaultHandlerTimeout = 5 * time.Second

// PropertyPanicError reports a property predicate that panicked.
type PropertyPanicError struct {
	Property string
	Step     int
	Value    any
}

func (e *PropertyPanicError) Error() string {
	return fmt.Sprintf("sim: property %s panicked at step %d: %v", e.Property, e.Step, e.Value)
}

// Unwrap lets errors.Is match ErrPropertyPanic.
func (e *PropertyPanicError) Unwrap() error { return ErrPropertyPanic }

// HangError reports a handler that did not return in time, with the
// choices that lead to it.
type HangError struct {
	Step    int
	Event   string
	Timeout time.Duration
	Choices []int32
}

func (e *HangError) Error() string {
	return fmt.Sprintf("sim: handler did not return within %v at step %d (%s)", e.Timeout, e.Step, e.Event)
}

// Unwrap lets errors.Is match ErrHang.
func (e *HangError) Unwrap() error { return ErrHang }

// NondeterminismError reports the first step at which two replays of the
// same choices reached different states.
type NondeterminismError struct {
	Step   int // state after this many steps differs (0: the initial state)
	Event  string
	Detail string
}

func (e *NondeterminismError) Error() string {
	msg := fmt.Sprintf("sim: nondeterministic service: two replays of the same choices diverge at step %d", e.Step)
	if e.Event != "" {
		msg += " (" + e.Event + ")"
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg + "; look for map iteration order, global math/rand, time.Now or goroutines in the handlers"
}

// Unwrap lets errors.Is match ErrNondeterministic.
func (e *NondeterminismError) Unwrap() error { return ErrNondeterministic }

// Guard runs fn, which drives this simulator, under a watchdog: if one
// handler runs longer than timeout (0 means DefaultHandlerTimeout), Guard
// returns a *HangError with the path so far and abandons the execution
// (the handler goroutine is left to finish or to be unwound at its next
// Context call). Otherwise it returns what fn returns.
func (s *Sim) Guard(timeout time.Duration, fn func() error) error {
	if timeout <= 0 {
		timeout = DefaultHandlerTimeout
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	tick := time.NewTicker(timeout / 4)
	defer tick.Stop()
	last, since := s.progress.Load(), time.Now()
	for {
		select {
		case err := <-done:
			return err
		case now := <-tick.C:
			p := s.progress.Load()
			if p != last {
				last, since = p, now
				continue
			}
			if p%2 == 1 && now.Sub(since) >= timeout {
				// Describe the hang before abandoning the
				// execution. Once abandoned, the handler unwinds at its
				// next sim.Context call and execute moves on to the next
				// step concurrently (a data race, and an off-by-one
				// Step). Until then the stuck handler does not touch the
				// step, the last event or the choices (except through
				// Rand or Elapsed in its loop).
				he := &HangError{Step: s.w.step, Event: s.w.lastEvent.String(), Timeout: timeout, Choices: s.ChoiceValues()}
				s.abandoned.Store(true)
				return he
			}
		}
	}
}

// Clone returns an independent deep copy of the simulator's state (every
// node's struct, the network, timers, the choice log) that goes on with
// chooser c. The copy shares nothing mutable with the original; it starts
// with logging off.
func (s *Sim) Clone(c Chooser) *Sim {
	cp := &Sim{cfg: s.cfg, weights: s.weights, n: s.n, chooser: c, failures: s.failures, until: s.until}
	cp.bind()
	// The choice log only grows and holds plain numbers: copy it with one
	// memcpy instead of element by element through the deep copier.
	w := s.w
	w.choices, w.stepStarts = nil, nil
	cp.w = clone.Slowly(w).(world)
	cp.w.choices = slices.Clone(s.w.choices)
	cp.w.stepStarts = slices.Clone(s.w.stepStarts)
	return cp
}

// Abandoned reports whether Guard gave up on a handler of this simulator.
// An abandoned simulator must not be used again: its handlers unwind at
// their next sim.Context call. A goroutine that drives several executions
// under one Guard checks it to stop once the watchdog has given up on it.
func (s *Sim) Abandoned() bool { return s.abandoned.Load() }

// SwapState exchanges the executions of s and o, two simulators of the same
// Config: afterwards each holds the state, choice log, chooser and failure
// settings the other held, while keeping its own identity (its Guard
// watchdog, logger and buffers). It copies nothing, so handing an
// execution to another goroutine's simulator this way costs no more than
// a few words, where Clone deep-copies every node. Neither may be running
// a handler, or have been abandoned by Guard.
func (s *Sim) SwapState(o *Sim) {
	if s.cfg != o.cfg {
		panic("sim: SwapState between simulators of different configs")
	}
	s.w, o.w = o.w, s.w
	s.chooser, o.chooser = o.chooser, s.chooser
	s.failures, o.failures = o.failures, s.failures
	s.until, o.until = o.until, s.until
	s.readyValid, o.readyValid = false, false
	s.err, o.err = nil, nil
}

// Replay rebuilds cfg's initial state and replays choices, stopping after
// steps transitions (or when the choices run out if steps < 0). The
// returned simulator goes on with the exhausted Recorded chooser: set another.
func Replay(cfg *sim.Config, choices []int32, steps int, opts Options) (*Sim, error) {
	r := NewRecorded(choices)
	opts.Chooser = r
	s, err := New(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	for steps < 0 || s.Steps() < steps {
		if steps < 0 && r.Used() >= len(choices) {
			break
		}
		ok, err := s.Step()
		if err != nil {
			return s, fmt.Errorf("replay step %d: %w", s.Steps(), err)
		}
		if !ok {
			if steps >= 0 {
				return s, fmt.Errorf("replay: %w: quiescent after %d steps, %d asked", ErrBadChoice, s.Steps(), steps)
			}
			break
		}
	}
	return s, nil
}

// CheckDeterminism replays choices twice from cfg's initial state and
// compares the state hashes after every step. It returns a
// *NondeterminismError naming the first step where the replays differ,
// or nil. A service that is deterministic on this path passes; one whose
// nondeterminism this path does not exercise passes too.
func CheckDeterminism(cfg *sim.Config, choices []int32, opts Options) error {
	run := func() ([]uint64, []string, error) {
		r := NewRecorded(choices)
		opts.Chooser, opts.Logger = r, nil
		s, err := New(cfg, opts)
		if err != nil {
			return nil, nil, err
		}
		hashes := []uint64{s.Hash()}
		events := []string{""}
		for r.Used() < len(choices) {
			ok, err := s.Step()
			if err != nil || !ok {
				break
			}
			hashes = append(hashes, s.Hash())
			events = append(events, s.LastEvent().String())
		}
		return hashes, events, nil
	}
	a, ev, err := run()
	if err != nil {
		return err
	}
	b, _, err := run()
	if err != nil {
		return err
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return &NondeterminismError{Step: i, Event: ev[i]}
		}
	}
	if len(a) != len(b) {
		return &NondeterminismError{Step: min(len(a), len(b)), Detail: fmt.Sprintf("one replay ran %d steps, the other %d", len(a)-1, len(b)-1)}
	}
	return nil
}

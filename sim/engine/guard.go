package engine

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/macemc/macemc/internal/safetext"
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
	// ErrEscape marks a service that acted outside its handlers; see
	// EscapeError. It comes with ErrNondeterministic.
	ErrEscape = errors.New("sim: service escaped its handler")
)

// DefaultHandlerTimeout is how long a handler may run before the watchdog
// reports it (the original tool's default).
const DefaultHandlerTimeout = 5 * time.Second

// PropertyPanicError reports a property predicate that panicked.
type PropertyPanicError struct {
	// Property is the property's name, or for a driver request's
	// condition (Condition) its request's name (sim.Request.Name, or the
	// request's text).
	Property string
	// Step is the state the predicate was evaluated in: after Step steps.
	Step  int
	Value any
	// Condition marks the condition of node Node's driver request
	// (sim.Request.When) rather than a property.
	Condition bool
	Node      int
	// Stack holds the predicate's own frames (the system's code, not the
	// engine's or the runtime's), when they were taken.
	Stack string
}

func (e *PropertyPanicError) Error() string {
	state := fmt.Sprintf("the state after step %d", e.Step)
	if e.Step == 0 {
		state = "the initial state"
	}
	if e.Condition {
		return fmt.Sprintf("sim: the condition of node %d's driver request %s panicked in %s: %s", e.Node, safetext.QuoteUnsafe(e.Property), state, panicText(e.Value))
	}
	return fmt.Sprintf("sim: property %s panicked in %s: %s", safetext.QuoteUnsafe(e.Property), state, panicText(e.Value))
}

// Unwrap lets errors.Is match ErrPropertyPanic.
func (e *PropertyPanicError) Unwrap() error { return ErrPropertyPanic }

// HangError reports a handler that did not return in time, with the
// choices that lead to it.
type HangError struct {
	// Step is the number of steps completed before the hung one: the hung
	// handler runs transition Step+1 (as logs number it), or boots the
	// system when Boot is set.
	Step    int
	Boot    bool
	Node    sim.NodeID
	Event   string
	Timeout time.Duration
	Choices []int32
	// Memory marks a handler given up on because the heap alarm went off
	// while it ran (RaiseHeapAlarm, or its run's: WatchHeapOf) and it
	// still ran HeapAlarmGrace later: a handler that allocates without
	// returning. Timeout is then how long it ran after the alarm.
	Memory bool
	// Outside, when set, names the function of the system, run outside
	// the handlers, that did not return within Timeout after Step steps
	// (Node is -1): a property's predicate, a driver request's condition,
	// Config.Service; At is the name of its file.
	Outside, At string
	// Blocked, when set, says where a handler that did not return waits
	// (engine's blockedAt): "blocked (sync.Mutex.Lock) in
	// sync.(*Mutex).Lock, called by jobs.(*Coordinator).note (jobs.go)".
	// A handler that loops, not waiting, has none: where it is found
	// varies from one look to the next.
	Blocked string
	// Goexit marks a handler that ended its goroutine with runtime.Goexit
	// (testing.T's FailNow, Fatal and SkipNow, testify's require) instead
	// of returning; Timeout is 0. Node is -1 when the goroutine ended
	// outside a handler (in a property or a driver condition).
	Goexit bool
}

func (e *HangError) Error() string {
	at := fmt.Sprintf("at step %d", e.Step+1)
	if e.Boot {
		at = "at boot"
	}
	if e.Outside != "" {
		return fmt.Sprintf("sim: code of the system outside its handlers did not return within %v after step %d: %s (in %s), a property's predicate, a driver request's condition or Config.Service, still running when the watchdog gave up on it", e.Timeout, e.Step, e.Outside, e.At)
	}
	if e.Goexit && e.Node < 0 {
		return fmt.Sprintf("sim: the goroutine running the system ended by runtime.Goexit after step %d, outside the handlers (a property or a driver condition that calls testing.T's FailNow or Fatal, or testify's require?): panic or return false instead", e.Step)
	}
	if e.Goexit {
		return fmt.Sprintf("sim: the handler of node %d did not return: it called runtime.Goexit %s (%s); testing.T's FailNow, Fatal and SkipNow and testify's require do, and end the goroutine that runs the handler: panic instead, or record the failure in the node's state for a property to see", e.Node, at, e.Event)
	}
	if e.Memory {
		return fmt.Sprintf("sim: the handler of node %d did not return: the heap grew past the run's memory limit while it ran, and it still ran %v later %s (%s)", e.Node, e.Timeout.Round(time.Millisecond), at, e.Event)
	}
	if e.Blocked != "" {
		return fmt.Sprintf("sim: the handler of node %d did not return within %v %s (%s): %s", e.Node, e.Timeout, at, e.Event, e.Blocked)
	}
	return fmt.Sprintf("sim: the handler of node %d did not return within %v %s (%s)", e.Node, e.Timeout, at, e.Event)
}

// Unwrap lets errors.Is match ErrHang.
func (e *HangError) Unwrap() error { return ErrHang }

// Guard runs fn, which drives this simulator, under a watchdog: if one
// handler runs longer than timeout (0 means DefaultHandlerTimeout), Guard
// returns a *HangError with the path so far and abandons the execution
// (the handler goroutine is left to finish or to be unwound at its next
// Context call). It does the same, with HangError.Memory set, for a
// handler still running HeapAlarmGrace after the heap alarm went off
// (RaiseHeapAlarm). Otherwise it returns what fn returns.
func (s *Sim) Guard(timeout time.Duration, fn func() error) error {
	if timeout <= 0 {
		timeout = DefaultHandlerTimeout
	}
	done := make(chan error, 1)
	// The process's alarm, and this run's when it watches its heap
	// (WatchHeapOf): a nil channel, never ready, when it has none.
	alarm := *processAlarm.ch.Load()
	run := runAlarm(s.cfg)
	var runCh <-chan struct{}
	if run != nil {
		runCh = *run.ch.Load()
	}
	var gid atomic.Uint64 // fn's goroutine, for outsideAt
	go func() {
		id := goroutineID()
		gid.Store(id)
		s.guardGID.Store(id)
		defer s.guardGID.CompareAndSwap(id, 0)
		returned := false
		defer func() {
			if returned {
				return
			}
			// fn neither returned nor panicked (handlers' panics are
			// run's): runtime.Goexit. A panic of macemc's own goes on, with
			// the stack where it happened (taken before recover unwinds it).
			stack := debug.Stack()
			if r := recover(); r != nil {
				panic(fmt.Sprintf("%v\n\n%s", r, stack))
			}
			done <- s.goexited()
		}()
		err := fn()
		returned = true
		done <- err
	}()
	tick := time.NewTicker(timeout / 4)
	defer tick.Stop()
	last, since := s.progress.Load(), time.Now()
	looked := false // at fn's stack, since the progress last changed
	// Once the heap alarm is up (or was, when Guard began, and the heap
	// is still past a limit), a handler that runs on through a whole
	// grace period is given up on.
	var grace <-chan time.Time
	var graceTick *time.Ticker
	defer func() {
		if graceTick != nil {
			graceTick.Stop()
		}
	}()
	var alarmAt time.Time
	watchGrace := func() {
		if grace != nil {
			return
		}
		alarm, runCh, alarmAt = nil, nil, time.Now()
		graceTick = time.NewTicker(HeapAlarmGrace)
		grace = graceTick.C
	}
	if processAlarm.over.Load() > 0 || run != nil && run.over.Load() > 0 {
		watchGrace()
	}
	graceLast := s.progress.Load()
	for {
		select {
		case err := <-done:
			return err
		case <-alarm:
			graceLast = s.progress.Load()
			watchGrace()
		case <-runCh:
			graceLast = s.progress.Load()
			watchGrace()
		case <-grace:
			p := s.progress.Load()
			if p%2 == 1 && p == graceLast {
				if err := s.giveUp(p, &HangError{Memory: true, Timeout: time.Since(alarmAt).Round(time.Millisecond)}); err != nil {
					return err
				}
			}
			graceLast = p
		case now := <-tick.C:
			p := s.progress.Load()
			if p != last {
				last, since, looked = p, now, false
				continue
			}
			switch {
			case now.Sub(since) < timeout:
			case p%2 == 1:
				if err := s.giveUp(p, &HangError{Timeout: timeout, Blocked: blockedAt(gid.Load())}); err != nil {
					return err
				}
			case !looked:
				// No handler runs and none has for a timeout: fn may be
				// stuck in the system's code outside the handlers (a
				// property). Looked at once per stall.
				looked = true
				if fn, at := outsideAt(gid.Load()); fn != "" {
					if err := s.giveUpOutside(p, &HangError{Node: -1, Outside: fn, At: at, Timeout: timeout}); err != nil {
						return err
					}
				}
			}
		}
	}
}

// giveUpOutside gives up on the execution if fn's goroutine is still
// where Guard found it stuck in the system's code outside the handlers
// (progress p, even, has not moved), and returns he describing it (the
// steps completed, the choices so far); nil if it has moved on. The last
// handler's end (progress p) orders the step's choices before this read.
func (s *Sim) giveUpOutside(p uint64, he *HangError) error {
	if !s.progress.CompareAndSwap(p, p+2) {
		return nil
	}
	he.Step, he.Choices = len(s.w.stepStarts), s.ChoiceValues()
	s.abandoned.Store(true)
	return he
}

// goexited describes fn's goroutine ending by runtime.Goexit (Guard): in a
// handler, which run then leaves running, a *HangError with Goexit set
// that gives up on the execution; elsewhere (a property, a driver
// condition) one without a node.
func (s *Sim) goexited() error {
	if err := s.giveUp(s.progress.Load(), &HangError{Goexit: true}); err != nil {
		return err
	}
	s.abandoned.Store(true)
	return &HangError{Goexit: true, Step: s.w.step, Node: -1, Event: s.w.lastEvent.String(), Choices: s.ChoiceValues()}
}

// errGivenUp is what run returns when Guard gave up on its handler while
// it ran: the step is left as it was for Guard to describe.
var errGivenUp = fmt.Errorf("%w: the watchdog gave up on it", ErrHang)

// giveUp gives up on the execution if the handler that was running when
// Guard looked (progress p, odd) still runs, and returns he describing it
// (node, step, event, the choices so far); nil if the handler has
// returned meanwhile. It claims the handler's end first (progress moves
// on, so that the handler's own end, in run, fails to and returns
// errGivenUp without touching the step). Once abandoned, the handler
// unwinds at its next sim.Context call. Until then it does not touch the
// step, the last event or the choices (except through Rand or Elapsed in
// its loop).
func (s *Sim) giveUp(p uint64, he *HangError) error {
	if p%2 == 0 || !s.progress.CompareAndSwap(p, p+2) {
		return nil
	}
	he.Step, he.Boot, he.Node, he.Event, he.Choices = s.w.step, s.booting, sim.NodeID(p>>40-1), s.w.lastEvent.String(), s.ChoiceValues()
	if s.booting {
		he.Event = fmt.Sprintf("node %d starts", he.Node)
	}
	s.abandoned.Store(true)
	return he
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
	// A node may keep the Context its handlers get and use it in later
	// handlers: the Contexts go with the execution, each then backed by
	// the simulator that holds it, or a kept Context would send into the
	// other simulator's execution.
	s.ctxs, o.ctxs = o.ctxs, s.ctxs
	s.rebindContexts()
	o.rebindContexts()
	s.chooser, o.chooser = o.chooser, s.chooser
	s.failures, o.failures = o.failures, s.failures
	s.until, o.until = o.until, s.until
	s.readyValid, o.readyValid = false, false
	s.listOK, o.listOK = false, false
	s.err, o.err = nil, nil
}

// Replay rebuilds cfg's initial state and replays choices, stopping after
// steps transitions (or when the choices run out if steps < 0). The
// returned simulator goes on with the exhausted Recorded chooser: set another.
// The boot runs under the watchdog (NewGuarded); a boot that panics or
// hangs returns its error with the failed simulator.
func Replay(cfg *sim.Config, choices []int32, steps int, opts Options) (*Sim, error) {
	r := NewRecorded(choices)
	opts.Chooser = r
	s, err := NewGuarded(cfg, opts, 0)
	if err != nil {
		if s != nil && (errors.Is(err, ErrHandlerPanic) || errors.Is(err, ErrHang)) {
			// The execution ends at boot: its failed state is all there is.
			return s, fmt.Errorf("replay: %w", err)
		}
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

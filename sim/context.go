package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"
)

// Context is what a handler uses to act on the world. The simulator hands
// a Context to each handler call; it is only valid during that call.
type Context struct {
	s    *Sim
	node NodeID
	bare *Bare // set when a Bare runner drives the handlers: effects go nowhere
}

// errAbandoned unwinds a handler whose execution the watchdog gave up on.
// Every Context method checks for it (Fix: before, only the methods with
// effects did, so a handler spinning on Self, Nodes, Step, Now, Monotone,
// TimerScheduled or Log was never unwound, as Guard's doc promises, and
// kept a core busy for the rest of the process).
var errAbandoned = errors.New("sim: execution abandoned")

func (c *Context) check() {
	if c.s.abandoned.Load() {
		panic(errAbandoned)
	}
}

// Self returns the node the handler runs on.
func (c *Context) Self() NodeID { c.check(); return c.node }

// Nodes returns the number of nodes in the system.
func (c *Context) Nodes() int { c.check(); return c.s.n }

// Step returns the number of the transition being executed, counting from
// 1 (the transition that leads to the state after Step() steps), or 0 while
// the system boots.
func (c *Context) Step() int { c.check(); return c.s.logStep() }

// Send queues msg on the reliable, FIFO connection from this node to the
// node to. It arrives after everything sent earlier on that connection,
// unless the connection breaks first, which loses it and tells both ends
// (HandleConnError). Sending to oneself is allowed.
func (c *Context) Send(to NodeID, msg Message) {
	c.check()
	s := c.s
	if to < 0 || int(to) >= s.n {
		panic(fmt.Sprintf("sim: node %d sends to unknown node %d", c.node, to))
	}
	if c.bare != nil {
		return
	}
	s.push(int(c.node)*s.n+int(to), pending{msg: msg, from: c.node, to: to, weight: s.messageWeight(msg)})
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(c.node)).Int("to", int(to)).Str("type", MessageName(msg)).Msg("send " + FormatValue(msg))
	}
}

// SendDatagram sends msg unreliably: it may arrive in any order relative
// to other datagrams (if the config reorders), or be dropped (if the
// config allows drops).
func (c *Context) SendDatagram(to NodeID, msg Message) {
	c.check()
	s := c.s
	if to < 0 || int(to) >= s.n {
		panic(fmt.Sprintf("sim: node %d sends to unknown node %d", c.node, to))
	}
	if c.bare != nil {
		return
	}
	s.w.dgrams = append(s.w.dgrams, pending{msg: msg, from: c.node, to: to, weight: s.messageWeight(msg)})
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(c.node)).Int("to", int(to)).Str("type", MessageName(msg)).Msg("send datagram " + FormatValue(msg))
	}
}

// SetTimer schedules the named one-shot timer. Time is logical: the timer
// becomes a pending event that may fire at any later step. Setting a timer
// that is already scheduled leaves it scheduled.
func (c *Context) SetTimer(name string) { c.setTimer(name, false) }

// SetPeriodic schedules the named periodic timer: after it fires it stays
// scheduled until cancelled.
func (c *Context) SetPeriodic(name string) { c.setTimer(name, true) }

func (c *Context) setTimer(name string, periodic bool) {
	c.check()
	if c.bare != nil {
		c.bare.setTimer(c.node, name, periodic)
		return
	}
	s := c.s
	i := s.timerIndex(c.node, name)
	t := &s.w.nodes[c.node].timers[i]
	if !t.armed {
		s.w.armed++
	}
	t.armed, t.periodic = true, periodic
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(c.node)).Bool("periodic", periodic).Msg("set timer " + name)
	}
}

// CancelTimer unschedules the named timer; cancelling a timer that is not
// scheduled does nothing.
func (c *Context) CancelTimer(name string) {
	c.check()
	if c.bare != nil {
		c.bare.cancelTimer(c.node, name)
		return
	}
	s := c.s
	nd := &s.w.nodes[c.node]
	for i := range nd.timers {
		if nd.timers[i].name == name && nd.timers[i].armed {
			nd.timers[i].armed = false
			s.w.armed--
			if s.log != nil {
				s.log.Info().Int("step", s.logStep()).Int("node", int(c.node)).Msg("cancel timer " + name)
			}
		}
	}
}

// TimerScheduled reports whether this node's named timer is scheduled.
func (c *Context) TimerScheduled(name string) bool {
	c.check()
	if c.bare != nil {
		return c.bare.timerArmed(c.node, name)
	}
	return c.s.TimerArmed(c.node, name)
}

// Rand returns a number in [0, n). It is a choice point: bounded search
// tries every answer, walks pick one at random, replay repeats the recorded
// one. n must be at least 1.
func (c *Context) Rand(n int) int {
	c.check()
	if n < 1 {
		panic(fmt.Sprintf("sim: Rand(%d) on node %d", n, c.node))
	}
	if n == 1 {
		return 0
	}
	if c.bare != nil {
		return c.bare.answer(n)
	}
	v, err := c.s.choose(ChooseRandom, n, nil)
	if err != nil {
		c.s.err = err
		panic(err)
	}
	return v
}

// Time is an abstract timestamp (seed 003 §4.1, MaceTime). All Times are
// alike: comparing them is a choice point (see Elapsed), so the checker
// explores both outcomes of a timeout instead of whatever the speed of the
// simulation would dictate.
type Time struct{}

// Now returns the current abstract time.
func (c *Context) Now() Time { c.check(); return Time{} }

// Elapsed reports whether duration d has passed since t. It is a choice
// point: both answers are possible executions.
func (c *Context) Elapsed(t Time, d time.Duration) bool {
	c.check()
	if c.bare != nil {
		return c.bare.answer(2) == 1
	}
	v, err := c.s.choose(ChooseTime, 2, nil)
	if err != nil {
		c.s.err = err
		panic(err)
	}
	return v == 1
}

// Monotone returns a number larger than any it returned before in this
// execution, on any node (seed 003 §4.1, MonotoneTime): use it for
// identifiers that must increase across resets.
func (c *Context) Monotone() uint64 {
	c.check()
	c.s.w.monotone++
	return c.s.w.monotone
}

// Log returns a log event for an annotation of the service's own, or nil
// when logging is off; zerolog's methods on a nil event do nothing and cost
// nothing, so
//
//	ctx.Log().Int("seq", seq).Msg("retransmit")
//
// is free during search.
func (c *Context) Log() *zerolog.Event {
	c.check()
	if c.s.log == nil {
		return nil
	}
	return c.s.log.Info().Int("step", c.s.logStep()).Int("node", int(c.node))
}

// Logf writes a formatted annotation when logging is on. Its arguments are
// evaluated even when logging is off; prefer Log on hot paths.
func (c *Context) Logf(format string, args ...any) {
	c.check()
	if c.s.log == nil {
		return
	}
	c.Log().Msg(fmt.Sprintf(format, args...))
}

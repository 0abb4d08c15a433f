package sim

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/sim/internal/hook"
)

// Context is what a handler uses to act on the world: every effect of a
// handler (sending, timers, random numbers, time, logging) goes through it.
// The simulator hands a Context to each handler call. A node may keep it
// (to hand a library a send callback) and use it in its later handlers:
// it is the node's handle on the simulator. Using it anywhere else (from
// a goroutine, or from code that runs between handlers) is acting outside
// the handlers, which the checker reports.
type Context struct {
	rt   hook.Runtime
	node NodeID
}

func init() {
	hook.NewContext = func(rt hook.Runtime, node int) any { return &Context{rt: rt, node: NodeID(node)} }
	hook.Rebind = func(ctx any, rt hook.Runtime) { ctx.(*Context).rt = rt }
	hook.NewView = func(rt hook.Runtime, services, history any) any {
		return &View{rt: rt, services: services.(*[]Service), history: history.(*[]HistoryEvent)}
	}
}

// Self returns the node the handler runs on.
func (c *Context) Self() NodeID { c.rt.Check(); return c.node }

// Nodes returns the number of nodes in the system.
func (c *Context) Nodes() int { return c.rt.Nodes() }

// Step returns the number of the transition being executed, counting from
// 1 (the transition that leads to the state after Step() steps), or 0 while
// the system boots.
func (c *Context) Step() int { return c.rt.LogStep() }

// Send queues msg on the reliable, FIFO connection from this node to the
// node to. It arrives after everything sent earlier on that connection,
// unless the connection breaks first, which loses it and tells both ends
// (HandleConnError). A message to a node that crashed (Failures.Crashes)
// is lost without telling the sender: a crash breaks only the connections
// with messages in flight when it happens. Sending to oneself is allowed.
func (c *Context) Send(to NodeID, msg Message) { c.rt.Send(int(c.node), int(to), msg, false) }

// SendDatagram sends msg unreliably: it may arrive in any order relative
// to other datagrams (if the config reorders), or be dropped (if the
// config allows drops).
func (c *Context) SendDatagram(to NodeID, msg Message) { c.rt.Send(int(c.node), int(to), msg, true) }

// SetTimer schedules the named one-shot timer. Time is logical: the timer
// becomes a pending event that may fire at any later step. Setting a timer
// that is already scheduled leaves it scheduled.
func (c *Context) SetTimer(name string) { c.rt.SetTimer(int(c.node), name, false) }

// SetPeriodic schedules the named periodic timer: after it fires it stays
// scheduled until cancelled.
func (c *Context) SetPeriodic(name string) { c.rt.SetTimer(int(c.node), name, true) }

// CancelTimer unschedules the named timer; cancelling a timer that is not
// scheduled does nothing.
func (c *Context) CancelTimer(name string) { c.rt.CancelTimer(int(c.node), name) }

// TimerScheduled reports whether this node's named timer is scheduled.
func (c *Context) TimerScheduled(name string) bool { return c.rt.TimerScheduled(int(c.node), name) }

// Rand returns a number in [0, n). It is a choice point: bounded search
// tries every answer, walks pick one at random, replay repeats the recorded
// one. n must be from 1 to 2^31-1; anything else is an invalid use that
// the checker reports.
func (c *Context) Rand(n int) int { return c.rt.Rand(int(c.node), n) }

// Restarted reports whether the node's current incarnation began with a
// reset (a crash and restart) rather than with the system's first boot.
// Start uses it to tell a boot from a restart; a Durable service's durable
// state has been restored by then.
func (c *Context) Restarted() bool { return c.rt.Restarted(int(c.node)) }

// Reader returns a deterministic source of random bytes for this handler:
// a stream of its own per node, drawn from the simulator, whose position is
// part of the node's state. Hand it to code that wants an io.Reader of
// random bytes (in place of crypto/rand.Reader). Unlike Rand its bytes are
// not a choice point: the checker does not explore other values, it only
// makes them the same on every replay. Use it only during this handler.
func (c *Context) Reader() io.Reader { return (*contextReader)(c) }

// RandSource returns a math/rand/v2 Source over the same deterministic
// stream as Reader, for code that takes a *rand.Rand:
// rand.New(ctx.RandSource()). Use it only during this handler.
func (c *Context) RandSource() rand.Source { return (*contextReader)(c) }

// contextReader is a Context as a random source.
type contextReader Context

// Read implements io.Reader; it always fills p.
func (r *contextReader) Read(p []byte) (int, error) {
	r.rt.RandBytes(int(r.node), p)
	return len(p), nil
}

// Uint64 implements rand.Source.
func (r *contextReader) Uint64() uint64 {
	var b [8]byte
	r.rt.RandBytes(int(r.node), b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// Time is an abstract timestamp (seed 003 §4.1, MaceTime). All Times are
// alike: comparing them is a choice point (see Elapsed), so the checker
// explores both outcomes of a timeout instead of whatever the speed of the
// simulation would dictate.
type Time struct{}

// Now returns the current abstract time.
func (c *Context) Now() Time { c.rt.Check(); return Time{} }

// Elapsed reports whether duration d has passed since t. It is a choice
// point: both answers are possible executions. A negative d is an invalid
// use that the checker reports.
func (c *Context) Elapsed(t Time, d time.Duration) bool { return c.rt.Elapsed(int(c.node), int64(d)) }

// Monotone returns a number larger than any it returned before in this
// execution, on any node (seed 003 §4.1, MonotoneTime): use it for
// identifiers that must increase across resets. Its counter is part of
// the state: after more values were handed out, even ones no node kept,
// the next ones differ.
func (c *Context) Monotone() uint64 { return c.rt.Monotone(int(c.node)) }

// Notify announces event to the system's monitors (Config.Monitors): each
// one's Handle runs now, in this handler's step, in the order the monitors
// are declared (seed 001's monitor<M>(event), sent to every monitor; a
// monitor ignores what it does not care about). It changes nothing a
// service can observe: monitors are the checker's. Without monitors it
// does nothing.
func (c *Context) Notify(event any) { c.rt.Notify(int(c.node), event) }

// Log returns a log event for an annotation of the service's own, or nil
// when logging is off; zerolog's methods on a nil event do nothing and cost
// nothing, so
//
//	ctx.Log().Int("seq", seq).Msg("retransmit")
//
// is free during search.
func (c *Context) Log() *zerolog.Event { return c.rt.Log(int(c.node)) }

// Logf writes a formatted annotation when logging is on. Its arguments are
// evaluated even when logging is off; prefer Log on hot paths.
func (c *Context) Logf(format string, args ...any) {
	if e := c.rt.Log(int(c.node)); e != nil {
		e.Msg(fmt.Sprintf(format, args...))
	}
}

// Invoke records in the execution's history that client invokes operation
// op on the system under test (seed 004): op's type names the operation
// and its fields are the arguments, e.g. Write{Value: 3}. A client is a
// sequential process: it must not invoke while an operation of its own is
// pending (the handler panics). Clients are numbered by the system, from
// 0; any node may record for any client, typically the node that plays
// the client, in HandleApp.
//
// The history is part of the state: two executions whose histories order
// their operations differently reach different states.
func (c *Context) Invoke(client int, op any) { c.rt.Invoke(int(c.node), client, op) }

// Return records that client's pending operation returned result (the
// handler panics when the client has none pending). A node that resets
// abandons the pending operations it invoked: they stay pending in the
// history forever, and their clients may invoke again.
func (c *Context) Return(client int, result any) { c.rt.Return(int(c.node), client, result) }

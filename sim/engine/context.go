package engine

import (
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/internal/hook"
)

// errAbandoned unwinds a handler whose execution the watchdog gave up on.
// Every Context method checks for it, those without effects too (Self,
// Nodes, Step, Now, Monotone, TimerScheduled, Log), so that a handler
// spinning on any of them is unwound as Guard promises.
var errAbandoned = errors.New("engine: execution abandoned")

// runtime is the simulator as the handlers' Contexts and the properties'
// View see it (hook.Runtime). It is the Sim under another name, so that
// these methods stay out of Sim's documentation.
type runtime Sim

var _ hook.Runtime = (*runtime)(nil)

func (r *runtime) sim() *Sim { return (*Sim)(r) }

// Check implements hook.Runtime.
func (r *runtime) Check() {
	if r.abandoned.Load() {
		panic(errAbandoned)
	}
}

// inHandler reports whether node's handler is running. Every method with
// an effect checks it first: a call from outside the node's handlers (a
// goroutine the handler started, a Context kept after it returned) is an
// escape, recorded for the simulator to report and otherwise ignored; it
// cannot be unwound, since it does not run in a handler. Performance: the
// common case is two loads, inlined.
func (r *runtime) inHandler(node int, call string) bool {
	if r.progress.Load()>>40 == uint64(node)+1 && !r.abandoned.Load() {
		return true
	}
	return r.outside(node, call)
}

// outside is inHandler's slow path: an abandoned execution unwinds, a call
// from outside the node's handlers is recorded as an escape.
func (r *runtime) outside(node int, call string) bool {
	if r.abandoned.Load() {
		panic(errAbandoned)
	}
	// The step is filled in by the goroutine that steps (Step), which
	// alone may read the simulator's state.
	r.escape.CompareAndSwap(nil, &EscapeError{Node: sim.NodeID(node), Call: call})
	return false
}

// misuse unwinds the handler with a *MisuseError.
func misuse(node int, call, format string, args ...any) {
	panic(&MisuseError{Node: sim.NodeID(node), Call: call, Problem: fmt.Sprintf(format, args...)})
}

// Nodes implements hook.Runtime.
func (r *runtime) Nodes() int { r.Check(); return r.n }

// LogStep implements hook.Runtime.
func (r *runtime) LogStep() int { r.Check(); return r.sim().logStep() }

// InFlight implements hook.Runtime (for a View).
func (r *runtime) InFlight() int { return r.sim().InFlight() }

// Up implements hook.Runtime (for a View).
func (r *runtime) Up(node int) bool { return node >= 0 && node < r.n && !r.w.nodes[node].down }

// Send implements hook.Runtime.
func (r *runtime) Send(from, to int, msg any, datagram bool) {
	// inHandler, written out: this is the step loop's hottest call.
	if r.progress.Load()>>40 != uint64(from)+1 || r.abandoned.Load() {
		r.outside(from, sendCall(datagram))
		return
	}
	s := r.sim()
	if to < 0 || to >= s.n || msg == nil {
		r.badSend(from, to, msg, datagram)
	}
	if s.opts.CheckMessages {
		s.sendEffect(from, to, msg)
	}
	if s.log != nil {
		what := "send "
		if datagram {
			what = "send datagram "
		}
		s.log.Info().Int("step", s.logStep()).Int("node", from).Int("to", to).Str("type", sim.MessageName(msg)).Msg(what + FormatValueCut(msg, EventValueBytes))
	}
	// Performance: the kind of the message's type is looked up only when
	// the type differs from the last message's.
	if tp := efaceType(msg); tp != s.sentType {
		k := reflect.TypeOf(msg).Kind()
		s.sentType, s.sentRef = tp, k == reflect.Pointer || k == reflect.Map
	}
	if s.sentRef {
		msg = s.ownCopy(from, msg)
	}
	// Performance: the message is written field by field into its slot in
	// flight, not built aside and copied there (the copy's wide loads of
	// the fields just stored stall the processor).
	var p *pending
	c := -1 // the connection, for a reliable message
	switch {
	case s.w.down > 0 && s.w.nodes[to].down:
		s.logLost(pending{msg: msg, from: sim.NodeID(from), to: sim.NodeID(to)}, "node down")
		return
	case datagram && s.w.cut != 0 && s.across(sim.NodeID(from), sim.NodeID(to)):
		s.logLost(pending{msg: msg, from: sim.NodeID(from), to: sim.NodeID(to)}, "partition")
		return
	case datagram:
		s.w.dgrams = append(s.w.dgrams, pending{})
		p = &s.w.dgrams[len(s.w.dgrams)-1]
		s.w.hs.fresh++
		s.listOK = false
	default:
		c = from*s.n + to
		p = s.push(c)
	}
	p.msg, p.from, p.to, p.cause, p.weight = msg, sim.NodeID(from), sim.NodeID(to), s.cause(), s.messageWeight(msg)
	if s.opts.CheckMessages {
		s.msgHash(p) // as sent (see checkDelivered)
	}
	if c >= 0 && s.w.conns[c].len() == 1 {
		s.msgEdit(c, true) // its message joins the ready list
	}
}

// ownCopy returns msg (a pointer or a map), or a deep copy of it when the
// running handler of node from has sent the same object already: a
// broadcast of one pointer. A network gives each receiver a copy of its
// own, which it may change (truncate a received log, mark it seen) without
// changing what the others get.
func (s *Sim) ownCopy(from int, msg any) any {
	p := efaceData(&msg)
	if s.sentStep != s.w.step || s.sentFrom != from {
		s.sent, s.sentStep, s.sentFrom = s.sent[:0], s.w.step, from
	}
	for _, q := range s.sent {
		if q == p {
			return copyMessage(msg)
		}
	}
	s.sent = append(s.sent, p)
	return msg
}

// sendCall is the name of the Context method that sends.
func sendCall(datagram bool) string {
	if datagram {
		return "SendDatagram"
	}
	return "Send"
}

// badSend unwinds a send to a node that does not exist or of a nil message.
func (r *runtime) badSend(from, to int, msg any, datagram bool) {
	if msg == nil {
		misuse(from, sendCall(datagram), "node %d sends a nil message to node %d", from, to)
	}
	misuse(from, sendCall(datagram), "node %d sends %s to node %d, which does not exist (nodes 0-%d)", from, FormatValue(msg), to, r.n-1)
}

// SetTimer implements hook.Runtime.
func (r *runtime) SetTimer(node int, name string, periodic bool) {
	call := "SetTimer"
	if periodic {
		call = "SetPeriodic"
	}
	if !r.inHandler(node, call) {
		return
	}
	if name == "" {
		misuse(node, call, "node %d sets a timer without a name", node)
	}
	s := r.sim()
	i := s.timerIndex(sim.NodeID(node), name)
	nd := &s.w.nodes[node]
	t := &nd.timers[i]
	if !t.armed {
		s.w.armed++
		t.cause = s.cause()
		if s.listOK {
			s.timerEdit(int32(node), int32(i), true)
		}
	} else {
		nd.armedSum -= t.term()
	}
	t.armed, t.periodic = true, periodic
	nd.armedSum += t.term()
	if s.opts.CheckMessages {
		s.timerEffect(node, effectSet, name)
	}
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", node).Bool("periodic", periodic).Msg("set timer " + safetext.QuoteUnsafe(name))
	}
}

// CancelTimer implements hook.Runtime.
func (r *runtime) CancelTimer(node int, name string) {
	if !r.inHandler(node, "CancelTimer") {
		return
	}
	if name == "" {
		misuse(node, "CancelTimer", "node %d cancels a timer without a name", node)
	}
	s := r.sim()
	nd := &s.w.nodes[node]
	for i := range nd.timers {
		if nd.timers[i].name == name && nd.timers[i].armed {
			s.unarm(sim.NodeID(node), i)
			if s.opts.CheckMessages {
				s.timerEffect(node, effectCancel, name)
			}
			if s.log != nil {
				s.log.Info().Int("step", s.logStep()).Int("node", node).Msg("cancel timer " + safetext.QuoteUnsafe(name))
			}
		}
	}
}

// TimerScheduled implements hook.Runtime.
func (r *runtime) TimerScheduled(node int, name string) bool {
	r.Check()
	return r.sim().TimerArmed(sim.NodeID(node), name)
}

// Rand implements hook.Runtime.
func (r *runtime) Rand(node, n int) int {
	if !r.inHandler(node, "Rand") {
		return 0
	}
	if n < 1 || n > math.MaxInt32 {
		misuse(node, "Rand", "node %d asks for Rand(%d); n must be from 1 to %d", node, n, math.MaxInt32)
	}
	if n == 1 {
		return 0
	}
	s := r.sim()
	v, err := s.choose(ChooseRandom, n, nil)
	if err != nil {
		s.err = err
		panic(err)
	}
	return v
}

// Elapsed implements hook.Runtime.
func (r *runtime) Elapsed(node int, d int64) bool {
	if !r.inHandler(node, "Elapsed") {
		return false
	}
	if d < 0 {
		misuse(node, "Elapsed", "node %d asks whether a negative duration (%dns) has elapsed", node, d)
	}
	s := r.sim()
	v, err := s.choose(ChooseTime, 2, nil)
	if err != nil {
		s.err = err
		panic(err)
	}
	return v == 1
}

// Monotone implements hook.Runtime.
func (r *runtime) Monotone(node int) uint64 {
	if !r.inHandler(node, "Monotone") {
		return 0
	}
	r.markShared()
	r.w.monotone++
	return r.w.monotone
}

// markShared records that the running step used state every node shares
// (see Sim.Shared).
func (r *runtime) markShared() {
	if r.booting {
		return
	}
	r.w.shared = setBit(r.w.shared, r.w.step)
}

// Restarted implements hook.Runtime.
func (r *runtime) Restarted(node int) bool {
	r.Check()
	return r.w.ext[node].restarts > 0
}

// RandBytes implements hook.Runtime: the node's stream is splitmix64 over
// its node id and position, eight bytes a draw.
func (r *runtime) RandBytes(node int, p []byte) {
	if !r.inHandler(node, "Reader") {
		clear(p)
		return
	}
	e := &r.w.ext[node]
	for len(p) > 0 {
		e.draws++
		x := splitmix(uint64(node)<<32 ^ e.draws ^ 0x6d6163656d63)
		for i := 0; i < 8 && len(p) > 0; i++ {
			p[0] = byte(x >> (8 * i))
			p = p[1:]
		}
	}
}

// splitmix is the SplitMix64 finaliser.
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Log implements hook.Runtime.
func (r *runtime) Log(node int) *zerolog.Event {
	r.Check()
	if r.log == nil {
		if s := r.sim(); s.opts.CheckMessages && s.logCapture {
			// The determinism check runs without a logger, but compares
			// the order of the lines a handler logs (OrderDifference).
			return s.effectLogger(node).Info().Int("step", s.logStep()).Int("node", node)
		}
		return nil
	}
	return r.log.Info().Int("step", r.sim().logStep()).Int("node", node)
}

// Notify implements hook.Runtime.
func (r *runtime) Notify(node int, event any) {
	if !r.inHandler(node, "Notify") {
		return
	}
	if len(r.w.mons) > 0 {
		r.markShared() // the monitors are every node's
	}
	r.sim().notify(node, event)
}

// Monitor implements hook.Runtime (for a View).
func (r *runtime) Monitor(i int) (any, string) {
	if i < 0 || i >= len(r.w.mons) {
		return nil, ""
	}
	ms := &r.w.mons[i]
	return ms.m, ms.failure
}

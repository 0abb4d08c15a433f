package engine

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"

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

// Nodes implements hook.Runtime.
func (r *runtime) Nodes() int { r.Check(); return r.n }

// LogStep implements hook.Runtime.
func (r *runtime) LogStep() int { r.Check(); return r.sim().logStep() }

// Steps implements hook.Runtime (for a View).
func (r *runtime) Steps() int { return r.w.step }

// InFlight implements hook.Runtime (for a View).
func (r *runtime) InFlight() int { return r.sim().InFlight() }

// Send implements hook.Runtime.
func (r *runtime) Send(from, to int, msg any, datagram bool) {
	r.Check()
	s := r.sim()
	if to < 0 || to >= s.n {
		panic(fmt.Sprintf("sim: node %d sends to unknown node %d", from, to))
	}
	p := pending{msg: msg, from: sim.NodeID(from), to: sim.NodeID(to), cause: s.cause(), weight: s.messageWeight(msg)}
	if datagram {
		s.w.dgrams = append(s.w.dgrams, p)
	} else {
		s.push(from*s.n+to, p)
	}
	if s.log != nil {
		what := "send "
		if datagram {
			what = "send datagram "
		}
		s.log.Info().Int("step", s.logStep()).Int("node", from).Int("to", to).Str("type", sim.MessageName(msg)).Msg(what + FormatValue(msg))
	}
}

// SetTimer implements hook.Runtime.
func (r *runtime) SetTimer(node int, name string, periodic bool) {
	r.Check()
	s := r.sim()
	i := s.timerIndex(sim.NodeID(node), name)
	t := &s.w.nodes[node].timers[i]
	if !t.armed {
		s.w.armed++
		t.cause = s.cause()
	}
	t.armed, t.periodic = true, periodic
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", node).Bool("periodic", periodic).Msg("set timer " + name)
	}
}

// CancelTimer implements hook.Runtime.
func (r *runtime) CancelTimer(node int, name string) {
	r.Check()
	s := r.sim()
	nd := &s.w.nodes[node]
	for i := range nd.timers {
		if nd.timers[i].name == name && nd.timers[i].armed {
			nd.timers[i].armed = false
			s.w.armed--
			if s.log != nil {
				s.log.Info().Int("step", s.logStep()).Int("node", node).Msg("cancel timer " + name)
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
	r.Check()
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
func (r *runtime) Elapsed(node int) bool {
	r.Check()
	s := r.sim()
	v, err := s.choose(ChooseTime, 2, nil)
	if err != nil {
		s.err = err
		panic(err)
	}
	return v == 1
}

// Monotone implements hook.Runtime.
func (r *runtime) Monotone() uint64 {
	r.Check()
	if !r.booting {
		i := r.w.step
		for len(r.w.shared) <= i>>6 {
			r.w.shared = append(r.w.shared, 0)
		}
		r.w.shared[i>>6] |= 1 << (i & 63)
	}
	r.w.monotone++
	return r.w.monotone
}

// Log implements hook.Runtime.
func (r *runtime) Log(node int) *zerolog.Event {
	r.Check()
	if r.log == nil {
		return nil
	}
	return r.log.Info().Int("step", r.sim().logStep()).Int("node", node)
}

// Notify implements hook.Runtime.
func (r *runtime) Notify(node int, event any) {
	r.Check()
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

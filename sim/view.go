package sim

import (
	"iter"

	"github.com/macemc/macemc/sim/internal/hook"
)

// View is read-only access to the global state for properties. The checker
// hands one to every property check; keep it only for that call. It shows
// the state and nothing else (no step count, no clock): a property is a
// function of the state, which the search knows states by (their hash),
// so a predicate that read how many steps ran would be judged once for
// every path that reaches a state. A count a property needs belongs in a
// node's state, which is hashed.
type View struct {
	rt       hook.Runtime
	services *[]Service
	history  *[]HistoryEvent
}

// Len returns the number of nodes.
func (v *View) Len() int { return len(*v.services) }

// Service returns node id's service struct.
func (v *View) Service(id NodeID) Service { return (*v.services)[id] }

// TimerScheduled reports whether node id's named timer is scheduled.
func (v *View) TimerScheduled(id NodeID, name string) bool { return v.rt.TimerScheduled(int(id), name) }

// Up reports whether node id is running: false once it crashed for good
// (Failures.Crashes). A node that resets is up again at once.
func (v *View) Up(id NodeID) bool { return v.rt.Up(int(id)) }

// InFlight returns the number of messages and datagrams in flight.
func (v *View) InFlight() int { return v.rt.InFlight() }

// History returns the client history so far (Context.Invoke and
// Context.Return), oldest first. The slice is the simulator's own: do not
// modify or keep it.
func (v *View) History() []HistoryEvent { return *v.history }

// Node returns node id's service as a *T, or nil if it runs another service.
func Node[T any](v *View, id NodeID) *T {
	t, _ := any((*v.services)[id]).(*T)
	return t
}

// Nodes iterates over the nodes that run service *T, in node order:
//
//	for id, n := range sim.Nodes[Chord](v) { ... }
func Nodes[T any](v *View) iter.Seq2[NodeID, *T] {
	return func(yield func(NodeID, *T) bool) {
		for i, svc := range *v.services {
			if t, ok := any(svc).(*T); ok {
				if !yield(NodeID(i), t) {
					return
				}
			}
		}
	}
}

// All reports whether pred holds for every node that runs service *T,
// crashed ones included (a crashed node keeps its struct and loses its
// timers: a property of running nodes tests View.Up).
func All[T any](v *View, pred func(id NodeID, n *T) bool) bool {
	for i, svc := range *v.services {
		if t, ok := any(svc).(*T); ok && !pred(NodeID(i), t) {
			return false
		}
	}
	return true
}

// Count returns the number of nodes running *T for which pred holds.
func Count[T any](v *View, pred func(id NodeID, n *T) bool) int {
	c := 0
	for i, svc := range *v.services {
		if t, ok := any(svc).(*T); ok && pred(NodeID(i), t) {
			c++
		}
	}
	return c
}

package sim

import "iter"

// View is read-only access to the global state for properties.
type View struct{ s *Sim }

// View returns a view of the simulator's current state.
func (s *Sim) View() *View { return &s.view }

// Len returns the number of nodes.
func (v *View) Len() int { return v.s.n }

// Service returns node id's service struct.
func (v *View) Service(id NodeID) Service { return v.s.w.nodes[id].svc }

// TimerScheduled reports whether node id's named timer is scheduled.
func (v *View) TimerScheduled(id NodeID, name string) bool { return v.s.TimerArmed(id, name) }

// InFlight returns the number of messages and datagrams in flight.
func (v *View) InFlight() int { return v.s.InFlight() }

// Step returns the number of transitions executed so far.
func (v *View) Step() int { return v.s.w.step }

// Node returns node id's service as a *T, or nil if it runs another service.
func Node[T any](v *View, id NodeID) *T {
	t, _ := any(v.s.w.nodes[id].svc).(*T)
	return t
}

// Nodes iterates over the nodes that run service *T, in node order:
//
//	for id, n := range sim.Nodes[Chord](v) { ... }
func Nodes[T any](v *View) iter.Seq2[NodeID, *T] {
	return func(yield func(NodeID, *T) bool) {
		for i := range v.s.w.nodes {
			if t, ok := any(v.s.w.nodes[i].svc).(*T); ok {
				if !yield(NodeID(i), t) {
					return
				}
			}
		}
	}
}

// All reports whether pred holds for every node that runs service *T.
func All[T any](v *View, pred func(id NodeID, n *T) bool) bool {
	for i := range v.s.w.nodes {
		if t, ok := any(v.s.w.nodes[i].svc).(*T); ok && !pred(NodeID(i), t) {
			return false
		}
	}
	return true
}

// Count returns the number of nodes running *T for which pred holds.
func Count[T any](v *View, pred func(id NodeID, n *T) bool) int {
	c := 0
	for i := range v.s.w.nodes {
		if t, ok := any(v.s.w.nodes[i].svc).(*T); ok && pred(NodeID(i), t) {
			c++
		}
	}
	return c
}

// Holds evaluates p on the current state. A predicate that panics is
// reported as an error naming the property.
func (s *Sim) Holds(p *Property) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, err = false, &PropertyPanicError{Property: p.Name, Step: s.w.step, Value: r}
		}
	}()
	return p.Check(&s.view), nil
}

// FirstViolated returns the index of the first property in ps that does
// not hold, or -1. Performance: it runs after every step of every walk;
// the predicates get the Sim's own View (no allocation) and one deferred
// recover covers them all.
func (s *Sim) FirstViolated(ps []Property) (i int, err error) {
	if len(ps) == 0 {
		return -1, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = &PropertyPanicError{Property: ps[i].Name, Step: s.w.step, Value: r}
		}
	}()
	v := &s.view
	for i = range ps {
		if !ps[i].Check(v) {
			return i, nil
		}
	}
	return -1, nil
}

// AllHold reports whether every property in ps holds.
func (s *Sim) AllHold(ps []Property) (bool, error) {
	i, err := s.FirstViolated(ps)
	return i < 0 && err == nil, err
}

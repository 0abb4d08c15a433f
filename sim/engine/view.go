package engine

import "github.com/macemc/macemc/sim"

// View returns the view of the simulator's current state that properties
// get. It is the Sim's own: it reflects later steps too.
func (s *Sim) View() *sim.View { return s.view }

// PredicateEnded tells the watchdog (Guard) that a predicate (a property,
// a driver request's condition) returned, so that the next one gets a
// timeout of its own: without it the predicates checked in one state,
// each well within the timeout, were timed as one. Callers that check
// several in a row call it between them.
func (s *Sim) PredicateEnded() { s.progress.Add(2) }

// Holds evaluates p on the current state. A predicate that panics is
// reported as an error naming the property.
func (s *Sim) Holds(p *sim.Property) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, err = false, &PropertyPanicError{Property: p.Name, Step: s.w.step, Value: r, Stack: predicateStack()}
		}
	}()
	defer s.PredicateEnded()
	return p.Check(s.view), nil
}

// FirstViolated returns the index of the first property in ps that does
// not hold, or -1. Performance: a bounded search runs it at every state
// it reaches; the predicates get the Sim's own sim.View (no allocation)
// and one deferred recover covers them all. walks.Walk, which checks
// after every step, runs the predicates itself under one recover for the
// whole walk.
func (s *Sim) FirstViolated(ps []sim.Property) (i int, err error) {
	if len(ps) == 0 {
		return -1, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = &PropertyPanicError{Property: ps[i].Name, Step: s.w.step, Value: r, Stack: predicateStack()}
		}
	}()
	v := s.view
	for i = range ps {
		if i > 0 {
			s.PredicateEnded()
		}
		if !ps[i].Check(v) {
			return i, nil
		}
	}
	return -1, nil
}

// AllHold reports whether every property in ps holds.
func (s *Sim) AllHold(ps []sim.Property) (bool, error) {
	i, err := s.FirstViolated(ps)
	return i < 0 && err == nil, err
}

package hook

import (
	"reflect"
	"sync"
	"sync/atomic"
)

// Exclusive handler execution, for sim.Reader: while it is on, the
// simulator runs one handler at a time in the whole process and publishes
// the running handler's Context, so that a process-wide reader can draw
// from it.
var (
	exclusive atomic.Int32 // how many enablers are in force
	sem       = make(chan struct{}, 1)
	poisoned  = make(chan struct{})
	poisonMu  sync.Once
	current   any // the running handler's *sim.Context, under sem
)

// SetExclusive turns exclusive handler execution on (counted: every on
// needs an off).
func SetExclusive(on bool) {
	if on {
		exclusive.Add(1)
	} else {
		exclusive.Add(-1)
	}
}

// Exclusive reports whether handlers run one at a time.
func Exclusive() bool { return exclusive.Load() > 0 }

// Enter waits for the process-wide handler slot and publishes ctx as the
// running handler's Context. It returns false, publishing nothing, once
// the slot is poisoned (a hung handler holds it for good).
func Enter(ctx any) bool {
	select {
	case sem <- struct{}{}:
		current = ctx
		return true
	case <-poisoned:
		return false
	}
}

// Leave releases the slot Enter took.
func Leave() {
	current = nil
	<-sem
}

// Poison gives up on the slot for the rest of the process: a handler that
// holds it hangs, and every other handler runs without it from now on.
func Poison() { poisonMu.Do(func() { close(poisoned) }) }

// Current returns the running handler's Context while handlers run
// exclusively, or nil.
func Current() any {
	if !Exclusive() {
		return nil
	}
	return current
}

// Canonical forms registered for types the user does not own (see
// sim.RegisterCanonical): reflect.Type -> func(reflect.Value) any, the
// value given addressable.
var canonicals sync.Map

// RegisterCanonical records f as the canonical form of type t.
func RegisterCanonical(t reflect.Type, f func(v reflect.Value) any) { canonicals.Store(t, f) }

// CanonicalFor returns the canonical form registered for t.
func CanonicalFor(t reflect.Type) (func(v reflect.Value) any, bool) {
	f, ok := canonicals.Load(t)
	if !ok {
		return nil, false
	}
	return f.(func(reflect.Value) any), true
}

// HasCanonicals reports whether any canonical form was registered.
func HasCanonicals() bool {
	has := false
	canonicals.Range(func(any, any) bool { has = true; return false })
	return has
}

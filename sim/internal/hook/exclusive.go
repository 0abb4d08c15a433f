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
// value given addressable. A type that has none of its own but whose
// pointer implements a registered interface (sim.RegisterCanonicalFor)
// gets that interface's form, cached here on first use; types found to
// have none are cached in nones.
var (
	canonicals sync.Map
	nones      sync.Map
	ifaceMu    sync.Mutex
	ifaces     atomic.Pointer[[]ifaceCanon] // newest last
)

type ifaceCanon struct {
	iface reflect.Type
	f     func(any) any
}

// generation counts the registrations of canonical forms: what a caller
// worked out of a type's forms holds while it does not change.
var generation atomic.Uint64

// Generation returns the number of canonical forms registered so far.
func Generation() uint64 { return generation.Load() }

// RegisterCanonical records f as the canonical form of type t.
func RegisterCanonical(t reflect.Type, f func(v reflect.Value) any) {
	canonicals.Store(t, f)
	nones.Clear()
	generation.Add(1)
}

// RegisterCanonicalInterface records f as the canonical form of every
// non-pointer, non-interface type T whose pointer *T implements the
// interface type iface, unless T has a form of its own (RegisterCanonical);
// f is handed the *T. A later registration of an interface takes
// precedence over an earlier one.
func RegisterCanonicalInterface(iface reflect.Type, f func(any) any) {
	ifaceMu.Lock()
	defer ifaceMu.Unlock()
	var list []ifaceCanon
	if l := ifaces.Load(); l != nil {
		list = append(list, *l...)
	}
	list = append(list, ifaceCanon{iface, f})
	ifaces.Store(&list)
	// Forms cached from interfaces may now be another's.
	canonicals.Range(func(k, v any) bool {
		if _, ok := v.(ifaceForm); ok {
			canonicals.Delete(k)
		}
		return true
	})
	nones.Clear()
	generation.Add(1)
}

// ifaceForm is a canonical form derived from a registered interface.
type ifaceForm func(v reflect.Value) any

// CanonicalFor returns the canonical form registered for t, its own or
// that of an interface its pointer implements.
func CanonicalFor(t reflect.Type) (func(v reflect.Value) any, bool) {
	if f, ok := canonicals.Load(t); ok {
		switch f := f.(type) {
		case ifaceForm:
			return f, true
		default:
			return f.(func(reflect.Value) any), true
		}
	}
	if _, ok := nones.Load(t); ok {
		return nil, false
	}
	if l := ifaces.Load(); l != nil && t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		for i := len(*l) - 1; i >= 0; i-- {
			ic := (*l)[i]
			if pt.Implements(ic.iface) {
				form := ifaceForm(func(v reflect.Value) any { return ic.f(v.Addr().Interface()) })
				canonicals.Store(t, form)
				return form, true
			}
		}
	}
	nones.Store(t, true)
	return nil, false
}

// HasCanonicals reports whether any canonical form was registered.
func HasCanonicals() bool {
	has := false
	canonicals.Range(func(any, any) bool { has = true; return false })
	return has
}

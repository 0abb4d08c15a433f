package hook

import (
	"bytes"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
)

// Handler contexts for sim.Reader: while they are on, the simulator
// publishes the Context of every handler it runs under the ID of the
// goroutine that runs it, so that a process-wide reader can draw from the
// Context of the handler that reads. Handlers of different simulators go
// on running side by side; a goroutine a handler started finds no
// Context (it reads outside a handler). A handler the watchdog gave up
// on keeps its entry, and blocks no other.
var (
	exclusive atomic.Int32 // how many enablers are in force
	running   sync.Map     // goroutine ID -> the *sim.Context of the handler it runs
)

// SetExclusive turns the publication of handler contexts on (counted:
// every on needs an off).
func SetExclusive(on bool) {
	if on {
		exclusive.Add(1)
	} else {
		exclusive.Add(-1)
	}
}

// Exclusive reports whether handler contexts are published.
func Exclusive() bool { return exclusive.Load() > 0 }

// Enter publishes ctx as the Context of the handler the calling goroutine
// runs, and returns the goroutine's ID for Leave.
func Enter(ctx any) uint64 { return EnterAs(GoroutineID(), ctx) }

// EnterAs is Enter for a caller that knows its goroutine's ID (from
// GoroutineID, which reads the stack: costly at every handler).
func EnterAs(id uint64, ctx any) uint64 {
	running.Store(id, ctx)
	return id
}

// Leave withdraws the Context that Enter published for goroutine id.
func Leave(id uint64) { running.Delete(id) }

// Current returns the Context of the handler the calling goroutine runs,
// while handler contexts are published, or nil.
func Current() any {
	if !Exclusive() {
		return nil
	}
	ctx, _ := running.Load(GoroutineID())
	return ctx
}

// GoroutineID returns the calling goroutine's ID, from the first line of
// its stack ("goroutine 18 [running]:"); 0 if it cannot be read.
func GoroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
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

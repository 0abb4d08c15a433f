package sim

import (
	"reflect"

	"github.com/macemc/macemc/sim/internal/hook"
)

// Canonicalizer lets a type give the canonical form of its state: the
// checker hashes and compares the value Canonical returns instead of the
// value itself (seed 003 §4.2, point 2). Use it to leave out caches or to
// put a collection into a canonical order.
//
// The canonical form of a node's struct is every field, exported or not,
// maps in key order, pointers followed; a field tagged `macemc:"-"` is left
// out.
type Canonicalizer interface {
	Canonical() any
}

// MessageName returns the name of a message's type, used for per-message
// weights, logs and event search. A type may define MessageName() string.
func MessageName(m Message) string {
	if m == nil {
		return "nil"
	}
	if n, ok := m.(interface{ MessageName() string }); ok {
		return n.MessageName()
	}
	t := reflect.TypeOf(m)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

// RegisterCanonical gives type T, typically one the user does not own (a
// library's storage with call counters, a protobuf message with internal
// caches), a canonical form: wherever a value of type T is met in a node's
// state or a message, hashing, state diffs, the nondeterminism report and
// mdb use canon(&v) in its place, as if T implemented Canonicalizer.
// canon must be a pure function of the value and must not keep the
// pointer. Register from an init function, before any simulation runs;
// registering T again replaces the form. A type's own Canonical method
// takes precedence.
//
//	func init() {
//		sim.RegisterCanonical(func(s *raft.MemoryStorage) any {
//			hs, _, _ := s.InitialState()
//			...
//			return storageState{HardState: hs, Entries: ents}
//		})
//	}
func RegisterCanonical[T any](canon func(*T) any) {
	hook.RegisterCanonical(reflect.TypeFor[T](), func(v reflect.Value) any {
		return canon(v.Addr().Interface().(*T))
	})
}

// RegisterCanonicalFor gives a canonical form to every type T whose
// pointer *T implements interface I and that has no form of its own: the
// generated message types of a protocol library, say, which are too many
// to register one by one and which hold internal caches (a size cache, a
// lazily set pointer to the library's type information) that a reader of
// the message writes. canon is called with the *T as an I. The rules of
// RegisterCanonical apply: canon must be a pure function of the value,
// must not keep it, and is registered from an init function; a type's own
// Canonical method or RegisterCanonical form takes precedence, and of two
// interfaces a type implements the one registered last is used.
//
//	func init() {
//		sim.RegisterCanonicalFor(func(m proto.Message) any {
//			return prototext.Format(m)
//		})
//	}
//
// A form must come out the same wherever the binary runs, since hashes of
// one search are compared across its shards: a text format whose spacing
// varies from build to build on purpose (prototext's) is fine within one
// binary, so every shard of a search must run the same binary; a
// deterministic binary encoding is the same across builds but reads as
// bytes in mdb.
//
// RegisterCanonicalFor panics if I is not an interface type.
func RegisterCanonicalFor[I any](canon func(I) any) {
	it := reflect.TypeFor[I]()
	if it.Kind() != reflect.Interface {
		panic("sim: RegisterCanonicalFor[" + it.String() + "]: not an interface type")
	}
	hook.RegisterCanonicalInterface(it, func(v any) any { return canon(v.(I)) })
}

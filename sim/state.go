package sim

import "reflect"

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

package engine

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

// This file lends the external tests views of the simulator's insides.

// WorldDiff returns where the states of a and b, a copy of a (Clone,
// CloneInto), differ, or "": every part of the world, field by field and
// element by element, the messages on each connection as its queue holds
// them (its live items, wherever its head is), nil and empty slices and
// maps alike. It also reports memory the two share (a copy shares nothing
// mutable with its original but the driver requests that are plain
// values), and a pointer, slice or map that a shares between two places
// where b does not (or the other way round).
func WorldDiff(a, b *Sim) string {
	c := worldCmp{ab: map[target]uintptr{}, ba: map[target]uintptr{}}
	return c.diff(reflect.ValueOf(&a.w).Elem(), reflect.ValueOf(&b.w).Elem(), "world", false)
}

// WorldZeroFields returns the fields of s's world that hold their zero
// value (a slice or map: no elements).
func WorldZeroFields(s *Sim) []string {
	v := reflect.ValueOf(&s.w).Elem()
	var out []string
	for i := range v.NumField() {
		f := v.Field(i)
		if f.IsZero() || (f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.Len() == 0 {
			out = append(out, v.Type().Field(i).Name)
		}
	}
	return out
}

// StaleIdleConns returns how many of s's connections hold no message but
// have a part in the hash that is out of date (the last step emptied
// them, and Hash has not run since).
func StaleIdleConns(s *Sim) int {
	n := 0
	for c := range members(s.w.hs.stale, nil) {
		if !hasBit(s.w.busy, c) {
			n++
		}
	}
	return n
}

// plainRequests reports whether every driver request in app is a plain
// value (see plainValue).
func plainRequests(app reflect.Value) bool {
	for i := range app.Len() {
		if r := app.Index(i); r.IsNil() || !plainValue(r.Elem().Type()) {
			return false
		}
	}
	return true
}

// target is a reference's target as the deep copier tells them apart: its
// address, its type and, for a slice, its length.
type target struct {
	p uintptr
	t reflect.Type
	n int
}

type worldCmp struct {
	// ab and ba map each reference met in a to the one at the same place
	// in b, and back.
	ab, ba map[target]uintptr
}

var queueType = reflect.TypeFor[queue]()

// same records that a's reference ra is b's rb and says whether it was
// the first time either was met ("" and true), or the pairing is the one
// met before ("" and false), or not.
func (c *worldCmp) same(ra, rb target, path string) (string, bool) {
	qa, okA := c.ab[ra]
	qb, okB := c.ba[rb]
	if !okA && !okB {
		c.ab[ra], c.ba[rb] = rb.p, ra.p
		return "", true
	}
	if okA && okB && qa == rb.p && qb == ra.p {
		return "", false
	}
	return path + ": shared with another place in one state and not in the other", false
}

func (c *worldCmp) diff(a, b reflect.Value, path string, mayShare bool) string {
	t := a.Type()
	if b.Type() != t {
		return fmt.Sprintf("%s: type %v, copy %v", path, t, b.Type())
	}
	differs := func(x, y any) string { return fmt.Sprintf("%s: %v, copy %v", path, x, y) }
	switch t.Kind() {
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return differs(a.Bool(), b.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			return differs(a.Int(), b.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			return differs(a.Uint(), b.Uint())
		}
	case reflect.Float32, reflect.Float64:
		if x, y := a.Float(), b.Float(); x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return differs(x, y)
		}
	case reflect.Complex64, reflect.Complex128:
		if a.Complex() != b.Complex() {
			return differs(a.Complex(), b.Complex())
		}
	case reflect.String:
		if a.String() != b.String() {
			return differs(a.String(), b.String())
		}
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if a.Pointer() != b.Pointer() {
			return path + ": another " + t.Kind().String()
		}
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return differs(a.IsNil(), b.IsNil())
			}
			return ""
		}
		if a.Elem().Type() != b.Elem().Type() {
			return differs(a.Elem().Type(), b.Elem().Type())
		}
		return c.diff(a.Elem(), b.Elem(), path, mayShare)
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return path + ": nil in one state only"
			}
			return ""
		}
		if a.Pointer() == b.Pointer() && !mayShare {
			return path + ": shared by the copy and its original"
		}
		if d, first := c.same(target{a.Pointer(), t, -1}, target{b.Pointer(), t, -1}, path); d != "" || !first {
			return d
		}
		return c.diff(a.Elem(), b.Elem(), path, mayShare)
	case reflect.Slice:
		if a.Len() != b.Len() {
			return path + fmt.Sprintf(": %d elements, copy %d", a.Len(), b.Len())
		}
		if a.Len() == 0 {
			return ""
		}
		if a.Pointer() == b.Pointer() && !mayShare {
			return path + ": shared by the copy and its original"
		}
		if d, first := c.same(target{a.Pointer(), t, a.Len()}, target{b.Pointer(), t, b.Len()}, path); d != "" || !first {
			return d
		}
		for i := range a.Len() {
			if d := c.diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), mayShare); d != "" {
				return d
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if d := c.diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), mayShare); d != "" {
				return d
			}
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			return path + fmt.Sprintf(": %d entries, copy %d", a.Len(), b.Len())
		}
		if a.Len() == 0 {
			return ""
		}
		if a.Pointer() == b.Pointer() && !mayShare {
			return path + ": shared by the copy and its original"
		}
		if d, first := c.same(target{a.Pointer(), t, -1}, target{b.Pointer(), t, -1}, path); d != "" || !first {
			return d
		}
		bs := map[any]reflect.Value{}
		for it := b.MapRange(); it.Next(); {
			bs[plainKey(it.Key())] = it.Value()
		}
		for it := a.MapRange(); it.Next(); {
			k := plainKey(it.Key())
			bv, ok := bs[k]
			if !ok {
				return fmt.Sprintf("%s[%v]: missing in the copy", path, k)
			}
			if d := c.diff(it.Value(), bv, fmt.Sprintf("%s[%v]", path, k), mayShare); d != "" {
				return d
			}
		}
	case reflect.Struct:
		if t == queueType {
			// A queue's messages are its live items.
			qa, qb := (*queue)(unsafe.Pointer(a.UnsafeAddr())), (*queue)(unsafe.Pointer(b.UnsafeAddr()))
			if qa.part != qb.part {
				return differs(qa.part, qb.part)
			}
			return c.diff(reflect.ValueOf(qa.items[qa.head:]), reflect.ValueOf(qb.items[qb.head:]), path+".items", mayShare)
		}
		for i := range t.NumField() {
			f := t.Field(i)
			// A node's driver requests that are plain values are shared
			// by every copy (see deepParts).
			share := mayShare || t == reflect.TypeFor[node]() && f.Name == "app" && plainRequests(a.Field(i))
			if d := c.diff(a.Field(i), b.Field(i), path+"."+f.Name, share); d != "" {
				return d
			}
		}
	default:
		panic("WorldDiff: a " + t.Kind().String())
	}
	return ""
}

// plainKey returns a map key of a basic kind as an any, which the keys of
// the tests' maps are.
func plainKey(k reflect.Value) any {
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return k.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return k.Uint()
	case reflect.String:
		return k.String()
	case reflect.Bool:
		return k.Bool()
	}
	panic("WorldDiff: a map keyed by " + k.Type().String())
}

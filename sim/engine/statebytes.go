package engine

import (
	"reflect"
	"unsafe"
)

// maxSizedValues bounds the values StateBytes visits: past it, it answers
// what it counted so far (a lower bound).
const maxSizedValues = 1 << 24

// StateBytes estimates the memory the simulator's current state holds: the
// nodes' structs and everything they point to, the messages in flight, the
// timers, the driver requests and the recorded choices. Each object is
// counted once (by its address, type and capacity, so the answer does not
// depend on the order the state is walked in: the same state gives the
// same answer); a map counts its entries with the usual slack of Go's hash
// tables; a channel counts its buffer, not what is in it; functions and
// unsafe pointers count nothing. Memory a node points to that other
// simulators share (a table the system's Build made once) is counted too,
// so it may overstate what one more copy of the state costs. It is a
// model, deterministic and without side effects, for deciding how many
// copies of a state fit in memory, not a measurement of the heap.
func (s *Sim) StateBytes() int64 {
	z := sizer{seen: map[sizedKey]struct{}{}, pointers: map[reflect.Type]bool{}}
	w := reflect.ValueOf(&s.w).Elem()
	z.n = int64(w.Type().Size())
	z.push(w)
	z.run()
	return z.n
}

// sizer is the state of one StateBytes walk: the values whose out-of-line
// memory is still to count, the objects counted and the running total.
type sizer struct {
	todo     []reflect.Value
	seen     map[sizedKey]struct{}
	pointers map[reflect.Type]bool
	visited  int
	n        int64
}

// sizedKey identifies an object counted: its address, the size of what is
// counted there (a pointer's element, a slice's element, 1 for a string's
// bytes) and, for an array behind a slice or a string, its length. Two
// views of one address that count the same bytes are counted once, and
// two that count different bytes both are, whichever comes first.
type sizedKey struct {
	at, size uintptr
	cap      int
}

// push schedules v's out-of-line memory to be counted, when its type can
// have any.
func (z *sizer) push(v reflect.Value) {
	if z.hasPointers(v.Type()) {
		z.todo = append(z.todo, v)
	}
}

// once reports whether the object k is counted for the first time.
func (z *sizer) once(k sizedKey) bool {
	if _, ok := z.seen[k]; ok {
		return false
	}
	z.seen[k] = struct{}{}
	return true
}

// run counts the memory outside the pushed values themselves (their inline
// bytes are counted by whatever holds them), with a stack rather than
// recursion: a linked list a million long must not take the goroutine's
// stack.
func (z *sizer) run() {
	for len(z.todo) > 0 && z.visited < maxSizedValues {
		v := z.todo[len(z.todo)-1]
		z.todo = z.todo[:len(z.todo)-1]
		z.visited++
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || !z.once(sizedKey{v.Pointer(), v.Type().Elem().Size(), 0}) {
				continue
			}
			z.n += int64(v.Type().Elem().Size())
			z.push(v.Elem())
		case reflect.Interface:
			if v.IsNil() {
				continue
			}
			e := v.Elem()
			switch e.Kind() {
			case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
				// Held in the interface word itself.
			default:
				// Boxed: count the box once per interface value seen.
				z.n += int64(e.Type().Size())
			}
			z.push(e)
		case reflect.Slice:
			if v.IsNil() || v.Cap() == 0 || !z.once(sizedKey{v.Pointer(), v.Type().Elem().Size(), v.Cap()}) {
				continue
			}
			z.n += int64(v.Cap()) * int64(v.Type().Elem().Size())
			if z.hasPointers(v.Type().Elem()) {
				for i := range v.Len() {
					z.todo = append(z.todo, v.Index(i))
				}
			}
		case reflect.String:
			if v.Len() > 0 && z.once(sizedKey{uintptr(unsafe.Pointer(unsafe.StringData(v.String()))), 1, v.Len()}) {
				z.n += int64(v.Len())
			}
		case reflect.Map:
			if v.IsNil() || !z.once(sizedKey{v.Pointer(), v.Type().Elem().Size(), 0}) {
				continue
			}
			// A swiss table's groups of eight slots, each with a control
			// byte, filled to at most seven eighths.
			slot := int64(v.Type().Key().Size()+v.Type().Elem().Size()) + 1
			z.n += 48 + int64(v.Len())*slot*8/7
			k, e := z.hasPointers(v.Type().Key()), z.hasPointers(v.Type().Elem())
			if k || e {
				for it := v.MapRange(); it.Next(); {
					if k {
						z.todo = append(z.todo, it.Key())
					}
					if e {
						z.todo = append(z.todo, it.Value())
					}
				}
			}
		case reflect.Chan:
			if !v.IsNil() && z.once(sizedKey{v.Pointer(), v.Type().Elem().Size(), 0}) {
				z.n += 96 + int64(v.Cap())*int64(v.Type().Elem().Size())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				z.push(v.Field(i))
			}
		case reflect.Array:
			if z.hasPointers(v.Type().Elem()) {
				for i := range v.Len() {
					z.todo = append(z.todo, v.Index(i))
				}
			}
		}
	}
}

// hasPointers reports whether a value of type t can hold memory outside
// itself that StateBytes counts.
func (z *sizer) hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.String, reflect.Map, reflect.Chan:
		return true
	case reflect.Array, reflect.Struct:
	default:
		return false
	}
	if has, ok := z.pointers[t]; ok {
		return has
	}
	has := false
	switch t.Kind() {
	case reflect.Array:
		has = t.Len() > 0 && z.hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if z.hasPointers(t.Field(i).Type) {
				has = true
				break
			}
		}
	}
	z.pointers[t] = has
	return has
}

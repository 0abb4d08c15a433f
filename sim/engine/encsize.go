package engine

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// DefaultMaxStateBytes bounds the canonical encoding of one node's state
// or one message in flight (Options.MaxStateBytes): past it, hashing
// stops with an *EncodingError rather than spend seconds and gigabytes on
// one state.
const DefaultMaxStateBytes = 16 << 20

// ErrEncoding marks a state that could not be encoded; see EncodingError.
var ErrEncoding = errors.New("sim: state too large to encode")

// EncodingError reports a node's struct or a message whose canonical
// encoding passed the bound (Options.MaxStateBytes), or whose encoding was
// interrupted, and where most of it lies.
type EncodingError struct {
	// Type is the dynamic type of the node's struct or the message.
	Type string
	// Path is where most of the encoding lies, e.g.
	// ".raft.raftLog.storage.ents", with its type and size in Detail.
	Path, Detail string
	// Limit is the bound; Interrupted marks an encoding stopped by
	// Sim.SetInterrupt's function rather than by the bound.
	Limit       int
	Interrupted bool
}

func (e *EncodingError) Error() string {
	if e.Interrupted {
		return fmt.Sprintf("sim: encoding the state of a %s was interrupted (cancelled or out of time)", e.Type)
	}
	where := ""
	if e.Path != "" {
		where = fmt.Sprintf("; most of it is in %s (%s)", e.Path, e.Detail)
	}
	return fmt.Sprintf("sim: the state of a %s encodes to more than %d bytes%s; leave the part out (a field tag `macemc:\"-\"`), give its type a canonical form (a Canonical method, sim.RegisterCanonical for a type you do not own, or sim.RegisterCanonicalFor for every type that implements an interface, such as a library's generated messages) (the bound is engine.Options.MaxStateBytes, which a program driving the engine itself can raise; macemc's commands and search.Options keep it)", e.Type, e.Limit, where)
}

// Unwrap lets errors.Is match ErrEncoding.
func (e *EncodingError) Unwrap() error { return ErrEncoding }

// encodingError describes the encoding of v that stopped.
func encodingError(v any, limit int, interrupted bool) *EncodingError {
	e := &EncodingError{Type: fmt.Sprintf("%T", v), Limit: limit, Interrupted: interrupted}
	if interrupted || v == nil {
		return e
	}
	e.Path, e.Detail = bulk(reflect.ValueOf(v), limit)
	return e
}

// maxKids bounds the children bulk sizes at one level.
const maxKids = 4096

// bulk follows the part of v that holds most of its encoding: at every
// level into the child whose encoding is more than half the bound, until
// no single child is; it returns the path there and what it is.
func bulk(v reflect.Value, limit int) (path, detail string) {
	seen := map[uintptr]bool{}
	for depth := 0; depth < 64; depth++ {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return path, describe(v)
			}
			seen[v.Pointer()] = true
			v = v.Elem()
			continue
		case reflect.Interface:
			if v.IsNil() {
				return path, describe(v)
			}
			v = v.Elem()
			continue
		}
		kids, names := children(v)
		next := -1
		for i, k := range kids {
			if sizeOf(k, limit) > limit/2 {
				next = i
				break
			}
		}
		if next < 0 {
			return path, describe(v)
		}
		path += names[next]
		v = kids[next]
	}
	return path, describe(v)
}

// children returns v's parts with their path steps.
func children(v reflect.Value) ([]reflect.Value, []string) {
	var kids []reflect.Value
	var names []string
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField() && i < maxKids; i++ {
			kids = append(kids, v.Field(i))
			names = append(names, "."+v.Type().Field(i).Name)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len() && i < maxKids; i++ {
			kids = append(kids, v.Index(i))
			names = append(names, "["+strconv.Itoa(i)+"]")
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() && len(kids) < maxKids {
			kids = append(kids, it.Value())
			names = append(names, "["+FormatValue(exported(it.Key()))+"]")
		}
	}
	return kids, names
}

// describe says what a value is: its type, and its length for a
// collection.
func describe(v reflect.Value) string {
	if !v.IsValid() {
		return "nil"
	}
	d := v.Type().String()
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		d += fmt.Sprintf(", %d elements", v.Len())
	}
	return d
}

// sizeOf returns the length of v's canonical encoding, or limit+1 when it
// is longer.
func sizeOf(v reflect.Value, limit int) (n int) {
	var e encoder
	e.arm(limit)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(encodeStop); !ok {
				panic(r)
			}
			n = limit + 1
		}
	}()
	encoderFor(v.Type())(&e, v)
	return len(e.buf)
}

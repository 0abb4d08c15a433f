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
	// Node is the node whose struct it is; -1 for a message, sent by node
	// From to node To (both -1 when the message was not found in flight).
	Node, From, To int
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
	what := fmt.Sprintf("node %d's state (%s)", e.Node, e.Type)
	switch {
	case e.Node >= 0:
	case e.From >= 0:
		what = fmt.Sprintf("the message from node %d to node %d (%s)", e.From, e.To, e.Type)
	default:
		what = fmt.Sprintf("a message (%s)", e.Type)
	}
	if e.Interrupted {
		return "sim: encoding " + what + " was interrupted (cancelled or out of time)"
	}
	where := ""
	if e.Path != "" {
		where = fmt.Sprintf("; most of it is in %s (%s)", e.Path, e.Detail)
	}
	return fmt.Sprintf("sim: %s encodes to more than %s, the most the canonical encoding of one node's state or one message in flight may take "+
		"(the bound keeps what hashing one state costs in time and memory in check)%s: leave the part out (a field tag `macemc:\"-\"`), or give its type a canonical form "+
		"(a Canonical method, sim.RegisterCanonical for a type you do not own, or sim.RegisterCanonicalFor for every type that implements an interface, "+
		"such as a library's generated messages)", what, sizeText(e.Limit), where)
}

// sizeText says n bytes in words: "16 MiB (16777216 bytes)", or "1000
// bytes".
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Unwrap lets errors.Is match ErrEncoding.
func (e *EncodingError) Unwrap() error { return ErrEncoding }

// encodingError describes the encoding of v that stopped: what v is in s
// (a node's struct or a message in flight: one whose interface holds the
// same type and data) and where most of it lies.
func (s *Sim) encodingError(v any, limit int, interrupted bool) *EncodingError {
	e := &EncodingError{Node: -1, From: -1, To: -1, Type: fmt.Sprintf("%T", v), Limit: limit, Interrupted: interrupted}
	same := func(x any) bool { return reflect.TypeOf(x) == reflect.TypeOf(v) && efaceData(&x) == efaceData(&v) }
	for i, svc := range s.w.svcs {
		if svc != nil && same(svc) {
			e.Node = i
			break
		}
	}
	if e.Node < 0 {
		s.eachInFlight(func(_ int, p *pending) {
			if e.From < 0 && same(p.msg) {
				e.From, e.To = int(p.from), int(p.to)
			}
		})
	}
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
// no single child is; it returns the path there and what it is. A
// collection of small plain values (numbers, bools, structs of them) is
// not looked into: no one of them can be the bulk.
func bulk(v reflect.Value, limit int) (path, detail string) {
	seen := map[uintptr]bool{}
	z := sizer{pointers: map[reflect.Type]bool{}}
	var e encoder
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
		case reflect.Slice, reflect.Array:
			if small(&z, v.Type().Elem(), limit) {
				return path, describe(v)
			}
		case reflect.Map:
			if small(&z, v.Type().Key(), limit) && small(&z, v.Type().Elem(), limit) {
				return path, describe(v)
			}
		}
		kids, names := children(v)
		next := -1
		for i, k := range kids {
			if sizeOf(&e, k, limit) > limit/2 {
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

// small reports whether no value of type t can encode to more than half
// of limit: t reaches no memory outside itself, and each of its bytes
// encodes to at most 16 (a complex64's 8 bytes take 16, an int8 takes 8).
func small(z *sizer, t reflect.Type, limit int) bool {
	return !z.hasPointers(t) && t.Size() <= uintptr(limit/32)
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
// is longer, encoding with e (its buffer reused).
func sizeOf(e *encoder, v reflect.Value, limit int) (n int) {
	e.buf = e.buf[:0]
	e.arm(limit)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(encodeStop); !ok {
				panic(r)
			}
			e.tmp = e.tmp[:0]
			n = limit + 1
		}
	}()
	encoderFor(v.Type())(e, v)
	return len(e.buf)
}

package engine

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/internal/hook"
)

// registered returns the canonical form registered for t with
// sim.RegisterCanonical, or the engine's own for a library type whose
// state lies where the encodings cannot read it (libraryForm).
func registered(t reflect.Type) (func(reflect.Value) any, bool) {
	if f, ok := hook.CanonicalFor(t); ok {
		return f, true
	}
	return libraryForm(t)
}

// libraryForm returns the canonical form of t when t is one of the
// standard library's types whose state its fields do not show: a sync.Map
// (its entries sit behind atomic pointers, beside a random seed) is the
// map of its entries, an atomic.Pointer[T] (an unsafe.Pointer inside) is
// the *T it holds, a time.Time its instant (in UTC) and its location's
// name, a time.Location its name.
func libraryForm(t reflect.Type) (func(reflect.Value) any, bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	if f, ok := libraryForms.Load(t); ok {
		return f.(func(reflect.Value) any), f.(func(reflect.Value) any) != nil
	}
	var form func(reflect.Value) any
	switch {
	case t == reflect.TypeFor[sync.Map]():
		form = func(v reflect.Value) any {
			m := map[any]any{}
			(*sync.Map)(unsafe.Pointer(v.UnsafeAddr())).Range(func(k, x any) bool { m[k] = x; return true })
			return m
		}
	case t == reflect.TypeFor[time.Time]():
		// The instant and the location's name: not the *Location it
		// points to, whose fields the time package fills on first use
		// (time.Local: a node that holds a time in it would seem changed
		// outside its handlers by the first code anywhere to use local
		// time), nor the monotonic reading.
		form = func(v reflect.Value) any {
			tm := *(*time.Time)(unsafe.Pointer(v.UnsafeAddr()))
			return tm.UTC().Format(time.RFC3339Nano) + " " + tm.Location().String()
		}
	case t == reflect.TypeFor[time.Location]():
		form = func(v reflect.Value) any { return (*time.Location)(unsafe.Pointer(v.UnsafeAddr())).String() }
	case t.PkgPath() == "sync/atomic" && strings.HasPrefix(t.Name(), "Pointer["):
		if f, ok := t.FieldByName("v"); ok && f.Type.Kind() == reflect.UnsafePointer && t.Field(0).Type.Kind() == reflect.Array {
			target := t.Field(0).Type.Elem() // the *T of its _ [0]*T
			form = func(v reflect.Value) any {
				return reflect.NewAt(target.Elem(), *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(v.UnsafeAddr()), f.Offset))).Interface()
			}
		}
	}
	libraryForms.Store(t, form)
	return form, form != nil
}

// libraryForms caches libraryForm by type (a nil func for none).
var libraryForms sync.Map

// A struct field tagged `macemc:"-"` is left out of the state: it neither
// changes the hash nor shows in the text form.
const tagName = "macemc"

// encodedField reports whether the canonical encoding holds struct field
// f: not one tagged `macemc:"-"`, one of size zero (an empty struct, a
// zero-length array such as a library's [0]sync.Mutex no-copy marker) or
// a sync type that is no state. The encoder, the hashing
// programs (prog.go) and the text forms (text.go) all ask it, so that they
// read the same fields.
//
// Funcs and channels are state: a func field is encoded as its function's
// name (tickElection or tickHeartbeat), a channel as its buffered elements
// in order, its capacity and whether it is closed (a node that keeps a
// queue in a buffered channel). What a function literal captured cannot be
// read, nor what an unsafe.Pointer points to, so a closure or an
// unsafe.Pointer that is not nil marks the state as hidden (encoder.hide,
// Sim.HiddenState). The standard library's types that keep their state
// behind unsafe pointers have forms of their own (libraryForm).
//
// A sync.Pool is a cache the runtime empties at will and shares between
// every holder of it (a logging library's buffers reach one package-level
// pool): its counts change with the garbage collector and with any
// goroutine's use, so they are no node's state. Nor are a sync.Mutex's,
// RWMutex's, WaitGroup's or Cond's: they record what goroutines are doing
// (handlers run alone and hold no lock between events), and a library
// object that simulators share (a btree's free list handed to every node's
// tree) is locked by other simulators' goroutines while one hashes it.
//
// Nor is a *sim.Context a node keeps (to send from a callback a library
// calls in a later handler): it is the node's handle on the simulator, the
// same in every handler of the node, and reading through it would read the
// whole simulation.
func encodedField(f reflect.StructField) bool {
	return f.Tag.Get(tagName) != "-" && f.Type.Size() != 0 && !noState[f.Type]
}

// noState holds the types that are no state (see encodedField).
var noState = map[reflect.Type]bool{
	reflect.TypeFor[sync.Pool]():      true,
	reflect.TypeFor[sync.Mutex]():     true,
	reflect.TypeFor[sync.RWMutex]():   true,
	reflect.TypeFor[sync.WaitGroup](): true,
	reflect.TypeFor[sync.Cond]():      true,
	reflect.TypeFor[sim.Context]():    true,
	reflect.TypeFor[*sim.Context]():   true,
}

// AppendCanonical appends the canonical encoding of v to buf: every field,
// exported or not (except those tagged `macemc:"-"`), maps in key order,
// pointers followed (a cycle is encoded as a back-reference), interfaces
// with their dynamic type. Equal states encode equal whatever the order in
// which their maps were built. A func is its function's name, a channel
// what it buffers (see encodedField).
//
// An encoding is bounded by MaxCanonicalBytes: past it, the value's
// encoding is its type and a marker (all such values of a type encode
// equal), so that a value whose pointers reach a graph with more paths
// than can be followed (a library's type registry behind a lazily set
// pointer) takes neither the machine's memory nor hours. (Its bytes so far
// cannot stand for it: a map's entries are only sorted once all are
// encoded.)
func AppendCanonical(buf []byte, v any) []byte {
	var e encoder
	e.buf = buf
	if !e.within(len(buf)+MaxCanonicalBytes, func() { e.value(v) }) {
		return tooLarge(buf, reflect.TypeOf(v))
	}
	return e.buf
}

// Hash returns the 64-bit hash (xxhash) of v's canonical encoding
// (AppendCanonical, bounded the same way).
func Hash(v any) uint64 {
	var e encoder
	if !e.within(MaxCanonicalBytes, func() { e.value(v) }) {
		return xxhash.Sum64(tooLarge(nil, reflect.TypeOf(v)))
	}
	return xxhash.Sum64(e.buf)
}

// MaxCanonicalBytes bounds the encodings of Hash and AppendCanonical: a
// simulator's default bound on a node or message (DefaultMaxStateBytes),
// which a search with state hashing stops at with an *EncodingError.
const MaxCanonicalBytes = DefaultMaxStateBytes

// tooLarge appends the encoding of a value of type t cut at its bound.
func tooLarge(buf []byte, t reflect.Type) []byte {
	if t != nil {
		buf = binary.LittleEndian.AppendUint64(buf, typeHash(t))
	}
	return append(buf, "\xff\xfe(too large)"...)
}

// within runs encode with e's buffer bounded at limit bytes; false when
// it stopped there.
func (e *encoder) within(limit int, encode func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, stop := r.(encodeStop); !stop {
				panic(r)
			}
			ok = false
		}
	}()
	e.arm(limit)
	encode()
	return true
}

// ptrKey is a pointer followed by an encoding, with its type (a struct
// and its first field share an address).
type ptrKey struct {
	p uintptr
	t reflect.Type
}

// ptrSeen numbers the pointers an encoding followed, in order.
// Performance: a few are searched in the list; past maxSeenList an index
// is kept too.
type ptrSeen struct {
	list  []ptrKey
	index map[ptrKey]int
}

const maxSeenList = 32

// find returns the number of k, if it was followed.
func (s *ptrSeen) find(k ptrKey) (int, bool) {
	if s.index != nil {
		i, ok := s.index[k]
		return i, ok
	}
	for i := range s.list {
		if s.list[i] == k {
			return i, true
		}
	}
	return 0, false
}

// add numbers k, which was not followed.
func (s *ptrSeen) add(k ptrKey) {
	s.list = append(s.list, k)
	switch {
	case s.index != nil:
		s.index[k] = len(s.list) - 1
	case len(s.list) > maxSeenList:
		s.index = make(map[ptrKey]int, 2*len(s.list))
		for i, q := range s.list {
			s.index[q] = i
		}
	}
}

func (s *ptrSeen) len() int { return len(s.list) }

// truncate forgets the pointers numbered n and after.
func (s *ptrSeen) truncate(n int) {
	if n >= len(s.list) {
		return
	}
	if s.index != nil {
		if n <= maxSeenList {
			s.index = nil
		} else {
			for _, q := range s.list[n:] {
				delete(s.index, q)
			}
		}
	}
	clear(s.list[n:])
	s.list = s.list[:n]
}

type encoder struct {
	// limit bounds buf (0: no bound); past it, or when interrupt says so
	// (checked every checkEvery bytes), the encoding stops by panicking
	// with an encodeStop. next is the length at which to check again.
	limit     int
	next      int
	interrupt func() bool
	buf       []byte
	seen      ptrSeen // pointers followed so far (see the pointer encoder)
	tmp       []mapEntry
	scratch   []byte           // encodeMap's copy of a map's region, reused
	types     []typeEntry      // see dynamic
	keys      []unsafe.Pointer // types[i].key: searched, 8 to a cache line
	vals      []scratchVal     // see scratchOf
	spare     typeEntry        // dynamic's result when types is full
	// hidden describes the first value encoded that holds state the
	// encoding cannot show (a closure's captured variables, a channel
	// that could not be read), "" when there was none; see hide.
	hidden string
}

// typeEntry caches, for one dynamic type, its hash and its encoders.
type typeEntry struct {
	key  unsafe.Pointer // typeKey(t)
	t    reflect.Type
	hash uint64
	enc  encFunc // encoderFor(t)
	elem encFunc // encoderFor(t.Elem()) when t is a pointer type
	// prog is t's program (see progFor) when t has a safe one and an
	// interface holds t's values through a pointer (not pointerShaped),
	// or t.Elem()'s when t is a pointer to a type with a program (then
	// ptr is set).
	prog *prog
	ptr  bool
}

// typeKey returns the identity of t: the *rtype inside the interface.
// Performance: comparing it is a pointer compare, where comparing two
// reflect.Type interfaces calls runtime.ifaceeq.
func typeKey(t reflect.Type) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1]
}

// efaceData returns the data word of v: for a type that is not
// pointer-shaped (see pointerShaped), a pointer to v's value.
func efaceData(v *any) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(v))[1]
}

// maxTypeCache bounds an encoder's cache of dynamic types.
const maxTypeCache = 32

// dynamic returns the hash and encoders of t, the dynamic type of a value
// at the top or in an interface. Performance: the simulator's encoder lives
// as long as the Sim and sees the same few types (services, messages) over
// and over; a linear search of its own cache is several times cheaper than
// the two sync.Map look-ups (typeHashes, encoders) per value it replaces,
// which were a third of Sim.Hash's time.
// The entry it returns may be reused by the next call: callers copy what
// they need before encoding anything else.
func (e *encoder) dynamic(t reflect.Type) *typeEntry {
	k := typeKey(t)
	for i, key := range e.keys {
		if key == k {
			return &e.types[i]
		}
	}
	te := typeEntry{key: k, t: t, hash: typeHash(t), enc: encoderFor(t)}
	if t.Kind() == reflect.Pointer {
		te.elem = encoderFor(t.Elem())
		if p := progFor(t.Elem()); p != nil && !t.Implements(canonType) {
			te.prog, te.ptr = p, true
		}
	} else if !pointerShaped(t) {
		if p := progFor(t); p != nil && p.safe {
			te.prog = p
		}
	}
	if len(e.types) < maxTypeCache {
		e.types = append(e.types, te)
		e.keys = append(e.keys, k)
		return &e.types[len(e.types)-1]
	}
	e.spare = te
	return &e.spare
}

type mapEntry struct{ keyStart, keyEnd, end int }

type encFunc func(e *encoder, v reflect.Value)

var encoders sync.Map // reflect.Type -> encFunc

// value encodes v and its dynamic type. It launders v so that even values
// reached through unexported fields can be read and their methods called.
func (e *encoder) value(v any) {
	if v == nil {
		e.buf = append(e.buf, 0)
		return
	}
	te := e.dynamic(reflect.TypeOf(v))
	e.u64(te.hash)
	if te.prog != nil {
		// Performance: read the value in place, without reflect.
		p := efaceData(&v)
		if te.ptr {
			if p == nil {
				e.buf = append(e.buf, 0)
				return
			}
			e.buf = append(e.buf, 1)
		}
		e.plain(te.prog.ops, p)
		return
	}
	// te may be invalidated by encoding (the cache may grow): copy what
	// is needed first.
	enc, elem := te.enc, te.elem
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && !rv.IsNil() {
		e.buf = append(e.buf, 1)
		elem(e, rv.Elem())
		return
	}
	enc(e, rv)
}

var typeHashes sync.Map // reflect.Type -> uint64

func typeHash(t reflect.Type) uint64 {
	if h, ok := typeHashes.Load(t); ok {
		return h.(uint64)
	}
	h := xxhash.Sum64String(qualifiedName(t))
	typeHashes.Store(t, h)
	return h
}

// qualifiedName names t for typeHash: every named type in it by its
// package path, not by the last element of the path as reflect's String
// does (*v1/wire.Hello and *v2/wire.Hello read alike there, and so hashed
// alike), and a struct by its fields too (two types of one name declared
// in different functions differ unless their fields are the same).
func qualifiedName(t reflect.Type) string {
	var b strings.Builder
	writeTypeName(&b, t, true)
	return b.String()
}

// writeTypeName writes t's qualified name to b; with fields, a named
// struct's fields follow its name (named types in them by name only).
func writeTypeName(b *strings.Builder, t reflect.Type, fields bool) {
	if t.Name() != "" {
		b.WriteString(t.PkgPath())
		b.WriteByte('.')
		b.WriteString(t.Name())
		if !fields || t.Kind() != reflect.Struct {
			return
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		b.WriteByte('*')
		writeTypeName(b, t.Elem(), false)
	case reflect.Slice:
		b.WriteString("[]")
		writeTypeName(b, t.Elem(), false)
	case reflect.Array:
		b.WriteString("[" + strconv.Itoa(t.Len()) + "]")
		writeTypeName(b, t.Elem(), false)
	case reflect.Map:
		b.WriteString("map[")
		writeTypeName(b, t.Key(), false)
		b.WriteByte(']')
		writeTypeName(b, t.Elem(), false)
	case reflect.Chan:
		b.WriteString(t.ChanDir().String() + " ")
		writeTypeName(b, t.Elem(), false)
	case reflect.Struct:
		b.WriteString("struct{")
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				b.WriteString("embedded ")
			}
			b.WriteString(f.PkgPath + "." + f.Name + " ")
			writeTypeName(b, f.Type, false)
			b.WriteString("; ")
		}
		b.WriteByte('}')
	case reflect.Func:
		b.WriteString("func(")
		for i := range t.NumIn() {
			writeTypeName(b, t.In(i), false)
			b.WriteString(", ")
		}
		b.WriteString(") (")
		for i := range t.NumOut() {
			writeTypeName(b, t.Out(i), false)
			b.WriteString(", ")
		}
		b.WriteString(")" + strconv.FormatBool(t.IsVariadic()))
	case reflect.Interface:
		b.WriteString("interface{")
		for i := range t.NumMethod() {
			m := t.Method(i)
			b.WriteString(m.PkgPath + "." + m.Name + " ")
			writeTypeName(b, m.Type, false)
			b.WriteString("; ")
		}
		b.WriteByte('}')
	default:
		b.WriteString(t.String())
	}
}

func (e *encoder) u64(x uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, x) }

// checkEvery is how many encoded bytes apart an encoder with a limit checks
// for interruption.
const checkEvery = 1 << 20

// encodeStop is what an encoder panics with when it stops: the limit was
// passed (interrupted false) or the caller interrupted it.
type encodeStop struct{ interrupted bool }

// grow is called by the encoders of collections and pointers: it stops the
// encoding past the limit or when interrupted. Performance: one compare
// when nothing is due.
func (e *encoder) grow() {
	if len(e.buf) <= e.next {
		return
	}
	if e.limit > 0 && len(e.buf) > e.limit {
		panic(encodeStop{})
	}
	if e.interrupt != nil && e.interrupt() {
		panic(encodeStop{interrupted: true})
	}
	e.next = len(e.buf) + checkEvery
}

// arm sets the encoder's limit for one encoding.
func (e *encoder) arm(limit int) {
	e.seen.truncate(0)
	e.limit = limit
	e.next = min(limit, checkEvery)
	if limit <= 0 {
		e.next = math.MaxInt
		if e.interrupt != nil {
			e.next = checkEvery
		}
	}
}

// need stops the encoding when n more bytes after the first at would take
// it past its limit: a length a value declares is checked before its
// elements are encoded, so a value far past the bound costs neither the
// time nor the memory to encode up to it. Performance: one compare when
// the encoding is within its limit.
func (e *encoder) need(at, n int) {
	if e.limit > 0 && n > e.limit-at {
		panic(encodeStop{})
	}
}

func (e *encoder) str(s string) {
	e.need(len(e.buf), len(s))
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func encoderFor(t reflect.Type) encFunc {
	if f, ok := encoders.Load(t); ok {
		return f.(encFunc)
	}
	// Recursive types: publish a forwarder before building.
	var real encFunc
	var wg sync.WaitGroup
	wg.Add(1)
	fwd := encFunc(func(e *encoder, v reflect.Value) { wg.Wait(); real(e, v) })
	if f, loaded := encoders.LoadOrStore(t, fwd); loaded {
		return f.(encFunc)
	}
	real = buildEncoder(t)
	wg.Done()
	encoders.Store(t, real)
	return real
}

var canonType = reflect.TypeFor[sim.Canonicalizer]()

// clean returns a copy of v that may be read through Interface and whose
// methods may be called, even if it was reached through unexported fields.
func clean(v reflect.Value) (reflect.Value, bool) {
	if v.CanInterface() {
		return v, true
	}
	if v.CanAddr() {
		return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem(), true
	}
	return v, false
}

// addressable returns v, or an addressable copy of v when v is not
// addressable (a map entry, an interface's value) but may be copied.
// Without it a pointer-receiver sim.Canonicalizer stored as a map value
// would be ignored, and so would Canonicalizers below the unexported fields of
// such a value (the fields of a non-addressable struct are read-only and
// cannot be laundered).
func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() || !v.CanInterface() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

// field returns field i of struct v, laundered when it is read-only (an
// unexported field) and addressable, so that everything reached from it
// (map entries, interface values) can be read through Interface and its
// Canonicalizers called. Without it a sim.Canonicalizer inside an unexported
// map or interface field would be ignored, because map entries and interface
// values reached through a read-only value are read-only and not
// addressable.
func field(v reflect.Value, i int) reflect.Value {
	fv := v.Field(i)
	if !fv.CanInterface() && fv.CanAddr() {
		fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
	}
	return fv
}

var needsCleanCache sync.Map // reflect.Type -> bool

// needsClean reports whether a read-only value of type t may hide a
// Canonicalizer that only a laundered value can call: t or *t implements
// it, or one can be reached from t (through fields, elements, map keys or
// values, pointers); an interface can hold anything, so it needs cleaning.
// Performance: computed from the type once, so that field launders
// (reflect.NewAt) only the fields that need it.
func needsClean(t reflect.Type) bool {
	if b, ok := needsCleanCache.Load(t); ok {
		return b.(bool)
	}
	b := reachesCanon(t, map[reflect.Type]bool{})
	needsCleanCache.Store(t, b)
	return b
}

// reachesCanon reports whether a sim.Canonicalizer (or an interface) can be
// reached from t. It is a plain reachability search: a type already seen
// (on a cycle, or fully explored without finding one) adds nothing.
func reachesCanon(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.Kind() == reflect.Interface || t.Implements(canonType) || reflect.PointerTo(t).Implements(canonType) {
		return true
	}
	if _, ok := registered(t); ok {
		return true
	}
	switch t.Kind() {
	case reflect.Map:
		return reachesCanon(t.Key(), seen) || reachesCanon(t.Elem(), seen)
	case reflect.Array, reflect.Slice, reflect.Pointer:
		return reachesCanon(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if reachesCanon(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

func buildEncoder(t reflect.Type) encFunc {
	base := buildBaseEncoder(t)
	if k := t.Kind(); k == reflect.Struct || k == reflect.Array {
		if p := progFor(t); p != nil {
			// Performance: read an addressable value in place.
			return func(e *encoder, v reflect.Value) {
				if v.CanAddr() {
					e.plain(p.ops, unsafe.Pointer(v.UnsafeAddr()))
					return
				}
				base(e, v)
			}
		}
	}
	if t.Kind() != reflect.Interface && t.Implements(canonType) {
		return func(e *encoder, v reflect.Value) {
			if cv, ok := clean(v); ok && !(cv.Kind() == reflect.Pointer && cv.IsNil()) {
				e.value(cv.Interface().(sim.Canonicalizer).Canonical())
				return
			}
			base(e, v)
		}
	}
	if f, ok := registered(t); ok {
		return func(e *encoder, v reflect.Value) {
			if cv, ok := clean(v); ok {
				if cv = addressable(cv); cv.CanAddr() {
					e.value(f(cv))
					return
				}
			}
			base(e, v)
		}
	}
	if t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(canonType) {
		return func(e *encoder, v reflect.Value) {
			if cv, ok := clean(v); ok {
				if cv = addressable(cv); cv.CanAddr() {
					e.value(cv.Addr().Interface().(sim.Canonicalizer).Canonical())
					return
				}
			}
			base(e, v)
		}
	}
	return base
}

func buildBaseEncoder(t reflect.Type) encFunc {
	if noState[t] {
		return func(*encoder, reflect.Value) {}
	}
	switch t.Kind() {
	case reflect.Bool:
		return func(e *encoder, v reflect.Value) {
			if v.Bool() {
				e.buf = append(e.buf, 1)
			} else {
				e.buf = append(e.buf, 0)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(e *encoder, v reflect.Value) { e.u64(uint64(v.Int())) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(e *encoder, v reflect.Value) { e.u64(v.Uint()) }
	case reflect.Float32, reflect.Float64:
		return func(e *encoder, v reflect.Value) { e.u64(math.Float64bits(v.Float())) }
	case reflect.Complex64, reflect.Complex128:
		return func(e *encoder, v reflect.Value) {
			c := v.Complex()
			e.u64(math.Float64bits(real(c)))
			e.u64(math.Float64bits(imag(c)))
		}
	case reflect.String:
		return func(e *encoder, v reflect.Value) { e.str(v.String()) }
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(e *encoder, v reflect.Value) {
				e.need(len(e.buf), v.Len())
				e.buf = binary.AppendUvarint(e.buf, uint64(v.Len()))
				e.buf = append(e.buf, v.Bytes()...)
				e.grow()
			}
		}
		elem := encoderFor(t.Elem())
		if p := progFor(t.Elem()); p != nil && p.pure {
			// Performance: the elements read in place (a slice's
			// elements are addressable, so the element encoder would
			// read them so too).
			sub := &opSub{elem: p, size: t.Elem().Size()}
			return func(e *encoder, v reflect.Value) {
				h := unsafe.Slice((*byte)(v.UnsafePointer()), v.Len())
				e.slice(sub, unsafe.Pointer(&h))
			}
		}
		return func(e *encoder, v reflect.Value) {
			n := v.Len()
			e.buf = binary.AppendUvarint(e.buf, uint64(n))
			for i := 0; i < n; i++ {
				elem(e, v.Index(i))
				e.grow()
			}
		}
	case reflect.Array:
		elem := encoderFor(t.Elem())
		return func(e *encoder, v reflect.Value) {
			for i := 0; i < v.Len(); i++ {
				elem(e, v.Index(i))
			}
		}
	case reflect.Map:
		m := &mapEnc{key: encoderFor(t.Key()), val: encoderFor(t.Elem()), kt: t.Key(), vt: t.Elem()}
		if p := progFor(m.kt); p != nil && p.pure {
			m.kp = p
		}
		if p := progFor(m.vt); p != nil && p.pure {
			m.vp = p
		}
		return func(e *encoder, v reflect.Value) { e.encodeMap(v, m) }
	case reflect.Pointer:
		elem := encoderFor(t.Elem())
		if p := progFor(t.Elem()); p != nil && p.tree {
			// A tree type reaches no pointer to itself: every pointer is
			// followed, as hashPure follows it.
			return func(e *encoder, v reflect.Value) {
				if v.IsNil() {
					e.buf = append(e.buf, 0)
					return
				}
				e.buf = append(e.buf, 1)
				elem(e, v.Elem())
				e.grow()
			}
		}
		// A pointer followed before in this encoding (a cycle, or a
		// target shared by several pointers: a list whose elements
		// point back into it, a skip list) is written as the number of
		// the pointer that first reached it: the value is encoded once,
		// not once per path to it (which is exponential in a skip list),
		// and two pointers to one value encode otherwise than two
		// pointers to equal values, as they behave otherwise.
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.buf = append(e.buf, 0)
				return
			}
			k := ptrKey{v.Pointer(), t}
			if i, ok := e.seen.find(k); ok {
				e.buf = append(e.buf, 2)
				e.u64(uint64(i))
				return
			}
			e.buf = append(e.buf, 1)
			e.seen.add(k)
			elem(e, v.Elem())
			e.grow()
		}
	case reflect.Interface:
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.buf = append(e.buf, 0)
				return
			}
			inner := v.Elem()
			e.buf = append(e.buf, 1)
			te := e.dynamic(inner.Type())
			e.u64(te.hash)
			if te.prog != nil && !te.ptr && v.CanInterface() {
				x := v.Interface() // no allocation: v holds an interface
				e.plain(te.prog.ops, efaceData(&x))
				return
			}
			te.enc(e, inner)
		}
	case reflect.Struct:
		type fieldEnc struct {
			index int
			enc   encFunc
			clean bool // unexported and may hide a Canonicalizer: launder it
		}
		var fields []fieldEnc
		anyClean := false
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !encodedField(f) {
				continue
			}
			c := !f.IsExported() && needsClean(f.Type)
			anyClean = anyClean || c
			fields = append(fields, fieldEnc{i, encoderFor(f.Type), c})
		}
		return func(e *encoder, v reflect.Value) {
			if anyClean && !v.CanAddr() {
				v = addressable(v) // so that its unexported fields can be laundered
			}
			for _, f := range fields {
				if f.clean {
					f.enc(e, field(v, f.index))
				} else {
					f.enc(e, v.Field(f.index))
				}
			}
		}
	case reflect.Func:
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.buf = append(e.buf, 0)
				return
			}
			f := funcOf(v)
			e.buf = append(e.buf, 1)
			e.u64(f.hash)
			if f.closure {
				e.hide("a closure " + f.name)
			}
		}
	case reflect.Chan:
		elem := encoderFor(t.Elem())
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.buf = append(e.buf, 0)
				return
			}
			cv, ok := readChan(v, nil)
			if !ok {
				e.buf = append(e.buf, 1)
				e.hide("a channel")
				return
			}
			if cv.closed {
				e.buf = append(e.buf, 3)
			} else {
				e.buf = append(e.buf, 2)
			}
			e.buf = binary.AppendUvarint(e.buf, uint64(cv.cap))
			e.buf = binary.AppendUvarint(e.buf, uint64(len(cv.elems)))
			for _, p := range cv.elems {
				elem(e, reflect.NewAt(t.Elem(), p).Elem())
				e.grow()
			}
		}
	default: // UnsafePointer: what it points to has no type to read it by
		return func(e *encoder, v reflect.Value) {
			if v.IsNil() {
				e.buf = append(e.buf, 0)
				return
			}
			e.buf = append(e.buf, 1)
			e.hide("an unsafe.Pointer")
		}
	}
}

// hide records that the value being encoded holds state its encoding
// cannot show (see Sim.HiddenState): the first such value's description.
func (e *encoder) hide(what string) {
	if e.hidden == "" {
		e.hidden = what
	}
}

// funcInfo is what the encodings know of a func value: the hash of its
// function's name (the same in every build of the program, where its
// address is not), and whether it is a function literal, whose captured
// variables no encoding can read.
type funcInfo struct {
	name    string // the function's full name
	short   string // its name after the last "/" of its package path
	hash    uint64
	closure bool
}

// funcInfos caches funcInfo by code pointer.
var funcInfos sync.Map // uintptr -> funcInfo

// funcOf returns what the encodings know of the func value v (not nil). A
// bound method (a method value, "T.M-fm", or a generic type's, which Go
// names as a function literal of the function that made it: isWrapper)
// is its function alone: the receiver it holds is taken to be reachable
// from the state too (a node's own struct, usually), which is not checked.
func funcOf(v reflect.Value) funcInfo {
	pc := v.Pointer()
	if f, ok := funcInfos.Load(pc); ok {
		return f.(funcInfo)
	}
	f := funcInfo{name: "a func"}
	if rf := goruntime.FuncForPC(pc); rf != nil {
		f.name = rf.Name()
		f.closure = !strings.HasSuffix(f.name, "-fm") && isClosure(f.name) && !isWrapper(rf)
	}
	f.hash = hashString(f.name)
	f.short = f.name[strings.LastIndex(f.name, "/")+1:]
	funcInfos.Store(pc, f)
	return f
}

// mapEnc encodes the maps of one type: key and value with their encoders,
// or, when their types have pure programs (kp, vp), copied into a scratch
// value of the encoder's and read in place. Performance: a map iterator's
// Key and Value allocate a copy of every key and value that is not a
// pointer.
type mapEnc struct {
	key, val encFunc
	kt, vt   reflect.Type
	kp, vp   *prog
}

// scratchVal is an addressable value of one type that the encoder reuses.
type scratchVal struct {
	key unsafe.Pointer // typeKey of its type
	v   reflect.Value
	p   unsafe.Pointer // its address
}

// maxScratch bounds an encoder's scratch values.
const maxScratch = 16

// scratchOf returns an addressable value of type t and its address, the
// same one each call when there is room to keep it. Only values with pure
// programs are read from it: reading one encodes no map, so nothing else
// uses it meanwhile.
func (e *encoder) scratchOf(t reflect.Type) (reflect.Value, unsafe.Pointer) {
	k := typeKey(t)
	for i := range e.vals {
		if e.vals[i].key == k {
			return e.vals[i].v, e.vals[i].p
		}
	}
	v := reflect.New(t).Elem()
	p := unsafe.Pointer(v.UnsafeAddr())
	if len(e.vals) < maxScratch {
		e.vals = append(e.vals, scratchVal{k, v, p})
	}
	return v, p
}

// encodeMap encodes entries sorted by their encoded keys.
func (e *encoder) encodeMap(v reflect.Value, m *mapEnc) {
	n := v.Len()
	e.buf = binary.AppendUvarint(e.buf, uint64(n))
	if n == 0 {
		return
	}
	start := len(e.buf)
	base := len(e.tmp)
	// A map reached through an unexported field cannot be copied from
	// (SetIterKey): the iterator's copies then.
	kp, vp := m.kp, m.vp
	if !v.CanInterface() {
		kp, vp = nil, nil
	}
	var kv, vv reflect.Value
	var ka, va unsafe.Pointer
	if kp != nil {
		kv, ka = e.scratchOf(m.kt)
	}
	if vp != nil {
		vv, va = e.scratchOf(m.vt)
	}
	var it reflect.MapIter
	it.Reset(v)
	// Each entry is encoded as if alone after what came before the map:
	// the pointers its encoding follows are forgotten after it, so that
	// a target two entries share is encoded in both, whatever the order
	// in which Go iterates the map.
	mark := e.seen.len()
	for it.Next() {
		e.seen.truncate(mark)
		ks := len(e.buf)
		if kp != nil {
			kv.SetIterKey(&it)
			e.plain(kp.ops, ka)
		} else {
			m.key(e, it.Key())
		}
		ke := len(e.buf)
		if vp != nil {
			vv.SetIterValue(&it)
			e.plain(vp.ops, va)
		} else {
			m.val(e, it.Value())
		}
		e.tmp = append(e.tmp, mapEntry{ks, ke, len(e.buf)})
		e.grow()
	}
	e.seen.truncate(mark)
	it.Reset(reflect.Value{})
	entries := e.tmp[base:]
	if n > 1 {
		buf := e.buf
		slices.SortFunc(entries, func(a, b mapEntry) int {
			c := bytes.Compare(buf[a.keyStart:a.keyEnd], buf[b.keyStart:b.keyEnd])
			if c == 0 {
				// Distinct keys can encode equal (pointer keys
				// whose targets are equal); order such entries by
				// their values too, or the encoding follows Go's
				// random map iteration order.
				c = bytes.Compare(buf[a.keyEnd:a.end], buf[b.keyEnd:b.end])
			}
			return c
		})
		// Performance: the region is copied to a scratch buffer that
		// the encoder reuses (nothing is encoded while it is in use).
		e.scratch = append(e.scratch[:0], e.buf[start:]...)
		region := e.scratch
		out := e.buf[:start]
		for _, en := range entries {
			out = append(out, region[en.keyStart-start:en.end-start]...)
		}
		e.buf = out
	}
	e.tmp = e.tmp[:base]
}

// mix combines hashes in order.
func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	return h * 0xff51afd7ed558ccd
}

func hashString(s string) uint64 { return xxhash.Sum64String(s) }

// hashNode hashes one node's service struct, its bit 0 set when the struct
// holds what hashing cannot read (see holdsHidden).
func (s *Sim) hashNode(svc sim.Service) uint64 {
	h, _ := s.stateHash(svc, true)
	return h&^1 | s.hidden()
}

// msgHash hashes a message in flight, once.
func (s *Sim) msgHash(p *pending) uint64 {
	if p.hash == 0 {
		h, ok := s.messageHash(p.msg)
		if !ok {
			return 1
		}
		p.hash = h
	}
	return p.hash
}

// messageHash hashes a message as msgHash caches it: bit 0 set (a hash
// that is not 0), bit 1 when the message holds what hashing cannot read
// (see holdsHidden); false when its encoding stopped (see HashErr).
func (s *Sim) messageHash(msg sim.Message) (uint64, bool) {
	h, ok := s.hashValue(msg)
	return h&^2 | 1 | s.hidden()<<1, ok
}

// hashValue hashes a node's struct or a message (see stateHash); false
// when its encoding stopped (see HashErr).
func (s *Sim) hashValue(v any) (uint64, bool) { return s.stateHash(v, true) }

// stateHash hashes v straight from memory (see hashPure) when v's type
// (or, for a pointer, its target's type) has a hashable program and v's
// encoding is within the simulator's bound and maxPure; else it hashes
// v's canonical encoding, within the simulator's bound when bounded (false
// when that stopped), without one otherwise.
func (s *Sim) stateHash(v any, bounded bool) (uint64, bool) {
	h, ok := s.readHash(v, bounded)
	s.lastHidden = s.enc.hidden
	if s.lastHidden != "" {
		s.enc.hidden = ""
		hiddenSeen.Store(true)
	}
	return h, ok
}

// hidden returns 1 when the value stateHash hashed last holds what hashing
// cannot read (see Sim.HiddenState), 0 otherwise.
func (s *Sim) hidden() uint64 {
	if s.lastHidden != "" {
		return 1
	}
	return 0
}

// readHash is stateHash without the note of hidden state.
func (s *Sim) readHash(v any, bounded bool) (uint64, bool) {
	if v != nil {
		te := s.enc.dynamic(reflect.TypeOf(v))
		if p := te.prog; p != nil && p.hashable {
			left := min(s.maxBytes, maxPure) - 8
			h := step(prime5, te.hash)
			at := efaceData(&v)
			if te.ptr {
				left--
				if at == nil {
					return avalanche(step(h, 0)), true
				}
				h = step(h, 1)
			}
			if h, left = hashPure(&s.enc, h, left, p.ops, at); left >= 0 {
				return avalanche(h), true
			}
		}
	}
	if !bounded {
		return s.valueHash(v), true
	}
	if !s.encode(v) {
		return 0, false
	}
	return xxhash.Sum64(s.enc.buf), true
}

// encode encodes v into s.enc.buf within the simulator's bound; on a stop
// it records an *EncodingError (see HashErr) and returns false.
func (s *Sim) encode(v any) (ok bool) {
	e := &s.enc
	e.buf = e.buf[:0]
	e.interrupt = s.deadline
	e.arm(s.maxBytes)
	defer func() {
		if r := recover(); r != nil {
			stop, isStop := r.(encodeStop)
			if !isStop {
				panic(r)
			}
			e.seen.truncate(0)
			e.tmp = e.tmp[:0]
			if s.encErr == nil {
				s.encErr = s.encodingError(v, s.maxBytes, stop.interrupted)
			}
			if cap(e.buf) > 4*checkEvery {
				e.buf = nil // do not keep a huge buffer
			}
			ok = false
		}
	}()
	e.value(v)
	return true
}

// HashErr returns the first error met while encoding the state for Hash
// (and the determinism and copy checks): an *EncodingError for a node or
// message past Options.MaxStateBytes, or one interrupted (SetInterrupt).
// While it is set, Hash answers are not to be trusted.
func (s *Sim) HashErr() error { return s.encErr }

// SetInterrupt makes long state encodings call stop every megabyte and
// give up with an *EncodingError (Interrupted set) when it returns true:
// cancellation and time budgets then reach inside one huge encoding. nil
// turns it off.
func (s *Sim) SetInterrupt(stop func() bool) { s.deadline = stop }

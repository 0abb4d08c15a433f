package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sync"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// Programs. A value whose type has a program is encoded in place from its
// address by a flat list of operations, the same bytes as the reflect
// encoders give, without a reflect.Value and an encoder call per field.
// Performance: services and messages are mostly structs of numbers,
// strings and slices of them, and a state hash encodes a node after every
// step. A program reads bools, numbers and strings, slices of values that
// have a pure program (below), and arrays and structs of all these; a
// field it cannot read that way (a map, a pointer, an interface, a type
// with a sim.Canonicalizer) it hands to the field's encoder (opField) on
// an addressable reflect.Value of the field, which is what the struct
// encoder does too.
//
// A pure program has no opField: it reads memory and calls nothing. A safe
// program may run on memory that must not be written (the value inside an
// interface): its opFields only reach such memory's fields through
// encoders that never call a method with the field's address (interfaces,
// maps, pointers and slices copy or reach other memory first, and a type
// from which no sim.Canonicalizer can be reached calls no method at all).

type plainOp struct {
	kind uint8
	n    uint32 // opWords: how many
	off  uintptr
	sub  *opSub // opSlice, opField
}

// opSub is the rest of an opSlice or opField.
type opSub struct {
	// elem is, for an opSlice, the elements' program (pure); for an
	// opField of a tree pointer, its target's program; for one of a tree
	// map, its values' program.
	elem  *prog
	size  uintptr        // opSlice: the elements' size
	enc   encFunc        // opField: the field's encoder
	ptr   unsafe.Pointer // opField: typeKey of a pointer to the field's type
	iface bool           // opField: the field is an empty interface (any)
	// tree is, for an opField, treeMap or treePtr when the field is a map
	// or a pointer that hashPure reads (see treeProg), treeNone otherwise.
	tree uint8
	key  *prog // tree map: its keys' program
	// vptr is, for a tree map whose values are tree pointers, the
	// program of what they point to.
	vptr *prog
	kt   reflect.Type // tree map: its keys' type
	vt   reflect.Type // tree map: its values' type
	// small: a tree map's small maps are read in place (see smallLayout),
	// their slots slot bytes apart, the value elemOff bytes into one.
	small         bool
	slot, elemOff uintptr
}

// The kinds of tree fields.
const (
	treeNone = iota
	treeMap
	treePtr
)

const (
	opBool = iota
	opI8
	opI16
	opI32
	opI64
	opU8
	opU16
	opU32
	opU64
	opF32
	opF64
	opC64
	opC128
	opStr
	opBytes // a slice of bytes: its length and its bytes
	opSlice // a slice: its length and its elements, each with sub.elem
	opField // a field handed to its encoder
	opWords // n 8-byte numbers side by side, encoded as they are (opI64, opU64, opF64)
	opNone
)

// prog is a type's program.
type prog struct {
	ops  []plainOp
	pure bool
	safe bool
	// hashable: its only opFields are empty interfaces, which hashPure
	// reads when they hold values (not pointers) of hashable types, and
	// tree maps and pointers. tree: its only opFields are tree maps and
	// pointers (see treeProg).
	hashable bool
	tree     bool
	// scalar is the kind of the only op when the program reads one
	// number, bool or string at offset 0 (opNone otherwise): a slice of
	// such values is encoded (and hashed) in one tight loop.
	scalar uint8
	// flat, when the program reads only numbers and bools (a value of
	// fixed size), is what hashPure feeds the hash: one word (see word)
	// per flatOp, width bytes of the canonical encoding in all; a slice
	// of such values is hashed in one loop. words is set when they are
	// the value's memory itself: 8-byte numbers side by side that fill
	// it.
	flat  []flatOp
	width int
	words bool
}

// flatOp is a word of a flat program: the number of kind k at offset off
// (a bool is read as an opU8, a complex as its two parts).
type flatOp struct {
	off  uintptr
	kind uint8
}

// maxPlainOps bounds a program's length; a longer array is handed to its
// encoder, a longer type has no program.
const maxPlainOps = 256

var progCache sync.Map // reflect.Type -> *prog (nil: none)

// progFor returns t's program, or nil when t has none: t is not a bool,
// number, string, slice, array or struct, t or *t is a sim.Canonicalizer
// or has a registered canonical form, or its program would be too long.
// A struct that encodes to nothing (a message without fields) has a
// program without operations.
func progFor(t reflect.Type) *prog {
	if p, ok := progCache.Load(t); ok {
		return p.(*prog)
	}
	p := buildProg(t, nil)
	progCache.Store(t, p)
	return p
}

// buildProg builds t's program. visiting holds the types whose programs
// are being built around this one: a type that reaches itself through
// slices (a tree) gets no program below itself, its slice is handed to
// its encoder instead.
func buildProg(t reflect.Type, visiting []reflect.Type) *prog {
	if slices.Contains(visiting, t) {
		return nil
	}
	b := newBuilder(t, visiting)
	if !b.add(t, 0) {
		return nil
	}
	return b.prog()
}

func newBuilder(t reflect.Type, visiting []reflect.Type) progBuilder {
	return progBuilder{size: t.Size(), visiting: append(slices.Clip(visiting), t), pure: true, safe: true, hashable: true, tree: true}
}

// prog returns the program built.
func (b *progBuilder) prog() *prog {
	p := &prog{ops: words(b.ops), pure: b.pure, safe: b.safe, hashable: b.hashable, tree: b.tree, scalar: opNone}
	if len(p.ops) == 1 && p.ops[0].off == 0 {
		switch op := p.ops[0]; {
		case op.kind <= opStr:
			p.scalar = op.kind
		case op.kind == opWords && op.n == 1:
			p.scalar = opU64
		}
	}
	p.flat, p.width = flatten(p.ops)
	p.words = p.flat != nil && p.width == 8*len(p.flat) && uintptr(p.width) == b.size
	for i, f := range p.flat {
		p.words = p.words && f.kind == opU64 && f.off == uintptr(8*i)
	}
	return p
}

// flatten returns the words that hashPure feeds the hash for ops and the
// canonical encoding's size, or nil when ops read a string, a slice or a
// field.
func flatten(ops []plainOp) ([]flatOp, int) {
	var flat []flatOp
	width := 0
	for _, op := range ops {
		switch op.kind {
		case opBool:
			flat = append(flat, flatOp{op.off, opU8})
			width++
		case opWords:
			for i := range uintptr(op.n) {
				flat = append(flat, flatOp{op.off + 8*i, opU64})
			}
			width += 8 * int(op.n)
		case opC64:
			flat = append(flat, flatOp{op.off, opF32}, flatOp{op.off + 4, opF32})
			width += 16
		case opC128:
			flat = append(flat, flatOp{op.off, opF64}, flatOp{op.off + 8, opF64})
			width += 16
		case opStr, opBytes, opSlice, opField:
			return nil, 0
		default:
			flat = append(flat, flatOp{op.off, op.kind})
			width += 8
		}
	}
	if flat == nil {
		return nil, 0
	}
	return slices.Clip(flat), width
}

// words merges the runs of 8-byte numbers that lie side by side into
// opWords: their canonical encodings are their 8 bytes (little-endian),
// so a run is encoded, and hashed, in one loop.
func words(ops []plainOp) []plainOp {
	var out []plainOp
	for _, op := range ops {
		switch op.kind {
		case opI64, opU64, opF64:
			if n := len(out); n > 0 && out[n-1].kind == opWords && out[n-1].off+8*uintptr(out[n-1].n) == op.off {
				out[n-1].n++
				continue
			}
			op.kind, op.n = opWords, 1
		}
		out = append(out, op)
	}
	return slices.Clip(out)
}

type progBuilder struct {
	size                       uintptr // of the type whose program it builds
	ops                        []plainOp
	visiting                   []reflect.Type
	pure, safe, hashable, tree bool
}

// hasCanon reports whether t or *t is a sim.Canonicalizer, or t has a
// registered canonical form: its encoder calls them.
func hasCanon(t reflect.Type) bool {
	if t.Implements(canonType) || reflect.PointerTo(t).Implements(canonType) {
		return true
	}
	_, ok := registered(t)
	return ok
}

// add appends the program of a value of type t at offset off, or returns
// false (leaving ops as they were) when t cannot be read in place.
func (b *progBuilder) add(t reflect.Type, off uintptr) bool {
	if len(b.ops) > maxPlainOps || hasCanon(t) {
		return false
	}
	sized := func(k8, k16, k32, k64 uint8) uint8 {
		switch t.Size() {
		case 1:
			return k8
		case 2:
			return k16
		case 4:
			return k32
		}
		return k64
	}
	op := func(kind uint8) bool {
		b.ops = append(b.ops, plainOp{kind: kind, off: off})
		return true
	}
	switch t.Kind() {
	case reflect.Bool:
		return op(opBool)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return op(sized(opI8, opI16, opI32, opI64))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return op(sized(opU8, opU16, opU32, opU64))
	case reflect.Float32:
		return op(opF32)
	case reflect.Float64:
		return op(opF64)
	case reflect.Complex64:
		return op(opC64)
	case reflect.Complex128:
		return op(opC128)
	case reflect.String:
		return op(opStr)
	case reflect.Slice:
		// The same bytes as the slice encoder: the elements of a byte
		// slice raw, others each by its encoder.
		el := t.Elem()
		if el.Kind() == reflect.Uint8 {
			return op(opBytes)
		}
		var ep *prog
		if p, ok := progCache.Load(el); ok {
			ep = p.(*prog)
		} else {
			ep = buildProg(el, b.visiting)
		}
		if ep == nil || !ep.pure {
			return false
		}
		b.ops = append(b.ops, plainOp{kind: opSlice, off: off, sub: &opSub{elem: ep, size: el.Size()}})
		return true
	case reflect.Array:
		el, n := t.Elem(), len(b.ops)
		for i := 0; i < t.Len(); i++ {
			if !b.add(el, off+uintptr(i)*el.Size()) {
				b.ops = b.ops[:n]
				return false
			}
		}
		return true
	case reflect.Struct:
		// The same fields as the struct encoder, in the same order.
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !encodedField(f) {
				continue
			}
			if !b.add(f.Type, off+f.Offset) {
				b.field(f.Type, off+f.Offset)
			}
		}
		return true
	}
	return false
}

// field appends an opField: the field of type t at offset off is handed to
// its encoder.
func (b *progBuilder) field(t reflect.Type, off uintptr) {
	b.pure = false
	sub := &opSub{enc: encoderFor(t), ptr: typeKey(reflect.PointerTo(t))}
	sub.iface = t.Kind() == reflect.Interface && t.NumMethod() == 0 // hashIface reads an empty interface's words
	if !hasCanon(t) {
		switch t.Kind() {
		case reflect.Map:
			if kp, vp := b.treeProg(t.Key()), b.treeProg(t.Elem()); kp != nil && vp != nil {
				sub.tree, sub.key, sub.elem, sub.kt, sub.vt = treeMap, kp, vp, t.Key(), t.Elem()
				if len(vp.ops) == 1 && vp.ops[0].off == 0 && vp.ops[0].kind == opField && vp.ops[0].sub.tree == treePtr {
					sub.vptr = vp.ops[0].sub.elem
				}
				sub.slot, sub.elemOff, sub.small = smallLayout(t)
			}
		case reflect.Pointer:
			if ep := b.treeProg(t.Elem()); ep != nil {
				sub.tree, sub.elem = treePtr, ep
			}
		}
	}
	b.hashable = b.hashable && (sub.iface || sub.tree != treeNone)
	b.tree = b.tree && sub.tree != treeNone
	switch t.Kind() {
	case reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice:
	default:
		if needsClean(t) {
			b.safe = false
		}
	}
	b.ops = append(b.ops, plainOp{kind: opField, off: off, sub: sub})
}

// treeProg returns the program of a value of type t at offset 0 when it is
// a tree one, nil otherwise. A tree program reads a tree of memory: its
// opFields are only maps whose keys and values have tree programs and
// pointers to values with tree programs (a pointer or a map is read by
// an opField of a program of its own), so hashPure reads it all. No type
// with a tree program reaches itself (visiting cuts every cycle of types)
// nor an interface, so a value read by one holds no cycle of pointers,
// and its encoding no back-reference: each pointer is followed, as the
// encoder does.
func (b *progBuilder) treeProg(t reflect.Type) *prog {
	if slices.Contains(b.visiting, t) {
		return nil
	}
	if p, ok := progCache.Load(t); ok && p.(*prog) != nil && p.(*prog).tree {
		return p.(*prog)
	}
	tb := newBuilder(t, b.visiting)
	if !tb.add(t, 0) {
		tb.field(t, 0)
	}
	if !tb.tree {
		return nil
	}
	return tb.prog()
}

// pointerShaped reports whether an interface holds a value of type t in
// its data word itself rather than a pointer to it (the compiler's rule).
func pointerShaped(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() == 1 && pointerShaped(t.Elem())
	case reflect.Struct:
		return t.NumField() == 1 && pointerShaped(t.Field(0).Type)
	}
	return false
}

// plain encodes the value at p with its program. Performance: the buffer
// is kept in a local variable between the calls that need it in the
// encoder (storing it there costs a write barrier while the collector
// runs).
func (e *encoder) plain(ops []plainOp, p unsafe.Pointer) {
	buf := e.buf
	for i := range ops {
		op := &ops[i]
		q := unsafe.Add(p, op.off)
		switch op.kind {
		case opBytes:
			b := *(*[]byte)(q)
			e.need(len(buf), len(b))
			buf = binary.AppendUvarint(buf, uint64(len(b)))
			e.buf = append(buf, b...)
			e.grow()
			buf = e.buf
		case opSlice:
			e.buf = buf
			e.slice(op.sub, q)
			buf = e.buf
		case opField:
			e.buf = buf
			op.sub.enc(e, addrValue(op.sub.ptr, q))
			buf = e.buf
		case opWords:
			for _, w := range unsafe.Slice((*uint64)(q), op.n) {
				buf = binary.LittleEndian.AppendUint64(buf, w)
			}
		case opStr:
			e.need(len(buf), len(*(*string)(q)))
			buf = appendScalar(buf, op.kind, q)
		default:
			buf = appendScalar(buf, op.kind, q)
		}
	}
	e.buf = buf
}

// addrValue returns the addressable reflect.Value of the value at p, whose
// type's pointer type has typeKey ptr: reflect.NewAt without its look-up
// of the pointer type (a sync.Map for most types, a tenth of the time of
// hashing a node with maps).
func addrValue(ptr, p unsafe.Pointer) reflect.Value {
	var x any
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&x))
	w[0], w[1] = ptr, p // x holds a pointer: its data word is the pointer itself
	return reflect.ValueOf(x).Elem()
}

// slice encodes the slice at q, whose elements have program sub.elem.
func (e *encoder) slice(sub *opSub, q unsafe.Pointer) {
	h := (*[]byte)(q) // the header of a slice of any type
	n := len(*h)
	data := unsafe.Pointer(unsafe.SliceData(*h))
	e.buf = binary.AppendUvarint(e.buf, uint64(n))
	el := sub.elem
	if el.scalar == opNone {
		for i := range n {
			e.plain(el.ops, unsafe.Add(data, uintptr(i)*sub.size))
			e.grow()
		}
		return
	}
	buf := e.buf
	if el.scalar == opStr {
		for i := range n {
			q := unsafe.Add(data, uintptr(i)*sub.size)
			e.need(len(buf), len(*(*string)(q)))
			buf = appendScalar(buf, opStr, q)
			if len(buf) > e.next {
				e.buf = buf
				e.grow()
			}
		}
		e.buf = buf
		return
	}
	e.need(len(buf), n*scalarWidth(el.scalar))
	for i := range n {
		buf = appendScalar(buf, el.scalar, unsafe.Add(data, uintptr(i)*sub.size))
		if len(buf) > e.next {
			e.buf = buf
			e.grow()
		}
	}
	e.buf = buf
}

// scalarWidth is the length of appendScalar's encoding of a bool or a
// number of kind k.
func scalarWidth(k uint8) int {
	switch k {
	case opBool:
		return 1
	case opC64, opC128:
		return 16
	}
	return 8
}

// appendScalar appends the encoding of the bool, number or string of kind
// k at q.
func appendScalar(buf []byte, k uint8, q unsafe.Pointer) []byte {
	le := binary.LittleEndian
	switch k {
	case opBool:
		if *(*bool)(q) {
			return append(buf, 1)
		}
		return append(buf, 0)
	case opStr:
		s := *(*string)(q)
		return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
	case opC64:
		c := *(*complex64)(q)
		return le.AppendUint64(le.AppendUint64(buf, math.Float64bits(float64(real(c)))), math.Float64bits(float64(imag(c))))
	case opC128:
		c := *(*complex128)(q)
		return le.AppendUint64(le.AppendUint64(buf, math.Float64bits(real(c))), math.Float64bits(imag(c)))
	}
	return le.AppendUint64(buf, word(k, q))
}

// Pure hashing. The simulator hashes a node's struct, a message or a
// monitor whose type (or, for a pointer, whose target's type) has a
// hashable program straight from memory (pureHash): the values its
// canonical encoding would hold, fed one by one to xxh64's round, in place
// of encoding them to a buffer and hashing the buffer; a map's entries are
// hashed each on its own and summed (hashMap), where the encoding sorts
// them. Values of one type are always hashed the same way, so equal values
// hash equal; a value whose encoding would pass maxPure bytes (or the
// simulator's bound) is encoded instead, where the bound and the
// interruption apply. AppendCanonical and Hash are not affected.
// Performance: most nodes and messages have hashable programs, and this
// halves what hashing one costs (for a node with small maps, a third).

// maxPure bounds the encoded size of a value hashed straight from memory.
const maxPure = checkEvery

// xxh64's primes.
const (
	prime1 = 11400714785074694791
	prime2 = 14029467366897019727
	prime3 = 1609587929392839161
	prime4 = 9650029242287828579
	prime5 = 2870177450012600261
)

// step feeds x to h: xxh64's round and merge of an 8-byte word.
func step(h, x uint64) uint64 {
	x *= prime2
	x = bits.RotateLeft64(x, 31)
	x *= prime1
	h ^= x
	return bits.RotateLeft64(h, 27)*prime1 + prime4
}

// avalanche is xxh64's finalizer.
func avalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

// uvarintLen is the length of x's uvarint encoding.
func uvarintLen(x int) int { return (bits.Len64(uint64(x)|1) + 6) / 7 }

// hashPure feeds the value at p, whose hashable program is ops, to h. left
// is what is left of the size bound, counted in bytes of the canonical
// encoding; it returns negative as soon as the value is found to pass it,
// or to hold in an interface what it cannot read (a pointer, a value
// without a hashable program). e gives the interfaces' types.
func hashPure(e *encoder, h uint64, left int, ops []plainOp, p unsafe.Pointer) (uint64, int) {
	for i := range ops {
		op := &ops[i]
		q := unsafe.Add(p, op.off)
		switch op.kind {
		case opField:
			// A tree map, a tree pointer (as its encoding: 0 for nil,
			// else 1 and the value it points to) or an empty
			// interface. Performance: the pointer, the most common
			// field, is followed here, and an empty map (most maps of
			// most nodes) is hashed here too, as hashMap would.
			switch sub := op.sub; sub.tree {
			case treePtr:
				t := *(*unsafe.Pointer)(q)
				if t == nil {
					h = step(h, 0)
					left--
					continue
				}
				h, left = hashPure(e, step(h, 1), left-1, sub.elem.ops, t)
			case treeMap:
				if n, ok := mapLen(*(*unsafe.Pointer)(q)); ok && n == 0 {
					h = step(h, 0)
					left--
					continue
				}
				h, left = hashMap(e, h, left, sub, q)
			default:
				h, left = hashIface(e, h, left, sub, q)
			}
			if left < 0 {
				return h, left
			}
			continue
		case opWords:
			if op.n == 1 { // the most common run: no loop
				h = step(h, *(*uint64)(q))
				left -= 8
				continue
			}
			for _, w := range unsafe.Slice((*uint64)(q), op.n) {
				h = step(h, w)
			}
			left -= 8 * int(op.n)
			continue
		case opBool:
			h = step(h, uint64(*(*uint8)(q)))
			left--
			continue
		case opStr:
			s := *(*string)(q)
			if left -= uvarintLen(len(s)) + len(s); left < 0 {
				return h, left
			}
			h = hashBytes(h, unsafe.StringData(s), len(s))
			continue
		case opBytes:
			b := *(*[]byte)(q)
			if left -= uvarintLen(len(b)) + len(b); left < 0 {
				return h, left
			}
			h = hashBytes(h, unsafe.SliceData(b), len(b))
			continue
		case opSlice:
			if len(*(*[]byte)(q)) == 0 { // as hashSlice would
				h = step(h, 0)
				left--
				continue
			}
			if h, left = hashSlice(e, h, left, op.sub, q); left < 0 {
				return h, left
			}
			continue
		case opC64:
			c := *(*complex64)(q)
			h = step(step(h, math.Float64bits(float64(real(c)))), math.Float64bits(float64(imag(c))))
			left -= 16
			continue
		case opC128:
			c := *(*complex128)(q)
			h = step(step(h, math.Float64bits(real(c))), math.Float64bits(imag(c)))
			left -= 16
			continue
		}
		h = step(h, word(op.kind, q))
		left -= 8
	}
	return h, left
}

// hashIface is hashPure of the interface at q: nil, or a value whose type
// has a hashable program and whose hash (the type's) tells it apart from
// values of other types.
func hashIface(e *encoder, h uint64, left int, sub *opSub, q unsafe.Pointer) (uint64, int) {
	if !sub.iface {
		return h, -1
	}
	x := *(*any)(q)
	if x == nil {
		return step(h, 0), left - 1
	}
	te := e.dynamic(reflect.TypeOf(x))
	if te.prog == nil || te.ptr || !te.prog.hashable {
		return h, -1
	}
	ops, th := te.prog.ops, te.hash // te may move when the cache grows
	return hashPure(e, step(step(h, 1), th), left-9, ops, efaceData(&x))
}

// hashBytes feeds h the n bytes at p, a string's or a byte slice's: their
// length, added to h, then up to 16 bytes as they are (two words read
// from both ends, which overlap for fewer than 16: the length tells them
// apart; fewer than 8 fill one word), more as their xxhash; an empty one
// is a round of 0. Performance: most strings of a state are short, and
// hashing one this way costs a fraction of a call to xxhash, and one
// round (two from 8 bytes on).
func hashBytes(h uint64, p *byte, n int) uint64 {
	if n == 0 {
		return step(h, 0)
	}
	h += uint64(n)
	le := binary.LittleEndian
	b := unsafe.Slice(p, n)
	switch {
	case n > 16:
		return step(h, xxhash.Sum64(b))
	case n >= 8:
		return step(step(h, le.Uint64(b)), le.Uint64(b[n-8:]))
	case n >= 4:
		return step(h, uint64(le.Uint32(b))|uint64(le.Uint32(b[n-4:]))<<32)
	}
	return step(h, uint64(b[0])|uint64(b[n/2])<<8|uint64(b[n-1])<<16)
}

// hashMap is hashPure of the tree map at q: its length and the sum of its
// entries' hashes. An entry's hash is xxh64's rounds over its key then its
// value, finalized; a sum does not depend on the order of its terms, so
// the map's hash does not depend on the order in which its entries were
// added or are visited (the canonical encoding sorts them instead), and
// two maps whose encodings differ hash equal only by a 2^-64 chance per
// pair. A small map's entries are read where they are (see smallGroup);
// a larger map's key and value are copied to scratch values of the
// encoder's (see scratchOf) and read there: reading them may hash other
// maps, but none with keys or values of the type being read (tree types do
// not reach themselves) but the key's, whose scratch value has been read
// by then.
func hashMap(e *encoder, h uint64, left int, sub *opSub, q unsafe.Pointer) (uint64, int) {
	m := *(*unsafe.Pointer)(q)
	n, ok := mapLen(m)
	if !ok {
		n = addrValue(sub.ptr, q).Len()
	}
	h = step(h, uint64(n))
	if left -= uvarintLen(n); left < 0 || n == 0 {
		return h, left
	}
	kops, vops := sub.key.ops, sub.elem.ops
	var sum uint64
	if sub.small {
		if g, full := smallGroup(m, n); g != nil {
			// Performance: a key that is one number or bool and a
			// value that is a tree pointer are read here.
			ks, vp := sub.key.scalar, sub.vptr
			for ; full != 0; full &= full - 1 {
				at := slotAt(g, full, sub.slot)
				var eh uint64
				l := left
				if ks <= opF64 {
					eh, l = hashScalar(prime5, l, ks, at)
				} else {
					eh, l = hashPure(e, prime5, l, kops, at)
				}
				va := unsafe.Add(at, sub.elemOff)
				switch {
				case vp == nil:
					eh, l = hashPure(e, eh, l, vops, va)
				case *(*unsafe.Pointer)(va) == nil:
					eh, l = step(eh, 0), l-1
				default:
					eh, l = hashPure(e, step(eh, 1), l-1, vp.ops, *(*unsafe.Pointer)(va))
				}
				if left = l; left < 0 {
					return h, left
				}
				sum += avalanche(eh)
			}
			return step(h, sum), left
		}
	}
	kv, ka := e.scratchOf(sub.kt)
	vv, va := e.scratchOf(sub.vt)
	var it reflect.MapIter
	it.Reset(addrValue(sub.ptr, q))
	for it.Next() {
		kv.SetIterKey(&it)
		eh, l := hashPure(e, prime5, left, kops, ka)
		if l >= 0 {
			vv.SetIterValue(&it)
			eh, l = hashPure(e, eh, l, vops, va)
		}
		if left = l; left < 0 {
			break
		}
		sum += avalanche(eh)
	}
	it.Reset(reflect.Value{})
	return step(h, sum), left
}

// hashSlice is hashPure of the slice at q, whose elements have program
// sub.elem.
func hashSlice(e *encoder, h uint64, left int, sub *opSub, q unsafe.Pointer) (uint64, int) {
	hdr := (*[]byte)(q) // the header of a slice of any type
	n := len(*hdr)
	data := unsafe.Pointer(unsafe.SliceData(*hdr))
	h = step(h, uint64(n))
	left -= uvarintLen(n)
	el := sub.elem
	if el.flat != nil {
		if left -= el.width * n; left < 0 {
			return h, left
		}
		if el.words {
			for _, x := range unsafe.Slice((*uint64)(data), n*len(el.flat)) {
				h = step(h, x)
			}
			return h, left
		}
		for i := range n {
			p := unsafe.Add(data, uintptr(i)*sub.size)
			for _, f := range el.flat {
				h = step(h, word(f.kind, unsafe.Add(p, f.off)))
			}
		}
		return h, left
	}
	if el.scalar == opStr {
		for _, s := range unsafe.Slice((*string)(data), n) {
			if left -= uvarintLen(len(s)) + len(s); left < 0 {
				return h, left
			}
			h = hashBytes(h, unsafe.StringData(s), len(s))
		}
		return h, left
	}
	for i := range n {
		if h, left = hashPure(e, h, left, el.ops, unsafe.Add(data, uintptr(i)*sub.size)); left < 0 {
			return h, left
		}
	}
	return h, left
}

// hashScalar feeds h the bool or number (not a complex) of kind k at q,
// and takes its encoded size from left.
func hashScalar(h uint64, left int, k uint8, q unsafe.Pointer) (uint64, int) {
	if k == opBool {
		return step(h, uint64(*(*uint8)(q))), left - 1
	}
	return step(h, word(k, q)), left - 8
}

// word returns the number of kind k (not a bool or complex) at q as the
// 8 bytes the canonical encoding holds.
func word(k uint8, q unsafe.Pointer) uint64 {
	switch k {
	case opI8:
		return uint64(int64(*(*int8)(q)))
	case opI16:
		return uint64(int64(*(*int16)(q)))
	case opI32:
		return uint64(int64(*(*int32)(q)))
	case opU8:
		return uint64(*(*uint8)(q))
	case opU16:
		return uint64(*(*uint16)(q))
	case opU32:
		return uint64(*(*uint32)(q))
	case opF32:
		return math.Float64bits(float64(*(*float32)(q)))
	}
	return *(*uint64)(q) // opI64, opU64, opF64
}

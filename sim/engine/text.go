package engine

import (
	"bytes"
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/macemc/macemc/sim"
)

// FormatValue returns a stable one-line text form of v, e.g.
// "Ack{seq: 6001, syn: true}": fields in declaration order (unexported
// ones included, tagged `macemc:"-"` ones and those that are no state
// left out), maps in key order, pointers followed, no addresses; a
// struct, array or slice with a text form of its own
// (encoding.TextMarshaler: a decimal, a UUID, a time) as that text, bytes
// as a quoted string. Logs and event descriptions use it.
func FormatValue(v any) string {
	f := formatter{limit: maxLineValues}
	txt := f.inline(reflect.ValueOf(v))
	if f.n > f.limit {
		txt += " " + cutText
	}
	return txt
}

// FormatState returns a stable multi-line text form of v for the
// debugger's state views and diffs (seed 003 Figure 3): one field per
// line, nested values indented, short values kept on one line.
func FormatState(v any) string {
	f := formatter{limit: maxTextValues}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	var b strings.Builder
	f.block(&b, rv, "")
	if f.n > f.limit {
		b.WriteString(cutText + "\n")
	}
	return b.String()
}

// NodeText returns the text form of node id's state, with its scheduled
// timers and pending driver requests.
func (s *Sim) NodeText(id sim.NodeID) string {
	nd := &s.w.nodes[id]
	var b strings.Builder
	b.WriteString(s.NodeTitle(id) + "\n")
	b.WriteString(s.serviceText(id))
	var armed []string
	for _, t := range nd.timers {
		if t.armed {
			if t.periodic {
				armed = append(armed, t.name+" (periodic)")
			} else {
				armed = append(armed, t.name)
			}
		}
	}
	fmt.Fprintf(&b, "timers: [%s]\n", strings.Join(armed, ", "))
	if nd.appNext < len(nd.app) {
		var reqs []string
		for _, r := range nd.app[nd.appNext:] {
			reqs = append(reqs, FormatValue(r))
		}
		fmt.Fprintf(&b, "driver: [%s]\n", strings.Join(reqs, ", "))
	}
	return b.String()
}

// NodeTitle returns the first line of NodeText, e.g. "node 1 (Chord)": the
// node and the type of its service, without reading its state.
func (s *Sim) NodeTitle(id sim.NodeID) string {
	return fmt.Sprintf("node %d (%s)", id, typeName(reflect.TypeOf(s.w.svcs[id])))
}

// textMemo keeps, for each node, the state text NodeText made last and
// the canonical encoding of the service it was made from.
type textMemo struct {
	enc   encoder
	nodes []nodeText
}

// nodeText is a node's state text and the encoding it was made from (ok:
// made at all).
type nodeText struct {
	enc  []byte
	text string
	ok   bool
}

// serviceText returns FormatState of node id's service. Performance: the
// text made last for the node is reused when the service's canonical
// encoding is the one it was made from. Equal encodings give equal texts:
// the text shows exactly the fields the encoding holds (both leave out
// `macemc:"-"` fields, funcs and channels, and both go through the same
// canonical forms), maps in an order of their contents. Encoding a node
// costs a few percent of formatting it, and along a path most steps leave
// the node whose handler ran as it was: transport's 20,000-step dead path
// changes a node's state 7 times, so the report page, which shows every
// step's state, formats 7 states instead of 20,000.
func (s *Sim) serviceText(id sim.NodeID) string {
	svc := s.w.svcs[id]
	if s.texts == nil {
		s.texts = &textMemo{}
	}
	m := s.texts
	if len(m.nodes) != s.n {
		m.nodes = make([]nodeText, s.n)
	}
	// From scratch, even after an encoding a panicking Canonical cut short.
	m.enc.buf, m.enc.ptrs, m.enc.tmp = m.enc.buf[:0], m.enc.ptrs[:0], m.enc.tmp[:0]
	nm := &m.nodes[id]
	if !m.encode(svc, s.maxBytes) {
		// Past the simulator's bound (a library's type graph reached
		// through a pointer, encoded once per path to each of its
		// objects): no memo, and the text is cut short (see formatter).
		nm.ok = false
		m.enc.buf = nil
		return FormatState(svc)
	}
	if nm.ok && bytes.Equal(nm.enc, m.enc.buf) {
		return nm.text
	}
	nm.ok = false
	nm.text = FormatState(svc)
	nm.enc, nm.ok = append(nm.enc[:0], m.enc.buf...), true
	if cap(m.enc.buf) > 1<<20 {
		m.enc.buf = nil // do not keep a huge buffer
	}
	return nm.text
}

// encode encodes v into m.enc.buf within limit bytes; false when it
// stopped there.
func (m *textMemo) encode(v any, limit int) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, stop := r.(encodeStop); !stop {
				panic(r)
			}
			m.enc.ptrs, m.enc.tmp = m.enc.ptrs[:0], m.enc.tmp[:0]
			ok = false
		}
	}()
	m.enc.interrupt = nil
	m.enc.arm(limit)
	m.enc.value(v)
	return true
}

// NetworkText returns the text form of everything in flight.
func (s *Sim) NetworkText() string {
	var b strings.Builder
	for c := range s.w.conns {
		q := &s.w.conns[c]
		for j := q.head; j < len(q.items); j++ {
			p := &q.items[j]
			fmt.Fprintf(&b, "conn %d->%d: %s\n", p.from, p.to, FormatValue(p.msg))
		}
	}
	for _, p := range s.w.dgrams {
		fmt.Fprintf(&b, "datagram %d->%d: %s\n", p.from, p.to, FormatValue(p.msg))
	}
	for i, nd := range s.w.nodes {
		for _, p := range nd.connErrs {
			fmt.Fprintf(&b, "connerror at %d: peer %d\n", i, p)
		}
	}
	return b.String()
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

// formatter writes the text forms. n counts the values it has formatted:
// past limit it writes "…" in place of each composite value left
// (and the text ends with cutText), so
// that a value whose graph is huge (a library's type information reached
// through a pointer in a message, shared sub-values formatted once per
// path) gives a text cut short instead of one that takes hours and
// gigabytes. The values of a node's text are counted once for each level
// of nesting they are shown at (line formats a value inline before it
// expands it), so the bound is several times the values a text shows.
type formatter struct {
	ptrs     []uintptr
	n, limit int // limit 0: maxLineValues
}

func (f *formatter) max() int {
	if f.limit == 0 {
		return maxLineValues
	}
	return f.limit
}

// composite reports whether values of kind k hold other values: past
// maxTextValues these are cut, scalars still shown.
func composite(k reflect.Kind) bool {
	switch k {
	case reflect.Struct, reflect.Array, reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface:
		return true
	}
	return false
}

// maxTextValues bounds the values a node's text form formats (FormatState,
// memoized per node), maxLineValues those of a one-line form (FormatValue,
// made for every event of a path in logs and the report page).
const (
	maxTextValues = 1 << 16
	maxLineValues = 1 << 11
)

// cutText ends a text form cut at maxTextValues.
const cutText = "(… text cut: too large; give the types that hold the bulk a canonical form, sim.RegisterCanonical, or tag their fields macemc:\"-\")"

const inlineWidth = 72

func (f *formatter) canonical(v reflect.Value) (reflect.Value, bool) {
	if !v.IsValid() || v.Kind() == reflect.Interface {
		return v, false
	}
	if v.Type().Implements(canonType) {
		if cv, ok := clean(v); ok && !(cv.Kind() == reflect.Pointer && cv.IsNil()) {
			return reflect.ValueOf(cv.Interface().(sim.Canonicalizer).Canonical()), true
		}
	} else if v.Kind() != reflect.Pointer && reflect.PointerTo(v.Type()).Implements(canonType) {
		if cv, ok := clean(v); ok {
			// addressable: a map value is not, but a copy of it is.
			if cv = addressable(cv); cv.CanAddr() {
				return reflect.ValueOf(cv.Addr().Interface().(sim.Canonicalizer).Canonical()), true
			}
		}
	} else if fn, ok := registered(v.Type()); ok {
		if cv, ok := clean(v); ok {
			if cv = addressable(cv); cv.CanAddr() {
				return reflect.ValueOf(fn(cv)), true
			}
		}
	}
	return v, false
}

// stateFields returns the indexes of the fields of struct type t that the
// text forms show: those the canonical encoding holds (encodedField). They
// are worked out once per type (logs format a value at every step); the
// slice is shared: callers must not change it.
func stateFields(t reflect.Type) []int {
	if idx, ok := stateFieldsOf.Load(t); ok {
		return idx.([]int)
	}
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		if encodedField(t.Field(i)) {
			idx = append(idx, i)
		}
	}
	stateFieldsOf.Store(t, idx)
	return idx
}

// stateFieldsOf caches stateFields by type.
var stateFieldsOf sync.Map

// inline formats v on one line.
func (f *formatter) inline(v reflect.Value) string {
	if f.n++; f.n > f.max() && v.IsValid() && composite(v.Kind()) {
		return "…"
	}
	if cv, ok := f.canonical(v); ok {
		return f.inline(cv)
	}
	if !v.IsValid() {
		return "nil"
	}
	if noState[v.Type()] {
		return "<" + v.Type().String() + ">"
	}
	if name, ok := stringer(v); ok {
		return name
	}
	if txt, ok := textForm(v); ok {
		return txt
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Complex64, reflect.Complex128:
		return fmt.Sprint(v.Complex())
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "[]"
		}
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Len() > 0 {
			return bytesText(v)
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = f.inline(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Map:
		return "{" + strings.Join(f.mapEntries(v, func(k, val string) string { return k + ": " + val }), ", ") + "}"
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		p := v.Pointer()
		for _, q := range f.ptrs {
			if q == p {
				return "<cycle>"
			}
		}
		f.ptrs = append(f.ptrs, p)
		defer func() { f.ptrs = f.ptrs[:len(f.ptrs)-1] }()
		return "&" + f.inline(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return f.inline(v.Elem())
	case reflect.Struct:
		var parts []string
		v = addressable(v) // see field
		for _, i := range stateFields(v.Type()) {
			parts = append(parts, v.Type().Field(i).Name+": "+f.inline(field(v, i)))
		}
		return typeName(v.Type()) + "{" + strings.Join(parts, ", ") + "}"
	case reflect.Func:
		if v.IsNil() {
			return "nil"
		}
		return "func " + funcOf(v).short
	case reflect.Chan:
		if v.IsNil() {
			return "nil"
		}
		cv, ok := readChan(v, nil)
		if !ok {
			return "<chan>"
		}
		parts := make([]string, len(cv.elems))
		for i, p := range cv.elems {
			parts[i] = f.inline(reflect.NewAt(v.Type().Elem(), p).Elem())
		}
		txt := "chan[" + strings.Join(parts, ", ") + "]"
		if cv.closed {
			txt += " (closed)"
		}
		return txt
	case reflect.UnsafePointer:
		return "<" + v.Kind().String() + ">"
	}
	return "?"
}

func (f *formatter) mapEntries(v reflect.Value, join func(k, v string) string) []string {
	es := canonicalOrder(v)
	type kv struct{ k, v string }
	entries := make([]kv, 0, len(es))
	for i := range es {
		entries = append(entries, kv{f.inline(es[i].key), f.inline(es[i].val)})
	}
	// Ties (distinct keys with the same text, e.g. pointers to equal
	// values) are ordered by value, not left in map iteration order.
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].k == entries[j].k {
			return entries[i].v < entries[j].v
		}
		return lessKey(entries[i].k, entries[j].k)
	})
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = join(e.k, e.v)
	}
	return out
}

var (
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// textForm returns the text a struct, array or slice type gives itself
// through encoding.TextMarshaler (a decimal number, a UUID, a time, an
// address), so that the text forms show "100.00" rather than the big
// integer and exponent inside; the hash still reads every field. A value
// whose MarshalText fails or panics is shown field by field.
func textForm(v reflect.Value) (txt string, ok bool) {
	if !v.IsValid() {
		return "", false
	}
	switch v.Kind() {
	case reflect.Struct, reflect.Array, reflect.Slice:
	default:
		return "", false
	}
	t := v.Type()
	var m encoding.TextMarshaler
	switch {
	case t.Implements(textMarshalerType):
		cv, ok := clean(v)
		if !ok {
			return "", false
		}
		m = cv.Interface().(encoding.TextMarshaler)
	case reflect.PointerTo(t).Implements(textMarshalerType):
		cv, ok := clean(v)
		if !ok {
			return "", false
		}
		if cv = addressable(cv); !cv.CanAddr() {
			return "", false
		}
		m = cv.Addr().Interface().(encoding.TextMarshaler)
	default:
		return "", false
	}
	defer func() {
		if recover() != nil {
			txt, ok = "", false
		}
	}()
	b, err := m.MarshalText()
	if err != nil {
		return "", false
	}
	return string(b), true
}

// bytesText shows a byte slice or array as a quoted string: a log buffer
// or an encoded message reads as text, not as a list of numbers.
func bytesText(v reflect.Value) string {
	if v.Kind() == reflect.Slice {
		if cv, ok := clean(v); ok {
			return strconv.Quote(string(cv.Bytes()))
		}
	}
	b := make([]byte, v.Len())
	for i := range b {
		b[i] = byte(v.Index(i).Uint())
	}
	return strconv.Quote(string(b))
}

// textEntry is a map's entry, with its key's canonical encoding and, when a
// tie asked for it, its value's.
type textEntry struct {
	key, val   reflect.Value
	kenc, venc []byte
}

// canonicalOrder returns map v's entries in the order of their keys'
// canonical encodings (ties, such as pointers to equal values, by their
// values'), not in the map's iteration order: the text forms format them
// in this order, so that which values are cut past a formatter's limit
// ("…") does not depend on the iteration order.
func canonicalOrder(v reflect.Value) []textEntry {
	var es []textEntry
	it := v.MapRange()
	for it.Next() {
		es = append(es, textEntry{key: it.Key(), val: it.Value(), kenc: encodeValue(it.Key())})
	}
	valEnc := func(e *textEntry) []byte {
		if e.venc == nil {
			e.venc = append(encodeValue(e.val), 0) // not nil
		}
		return e.venc
	}
	sort.Slice(es, func(i, j int) bool {
		if c := bytes.Compare(es[i].kenc, es[j].kenc); c != 0 {
			return c < 0
		}
		return bytes.Compare(valEnc(&es[i]), valEnc(&es[j])) < 0
	})
	return es
}

// stringer returns String() of a named scalar type that has one (an enum
// such as a protocol state), so the text form shows "joined" rather than 2;
// the hash still encodes the number. Structs, pointers and collections are
// shown field by field whatever methods they have.
func stringer(v reflect.Value) (string, bool) {
	t := v.Type()
	if t.Name() == "" || !t.Implements(stringerType) {
		return "", false
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.String:
	default:
		return "", false
	}
	cv, ok := clean(v)
	if !ok {
		// Not addressable and reached through an unexported field: copy
		// the scalar into a fresh value of the same type.
		cv = reflect.New(t).Elem()
		switch {
		case v.CanInt():
			cv.SetInt(v.Int())
		case v.CanUint():
			cv.SetUint(v.Uint())
		case t.Kind() == reflect.Bool:
			cv.SetBool(v.Bool())
		default:
			cv.SetString(v.String())
		}
	}
	return cv.Interface().(fmt.Stringer).String(), true
}

// lessKey orders numbers numerically and everything else as text.
func lessKey(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil && x != y {
		return x < y
	}
	return a < b
}

// block writes the fields of a struct (or the value) one per line.
func (f *formatter) block(b *strings.Builder, v reflect.Value, indent string) {
	if cv, ok := f.canonical(v); ok {
		v = cv
	}
	for v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		v = addressable(v)
		for _, i := range stateFields(v.Type()) {
			f.line(b, indent, v.Type().Field(i).Name, field(v, i))
		}
		return
	}
	b.WriteString(indent + f.inline(v) + "\n")
}

// line writes "name: value", expanding value over several lines if long.
func (f *formatter) line(b *strings.Builder, indent, name string, v reflect.Value) {
	one := f.inline(v)
	if len(indent)+len(name)+len(one) <= inlineWidth {
		b.WriteString(indent + name + ": " + one + "\n")
		return
	}
	if cv, ok := f.canonical(v); ok {
		v = cv
	}
	if _, ok := textForm(v); ok {
		b.WriteString(indent + name + ": " + one + "\n")
		return
	}
	// Follow pointers as inline does, keeping the path in f.ptrs, so that
	// a pointer cycle ends.
	depth := len(f.ptrs)
	defer func() { f.ptrs = f.ptrs[:depth] }()
	for (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
		if v.Kind() == reflect.Pointer {
			if slices.Contains(f.ptrs, v.Pointer()) {
				b.WriteString(indent + name + ": " + one + "\n")
				return
			}
			f.ptrs = append(f.ptrs, v.Pointer())
		}
		v = v.Elem()
		if cv, ok := f.canonical(v); ok {
			// A canonical form of the pointed-to type (a registered one:
			// a Canonicalizer is found through the pointer already).
			v = cv
		}
	}
	inner := indent + "  "
	switch v.Kind() {
	case reflect.Struct:
		b.WriteString(indent + name + ": " + typeName(v.Type()) + "{\n")
		v = addressable(v)
		for _, i := range stateFields(v.Type()) {
			f.line(b, inner, v.Type().Field(i).Name, field(v, i))
		}
		b.WriteString(indent + "}\n")
	case reflect.Map:
		b.WriteString(indent + name + ": {\n")
		type kv struct {
			k string
			v reflect.Value
		}
		var entries []kv
		for _, e := range canonicalOrder(v) {
			entries = append(entries, kv{f.inline(e.key), e.val})
		}
		// Keys with the same text (pointers to equal values) stay in the
		// canonical order.
		sort.SliceStable(entries, func(i, j int) bool { return lessKey(entries[i].k, entries[j].k) })
		for _, e := range entries {
			f.line(b, inner, e.k, e.v)
		}
		b.WriteString(indent + "}\n")
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Len() > 0 {
			b.WriteString(indent + name + ": " + bytesText(v) + "\n")
			return
		}
		b.WriteString(indent + name + ": [\n")
		for i := 0; i < v.Len(); i++ {
			f.line(b, inner, strconv.Itoa(i), v.Index(i))
		}
		b.WriteString(indent + "]\n")
	default:
		b.WriteString(indent + name + ": " + one + "\n")
	}
}

package engine

import (
	"bytes"
	"encoding"
	"fmt"
	"github.com/cespare/xxhash/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/internal/hook"
)

// FormatValue returns a stable one-line text form of v, e.g.
// "Ack{seq: 6001, syn: true}": fields in declaration order (unexported
// ones included, tagged `macemc:"-"` ones and those that are no state
// left out), maps in key order, pointers followed, no addresses; a
// struct, array or slice with a text form of its own
// (encoding.TextMarshaler: a decimal, a UUID, a time) as that text, bytes
// as a quoted string. Two values with the same text are alike for the
// debugger (it pairs a delivery with its send by it); logs and event
// descriptions use FormatValueCut.
func FormatValue(v any) string { return formatValue(v, 0) }

// FormatValueCut is FormatValue with every string or byte slice longer than
// maxString bytes cut there and followed by how many bytes it left out and
// a digest of the whole, e.g. "Blob{Data: "aaaa"… (199,782 bytes more,
// digest 1c0ffee5)}", so that two values that differ past the cut still
// read differently. Logs and one-line mentions of an event use it: quoting
// a 200 KB payload at every logged step of a 20,000-step path took minutes.
func FormatValueCut(v any, maxString int) string { return formatValue(v, maxString) }

func formatValue(v any, maxString int) string {
	f := formatter{limit: maxLineValues, maxString: maxString}
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
	return formatState(v, &formatter{limit: maxTextValues, memo: map[memoKey]memoText{}})
}

// formatState is FormatState with formatter f.
func formatState(v any, f *formatter) string {
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
// timers (their names as safetext.QuoteUnsafe shows them) and pending
// driver requests.
func (s *Sim) NodeText(id sim.NodeID) string {
	nd := &s.w.nodes[id]
	var b strings.Builder
	b.WriteString(s.NodeTitle(id) + "\n")
	if nd.down {
		// Its struct stays as it was when it crashed, as properties
		// see it (sim.All): say that nothing of it runs any more.
		b.WriteString("down: crashed for good (Failures.Crashes); its state below is as it crashed, and nothing of it runs again\n")
	}
	b.WriteString(s.serviceText(id))
	var armed []string
	for _, t := range nd.timers {
		if t.armed {
			// A name is quoted when it holds a newline or a control
			// character: it must not make lines of the state's own.
			name := safetext.QuoteUnsafe(t.name)
			if t.periodic {
				armed = append(armed, name+" (periodic)")
			} else {
				armed = append(armed, name)
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
	m.enc.buf, m.enc.tmp = m.enc.buf[:0], m.enc.tmp[:0]
	m.enc.seen.truncate(0)
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
			m.enc.seen.truncate(0)
			m.enc.tmp = m.enc.tmp[:0]
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
			fmt.Fprintf(&b, "conn %d->%d: %s\n", p.from, p.to, s.messageText(p))
		}
	}
	for i := range s.w.dgrams {
		p := &s.w.dgrams[i]
		fmt.Fprintf(&b, "datagram %d->%d: %s\n", p.from, p.to, s.messageText(p))
	}
	for i, nd := range s.w.nodes {
		for _, p := range nd.connErrs {
			fmt.Fprintf(&b, "connerror at %d: peer %d\n", i, p)
		}
	}
	return b.String()
}

// messageText is FormatValue of the message in flight p, remembered by
// its type and canonical hash (msgHash, cached with it): NetworkText,
// which a report page asks for after every step, formats each message
// once, not once a step for as long as it is in flight. A message that
// holds what hashing cannot read is formatted afresh.
func (s *Sim) messageText(p *pending) string {
	h := s.msgHash(p)
	if h == 1 || h&2 != 0 {
		return FormatValue(p.msg)
	}
	k := textKey{h, reflect.TypeOf(p.msg)}
	if t, ok := s.msgTexts[k]; ok {
		return t
	}
	if len(s.msgTexts) >= 1<<14 || s.msgTexts == nil {
		s.msgTexts = make(map[textKey]string)
	}
	t := FormatValue(p.msg)
	s.msgTexts[k] = t
	return t
}

// textKey names a message's text: its canonical hash and its type.
type textKey struct {
	hash uint64
	t    reflect.Type
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
	// maxString, when not 0, bounds the bytes of a string (or byte
	// slice) shown (FormatValueCut).
	maxString int
	// memo, when not nil, keeps the one-line text of every addressable
	// composite value formatted (see inline).
	memo map[memoKey]memoText
}

// memoKey names a value the formatter met: where it is, its type, and the
// pointers followed to reach it (a pointer back to one of them is shown as
// "<cycle>", so the text depends on them).
type memoKey struct {
	addr uintptr
	t    reflect.Type
	path uint64
}

// memoText is a value's one-line text and how many values formatting it
// counted (formatter.n).
type memoText struct {
	text string
	n    int
}

// pathKey hashes the pointers followed to the value being formatted.
func (f *formatter) pathKey() uint64 {
	h := uint64(len(f.ptrs))
	for _, p := range f.ptrs {
		h = step(h, uint64(p))
	}
	return h
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
	return f.canonicalOf(v, textTypeOf(v.Type()))
}

// canonicalOf is canonical of a valid value v of a type other than an
// interface, of which tt says what the text forms ask.
func (f *formatter) canonicalOf(v reflect.Value, tt *textType) (reflect.Value, bool) {
	switch {
	case tt.canonValue:
		if cv, ok := clean(v); ok && !(cv.Kind() == reflect.Pointer && cv.IsNil()) {
			return reflect.ValueOf(cv.Interface().(sim.Canonicalizer).Canonical()), true
		}
	case tt.canonPtr:
		if cv, ok := clean(v); ok {
			// addressable: a map value is not, but a copy of it is.
			if cv = addressable(cv); cv.CanAddr() {
				return reflect.ValueOf(cv.Addr().Interface().(sim.Canonicalizer).Canonical()), true
			}
		}
	case tt.form != nil:
		if cv, ok := clean(v); ok {
			if cv = addressable(cv); cv.CanAddr() {
				return reflect.ValueOf(tt.form(cv)), true
			}
		}
	}
	return v, false
}

// textType is what the text forms ask of a type, worked out once per type
// (and again once a canonical form is registered: hook.Generation).
// Performance: asking reflect whether a type implements an interface, and
// looking up registered forms, took a third of the time of formatting a
// large node's state (etcd raft's, made at every step of a report page:
// 30.1 s of that page, 20.5 s with these answers kept).
type textType struct {
	gen uint64
	// canonValue: the type implements sim.Canonicalizer; canonPtr: its
	// pointer does (it is no pointer); form: otherwise, its registered
	// or library form (registered).
	canonValue, canonPtr bool
	form                 func(reflect.Value) any
	// stringer: a named scalar type with a String method (see stringer).
	stringer bool
	// marshalValue, marshalPtr: a struct, array or slice type, or its
	// pointer, implements encoding.TextMarshaler (see textForm).
	marshalValue, marshalPtr bool
	// name is typeName's; fields and names the fields a struct's text
	// shows (stateFields) and their names.
	name   string
	fields []int
	names  []string
}

// textTypes caches textTypeOf: reflect.Type -> *textType.
var textTypes sync.Map

// textTypeOf returns what the text forms ask of type t.
func textTypeOf(t reflect.Type) *textType {
	gen := hook.Generation()
	if x, ok := textTypes.Load(t); ok {
		if tt := x.(*textType); tt.gen == gen {
			return tt
		}
	}
	tt := &textType{gen: gen}
	if t.Kind() != reflect.Interface {
		switch {
		case t.Implements(canonType):
			tt.canonValue = true
		case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(canonType):
			tt.canonPtr = true
		default:
			tt.form, _ = registered(t)
		}
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.String:
		tt.stringer = t.Name() != "" && t.Implements(stringerType)
	case reflect.Struct, reflect.Array, reflect.Slice:
		tt.marshalValue = t.Implements(textMarshalerType)
		tt.marshalPtr = !tt.marshalValue && reflect.PointerTo(t).Implements(textMarshalerType)
	}
	tt.name = typeName(t)
	if t.Kind() == reflect.Struct {
		tt.fields = stateFields(t)
		for _, i := range tt.fields {
			tt.names = append(tt.names, t.Field(i).Name)
		}
	}
	textTypes.Store(t, tt)
	return tt
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

// inline formats v on one line. With a memo, the text of an addressable
// composite value is made once: a multi-line text (line) formats a value
// on one line to see whether it fits before it shows its fields one per
// line, each formatted on one line again, so that without the memo a value
// nested d deep is formatted d times. A text taken from the memo counts
// its values again, and is taken only when formatting it again would not
// pass the formatter's limit: the text is the one formatting would give.
// Performance: with the per-type answers of textTypeOf, this took the
// report page of raftkv's 20,000-step dead path (etcd raft's node state,
// which changes at every step, made 20,000 times) from 30.1 s to 9.7 s,
// the same bytes.
func (f *formatter) inline(v reflect.Value) string {
	if f.memo == nil || !v.IsValid() || !v.CanAddr() || !composite(v.Kind()) {
		return f.inlineValue(v)
	}
	key := memoKey{v.UnsafeAddr(), v.Type(), f.pathKey()}
	if m, ok := f.memo[key]; ok && f.n+m.n <= f.max() {
		f.n += m.n
		return m.text
	}
	n := f.n
	text := f.inlineValue(v)
	f.memo[key] = memoText{text, f.n - n}
	return text
}

// inlineValue is inline without the memo.
func (f *formatter) inlineValue(v reflect.Value) string {
	if f.n++; f.n > f.max() && v.IsValid() && composite(v.Kind()) {
		return "…"
	}
	if !v.IsValid() {
		return "nil"
	}
	var tt *textType
	if v.Kind() != reflect.Interface {
		tt = textTypeOf(v.Type())
		if cv, ok := f.canonicalOf(v, tt); ok {
			return f.inline(cv)
		}
	}
	if noState[v.Type()] {
		return "<" + v.Type().String() + ">"
	}
	if tt != nil && tt.stringer {
		if name, ok := stringer(v); ok {
			return name
		}
	}
	if tt != nil && (tt.marshalValue || tt.marshalPtr) {
		if txt, ok := textForm(v); ok {
			return txt
		}
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
		return f.quote(v.String())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "[]"
		}
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Len() > 0 {
			return bytesText(v, f.maxString)
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
		parts := make([]string, len(tt.fields))
		v = addressable(v) // see field
		for k, i := range tt.fields {
			parts[k] = tt.names[k] + ": " + f.inline(field(v, i))
		}
		return tt.name + "{" + strings.Join(parts, ", ") + "}"
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
	tt := textTypeOf(v.Type())
	var m encoding.TextMarshaler
	switch {
	case tt.marshalValue:
		cv, ok := clean(v)
		if !ok {
			return "", false
		}
		m = cv.Interface().(encoding.TextMarshaler)
	case tt.marshalPtr:
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
func bytesText(v reflect.Value, max int) string {
	if v.Kind() == reflect.Slice {
		if cv, ok := clean(v); ok {
			return quoteCut(string(cv.Bytes()), max)
		}
	}
	b := make([]byte, v.Len())
	for i := range b {
		b[i] = byte(v.Index(i).Uint())
	}
	return quoteCut(string(b), max)
}

// quote is strconv.Quote of s, cut after f.maxString bytes.
func (f *formatter) quote(s string) string { return quoteCut(s, f.maxString) }

// quoteCut is strconv.Quote of s, or, when max > 0 and s is longer, of
// its first max bytes (on a rune boundary) followed by how many bytes it
// left out and a digest of the whole: "\"LLLL\"… (199,788 bytes more,
// digest 1c0ffee5)".
func quoteCut(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + cutNote(len(s)-cut, s)
}

// cutNote says that a text left out more bytes of whole, with whole's
// digest: " … (N bytes more, digest XXXXXXXX)" without the space.
func cutNote(more int, whole string) string {
	return fmt.Sprintf("… (%s bytes more, digest %08x)", thousands(more), uint32(xxhash.Sum64String(whole)))
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
	if !textTypeOf(t).stringer {
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
		tt := textTypeOf(v.Type())
		for k, i := range tt.fields {
			f.line(b, indent, tt.names[k], field(v, i))
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
	// a pointer cycle ends, and marking each with & as inline does: a
	// pointer reads as one whether its value fits on one line or not.
	depth := len(f.ptrs)
	defer func() { f.ptrs = f.ptrs[:depth] }()
	amp := ""
	for (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
		if v.Kind() == reflect.Pointer {
			if slices.Contains(f.ptrs, v.Pointer()) {
				b.WriteString(indent + name + ": " + one + "\n")
				return
			}
			f.ptrs = append(f.ptrs, v.Pointer())
			amp += "&"
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
		tt := textTypeOf(v.Type())
		b.WriteString(indent + name + ": " + amp + tt.name + "{\n")
		v = addressable(v)
		for k, i := range tt.fields {
			f.line(b, inner, tt.names[k], field(v, i))
		}
		b.WriteString(indent + "}\n")
	case reflect.Map:
		b.WriteString(indent + name + ": " + amp + "{\n")
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
			b.WriteString(indent + name + ": " + amp + bytesText(v, f.maxString) + "\n")
			return
		}
		b.WriteString(indent + name + ": " + amp + "[\n")
		for i := 0; i < v.Len(); i++ {
			f.line(b, inner, strconv.Itoa(i), v.Index(i))
		}
		b.WriteString(indent + "]\n")
	default:
		b.WriteString(indent + name + ": " + one + "\n")
	}
}

package engine

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"reflect"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/huandu/go-clone"

	"github.com/macemc/macemc/sim"
)

// ErrCopy marks a copy of a simulator that is not the same as its
// original; see Clone and CheckCopy.
var ErrCopy = errors.New("sim: bad copy of a simulator")

// checkCopiesEnv turns Options.CheckCopies on for every simulator. It is
// read when the first simulator is made, not at package init: go test's
// cache keys a package's results on the variables its tests read, and a
// read before the tests start is not seen.
var checkCopiesEnv = sync.OnceValue(func() bool { return os.Getenv("MACEMC_CHECK_COPIES") == "1" })

// checkingCopies serializes the clones of checked simulators. A snapshot
// is cloned by several goroutines at once (the workers of a probe), which
// only read it; CheckCopy encodes it afresh, which writes its encoder and
// its hash caches.
var checkingCopies sync.Mutex

// Clone returns an independent copy of the simulator's state (every node's
// struct, the network, timers, the choice log) that goes on with chooser c.
// The copy shares nothing mutable with the original; it starts with
// logging off.
//
// A deep copy cannot copy everything: a func value (a bound method, a
// closure) would still act on the original's structs, a channel, an
// unsafe.Pointer or a sync type in use cannot be duplicated. When a node's
// struct or a message in flight holds such a value (CopyProblem says
// which), or with Options.CopyByReplay, Clone copies by replaying the
// execution's choices from the initial state instead: slower (the whole
// execution runs again), but right for any deterministic service. A copy by
// replay that does not reach the same state (the service is
// nondeterministic) fails at its first Step with an error wrapping ErrCopy
// and ErrNondeterministic. With Options.CheckCopies, every copy is checked
// against its original (CheckCopy) the same way.
func (s *Sim) Clone(c Chooser) *Sim {
	if s.opts.CheckCopies {
		checkingCopies.Lock()
		defer checkingCopies.Unlock()
	}
	if s.broken != nil && s.w.step == 0 {
		// The boot failed (it would again): the copy is for looking at.
		cp := s.deepCopy(c)
		cp.breaks(s.broken)
		return cp
	}
	var cp *Sim
	if s.opts.CopyByReplay || s.broken != nil || s.CopyProblem() != "" {
		cp = s.replayCopy(c)
	} else {
		cp = s.deepCopy(c)
	}
	if s.opts.CheckCopies && cp.broken == nil {
		// Check a second copy made the same way (CheckCopy steps it).
		if err := CheckCopy(s, s.deepOrReplay()); err != nil {
			cp.breaks(err)
		}
	}
	return cp
}

// copyMessage returns a deep copy of msg, as a network delivers a
// duplicate: a copy of what was sent, not the object the first delivery
// handed its receiver, which may change it (a receiver owns what it got).
// A message the deep copier cannot copy (CopyProblem's cases) is shared.
// Only values that hold pointers, slices, maps or interfaces are copied;
// others are copies already.
func copyMessage(msg sim.Message) sim.Message {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || !mayNeedWalk(v.Type()) || uncopyable(v) != "" {
		return msg
	}
	return deepClone(msg)
}

// copier is the deep copier of simulators, messages and services: go-clone's
// heap allocator, except that a channel is copied as the value it is (the
// same channel, or nil) instead of replaced by a new empty channel of the
// same capacity. That replacement would turn a nil channel into a made
// one (a node that tests `n.ch != nil` would then take another branch in
// the copy) and panics on a send-only or receive-only channel type. A
// state that holds a channel that is not nil is copied by replay
// (CopyProblem); copyMessage shares a message that holds one.
var copier = clone.NewAllocator(nil, &clone.AllocatorMethods{
	IsScalar: func(k reflect.Kind) bool { return k == reflect.Chan || clone.IsScalar(k) },
})

// deepClone returns a deep copy of v made by copier.
func deepClone[T any](v T) T {
	return copier.CloneSlowly(reflect.ValueOf(&v).Elem()).Interface().(T)
}

// deepCopy copies the world: a new simulator with a copy of s's state
// (copyWorld).
func (s *Sim) deepCopy(c Chooser) *Sim {
	cp := s.shell(c)
	s.copyWorld(cp)
	return cp
}

// shell returns a simulator of s's config and settings with no world.
func (s *Sim) shell(c Chooser) *Sim {
	cp := &Sim{cfg: s.cfg, weights: s.weights, n: s.n, chooser: c, failures: s.failures, until: s.until,
		sides: s.sides, nodeOK: s.nodeOK, linkOK: s.linkOK, opts: s.opts, maxBytes: s.maxBytes, reorder: s.reorder,
		apps: slices.Clone(s.apps)}
	cp.bind()
	return cp
}

// CloneInto is Clone reusing dst's buffers: it makes dst a copy of s that
// goes on with chooser c, exactly as Clone would make a new one, and
// returns it. Whatever dst held before is gone. Performance: a simulator
// keeps a queue for every ordered pair of nodes, n*n of them, and a new
// one allocates them all; into a simulator it has used, a copy costs what
// the state holds (the nodes, the messages in flight, the timers, the
// choice log), so that a goroutine that starts walk after walk from one
// state copies it into the same simulator each time.
//
// dst must be a simulator of the same Config that is not running a
// handler. CloneInto returns a new simulator instead (what Clone returns)
// when dst is nil, of another Config, or abandoned by Guard, and when s
// is copied by replay (see Clone), whose copy is a new simulator.
func (s *Sim) CloneInto(dst *Sim, c Chooser) *Sim {
	if dst == s {
		panic("sim: CloneInto a simulator from itself")
	}
	if dst == nil || dst.cfg != s.cfg || dst.Abandoned() || s.broken != nil || s.opts.CopyByReplay || s.CopyProblem() != "" {
		return s.Clone(c)
	}
	if dst.progress.Load()%2 == 1 {
		panic("sim: CloneInto a simulator that is running a handler")
	}
	if s.opts.CheckCopies {
		checkingCopies.Lock()
		defer checkingCopies.Unlock()
	}
	dst.chooser, dst.log, dst.failures, dst.until = c, nil, s.failures, s.until
	dst.opts, dst.maxBytes = s.opts, s.maxBytes
	dst.readyValid, dst.readyEvOK, dst.listOK = false, false, false
	dst.booting = false
	dst.err, dst.stepErr, dst.broken, dst.prevSvc, dst.encErr = nil, nil, nil, nil, nil
	if dst.escape.Load() != nil {
		dst.escape.Store(nil)
	}
	dst.copyMemo.Store(nil)
	dst.deadline = nil
	clear(dst.sent)
	dst.sent = dst.sent[:0]
	dst.effects = dst.effects[:0]
	dst.logCapture, dst.logBytes = false, 0
	dst.lastHidden = ""
	s.copyWorld(dst)
	if s.opts.CheckCopies {
		// Check a second copy made the same way (CheckCopy steps it), and
		// that this one is the same state.
		err := CheckCopy(s, s.deepOrReplay())
		if before, got := s.partHashes(), dst.partHashes(); err == nil && !slices.Equal(before, got) {
			err = fmt.Errorf("%w: the copy's %s differs from the original's", ErrCopy, partDiff(s, dst, firstDiff(before, got)))
		}
		if err != nil {
			dst.breaks(err)
		}
	}
	return dst
}

// deepParts are the values of a world that the services and the config
// made: the nodes' structs, the messages in flight, the driver's requests,
// the monitors, the client history's values and the last event's message.
// copyWorld copies them with the deep copier in one go, so that what they
// share stays shared in the copy (a message that points into its sender's
// struct, a node that kept the message it got). Everything else in a world
// is the simulator's own and is copied by hand.
type deepParts struct {
	svcs []sim.Service
	// msgs are the messages of the connections that are busy or stale in
	// the hash (see hashState), in index order, then the datagrams.
	msgs []sim.Message
	// apps are the nodes' driver requests, nil for a node whose requests
	// are plain values shared by every copy (see driver).
	apps [][]any
	mons []sim.Monitor
	hist []sim.HistoryEvent
	last sim.Message
}

// copyWorld makes dst's world a copy of s's. dst's world is either empty
// (a new shell) or one of the same config, whose arrays it reuses.
// Performance: it visits what the state holds, never every connection: a
// connection that is neither busy nor stale in the hash holds no message
// and has a part of 0 (see hashState), in s and in dst alike, and only the
// bit sets of busy and stale connections are copied whole (n*n bits).
// Nothing of dst's arrays is shared with s's but the driver requests that
// are plain values (which nothing changes) and strings.
func (s *Sim) copyWorld(dst *Sim) {
	src, w := &s.w, &dst.w
	if w.nodes == nil {
		w.nodes = padded[node](s.n)
		w.ext = make([]nodeExt, s.n)
		w.svcs = make([]sim.Service, s.n)
		w.conns = padded[queue](s.n * s.n)
		w.busy = padded[uint64](len(src.busy))
		w.hs.parts = make([]uint64, len(src.hs.parts))
		w.hs.touched = make([]uint64, len(src.hs.touched))
		w.hs.stale = make([]uint64, len(src.hs.stale))
	} else {
		for c := range members(w.busy, w.hs.stale) {
			w.conns[c].clear()
			w.conns[c].part = 0
		}
	}

	d := s.deepParts()
	for i := range src.nodes {
		sn, dn := &src.nodes[i], &w.nodes[i]
		timers, errs := dn.timers, dn.connErrs
		*dn = *sn
		dn.timers = append(timers[:0], sn.timers...)
		dn.connErrs = append(errs[:0], sn.connErrs...)
		if d.apps[i] != nil {
			dn.app = d.apps[i]
		}
	}
	copy(w.ext, src.ext)
	copy(w.svcs, d.svcs)
	k := 0
	for c := range members(src.busy, src.hs.stale) {
		sq, dq := &src.conns[c], &w.conns[c]
		dq.items = append(dq.items[:0], sq.items[sq.head:]...)
		for j := range dq.items {
			dq.items[j].msg = d.msgs[k]
			k++
		}
		dq.head, dq.part = 0, sq.part
	}
	copy(w.busy, src.busy)
	w.apps, w.errs, w.armed = src.apps, src.errs, src.armed
	clear(w.dgrams)
	w.dgrams = append(w.dgrams[:0], src.dgrams...)
	for j := range w.dgrams {
		w.dgrams[j].msg = d.msgs[k]
		k++
	}
	clear(w.mons)
	w.mons = append(w.mons[:0], src.mons...)
	for j := range w.mons {
		w.mons[j].m = d.mons[j]
	}
	w.monotone, w.step, w.resets, w.breaks, w.drops = src.monotone, src.step, src.resets, src.breaks, src.drops
	w.crashes, w.dups, w.partitions, w.cut, w.down = src.crashes, src.dups, src.partitions, src.cut, src.down
	w.choices = append(w.choices[:0], src.choices...)
	w.settings = append(w.settings[:0], src.settings...)
	w.stepStarts = append(w.stepStarts[:0], src.stepStarts...)
	w.lastEvent = src.lastEvent
	w.lastEvent.Msg = d.last
	w.lastDgram, w.salt, w.saltN = src.lastDgram, src.salt, src.saltN
	clear(w.hist)
	w.hist = append(w.hist[:0], d.hist...)
	w.clients = append(w.clients[:0], src.clients...)
	w.histHash = src.histHash
	w.shared = append(w.shared[:0], src.shared...)
	w.global = append(w.global[:0], src.global...)
	hs, shs := &w.hs, &src.hs
	copy(hs.parts, shs.parts)
	copy(hs.touched, shs.touched)
	copy(hs.stale, shs.stale)
	hs.nodes, hs.conns, hs.dgrams, hs.fresh, hs.dgStale = shs.nodes, shs.conns, shs.dgrams, shs.fresh, shs.dgStale
}

// deepParts returns a deep copy of s's deepParts.
func (s *Sim) deepParts() deepParts {
	w := &s.w
	d := deepParts{svcs: w.svcs, apps: make([][]any, s.n), hist: w.hist, last: w.lastEvent.Msg}
	for c := range members(w.busy, w.hs.stale) {
		q := &w.conns[c]
		for j := q.head; j < len(q.items); j++ {
			d.msgs = append(d.msgs, q.items[j].msg)
		}
	}
	for j := range w.dgrams {
		d.msgs = append(d.msgs, w.dgrams[j].msg)
	}
	for i := range w.nodes {
		if app := w.nodes[i].app; len(app) > 0 && (s.apps == nil || !s.apps[i].plain) {
			d.apps[i] = app
		}
	}
	if len(w.mons) > 0 {
		d.mons = make([]sim.Monitor, len(w.mons))
		for j := range w.mons {
			d.mons[j] = w.mons[j].m
		}
	}
	return deepClone(d)
}

// replayCopy copies s by replaying its choices from the initial state,
// with the failure switches it had at every step.
func (s *Sim) replayCopy(c Chooser) *Sim {
	values := ChoiceValues(s.w.choices)
	rec := NewRecorded(values)
	opts := s.opts
	first := s.w.settings[0]
	opts.Chooser, opts.NoFailures, opts.FailuresUntil = rec, !first.failures, first.until
	cp := newSim(s.cfg, opts)
	fail := func(err error) *Sim {
		cp.breaks(fmt.Errorf("%w: %w: copying by replay from the initial state, the copy diverged from its original at step %d: %w",
			ErrCopy, ErrNondeterministic, cp.w.step, err))
		cp.chooser = c
		return cp
	}
	if err := cp.boot(); err != nil {
		if s.broken == nil || s.w.step > 0 {
			return fail(err)
		}
		cp.breaks(s.broken) // the original failed at boot too
		cp.chooser = c
		return cp
	}
	next := 1
	apply := func() {
		for ; next < len(s.w.settings) && s.w.settings[next].step <= cp.w.step; next++ {
			st := s.w.settings[next]
			cp.SetFailures(st.failures)
			cp.SetFailuresUntil(st.until)
		}
	}
	for cp.w.step < s.w.step {
		apply()
		ok, err := cp.Step()
		if err != nil && cp.w.step < s.w.step {
			return fail(err)
		}
		if !ok {
			return fail(fmt.Errorf("nothing was ready after %d steps, the original has %d", cp.w.step, s.w.step))
		}
	}
	apply()
	if rec.Used() != len(values) {
		return fail(fmt.Errorf("the copy answered %d choices, the original %d", rec.Used(), len(values)))
	}
	cp.failures, cp.until = s.failures, s.until
	cp.readyValid, cp.listOK = false, false
	cp.chooser = c
	return cp
}

// CopyProblem returns what a deep copy of the simulator's state could not
// copy: the first func value, channel, unsafe.Pointer or sync type in use
// found in a node's struct or a message in flight, with where it is (e.g.
// "node 2 (*raftkv.Node): .raft.step holds a bound method
// go.etcd.io/raft/v3.stepFollower"), or "" when there is none. It also
// names a pointer into the inside of another value of the same node or
// message (an element of a slice, a field of a struct held in a field,
// a slice that shares its array with another): the deep copier gives such
// a pointer a value of its own, so that the copy would no longer write
// through it into the value it points into (a container/list.List held by
// value, n.Best = &n.Peers[i], w = n.Log[k:]).
//
// A problem found is remembered with the choices (and failure switches)
// that led to the state: asked again in the state those choices reach, as
// Clone is for every walk from one state, CopyProblem answers at once.
// Performance: a state that reaches a library's type registry (a protocol
// message's lazily set type information) walks thousands of objects, and
// the critical-transition search clones one state thousands of times.
// Only a problem is remembered, never its absence: a state the choices
// reach again holds the same values for a deterministic service, and were
// it not so, a copy by replay is right for any state where a deep copy is
// not.
func (s *Sim) CopyProblem() string {
	if m := s.copyMemo.Load(); m != nil && slices.Equal(m.choices, s.w.choices) && slices.Equal(m.settings, s.w.settings) {
		return m.problem
	}
	p := s.copyProblem()
	if p != "" {
		s.copyMemo.Store(&copyMemo{choices: slices.Clone(s.w.choices), settings: slices.Clone(s.w.settings), problem: p})
	}
	return p
}

// copyMemo is a problem CopyProblem found and the choices and failure
// switches of the state it found it in.
type copyMemo struct {
	choices  []Choice
	settings []setting
	problem  string
}

func (s *Sim) copyProblem() string {
	// Performance: one walker for every node and message, its memory
	// reused from one to the next.
	w := copyWalker{seen: map[uintptr]bool{}}
	for i, svc := range s.w.svcs {
		if p := w.uncopyable(reflect.ValueOf(svc)); p != "" {
			return fmt.Sprintf("node %d (%T): %s", i, svc, p)
		}
	}
	problem := ""
	s.eachInFlight(func(_ int, p *pending) {
		if problem == "" {
			if q := w.uncopyable(reflect.ValueOf(p.msg)); q != "" {
				problem = fmt.Sprintf("message %s from node %d to node %d: %s", sim.MessageName(p.msg), p.from, p.to, q)
			}
		}
	})
	return problem
}

// uncopyable returns what in v a deep copy cannot copy, or "".
func uncopyable(v reflect.Value) string {
	w := copyWalker{}
	return w.uncopyable(v)
}

// uncopyable returns what in v a deep copy cannot copy, or "", forgetting
// what the walker walked before.
func (w *copyWalker) uncopyable(v reflect.Value) string {
	if !v.IsValid() || !mayNeedWalk(v.Type()) {
		return ""
	}
	if w.seen == nil {
		w.seen = map[uintptr]bool{}
	}
	clear(w.seen)
	clear(w.objects)
	w.objects = w.objects[:0]
	if p := w.walk(v, nil); p != "" {
		return p
	}
	return w.interior()
}

type copyWalker struct {
	seen map[uintptr]bool
	// objects are the memory the walk reached through pointers and slices,
	// for interior.
	objects []object
}

// object is memory the deep copier copies as one value: the target of a
// pointer (n < 0) or the array of a slice of length n.
type object struct {
	start, end uintptr
	typ        reflect.Type // the pointer's target type, or the slice type
	n          int
	path       *copyPath
}

// copyPath is where the walk is, as a chain of steps from the walked
// value, made into text only for the problem it reports. Performance:
// building the text at every step (a map key's text form at every entry)
// was most of CopyProblem's time on a state that reaches a library's
// type registry, which Clone walks at every copy.
type copyPath struct {
	parent *copyPath
	field  string        // a struct field's name, or "" for an element or a map entry
	index  int           // an element's index; -1 for a map's key
	key    reflect.Value // a map value's key
}

func (p *copyPath) String() string {
	if p == nil {
		return ""
	}
	var steps []*copyPath
	for q := p; q != nil; q = q.parent {
		steps = append(steps, q)
	}
	var b strings.Builder
	for i := len(steps) - 1; i >= 0; i-- {
		q := steps[i]
		switch {
		case q.field != "":
			b.WriteString("." + q.field)
		case q.key.IsValid():
			b.WriteString("[" + FormatValue(exported(q.key)) + "]")
		case q.index < 0:
			b.WriteString("[key]")
		default:
			b.WriteString("[" + strconv.Itoa(q.index) + "]")
		}
	}
	return b.String()
}

// note records the object a pointer or a slice reaches.
func (w *copyWalker) note(start, size uintptr, typ reflect.Type, n int, path *copyPath) {
	if size == 0 || start == 0 {
		return // zero-size values may all share one address
	}
	w.objects = append(w.objects, object{start: start, end: start + size, typ: typ, n: n, path: path})
}

// interior returns the first pointer or slice the walk met that reaches
// inside another object, where the deep copier would not keep the two
// together, or "". The copier keeps one object reached twice the same way
// (the same pointer type, or the same slice), and a pointer to a field of
// a struct it reached through a pointer, when the field holds references
// (it copies such a field in place); everything else that overlaps another
// object gets a copy of its own.
func (w *copyWalker) interior() string {
	objs := w.objects
	slices.SortStableFunc(objs, func(a, b object) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(b.end, a.end)
	})
	var outer *object
	for i := range objs {
		o := &objs[i]
		if outer == nil || o.start >= outer.end {
			outer = o
			continue
		}
		if o.start == outer.start && o.typ == outer.typ && o.n == outer.n {
			continue // the same object again
		}
		if outer.n < 0 && o.n < 0 && o.end <= outer.end && inPlaceField(outer.typ, o.start-outer.start, o.typ) {
			continue
		}
		what := "a pointer"
		if o.n >= 0 {
			what = "a slice"
		}
		outerPath := outer.path.String()
		into := "the value " + outerPath + " points to"
		if outerPath == "" {
			into = "the struct itself"
		}
		if outer.n >= 0 {
			into = "the array of the slice " + outerPath
		}
		return fmt.Sprintf("%s is %s into %s (a deep copy would give it a copy of its own)", strings.TrimPrefix(o.path.String(), " "), what, into)
	}
	return ""
}

// inPlaceField reports whether the deep copier copies a field of type ft at
// offset off of struct type st in place, so that a pointer to it stays a
// pointer into the copy: a direct field that holds references.
func inPlaceField(st reflect.Type, off uintptr, ft reflect.Type) bool {
	if st.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		if f.Offset == off && f.Type == ft && mayNeedWalk(ft) {
			return true
		}
	}
	return false
}

func (w *copyWalker) walk(v reflect.Value, path *copyPath) string {
	t := v.Type()
	if !mayNeedWalk(t) {
		return ""
	}
	if why := syncProblem(v); why != "" {
		return at(path.String()) + why
	}
	if t == contextPtr && !v.IsNil() || t == contextType {
		// A copy of it would act on the original's simulator.
		return at(path.String()) + "holds a *sim.Context"
	}
	switch t.Kind() {
	case reflect.Func:
		if v.IsNil() {
			return ""
		}
		name := "a func"
		if f := goruntime.FuncForPC(v.Pointer()); f != nil {
			name = f.Name()
			switch {
			case strings.HasSuffix(name, "-fm"):
				return at(path.String()) + "holds a bound method " + strings.TrimSuffix(name, "-fm")
			case isClosure(name) && isWrapper(f):
				return at(path.String()) + "holds a bound method of a generic type (Go names it " + name + ")"
			case isClosure(name):
				return at(path.String()) + "holds a closure " + name
			}
			return "" // a top-level function captures nothing
		}
		return at(path.String()) + "holds " + name
	case reflect.Chan:
		if v.IsNil() {
			return ""
		}
		return at(path.String()) + "holds a channel"
	case reflect.UnsafePointer:
		if v.IsNil() {
			return ""
		}
		return at(path.String()) + "holds an unsafe.Pointer"
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
		w.note(v.Pointer(), t.Elem().Size(), t.Elem(), -1, path)
		if w.seen[v.Pointer()] {
			return ""
		}
		w.seen[v.Pointer()] = true
		return w.walk(v.Elem(), path)
	case reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return w.walk(v.Elem(), path)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !mayNeedWalk(f.Type) {
				continue // performance: no path step for what needs no walk
			}
			if p := w.walk(v.Field(i), &copyPath{parent: path, field: f.Name}); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice {
			if v.IsNil() {
				return ""
			}
			w.note(v.Pointer(), uintptr(v.Cap())*t.Elem().Size(), t, v.Len(), path)
		}
		if !mayNeedWalk(t.Elem()) {
			return ""
		}
		for i := 0; i < v.Len(); i++ {
			if p := w.walk(v.Index(i), &copyPath{parent: path, index: i}); p != "" {
				return p
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if p := w.walk(it.Key(), &copyPath{parent: path, index: -1}); p != "" {
				return p
			}
			if p := w.walk(it.Value(), &copyPath{parent: path, key: it.Key()}); p != "" {
				return p
			}
		}
	}
	return ""
}

var (
	contextType = reflect.TypeFor[sim.Context]()
	contextPtr  = reflect.TypeFor[*sim.Context]()
)

// exported returns v as an interface for display, or its kind when it was
// reached through unexported fields.
func exported(v reflect.Value) any {
	if v.CanInterface() {
		return v.Interface()
	}
	return v.Kind().String()
}

func at(path string) string {
	if path == "" {
		return ""
	}
	return path + " "
}

// isClosure reports whether a function name is a function literal's
// ("pkg.F.func1", "pkg.(*T).M.func2.1").
func isClosure(name string) bool {
	i := strings.LastIndex(name, ".func")
	if i < 0 {
		return false
	}
	rest := name[i+len(".func"):]
	return rest != "" && rest[0] >= '0' && rest[0] <= '9'
}

// syncProblem says why a value of a sync type cannot be copied, or "": a
// Mutex, RWMutex or WaitGroup that is not in its zero state (locked, or
// with waiters), a Cond, Map or Pool in use. A Once copies (its state is
// done or not).
func syncProblem(v reflect.Value) string {
	t := v.Type()
	if t.PkgPath() != "sync" {
		return ""
	}
	switch t.Name() {
	case "Mutex", "RWMutex", "WaitGroup", "Cond", "Map", "Pool":
	default:
		return ""
	}
	if zeroBytes(v) {
		return ""
	}
	return "holds a sync." + t.Name() + " in use"
}

// zeroBytes reports whether v's memory is all zero.
func zeroBytes(v reflect.Value) bool {
	if !v.CanAddr() {
		c := reflect.New(v.Type()).Elem()
		if !v.CanInterface() {
			return false
		}
		c.Set(v)
		v = c
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(v.UnsafeAddr())), v.Type().Size())
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

var mayWalkCache sync.Map // reflect.Type -> bool

// mayNeedWalk reports whether a value of type t can hold something
// CopyProblem looks for: what a deep copy cannot copy (a func, a channel,
// an unsafe.Pointer, a sync type) or a reference that may point into
// another value (a pointer, a slice), or an interface, which can hold
// anything. Computed once per type.
func mayNeedWalk(t reflect.Type) bool {
	if b, ok := mayWalkCache.Load(t); ok {
		return b.(bool)
	}
	b := reachesWalked(t, map[reflect.Type]bool{})
	mayWalkCache.Store(t, b)
	return b
}

func reachesWalked(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.PkgPath() == "sync" {
		return true
	}
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Interface, reflect.Pointer, reflect.Slice:
		return true
	case reflect.Map:
		return reachesWalked(t.Key(), seen) || reachesWalked(t.Elem(), seen)
	case reflect.Array:
		return reachesWalked(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if reachesWalked(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// CheckCopy checks that cp is a faithful copy of s, as Clone promises: both
// states hash the same (every part encoded afresh), stepping cp (with a
// random chooser of its own, for up to 20 steps) leaves s's state as it
// was, and cp goes the way a copy of s by replay goes with the same
// chooser: the same states and the same errors, step by step (a deep copy
// can hash the same and still differ, in what its pointers share). It
// returns an error wrapping ErrCopy that names the first node or the
// network part that differs, or nil. It uses cp up: check a copy made for
// the purpose. Tests and the debug mode (Options.CheckCopies) use it.
func CheckCopy(s, cp *Sim) error {
	if cp.broken != nil {
		return cp.broken
	}
	before := s.partHashes()
	if got := cp.partHashes(); !slices.Equal(before, got) {
		return fmt.Errorf("%w: the copy's %s differs from the original's", ErrCopy, partDiff(s, cp, firstDiff(before, got)))
	}
	seed := uint64(s.w.step) + 1
	ref := s.replayCopy(NewRandom(seed))
	if ref.broken != nil {
		return ref.broken
	}
	cp.chooser = NewRandom(seed)
	cp.opts.CheckCopies, ref.opts.CheckCopies = false, false
	differs := stepBeside(s, cp, ref)
	if after := s.partHashes(); !slices.Equal(before, after) {
		return fmt.Errorf("%w: stepping a copy changed the original's %s: the copy shares it", ErrCopy, partName(s, firstDiff(before, after)))
	}
	return differs
}

// stepBeside steps cp and ref, a copy of s by replay, with the same
// choosers for up to 20 steps, and returns an error wrapping ErrCopy at the
// first step after which they differ (how it ended, or the state), or nil.
func stepBeside(s, cp, ref *Sim) error {
	for range 20 {
		ok, err := cp.Step()
		refOK, refErr := ref.Step()
		switch {
		case ok != refOK || (err == nil) != (refErr == nil):
			return fmt.Errorf("%w: step %d of the copy %s, of a copy by replay %s", ErrCopy, cp.w.step, stepOutcome(ok, err), stepOutcome(refOK, refErr))
		case err != nil || !ok:
			return nil
		}
		if a, b := cp.partHashes(), ref.partHashes(); !slices.Equal(a, b) {
			return fmt.Errorf("%w: after step %d the copy's %s differs from a copy by replay's", ErrCopy, cp.w.step, partDiff(ref, cp, firstDiff(b, a)))
		}
	}
	return nil
}

// stepOutcome says how a step ended, for CheckCopy's errors.
func stepOutcome(ok bool, err error) string {
	switch {
	case err != nil:
		return "failed (" + err.Error() + ")"
	case !ok:
		return "found nothing ready"
	}
	return "ran"
}

// deepOrReplay copies s as Clone does, without the check.
func (s *Sim) deepOrReplay() *Sim {
	if s.opts.CopyByReplay || s.broken != nil || s.CopyProblem() != "" {
		return s.replayCopy(nil)
	}
	return s.deepCopy(nil)
}

// partHashes encodes every part of the state afresh: each node's struct,
// then the network and pending events as Hash sees them.
func (s *Sim) partHashes() []uint64 {
	out := make([]uint64, 0, s.n+1)
	for i := range s.w.nodes {
		out = append(out, s.hashNode(s.w.svcs[i]))
	}
	s.forget()
	return append(out, s.Hash())
}

func firstDiff(a, b []uint64) int {
	for i := range a {
		if i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return len(a)
}

// partDiff is partName for part i of a and b, with the first field of a
// node that differs and its two values (FirstDifference), when it finds one.
func partDiff(a, b *Sim, i int) string {
	name := partName(a, i)
	if i < a.n {
		if field, detail := FirstDifference(a.w.svcs[i], b.w.svcs[i]); field != "" {
			name += " (field " + field + ": " + detail + ")"
		}
	}
	return name
}

func partName(s *Sim, i int) string {
	if i < s.n {
		return fmt.Sprintf("node %d (%T)", i, s.w.svcs[i])
	}
	return "network or pending events"
}

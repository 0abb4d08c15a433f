package engine

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/huandu/go-clone"

	"github.com/macemc/macemc/sim"
)

// ErrCopy marks a copy of a simulator that is not the same as its
// original; see Clone and CheckCopy.
var ErrCopy = errors.New("sim: bad copy of a simulator")

// checkCopiesEnv turns Options.CheckCopies on for every simulator.
var checkCopiesEnv = os.Getenv("MACEMC_CHECK_COPIES") == "1"

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

// deepCopy copies the world with the deep copier.
func (s *Sim) deepCopy(c Chooser) *Sim {
	cp := s.shell(c)
	// The choice log only grows and holds plain numbers: copy it with one
	// memcpy instead of element by element through the deep copier.
	w := s.w
	w.choices, w.stepStarts, w.settings = nil, nil, nil
	cp.w = clone.Slowly(w).(world)
	cp.w.choices = slices.Clone(s.w.choices)
	cp.w.stepStarts = slices.Clone(s.w.stepStarts)
	cp.w.settings = slices.Clone(s.w.settings)
	return cp
}

// shell returns a simulator of s's config and settings with no world.
func (s *Sim) shell(c Chooser) *Sim {
	cp := &Sim{cfg: s.cfg, weights: s.weights, n: s.n, chooser: c, failures: s.failures, until: s.until,
		sides: s.sides, nodeOK: s.nodeOK, linkOK: s.linkOK, opts: s.opts, maxBytes: s.maxBytes, reorder: s.reorder}
	cp.bind()
	return cp
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
// go.etcd.io/raft/v3.stepFollower"), or "" when there is none.
func (s *Sim) CopyProblem() string {
	for i, svc := range s.w.svcs {
		if p := uncopyable(reflect.ValueOf(svc)); p != "" {
			return fmt.Sprintf("node %d (%T): %s", i, svc, p)
		}
	}
	problem := ""
	s.eachInFlight(func(_ int, p *pending) {
		if problem == "" {
			if q := uncopyable(reflect.ValueOf(p.msg)); q != "" {
				problem = fmt.Sprintf("message %s from node %d to node %d: %s", sim.MessageName(p.msg), p.from, p.to, q)
			}
		}
	})
	return problem
}

// uncopyable returns what in v a deep copy cannot copy, or "".
func uncopyable(v reflect.Value) string {
	if !v.IsValid() || !mayHoldUncopyable(v.Type()) {
		return ""
	}
	w := copyWalker{seen: map[uintptr]bool{}}
	return w.walk(v, "")
}

type copyWalker struct{ seen map[uintptr]bool }

func (w *copyWalker) walk(v reflect.Value, path string) string {
	t := v.Type()
	if !mayHoldUncopyable(t) {
		return ""
	}
	if why := syncProblem(v); why != "" {
		return at(path) + why
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
				return at(path) + "holds a bound method " + strings.TrimSuffix(name, "-fm")
			case isClosure(name):
				return at(path) + "holds a closure " + name
			}
			return "" // a top-level function captures nothing
		}
		return at(path) + "holds " + name
	case reflect.Chan:
		if v.IsNil() {
			return ""
		}
		return at(path) + "holds a channel"
	case reflect.UnsafePointer:
		if v.IsNil() {
			return ""
		}
		return at(path) + "holds an unsafe.Pointer"
	case reflect.Pointer:
		if v.IsNil() {
			return ""
		}
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
			if p := w.walk(v.Field(i), path+"."+t.Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			return ""
		}
		for i := 0; i < v.Len(); i++ {
			if p := w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if p := w.walk(it.Key(), path+"[key]"); p != "" {
				return p
			}
			if p := w.walk(it.Value(), path+"["+FormatValue(exported(it.Key()))+"]"); p != "" {
				return p
			}
		}
	}
	return ""
}

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

var mayHoldCache sync.Map // reflect.Type -> bool

// mayHoldUncopyable reports whether a value of type t can hold something a
// deep copy cannot copy: a func, a channel, an unsafe.Pointer, a sync type,
// or an interface (which can hold anything). Computed once per type.
func mayHoldUncopyable(t reflect.Type) bool {
	if b, ok := mayHoldCache.Load(t); ok {
		return b.(bool)
	}
	b := reachesUncopyable(t, map[reflect.Type]bool{})
	mayHoldCache.Store(t, b)
	return b
}

func reachesUncopyable(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if t.PkgPath() == "sync" {
		return true
	}
	switch t.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Interface:
		return true
	case reflect.Map:
		return reachesUncopyable(t.Key(), seen) || reachesUncopyable(t.Elem(), seen)
	case reflect.Array, reflect.Slice, reflect.Pointer:
		return reachesUncopyable(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if reachesUncopyable(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// CheckCopy checks that cp is a faithful copy of s, as Clone promises: both
// states hash the same (every part encoded afresh), and stepping cp (with a
// random chooser of its own, for up to 20 steps) leaves s's state as it
// was. It returns an error wrapping ErrCopy that names the first node or
// the network part that differs, or nil. It uses cp up: check a copy made
// for the purpose. Tests and the debug mode (Options.CheckCopies) use it.
func CheckCopy(s, cp *Sim) error {
	if cp.broken != nil {
		return cp.broken
	}
	before := s.partHashes()
	if got := cp.partHashes(); !slices.Equal(before, got) {
		return fmt.Errorf("%w: the copy's %s differs from the original's", ErrCopy, partName(s, firstDiff(before, got)))
	}
	cp.chooser = NewRandom(uint64(s.w.step) + 1)
	cp.opts.CheckCopies = false
	for i := 0; i < 20; i++ {
		if ok, err := cp.Step(); !ok || err != nil {
			break
		}
	}
	if after := s.partHashes(); !slices.Equal(before, after) {
		return fmt.Errorf("%w: stepping a copy changed the original's %s: the copy shares it", ErrCopy, partName(s, firstDiff(before, after)))
	}
	return nil
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

func partName(s *Sim, i int) string {
	if i < s.n {
		return fmt.Sprintf("node %d (%T)", i, s.w.svcs[i])
	}
	return "network or pending events"
}

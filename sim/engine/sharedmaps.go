package engine

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/macemc/macemc/sim"
)

// maxSharedWalk bounds the values SharedMap visits in each simulator, and
// those the diagnosis of shared memory (sharedObject) visits in each value.
const maxSharedWalk = 1 << 20

// SharedMap looks for a map that the nodes of two simulators of one
// Config both reach: one that Build or a package made once and handed to
// every execution. A handler that writes such a map writes into every
// other execution's state, and two simulators stepping on two goroutines
// (a search with several workers) then crash the process with Go's
// "concurrent map writes", which no recover catches. It returns the node
// of a that reaches it and the path to it, e.g. ".Peers"; ok is false
// when the nodes share no map. Maps reached through unexported fields
// count too; maps behind a func or an unsafe.Pointer are not seen, nor
// those inside a value with a canonical form (sim.RegisterCanonical, a
// Canonical method), which says what of it is state (a protobuf message
// reaches the process's type registry).
func SharedMap(a, b *Sim) (node sim.NodeID, path string, ok bool) {
	type at struct {
		node sim.NodeID
		path string
	}
	maps := map[uintptr]at{}
	walkNodes(a, func(id sim.NodeID, p string, r ref) bool {
		if _, seen := maps[r.at]; !seen && r.t.Kind() == reflect.Map {
			maps[r.at] = at{id, p}
		}
		return true
	})
	walkNodes(b, func(_ sim.NodeID, _ string, r ref) bool {
		if w, shared := maps[r.at]; shared && r.t.Kind() == reflect.Map {
			node, path, ok = w.node, w.path, true
			return false
		}
		return true
	})
	return node, path, ok
}

// ref is an object a value reaches: a map, the array behind a slice, or
// what a pointer points to; at is its address and t the type of the map,
// slice or pointer that reaches it.
type ref struct {
	at uintptr
	t  reflect.Type
}

// walkNodes calls found with the node, path and object of everything its
// nodes' structs reach (each object followed once, by the first node that
// reaches it), until found returns false.
func walkNodes(s *Sim, found func(id sim.NodeID, path string, r ref) bool) {
	w := newRefWalk()
	for id, svc := range s.w.svcs {
		if !w.walk(reflect.ValueOf(svc), "", func(p string, r ref) bool { return found(sim.NodeID(id), p, r) }) {
			return
		}
	}
}

// refWalk is a walk of the objects one or more values reach, each followed
// once, maxSharedWalk values in all.
type refWalk struct {
	seen    map[uintptr]bool
	z       sizer
	visited int
}

func newRefWalk() *refWalk {
	return &refWalk{seen: map[uintptr]bool{}, z: sizer{pointers: map[reflect.Type]bool{}}}
}

// walk calls found with the path (from path) and the object of every map,
// slice array and pointer target that v reaches and that takes memory (a
// pointer to a zero-size value may share its address with any other),
// depth first in field order, until found returns false (then walk does
// too). What a value with a canonical form reaches is left out: its
// canonical form says what of it is state (a protobuf message's pointer to
// the global type registry).
func (w *refWalk) walk(v reflect.Value, path string, found func(path string, r ref) bool) bool {
	type item struct {
		v    reflect.Value
		path string
	}
	stack := []item{{v, path}}
	for len(stack) > 0 && w.visited < maxSharedWalk {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		w.visited++
		v := it.v
		if !v.IsValid() || hasCanon(v.Type()) {
			continue
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || w.seen[v.Pointer()] {
				continue
			}
			w.seen[v.Pointer()] = true
			if v.Type().Elem().Size() > 0 && !found(it.path, ref{v.Pointer(), v.Type()}) {
				return false
			}
			stack = append(stack, item{v.Elem(), it.path})
		case reflect.Interface:
			if !v.IsNil() {
				stack = append(stack, item{v.Elem(), it.path})
			}
		case reflect.Struct:
			for i := v.NumField() - 1; i >= 0; i-- {
				if f := v.Type().Field(i); w.z.hasPointers(f.Type) {
					stack = append(stack, item{v.Field(i), subPath(it.path, "."+f.Name)})
				}
			}
		case reflect.Slice:
			if v.IsNil() || v.Cap() == 0 || v.Type().Elem().Size() == 0 || w.seen[v.Pointer()] {
				continue
			}
			w.seen[v.Pointer()] = true
			if !found(it.path, ref{v.Pointer(), v.Type()}) {
				return false
			}
			fallthrough
		case reflect.Array:
			if !w.z.hasPointers(v.Type().Elem()) {
				continue
			}
			for i := v.Len() - 1; i >= 0; i-- {
				stack = append(stack, item{v.Index(i), subPath(it.path, "["+strconv.Itoa(i)+"]")})
			}
		case reflect.Map:
			if v.IsNil() || w.seen[v.Pointer()] {
				continue
			}
			w.seen[v.Pointer()] = true
			if !found(it.path, ref{v.Pointer(), v.Type()}) {
				return false
			}
			if w.z.hasPointers(v.Type().Elem()) {
				// In the order of the keys' text, not the map's: the
				// path reported must not depend on it.
				var entries []item
				for r := v.MapRange(); r.Next(); {
					entries = append(entries, item{r.Value(), subPath(it.path, "["+FormatValueCut(exported(r.Key()), maxPathText)+"]")})
				}
				slices.SortFunc(entries, func(x, y item) int { return strings.Compare(y.path, x.path) })
				stack = append(stack, entries...)
			}
		}
	}
	return true
}

// maxPathText bounds the path text walk builds: past it a path ends "…"
// and grows no more. A node that holds a chain of a hundred thousand
// pointers made paths whose text grew with the depth, and the walk's time
// with its square (40 s for the check before a search given 5).
const maxPathText = 256

// subPath is path followed by seg, or path with "…" once it is longer
// than maxPathText.
func subPath(path, seg string) string {
	switch {
	case len(path) <= maxPathText:
		return path + seg
	case strings.HasSuffix(path, "…"):
		return path
	}
	return path + "…"
}

// refsOf returns the objects v reaches (see refWalk.walk), each with the
// first path to it.
func refsOf(v reflect.Value) map[uintptr]string {
	refs := map[uintptr]string{}
	newRefWalk().walk(v, "", func(p string, r ref) bool {
		refs[r.at] = p
		return true
	})
	return refs
}

// sharedObject returns the first object v reaches that is in refs (as
// refsOf returns them), preferring one on the way to field (a path in v,
// "" for any): its path in v, its path in refs, and the object.
func sharedObject(v reflect.Value, refs map[uintptr]string, field string) (path, other string, obj ref, ok bool) {
	newRefWalk().walk(v, "", func(p string, r ref) bool {
		o, shared := refs[r.at]
		if !shared {
			return true
		}
		if !ok || field != "" && onPath(field, p) && !onPath(field, path) {
			path, other, obj, ok = p, o, r, true
		}
		return field != "" && !onPath(field, path)
	})
	return path, other, obj, ok
}

// onPath reports whether the field path field lies at or under path.
func onPath(field, path string) bool {
	rest, ok := strings.CutPrefix(field, path)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// sharedPart is the node or the monitor whose state ss reports changed,
// nil when s has none such.
func (s *Sim) sharedPart(ss *SharedStateError) any {
	if ss.Monitor != "" {
		if i := s.monitorIndex(ss.Monitor); i >= 0 {
			return s.w.mons[i].m
		}
		return nil
	}
	if ss.Node < 0 || int(ss.Node) >= len(s.w.svcs) {
		return nil
	}
	return s.w.svcs[ss.Node]
}

// monitorIndex is the index of the monitor named name, -1 when there is
// none.
func (s *Sim) monitorIndex(name string) int {
	for i := range s.w.mons {
		if s.cfg.Monitors[i].Name == name {
			return i
		}
	}
	return -1
}

// sharedOrigin says how the node (or monitor) ss reports and node ss.By
// came to share memory, when it can tell: from the start, when the structs
// Config.Service and the monitors' New return (a simulator built afresh
// and not booted) reach one object; through the driver, when the changed
// node holds in s (a replay of the path) an object that node By's driver
// requests reach. Such an object is every execution's, so the values
// FirstDifference saw are not the path's (every replay changed them):
// Detail is dropped.
func sharedOrigin(cfg *sim.Config, opts Options, s *Sim, ss *SharedStateError) {
	opts.Chooser, opts.Logger = nil, nil
	fresh := newSim(cfg, opts)
	if fresh.initErr != nil || int(ss.By) >= len(fresh.w.svcs) {
		return
	}
	part := fresh.sharedPart(ss)
	if part == nil {
		return
	}
	if path, by, obj, ok := sharedObject(reflect.ValueOf(part), refsOf(reflect.ValueOf(fresh.w.svcs[ss.By])), ss.Field); ok {
		ss.Origin, ss.Shared, ss.ByShared, ss.Object, ss.Detail = OriginService, path, by, obj.t.String(), ""
		return
	}
	if ss.Monitor != "" {
		return
	}
	reqs := map[uintptr]string{}
	w := newRefWalk()
	for i, r := range fresh.w.nodes[ss.By].app {
		w.walk(reflect.ValueOf(r), "request "+strconv.Itoa(i), func(p string, r ref) bool {
			reqs[r.at] = p
			return true
		})
	}
	if path, by, obj, ok := sharedObject(reflect.ValueOf(s.w.svcs[ss.Node]), reqs, ss.Field); ok {
		ss.Origin, ss.Shared, ss.ByShared, ss.Object, ss.Detail = OriginDriver, path, by, obj.t.String(), ""
	}
}

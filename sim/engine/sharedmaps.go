package engine

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/macemc/macemc/sim"
)

// maxSharedWalk bounds the values SharedMap visits in each simulator.
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
	walkMaps(a, func(id sim.NodeID, p string, m uintptr) bool {
		if _, seen := maps[m]; !seen {
			maps[m] = at{id, p}
		}
		return true
	})
	walkMaps(b, func(_ sim.NodeID, _ string, m uintptr) bool {
		if w, shared := maps[m]; shared {
			node, path, ok = w.node, w.path, true
			return false
		}
		return true
	})
	return node, path, ok
}

// walkMaps calls found with the node, path and address of every map its
// nodes' structs reach (each pointer followed once), until found returns
// false.
func walkMaps(s *Sim, found func(id sim.NodeID, path string, m uintptr) bool) {
	type item struct {
		v    reflect.Value
		path string
	}
	seen := map[uintptr]bool{}
	var z sizer
	z.pointers = map[reflect.Type]bool{}
	visited := 0
	for id, svc := range s.w.svcs {
		stack := []item{{reflect.ValueOf(svc), ""}}
		for len(stack) > 0 && visited < maxSharedWalk {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			visited++
			v := it.v
			if v.IsValid() && hasCanon(v.Type()) {
				// What its canonical form leaves out is no state
				// (a protobuf message's pointer to the global type
				// registry).
				continue
			}
			switch v.Kind() {
			case reflect.Pointer:
				if v.IsNil() || seen[v.Pointer()] {
					continue
				}
				seen[v.Pointer()] = true
				stack = append(stack, item{v.Elem(), it.path})
			case reflect.Interface:
				if !v.IsNil() {
					stack = append(stack, item{v.Elem(), it.path})
				}
			case reflect.Struct:
				for i := v.NumField() - 1; i >= 0; i-- {
					if f := v.Type().Field(i); z.hasPointers(f.Type) {
						stack = append(stack, item{v.Field(i), it.path + "." + v.Type().Field(i).Name})
					}
				}
			case reflect.Slice, reflect.Array:
				if v.Kind() == reflect.Slice && (v.IsNil() || seen[v.Pointer()]) || !z.hasPointers(v.Type().Elem()) {
					continue
				}
				if v.Kind() == reflect.Slice {
					seen[v.Pointer()] = true
				}
				for i := v.Len() - 1; i >= 0; i-- {
					stack = append(stack, item{v.Index(i), it.path + "[" + strconv.Itoa(i) + "]"})
				}
			case reflect.Map:
				if v.IsNil() || seen[v.Pointer()] {
					continue
				}
				seen[v.Pointer()] = true
				if !found(sim.NodeID(id), it.path, v.Pointer()) {
					return
				}
				if z.hasPointers(v.Type().Elem()) {
					// In the order of the keys' text, not the map's: the
					// path reported must not depend on it.
					var entries []item
					for r := v.MapRange(); r.Next(); {
						entries = append(entries, item{r.Value(), it.path + "[" + FormatValue(exported(r.Key())) + "]"})
					}
					slices.SortFunc(entries, func(x, y item) int { return strings.Compare(y.path, x.path) })
					stack = append(stack, entries...)
				}
			}
		}
	}
}

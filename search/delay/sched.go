package delay

import (
	"slices"

	"github.com/macemc/macemc/sim/engine"
)

// The base schedulers order the ready events by their event source
// (engine.Event.Source: a node's driver, a connection or datagram path, a
// named timer, a node's connection errors): the simulator's analogue of
// seed 002's processes, each a sequential stream of events. Events of one
// source (datagrams of one path, when the system reorders them) keep
// their canonical order. Failure events (resets, breaks, drops) come after
// every other event: a schedule only injects a failure by delaying past
// everything else.

// roundRobin is seed 002's round-robin delaying scheduler: it cycles
// through the event sources in the order they were first seen (creation
// order). The source whose turn it is runs for as long as it has events;
// when it has none left the turn passes to the next enabled source in
// creation order (seed 002 §3: "it schedules the next task on a delay or
// when the current task is completed"; the round-robin delaying scheduler
// of P's Zing back end keeps the current process until it blocks), and a
// delay passes the turn on at once. With each set, the turn passes on after every event instead:
// one event per source and turn (base rr-event).
type roundRobin struct {
	id   map[uint64]int32 // source -> creation index
	n    int32
	cur  int32   // the creation index whose turn it is
	keys []int64 // per ready event: its place in the cycle, or -1 for a failure
	each bool    // the turn passes on after every event
}

func (r *roundRobin) reset() {
	if r.id == nil {
		r.id = map[uint64]int32{}
	}
	clear(r.id)
	r.n, r.cur = 0, 0
}

func (r *roundRobin) index(ev *engine.Event) int32 {
	src := ev.Source()
	i, ok := r.id[src]
	if !ok {
		i = r.n
		r.id[src] = i
		r.n++
	}
	return i
}

func (r *roundRobin) order(ready []engine.Event, out []int32) []int32 {
	r.keys = r.keys[:0]
	for i := range ready {
		if ready[i].Kind.IsFailure() {
			r.keys = append(r.keys, -1)
			continue
		}
		id := r.index(&ready[i])
		// Cyclic distance from cur; sources created later than every
		// other keep their place before the wrap-around.
		d := int64(id - r.cur)
		if d < 0 {
			d += 1 << 32
		}
		r.keys = append(r.keys, d<<20|int64(i))
	}
	for i, k := range r.keys {
		if k >= 0 {
			out = append(out, int32(i))
		}
	}
	sortBy(out, r.keys)
	for i, k := range r.keys {
		if k < 0 {
			out = append(out, int32(i))
		}
	}
	return out
}

// ran gives the turn to the source of the chosen event, k sources past
// the one whose turn it was (k delays), or with each to the source after
// it.
func (r *roundRobin) ran(ready []engine.Event, order []int32, k int) {
	ev := &ready[order[k]]
	if !ev.Kind.IsFailure() {
		r.cur = r.id[ev.Source()]
		if r.each {
			r.cur++
		}
	}
}

// runToCompletion is seed 002's run-to-completion delaying scheduler: a
// stack of event sources, a source pushed on top when it becomes enabled,
// so that the events a step causes run next (causal order), and the
// source on top runs for as long as it has events; a delay moves the top
// source to the bottom.
type runToCompletion struct {
	stack   []uint64        // bottom first
	enabled map[uint64]bool // the sources enabled at the previous choice
	now     map[uint64]bool
	fresh   []uint64
}

func (r *runToCompletion) reset() {
	if r.enabled == nil {
		r.enabled, r.now = map[uint64]bool{}, map[uint64]bool{}
	}
	clear(r.enabled)
	r.stack = r.stack[:0]
}

func (r *runToCompletion) order(ready []engine.Event, out []int32) []int32 {
	clear(r.now)
	r.fresh = r.fresh[:0]
	for i := range ready {
		if ready[i].Kind.IsFailure() {
			continue
		}
		src := ready[i].Source()
		if r.now[src] {
			continue
		}
		r.now[src] = true
		if !r.enabled[src] {
			r.fresh = append(r.fresh, src)
		}
	}
	// Newly enabled sources go on top, the first in canonical order
	// topmost.
	for j := len(r.fresh) - 1; j >= 0; j-- {
		r.remove(r.fresh[j])
		r.stack = append(r.stack, r.fresh[j])
	}
	r.enabled, r.now = r.now, r.enabled
	for j := len(r.stack) - 1; j >= 0; j-- {
		src := r.stack[j]
		if !r.enabled[src] {
			continue
		}
		for i := range ready {
			if !ready[i].Kind.IsFailure() && ready[i].Source() == src {
				out = append(out, int32(i))
			}
		}
	}
	for i := range ready {
		if ready[i].Kind.IsFailure() {
			out = append(out, int32(i))
		}
	}
	return out
}

func (r *runToCompletion) remove(src uint64) {
	if j := slices.Index(r.stack, src); j >= 0 {
		r.stack = slices.Delete(r.stack, j, j+1)
	}
}

// ran moves the sources of the k delayed events to the bottom, each below
// the one delayed before it (Delay applied k times), except the source of
// the chosen event.
func (r *runToCompletion) ran(ready []engine.Event, order []int32, k int) {
	chosen := &ready[order[k]]
	var keep uint64
	if !chosen.Kind.IsFailure() {
		keep = chosen.Source()
	}
	for j := 0; j < k; j++ {
		ev := &ready[order[j]]
		if ev.Kind.IsFailure() {
			continue
		}
		src := ev.Source()
		if src == keep {
			continue
		}
		r.remove(src)
		r.stack = slices.Insert(r.stack, 0, src)
	}
}

// sortBy sorts idx by keys[idx[i]] (insertion sort: a handful of events,
// no allocation).
func sortBy(idx []int32, keys []int64) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && keys[idx[j]] < keys[idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

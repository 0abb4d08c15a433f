package search

import (
	"context"
	"errors"

	"github.com/macemc/macemc/sim/engine"
)

// ErrMemoryLimit is the cause of a run's stop when its heap grew past what
// Options.MaxMemory leaves it (Report.MemoryLimited): the run ends as an
// interrupted one does, keeping what it found and checked.
var ErrMemoryLimit = errors.New("search: the run's heap grew past the memory limit")

// heapBound is how far the heap may grow during a run of cfg with o
// before the run stops: what o.MaxMemory leaves after the visited-state
// table (outside the heap where the system allows), as EstimateMemory
// counts them (its other parts include the garbage collector's headroom,
// as the heap's objects watched do); 0 without a limit.
func heapBound(e Estimate, o *Options) int64 {
	if o.MaxMemory < 0 {
		return 0
	}
	return max(o.MaxMemory-e.Visited, 1)
}

// watchHeap replaces p.ctx with a context cancelled with ErrMemoryLimit
// once the heap has grown by more than bound since the run began (so
// that what the calling program holds itself does not count), and the
// engine's heap alarm then gives up on a handler that allocates without
// returning (engine.WatchHeap). It returns the function that ends the
// watch. When the watch stops a run depends on the machine, as with
// Ctrl-C, and the report says so (Report.MemoryLimited).
func (p *pipeline) watchHeap(bound int64) (stop func()) {
	if bound <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancelCause(p.ctx)
	p.ctx = ctx
	end := engine.WatchHeapOf(p.cfg, bound, func() { cancel(ErrMemoryLimit) })
	return func() {
		end()
		cancel(nil)
	}
}

// memoryLimited reports whether the run stopped at the memory limit.
func (p *pipeline) memoryLimited() bool {
	return errors.Is(context.Cause(p.ctx), ErrMemoryLimit)
}

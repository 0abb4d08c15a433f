package search

import (
	"context"
	"errors"
	"runtime/metrics"
	"time"
)

// ErrMemoryLimit is the cause of a run's stop when its heap grew past what
// Options.MaxMemory leaves it (Report.MemoryLimited): the run ends as an
// interrupted one does, keeping what it found and checked.
var ErrMemoryLimit = errors.New("search: the run's heap grew past the memory limit")

// heapPoll is how often a run reads its live heap.
const heapPoll = 50 * time.Millisecond

// heapLive is the metric a run watches: the heap the last garbage
// collection found live.
const heapLive = "/gc/heap/live:bytes"

// heapBound is how far the live heap may grow during a run of cfg with o
// before the run stops: what o.MaxMemory leaves after the visited-state
// table (outside the heap where the system allows), over the garbage
// collector's headroom, as EstimateMemory counts them; 0 without a limit.
func heapBound(e Estimate, o *Options) int64 {
	if o.MaxMemory < 0 {
		return 0
	}
	return max((o.MaxMemory-e.Visited)/gcFactor, 1)
}

// watchHeap replaces p.ctx with a context cancelled with ErrMemoryLimit
// once the live heap has grown by more than bound since the run began (so
// that what the calling program holds itself does not count). It returns
// the function that ends the watch. The watch reads the runtime's metrics
// every heapPoll from a goroutine of its own, outside anything a simulated
// node runs: when it stops a run depends on the machine, as with Ctrl-C,
// and the report says so (Report.MemoryLimited).
func (p *pipeline) watchHeap(bound int64) (stop func()) {
	if bound <= 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancelCause(p.ctx)
	p.ctx = ctx
	sample := []metrics.Sample{{Name: heapLive}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return func() { cancel(nil) } // a runtime without the metric
	}
	base := int64(sample[0].Value.Uint64())
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heapPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if int64(sample[0].Value.Uint64())-base > bound {
				cancel(ErrMemoryLimit)
				return
			}
		}
	}()
	return func() {
		close(done)
		cancel(nil)
	}
}

// memoryLimited reports whether the run stopped at the memory limit.
func (p *pipeline) memoryLimited() bool {
	return errors.Is(context.Cause(p.ctx), ErrMemoryLimit)
}

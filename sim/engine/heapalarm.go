package engine

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/macemc/macemc/sim"
)

// HeapAlarmGrace is how long a handler that is running when the heap
// alarm goes off (RaiseHeapAlarm) may go on before Guard gives up on it.
const HeapAlarmGrace = 100 * time.Millisecond

// heapAlarm is a heap alarm: the process's (processAlarm), which every
// Guard hears, or one run's (WatchHeapOf), which only the Guards of that
// run's simulators do.
type heapAlarm struct {
	// ch is closed by raise, which puts a fresh one in its place for the
	// Guards that start later.
	ch atomic.Pointer[chan struct{}]
	// over counts the watches whose bound the heap passed and that have
	// not ended: while it is positive, a Guard that begins watches for
	// handlers that run through a grace period, as after an alarm.
	over atomic.Int32
}

func newHeapAlarm() *heapAlarm {
	a := &heapAlarm{}
	ch := make(chan struct{})
	a.ch.Store(&ch)
	return a
}

// raise closes a's channel, for every Guard that hears it.
func (a *heapAlarm) raise() {
	ch := make(chan struct{})
	close(*a.ch.Swap(&ch))
}

// processAlarm is the process's heap alarm (RaiseHeapAlarm, WatchHeap).
var processAlarm = newHeapAlarm()

// runAlarms maps the Config of a run that watches its heap (WatchHeapOf)
// to that run's alarm.
var runAlarms sync.Map // *sim.Config -> *heapAlarm

// runAlarm returns the alarm of the run whose Config is cfg (nil when it
// has none).
func runAlarm(cfg *sim.Config) *heapAlarm {
	if a, ok := runAlarms.Load(cfg); ok {
		return a.(*heapAlarm)
	}
	return nil
}

// RaiseHeapAlarm tells every Guard running that the process's heap grew
// past a limit: a Guard whose handler still runs HeapAlarmGrace later
// gives up on it as on a hang (a *HangError with Memory set), so that a
// handler that allocates in a loop cannot take the process's memory
// before its timeout. WatchHeap raises it, and until the watch ends the
// Guards that start afterwards watch the same way.
func RaiseHeapAlarm() { processAlarm.raise() }

// DefaultHeapBound is the heap growth past which the commands that do not
// take a memory limit (replay, critical, tune, report, mdb) raise the heap
// alarm: 4 GiB, search's default memory limit (search.DefaultMaxMemory).
const DefaultHeapBound = 4 << 30

// heapPoll is how often WatchHeap reads the heap.
const heapPoll = 50 * time.Millisecond

// heapObjects is the metric WatchHeap reads: the heap's objects, garbage
// not yet collected included. (The live heap is measured only at the end
// of a collection, and a handler can allocate gigabytes before the next
// one ends.)
const heapObjects = "/memory/classes/heap/objects:bytes"

// WatchHeap watches the process's heap from a goroutine of its own
// (outside anything a simulated node runs), every 50 ms: once its objects
// exceed by more than bound bytes the least they were since the call (the
// collections bring them down to what is live, so that garbage from
// before the call does not hide growth), it calls exceeded (when not nil)
// and raises the heap alarm (RaiseHeapAlarm), once. The function it
// returns ends the watch. A bound of 0 or less watches nothing.
func WatchHeap(bound int64, exceeded func()) (stop func()) {
	return watchHeap(processAlarm, bound, exceeded)
}

// WatchHeapOf is WatchHeap for the run whose simulators all run cfg (a
// search): its alarm gives up only on the handlers of those simulators,
// so that a run that passes its limit does not give up on the slow
// handlers of another run in the same process (parallel tests), which
// passes none of its own. The heap is the process's: what the other runs
// allocate counts against this run's bound, as it does for WatchHeap.
func WatchHeapOf(cfg *sim.Config, bound int64, exceeded func()) (stop func()) {
	if bound <= 0 {
		return func() {}
	}
	a := newHeapAlarm()
	runAlarms.Store(cfg, a)
	end := watchHeap(a, bound, exceeded)
	return func() {
		end()
		runAlarms.CompareAndDelete(cfg, a)
	}
}

// watchHeap is WatchHeap, raising alarm a.
func watchHeap(a *heapAlarm, bound int64, exceeded func()) (stop func()) {
	if bound <= 0 {
		return func() {}
	}
	sample := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return func() {} // a runtime without the metric
	}
	least := int64(sample[0].Value.Uint64())
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(heapPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			now := int64(sample[0].Value.Uint64())
			least = min(least, now)
			if now-least > bound {
				a.over.Add(1)
				if exceeded != nil {
					exceeded()
				}
				a.raise()
				<-done
				a.over.Add(-1)
				return
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

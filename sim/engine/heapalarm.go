package engine

import (
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// HeapAlarmGrace is how long a handler that is running when the heap
// alarm goes off (RaiseHeapAlarm) may go on before Guard gives up on it.
const HeapAlarmGrace = 100 * time.Millisecond

// heapAlarm is the process's heap alarm: closed by RaiseHeapAlarm, which
// puts a fresh one in its place for the Guards that start later.
var heapAlarm atomic.Pointer[chan struct{}]

// heapOver counts the watches (WatchHeap) whose bound the heap passed and
// that have not ended: while it is positive, a Guard that begins watches
// for handlers that run through a grace period, as after an alarm.
var heapOver atomic.Int32

func init() {
	ch := make(chan struct{})
	heapAlarm.Store(&ch)
}

// RaiseHeapAlarm tells every Guard running that a run's heap grew past its
// memory limit: a Guard whose handler still runs HeapAlarmGrace later
// gives up on it as on a hang (a *HangError with Memory set), so that a
// handler that allocates in a loop cannot take the process's memory
// before its timeout. WatchHeap raises it, and until the watch ends the
// Guards that start afterwards watch the same way.
func RaiseHeapAlarm() {
	ch := make(chan struct{})
	close(*heapAlarm.Swap(&ch))
}

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
				heapOver.Add(1)
				if exceeded != nil {
					exceeded()
				}
				RaiseHeapAlarm()
				<-done
				heapOver.Add(-1)
				return
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

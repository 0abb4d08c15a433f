// Package scheduler is the Process Scheduler benchmark of seed 000
// (Appendix A.4): a producer/consumer pair that loses a wakeup, so the
// client sleeps forever although a resource is available.
//
// The server makes resources (the driver's Produce requests) and hands
// them out: Take is answered with Item, or with Empty when none is
// available. A client told Empty goes to sleep and says so (Sleeping); the
// server puts it on the wait queue, and producing a resource wakes a
// queued client (Wakeup), which asks again.
//
// # Usage
//
//	go run ./cmd/macemc search --system scheduler
//	go run ./cmd/macemc search --system scheduler --param fixed=true
//
// System "scheduler": node 0 is the server (*Server), node 1 the client
// (*Client). The driver asks the server to Produce items resources and
// the client to Run. No failures.
//
// Parameters:
//
//   - items (int, default 2): resources produced and wanted.
//   - fixed (bool, default false): recheck for a resource on Sleeping.
//
// Properties:
//
//   - AllConsumed (liveness): the client consumed every resource it wants.
//   - NoOverConsume (safety): the client never consumed more than was
//     produced.
//
// The bug, the classic lost wakeup: the server answers Take with Empty;
// before the client's Sleeping arrives, the server makes a resource, and
// since the client is not on the wait queue yet it wakes nobody. Then
// Sleeping arrives and the server queues the client, next to an available
// resource; if that was the last Produce nothing will ever wake it. The
// system falls quiescent in a state that is not live (a dead end rather
// than a cycle: no event is left to run). About 6% of plain random walks
// lose the wakeup.
//
// Critical transition: the server handling the last Produce (node 0, app
// request) while the client's Empty or Sleeping is in flight. Before it,
// Sleeping may still arrive first, so the Produce wakes the client; after
// it, no execution is live.
//
// The fix (fixed=true), check the condition again once the sleeper is
// known: on Sleeping, the server answers Wakeup at once if a resource is
// available, and only queues the client otherwise. Messages are handled
// atomically, so no Produce can slip in between the check and the
// queueing.
package scheduler

package hook

import "github.com/rs/zerolog"

// Runtime is what a Context and a View need from the simulator. Node
// arguments are the acting node's id. Every method that a handler reaches
// first unwinds the handler if the watchdog abandoned the execution
// (Check), so a handler spinning on the Context is stopped.
type Runtime interface {
	// Check unwinds the running handler (by panicking) when the execution
	// was abandoned.
	Check()
	Nodes() int
	// LogStep is the number of the transition being executed (0 at boot).
	LogStep() int
	Send(from, to int, msg any, datagram bool)
	SetTimer(node int, name string, periodic bool)
	CancelTimer(node int, name string)
	TimerScheduled(node int, name string) bool
	Rand(node, n int) int
	// Elapsed answers whether d nanoseconds have elapsed.
	Elapsed(node int, d int64) bool
	Monotone(node int) uint64
	// Restarted reports whether the node's incarnation began with a reset.
	Restarted(node int) bool
	// RandBytes fills p from the node's deterministic random stream.
	RandBytes(node int, p []byte)
	// Log returns a log event for the node's annotation, or nil.
	Log(node int) *zerolog.Event
	// Notify hands a service's event to every monitor.
	Notify(node int, event any)
	// Monitor returns monitor i (a sim.Monitor) and its first assertion
	// failure ("" if none); nil past the last monitor.
	Monitor(i int) (m any, failure string)
	// Invoke and Return record client history events.
	Invoke(node, client int, op any)
	Return(node, client int, result any)
	// InFlight and Up serve a View.
	InFlight() int
	Up(node int) bool
}

// Constructors set by package sim.
var (
	// NewContext returns a *sim.Context for node, backed by rt.
	NewContext func(rt Runtime, node int) any
	// NewView returns a *sim.View backed by rt; services is a
	// *[]sim.Service that rt keeps up to date with the nodes' structs and
	// history a *[]sim.HistoryEvent that it keeps up to date with the
	// client history.
	NewView func(rt Runtime, services, history any) any
	// Rebind makes ctx, a *sim.Context, act on rt from now on: the
	// simulator that holds its execution after an exchange of executions
	// (a node may keep its Context for its later handlers).
	Rebind func(ctx any, rt Runtime)
)

package sim

import "fmt"

// HistoryKind says whether a history event is an invocation or a response.
type HistoryKind uint8

// The kinds of history events (Herlihy and Wing's terms).
const (
	// Invocation: a client invoked an operation (Context.Invoke).
	Invocation HistoryKind = iota
	// Response: the client's pending operation returned (Context.Return).
	Response
)

// String returns "invoke" or "return".
func (k HistoryKind) String() string {
	if k == Response {
		return "return"
	}
	return "invoke"
}

// HistoryEvent is one event of an execution's client history (seed 004):
// a client invoking an operation on the system under test, or the
// response it got.
type HistoryEvent struct {
	Kind HistoryKind
	// Client is the client that invoked or got the response.
	Client int
	// Value is the operation for an invocation (its type names the
	// operation, its fields are the arguments, e.g. Write{Value: 3}) and
	// the result for a response.
	Value any
	// Node is the node whose handler recorded the event, and Step the
	// transition it ran in (counting from 1; 0 while the system boots).
	Node NodeID
	Step int
}

// String describes the event, e.g. "client 2 invokes Write{Value: 3}".
// Values print with fmt's %+v; the checker's reports print them in the
// simulator's text form.
func (e HistoryEvent) String() string {
	if e.Kind == Response {
		return fmt.Sprintf("client %d returns %+v", e.Client, e.Value)
	}
	return fmt.Sprintf("client %d invokes %+v", e.Client, e.Value)
}

// Linearizable is the name of the property a Model stands for: the
// clients' history of every execution is linearizable. Config.Select and
// the checker's reports use it.
const Linearizable = "Linearizable"

// Model is the sequential specification of the object a system
// implements (seed 004): a plain, single-threaded implementation of the
// same abstract data type, such as a register or a map. The checker
// records the clients' history of every execution (Context.Invoke and
// Context.Return) and reports an execution whose history is not
// linearizable: no order of its operations that respects their real-time
// order (an operation that returned before another was invoked comes
// first) makes the model give every response that was observed.
//
// Operations that never returned (their client still waits, or its node
// reset) may or may not have taken effect: the checker lets them take
// effect at any point after their invocation, or not at all, whatever
// their result.
type Model struct {
	// Init returns the object's initial state.
	Init func() any
	// Apply applies operation op (an invocation's Value) to state and
	// returns the new state and the operation's result, which is compared
	// with a response's Value (by canonical form: the same encoding as
	// the simulator's state hash). It must not modify state: return a new
	// value (maps and slices copied) instead. The checker applies one
	// state to operations in many orders, so a change of state would make
	// histories look not linearizable: before it calls one so, it checks
	// that Apply left every state as it was, and reports the model's
	// failure instead when not (as it reports a model that panics).
	Apply func(state, op any) (next, result any)
	// Partition, when set, returns the key an operation touches (a map's
	// key): operations on different keys are checked separately, which
	// is exact (linearizability is compositional) and much faster.
	Partition func(op any) string
	// DescribeOp and DescribeState, when set, describe an operation with
	// its result and a state for the history visualization (e.g.
	// "put(x, 1)" and "{x: 1}"); by default their text forms are shown.
	// Both are plain text: the page shows "<" as written.
	DescribeOp    func(op, result any) string
	DescribeState func(state any) string
}

func (m *Model) validate() error {
	if m.Init == nil || m.Apply == nil {
		return fmt.Errorf("%w: model without Init or Apply", ErrBadConfig)
	}
	return nil
}

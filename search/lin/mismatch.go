package lin

import (
	"fmt"
	"reflect"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// TypeMismatch is an operation whose result, as the model computes it,
// has another type than the response the client recorded. Results are
// compared by canonical form, type included, so an int never matches an
// int64 and a struct never matches a pointer to it: a model that returns
// the wrong type makes every history with that operation look not
// linearizable.
type TypeMismatch struct {
	// Op is the operation (its invocation's Value).
	Op any
	// Model and Client are the types of the model's result and of the
	// client's response.
	Model, Client reflect.Type
}

// String says what differs and what to change, e.g. "the model's Apply
// returns int for Get{Key: "x"} where the client's response is int64
// ...".
func (m *TypeMismatch) String() string {
	return fmt.Sprintf("the model's Apply returns %v for %s where the client's response is %v: results are compared with their type, so they never match; if the system is right, make Apply return %v",
		m.Model, engine.FormatValue(m.Op), m.Client, m.Client)
}

// TypeMismatch returns the first operation of history h, in history
// order, whose model result from the initial state (Init, then Apply) has
// another type than its response, or nil when there is none. An Apply
// that panics from the initial state is passed over, and so is an
// operation when the whole history all (h itself, or the history h was
// taken from) holds a response of the model's type to another operation
// of the same type: the model is then right, and this response is the
// system's mistake (a reply to another request, say). It is meant for a
// history the checker found not linearizable: the types of results rarely
// depend on the state, and a mismatch explains the verdict.
func (c *Checker) TypeMismatch(h, all []sim.HistoryEvent) *TypeMismatch {
	for _, o := range operationsOf(h) {
		if o.ret < 0 {
			continue
		}
		op, got := h[o.call].Value, h[o.ret].Value
		res, ok := c.applyFromInit(op)
		if !ok || res == nil || got == nil {
			continue
		}
		if rt, gt := reflect.TypeOf(res), reflect.TypeOf(got); rt != gt && !answered(all, reflect.TypeOf(op), rt) {
			return &TypeMismatch{Op: op, Model: rt, Client: gt}
		}
	}
	return nil
}

// answered reports whether history h holds a response of type res to an
// operation of type op.
func answered(h []sim.HistoryEvent, op, res reflect.Type) bool {
	for _, o := range operationsOf(h) {
		if o.ret >= 0 && reflect.TypeOf(h[o.call].Value) == op && reflect.TypeOf(h[o.ret].Value) == res {
			return true
		}
	}
	return false
}

// applyFromInit applies op to the model's initial state; ok is false when
// Init or Apply panicked.
func (c *Checker) applyFromInit(op any) (res any, ok bool) {
	defer func() {
		if recover() != nil {
			res, ok = nil, false
		}
	}()
	_, res = c.model.Apply(c.model.Init(), op)
	return res, true
}

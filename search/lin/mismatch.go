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
// that panics from the initial state is passed over. It is meant for a
// history the checker found not linearizable: the types of results rarely
// depend on the state, and a mismatch explains the verdict.
func (c *Checker) TypeMismatch(h []sim.HistoryEvent) *TypeMismatch {
	for _, o := range operationsOf(h) {
		if o.ret < 0 {
			continue
		}
		op, got := h[o.call].Value, h[o.ret].Value
		res, ok := c.applyFromInit(op)
		if !ok || res == nil || got == nil {
			continue
		}
		if rt, gt := reflect.TypeOf(res), reflect.TypeOf(got); rt != gt {
			return &TypeMismatch{Op: op, Model: rt, Client: gt}
		}
	}
	return nil
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

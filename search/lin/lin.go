package lin

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"html"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/macemc/macemc/internal/recovered"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Property is the name a linearizability violation is reported under.
const Property = sim.Linearizable

// ErrModel marks a model that failed while the checker ran it: it
// panicked (a *ModelPanicError) or changed a state it was given (a
// *ModelMutationError). The history it was checking is ModelFailed.
var ErrModel = errors.New("lin: the model failed")

// ModelPanicError is a panic of the model's Init, Apply, Partition or
// Describe functions: Value is the panic's value, Site the function and
// line that panicked.
type ModelPanicError struct {
	Value any
	Site  string
}

// Error says what panicked and where.
func (e *ModelPanicError) Error() string {
	return fmt.Sprintf("lin: the model panicked: %v (at %s)", e.Value, e.Site)
}

// Unwrap returns ErrModel.
func (e *ModelPanicError) Unwrap() error { return ErrModel }

// ModelMutationError is an Apply that changed the state it was given:
// porcupine applies an operation to one state several times (it tries
// the operations in many orders), so a model whose Apply changes its
// argument in place instead of returning a new state judges histories
// wrongly. Op is the operation, Before and After the state (as text)
// before and after the call.
type ModelMutationError struct {
	Op            any
	Before, After string
}

// Error says which operation changed which state, and how to fix it.
func (e *ModelMutationError) Error() string {
	return fmt.Sprintf("lin: the model's Apply changed the state it was given: Apply(%s, %s) left it %s; Apply must leave its state argument as it is and return a new one (copy a map or slice before changing it)",
		e.Before, engine.FormatValue(e.Op), e.After)
}

// Unwrap returns ErrModel.
func (e *ModelMutationError) Unwrap() error { return ErrModel }

// Verdict is what a check concluded about one history.
type Verdict int

// The verdicts (porcupine's CheckResult).
const (
	// Ok: the history is linearizable.
	Ok Verdict = iota
	// Illegal: the history is not linearizable.
	Illegal
	// Unknown: the checker did not decide within its timeout. It is
	// never taken for Ok.
	Unknown
	// ModelFailed: the model panicked on the history, or its Apply
	// changed the state it was given (ModelErr says how). Either the
	// model has a bug or the history holds what it does not expect (a
	// response of another type, an operation it does not know): the
	// history was not checked, and is never taken for Ok.
	ModelFailed
)

var verdictNames = [...]string{"ok", "illegal", "unknown", "model failed"}

// String returns "ok", "illegal", "unknown" or "model failed".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// DefaultTimeout bounds one history's check. The histories of the example
// systems check in microseconds; a check that takes this long is
// reported Unknown.
const DefaultTimeout = 10 * time.Second

// Checker checks client histories against a sequential model with
// porcupine, and remembers each verdict by the history's canonical hash
// (engine.Sim.HistoryHash): histories with the same hash are linearizable
// alike. It is safe for concurrent use.
type Checker struct {
	model   *sim.Model
	timeout time.Duration

	mu    sync.Mutex
	cache map[uint64]Verdict
	err   error // the first model panic
}

// New returns a checker for model m; a check that takes longer than
// timeout is Unknown (0: DefaultTimeout).
func New(m *sim.Model, timeout time.Duration) *Checker {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Checker{model: m, timeout: timeout, cache: map[uint64]Verdict{}}
}

// Check returns the verdict on history h, whose canonical hash is key (0:
// compute it). It checks each distinct history once.
func (c *Checker) Check(key uint64, h []sim.HistoryEvent) Verdict {
	if key == 0 {
		key = Key(h)
	}
	c.mu.Lock()
	v, ok := c.cache[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	// The histories of one key differ only in the order of concurrent
	// events, which decides nothing for a model without bugs; but whether
	// porcupine meets a call that panics depends on it, and which history
	// of a key a search checks first depends on its workers' timing. So
	// every history is checked in its key's one order.
	ops := Operations(Canonical(h))
	v, _ = c.check(ops)
	if v == Illegal {
		// Before a history is called not linearizable, make sure the
		// model did not cause it by changing the states it was given
		// (only then: the detection encodes every state twice a call).
		if mv, _ := c.checkMutations(ops); mv == ModelFailed {
			v = ModelFailed
		}
	}
	c.mu.Lock()
	c.cache[key] = v
	c.mu.Unlock()
	return v
}

// CheckSim checks the history of s's execution.
func (c *Checker) CheckSim(s *engine.Sim) Verdict { return c.Check(s.HistoryHash(), s.History()) }

// ModelErr checks history h again and returns how the model failed on it
// (a *ModelPanicError or a *ModelMutationError) when h is ModelFailed, or
// nil.
func (c *Checker) ModelErr(h []sim.HistoryEvent) error {
	ops := Operations(Canonical(h))
	if _, err := c.check(ops); err != nil {
		return err
	}
	_, err := c.checkMutations(ops)
	return err
}

// Canonical returns h with every run of consecutive invocations, and every
// run of consecutive responses, in the order of their clients (a client's
// own events keep theirs). Histories that differ only in the order of such
// concurrent events have the same real-time order of operations, the same
// canonical form (engine.Sim.HistoryHash) and the same Canonical.
func Canonical(h []sim.HistoryEvent) []sim.HistoryEvent {
	out := slices.Clone(h)
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && out[j].Kind == out[i].Kind {
			j++
		}
		slices.SortStableFunc(out[i:j], func(a, b sim.HistoryEvent) int { return cmp.Compare(a.Client, b.Client) })
		i = j
	}
	return out
}

// Err returns the first panic of the model the checker saw (a
// *ModelPanicError), or nil. With histories checked in parallel, which
// panic came first depends on timing; ModelErr says how the model failed
// on one history.
func (c *Checker) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// check runs porcupine on ops; when the model failed, the error is the
// first of its failures in this check.
func (c *Checker) check(ops []porcupine.Operation) (Verdict, error) {
	return c.checkWith(ops, false)
}

// checkMutations is check with every Apply watched for a change of the
// state it was given (ModelMutationError).
func (c *Checker) checkMutations(ops []porcupine.Operation) (Verdict, error) {
	return c.checkWith(ops, true)
}

func (c *Checker) checkWith(ops []porcupine.Operation, watch bool) (Verdict, error) {
	pm, g := c.adapt()
	if watch {
		step := pm.Step
		pm.Step = func(state, input, output any) (bool, any) {
			before, text := engine.AppendCanonical(nil, state), engine.FormatValue(state)
			ok, next := step(state, input, output)
			if after := engine.AppendCanonical(nil, state); !bytes.Equal(before, after) {
				var err error = &ModelMutationError{Op: input, Before: text, After: engine.FormatValue(state)}
				g.first.CompareAndSwap(nil, &err)
			}
			return ok, next
		}
	}
	res := porcupine.CheckOperationsTimeout(pm, ops, c.timeout)
	if err := g.first.Load(); err != nil {
		return ModelFailed, *err
	}
	return verdict(res), nil
}

// verdict turns porcupine's result into a Verdict.
func verdict(res porcupine.CheckResult) Verdict {
	switch {
	case res == porcupine.Ok:
		return Ok
	case res == porcupine.Illegal:
		return Illegal
	}
	return Unknown
}

// guards collects the panics of the model's calls during one check.
type guards struct {
	first atomic.Pointer[error] // the check's first panic
}

// guard runs a call of the model, which porcupine makes on goroutines of
// its own: a panic is kept as the check's first and the checker's first
// error, and the call returns the zero values.
func (c *Checker) guard(g *guards, f func()) {
	defer func() {
		if r := recover(); r != nil {
			var err error = &ModelPanicError{Value: r, Site: recovered.Site()}
			g.first.CompareAndSwap(nil, &err)
			c.mu.Lock()
			if c.err == nil {
				c.err = err
			}
			c.mu.Unlock()
		}
	}()
	f()
}

// Minimize returns a minimal non-linearizable sub-history of the
// non-linearizable history h, or nil when h is not Illegal.
//
// Deleting operations alone gives useless witnesses: drop the write of a
// register and a read of the written value is not linearizable by itself.
// So the witness is built in two passes over h's operations, in history
// order (deterministic):
//
//  1. Observations. Each operation's result is forgotten in turn (it
//     becomes an operation that never returned, which may take effect
//     anywhere after its invocation, or not at all) while the history
//     stays non-linearizable. The operations whose results remain are the
//     observations no order explains together; none can be forgotten.
//  2. Context. The forgotten operations are deleted in turn as long as
//     every observation that some order of it and the context explains on
//     its own still is: the writes a read's value comes from stay.
//
// The sub-history is the events, as they happened in h, of the
// observations and the context left: adding the context's real results
// back only constrains it more, so it is not linearizable either.
func (c *Checker) Minimize(h []sim.HistoryEvent) []sim.HistoryEvent {
	check := func(ops []porcupine.Operation) Verdict {
		v, _ := c.check(ops)
		return v
	}
	ops := operationsOf(h)
	all := make([]state, len(ops))
	if check(c.porcupineOps(h, ops, all)) != Illegal {
		return nil
	}
	cur := slices.Clone(all)
	for i := range ops {
		cur[i] = weak
		if check(c.porcupineOps(h, ops, cur)) != Illegal {
			cur[i] = strong
		}
	}
	// explained reports whether observation i alone, with the context
	// ctx, is linearizable.
	explained := func(i int, ctx []state) bool {
		one := slices.Clone(ctx)
		one[i] = strong
		return check(c.porcupineOps(h, ops, one)) == Ok
	}
	context := func(with []state) []state {
		out := slices.Clone(with)
		for j := range out {
			if out[j] == strong {
				out[j] = gone
			}
		}
		return out
	}
	var obs []int
	for i := range ops {
		if cur[i] == strong && explained(i, context(cur)) {
			obs = append(obs, i)
		}
	}
	for i := range ops {
		if cur[i] != weak {
			continue
		}
		cur[i] = gone
		ok := check(c.porcupineOps(h, ops, cur)) == Illegal
		for _, o := range obs {
			ok = ok && explained(o, context(cur))
		}
		if !ok {
			cur[i] = weak
		}
	}
	var out []sim.HistoryEvent
	for i, e := range h {
		for j, op := range ops {
			if cur[j] != gone && (op.call == i || op.ret == i) {
				out = append(out, e)
			}
		}
	}
	return out
}

// state is how an operation takes part in a check during Minimize.
type state uint8

const (
	strong state = iota // with its result
	weak                // as if it never returned
	gone                // left out
)

// Visualize writes porcupine's HTML visualization of history h to w: the
// clients' operations on a time line and, for a history that is not
// linearizable, the longest partial linearizations and where they fail.
// It returns the verdict of the (verbose) check it ran.
func (c *Checker) Visualize(h []sim.HistoryEvent, w io.Writer) (Verdict, error) {
	pm, g := c.adapt()
	res, info := porcupine.CheckOperationsVerbose(pm, Operations(h), c.timeout)
	v := verdict(res)
	var buf bytes.Buffer
	var err error
	c.guard(g, func() { err = porcupine.Visualize(pm, info, &buf) })
	switch {
	case err != nil:
		return v, fmt.Errorf("lin: visualize: %w", err)
	case g.first.Load() != nil:
		return ModelFailed, fmt.Errorf("lin: visualize: %w", *g.first.Load())
	}
	_, err = w.Write(buf.Bytes())
	return v, err
}

// Key returns a hash of history h's events (kinds, clients, values) to
// pass to Check when the execution's own canonical hash is not at hand:
// the verdict depends on nothing else. It differs from
// engine.Sim.HistoryHash, which merges more histories; a checker given
// both kinds of keys merely checks some histories twice.
func Key(h []sim.HistoryEvent) uint64 {
	type ev struct {
		Kind   sim.HistoryKind
		Client int
		Value  any
	}
	evs := make([]ev, len(h))
	for i, e := range h {
		evs[i] = ev{e.Kind, e.Client, e.Value}
	}
	return engine.Hash(evs) | 1
}

// op is one operation of a history: the indexes of its invocation and
// response (-1: it never returned).
type op struct{ call, ret int }

// operationsOf pairs each invocation of h with its client's next response.
func operationsOf(h []sim.HistoryEvent) []op {
	var ops []op
	open := map[int]int{} // client -> index in ops of its pending operation
	for i, e := range h {
		switch e.Kind {
		case sim.Invocation:
			// A client invokes again while an operation of its own is
			// open only when its node reset and abandoned that one: it
			// stays pending.
			open[e.Client] = len(ops)
			ops = append(ops, op{call: i, ret: -1})
		case sim.Response:
			if j, ok := open[e.Client]; ok {
				ops[j].ret = i
				delete(open, e.Client)
			}
		}
	}
	return ops
}

// pending is the result of an operation that never returned: it may have
// taken effect or not, and any result is accepted.
type pending struct{}

// Operations converts history h to porcupine's operations: times are the
// positions of the events in h, so the real-time order is the history's;
// an operation that never returned ends after every event of h, with a
// result the model accepts whatever it computes.
func Operations(h []sim.HistoryEvent) []porcupine.Operation {
	return (*Checker)(nil).porcupineOps(h, operationsOf(h), nil)
}

// porcupineOps converts the operations ops of h as st says: with their
// results, as if they never returned, or not at all (all with their
// results when st is nil).
func (c *Checker) porcupineOps(h []sim.HistoryEvent, ops []op, st []state) []porcupine.Operation {
	out := make([]porcupine.Operation, 0, len(ops))
	end := int64(len(h))
	for i, o := range ops {
		if st != nil && st[i] == gone {
			continue
		}
		call := h[o.call]
		p := porcupine.Operation{ClientId: call.Client, Input: call.Value, Call: int64(o.call), Output: pending{}, Return: end,
			Metadata: meta{call: call.Step, ret: -1}}
		if o.ret >= 0 && (st == nil || st[i] == strong) {
			p.Output, p.Return = h[o.ret].Value, int64(o.ret)
			p.Metadata = meta{call: call.Step, ret: h[o.ret].Step}
		}
		out = append(out, p)
	}
	return out
}

// meta is an operation's steps, shown by the visualization.
type meta struct{ call, ret int }

// adapt turns the checker's sim.Model into a porcupine.Model whose calls
// of the model are guarded: g holds their panics.
func (c *Checker) adapt() (porcupine.Model, *guards) {
	m := c.model
	g := new(guards)
	canon := func(v any) []byte { return engine.AppendCanonical(nil, v) }
	pm := porcupine.Model{
		Init: func() (s any) {
			c.guard(g, func() { s = m.Init() })
			return s
		},
		Step: func(state, input, output any) (bool, any) {
			var next, res any
			ok := false
			c.guard(g, func() { next, res = m.Apply(state, input); ok = true })
			if !ok {
				return false, state
			}
			if _, ok := output.(pending); ok {
				return true, next
			}
			return bytes.Equal(canon(res), canon(output)), next
		},
		Equal: func(a, b any) bool { return bytes.Equal(canon(a), canon(b)) },
		Hash:  engine.Hash,
		DescribeOperation: func(input, output any) string {
			if _, ok := output.(pending); ok {
				if m.DescribeOp != nil {
					var d string
					c.guard(g, func() { d = m.DescribeOp(input, nil) })
					return d + " (pending)"
				}
				return engine.FormatValue(input) + " → (pending)"
			}
			if m.DescribeOp != nil {
				var d string
				c.guard(g, func() { d = m.DescribeOp(input, output) })
				return d
			}
			return engine.FormatValue(input) + " → " + engine.FormatValue(output)
		},
		// porcupine's page puts a state's description into its tooltip
		// as HTML (an operation's goes in as text): a state is plain text
		// (a value a client wrote, "<b>" or a script), so it is escaped.
		DescribeState: func(state any) string {
			if m.DescribeState != nil {
				var d string
				c.guard(g, func() { d = m.DescribeState(state) })
				return html.EscapeString(d)
			}
			return html.EscapeString(engine.FormatValue(state))
		},
		DescribeOperationMetadata: func(info any) string {
			md, ok := info.(meta)
			if !ok {
				return ""
			}
			if md.ret < 0 {
				return fmt.Sprintf("invoked at step %d, never returned", md.call)
			}
			return fmt.Sprintf("steps %d to %d", md.call, md.ret)
		},
	}
	if m.Partition != nil {
		pm.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, o := range ops {
				var k string
				c.guard(g, func() { k = m.Partition(o.Input) })
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], o)
			}
			slices.Sort(keys)
			out := make([][]porcupine.Operation, len(keys))
			for i, k := range keys {
				out[i] = byKey[k]
			}
			return out
		}
	}
	return pm, g
}

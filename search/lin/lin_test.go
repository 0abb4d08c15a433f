package lin_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// The operations of the test models.
type (
	write struct{ V int }
	read  struct{}
	put   struct {
		K string
		V int
	}
	get struct{ K string }
)

// registerModel is an integer register, 0 at first.
var registerModel = sim.Model{
	Init: func() any { return 0 },
	Apply: func(state, op any) (any, any) {
		if w, ok := op.(write); ok {
			return w.V, "ok"
		}
		return state, state
	},
}

// register64Model is registerModel with a mistake users make: its reads
// return an int64 where the clients record an int.
var register64Model = sim.Model{
	Init: registerModel.Init,
	Apply: func(state, op any) (any, any) {
		if w, ok := op.(write); ok {
			return w.V, "ok"
		}
		return state, int64(state.(int))
	},
}

// mapModel is a map of integers, partitioned by key.
var mapModel = sim.Model{
	Init: func() any { return map[string]int{} },
	Apply: func(state, op any) (any, any) {
		m := state.(map[string]int)
		if p, ok := op.(put); ok {
			next := maps.Clone(m)
			next[p.K] = p.V
			return next, "ok"
		}
		return m, m[op.(get).K]
	},
	Partition: func(op any) string {
		if p, ok := op.(put); ok {
			return p.K
		}
		return op.(get).K
	},
}

// parseHistory reads one event a line: "CLIENT invoke write N", "CLIENT
// invoke read", "CLIENT invoke put K N", "CLIENT invoke get K" or
// "CLIENT return VALUE" (an integer, or any other word as a string). An
// event's step is its line number.
func parseHistory(t *testing.T, input string) []sim.HistoryEvent {
	var h []sim.HistoryEvent
	for i, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("line %d: %q", i+1, line)
		}
		c, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("line %d: client %q", i+1, f[0])
		}
		e := sim.HistoryEvent{Client: c, Node: sim.NodeID(c), Step: i + 1}
		num := func(s string) int {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("line %d: %q is not a number", i+1, s)
			}
			return n
		}
		switch f[1] {
		case "invoke":
			switch f[2] {
			case "write":
				e.Value = write{num(f[3])}
			case "read":
				e.Value = read{}
			case "put":
				e.Value = put{f[3], num(f[4])}
			case "get":
				e.Value = get{f[3]}
			default:
				t.Fatalf("line %d: operation %q", i+1, f[2])
			}
		case "return":
			e.Kind = sim.Response
			if n, err := strconv.Atoi(f[2]); err == nil {
				e.Value = n
			} else {
				e.Value = f[2]
			}
		default:
			t.Fatalf("line %d: %q is neither invoke nor return", i+1, f[1])
		}
		h = append(h, e)
	}
	return h
}

// TestHistories checks the histories of testdata/histories: the verdict
// and, for one that is not linearizable, the minimal sub-history and the
// hint of a model whose results have the wrong type.
// Regenerate with -rewrite.
func TestHistories(t *testing.T) {
	datadriven.RunTest(t, "testdata/histories", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "check" {
			t.Fatalf("unknown command %q", d.Cmd)
		}
		m := &registerModel
		if d.HasArg("map") {
			m = &mapModel
		}
		if d.HasArg("int64") {
			m = &register64Model
		}
		c := lin.New(m, 0)
		h := parseHistory(t, d.Input)
		v := c.Check(lin.Key(h), h)
		var b strings.Builder
		fmt.Fprintln(&b, v)
		if v == lin.Illegal {
			b.WriteString("minimal:\n")
			min := c.Minimize(h)
			b.WriteString(engine.HistoryText(min))
			if tm := c.TypeMismatch(min, h); tm != nil {
				fmt.Fprintf(&b, "hint: %s\n", tm)
			}
		}
		return b.String()
	})
}

// TestCache: a history is checked once; the key decides.
func TestCache(t *testing.T) {
	calls := 0
	m := registerModel
	m.Apply = func(state, op any) (any, any) { calls++; return registerModel.Apply(state, op) }
	c := lin.New(&m, 0)
	h := parseHistory(t, "0 invoke write 1\n0 return ok\n1 invoke read\n1 return 1")
	if v := c.Check(0, h); v != lin.Ok {
		t.Fatalf("verdict %s", v)
	}
	n := calls
	if v := c.Check(lin.Key(h), h); v != lin.Ok || calls != n {
		t.Fatalf("the same history was checked again (%d model calls, then %d)", n, calls)
	}
}

// TestUnknown: a check that outlasts the timeout is Unknown, never Ok; a
// model that panics makes the history Panicked, and ModelPanic says what
// panicked where.
func TestUnknown(t *testing.T) {
	slow := registerModel
	slow.Apply = func(state, op any) (any, any) {
		time.Sleep(50 * time.Millisecond)
		return registerModel.Apply(state, op)
	}
	h := parseHistory(t, "0 invoke write 1\n1 invoke read\n0 return ok\n1 return 1")
	if v := lin.New(&slow, time.Millisecond).Check(0, h); v != lin.Unknown {
		t.Fatalf("a check slower than its timeout: %s", v)
	}
	bad := registerModel
	bad.Apply = func(any, any) (any, any) { panic("broken model") }
	c := lin.New(&bad, 0)
	if v := c.Check(0, h); v != lin.ModelFailed {
		t.Fatalf("a panicking model: %s", v)
	}
	if err := c.Err(); !errors.Is(err, lin.ErrModel) || !strings.Contains(err.Error(), "broken model") {
		t.Fatalf("Err() = %v", err)
	}
	var mp *lin.ModelPanicError
	if err := c.ModelErr(h); !errors.As(err, &mp) || mp.Value != "broken model" || !strings.Contains(mp.Site, "lin_test.TestUnknown.func") {
		t.Fatalf("ModelPanic() = %v", err)
	}
	if err := lin.New(&registerModel, 0).ModelErr(h); err != nil {
		t.Fatalf("ModelPanic of a sound model: %v", err)
	}
}

// TestVisualize: the HTML of a non-linearizable history shows its
// operations as the model describes them.
func TestVisualize(t *testing.T) {
	m := registerModel
	m.DescribeOp = func(op, result any) string { return fmt.Sprintf("OP %s → %v", engine.FormatValue(op), result) }
	c := lin.New(&m, 0)
	h := parseHistory(t, "0 invoke write 1\n0 return ok\n1 invoke read\n1 return 0")
	var buf bytes.Buffer
	v, err := c.Visualize(h, &buf)
	if err != nil || v != lin.Illegal {
		t.Fatalf("Visualize: %s, %v", v, err)
	}
	html := buf.String()
	for _, want := range []string{"<html", "OP write{V: 1} → ok", "OP read{} → 0", "steps 3 to 4"} {
		if !strings.Contains(html, want) {
			t.Errorf("the visualization lacks %q", want)
		}
	}
}

// TestVisualizedStatesAreText: porcupine's page puts a state's description
// into its tooltip as HTML; a value a client wrote ("<img onerror=...>",
// "a<b && c>d") is shown as the text it is, never as markup.
func TestVisualizedStatesAreText(t *testing.T) {
	m := registerModel
	m.Init = func() any { return "" }
	m.Apply = func(state, op any) (any, any) {
		if w, ok := op.(writeText); ok {
			return w.V, "ok"
		}
		return state, state
	}
	h := []sim.HistoryEvent{
		{Client: 0, Kind: sim.Invocation, Value: writeText{V: "<img src=x onerror=alert(1)>"}, Step: 1},
		{Client: 0, Kind: sim.Response, Value: "ok", Step: 2},
		{Client: 1, Kind: sim.Invocation, Value: read{}, Step: 3},
		{Client: 1, Kind: sim.Response, Value: "", Step: 4},
	}
	var buf bytes.Buffer
	if _, err := lin.New(&m, 0).Visualize(h, &buf); err != nil {
		t.Fatal(err)
	}
	// The page's data is JSON, which writes "<" as \u003c and "&" as \u0026.
	states := regexp.MustCompile(`"StateDescription":"((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(buf.String(), -1)
	escaped := false
	for _, m := range states {
		if strings.Contains(m[1], `\u003c`) {
			t.Errorf("a state's description reaches the page as markup: %s", m[1])
		}
		escaped = escaped || strings.Contains(m[1], `\u0026lt;img src=x onerror=alert(1)\u0026gt;`)
	}
	if !escaped {
		t.Errorf("no state shows the value written, escaped: %q", states)
	}
}

// writeText writes a string to the register.
type writeText struct{ V string }

// TestModelThatChangesItsState: a model whose Apply changes the map it was
// given makes a linearizable history look illegal (porcupine applies
// operations to one state in several orders). The checker does not call
// such a history not linearizable: ModelErr names the operation and the
// state before and after. The same history with a sound model is Ok.
func TestModelThatChangesItsState(t *testing.T) {
	mutating := mapModel
	mutating.Apply = func(state, op any) (any, any) {
		m := state.(map[string]int)
		if p, ok := op.(put); ok {
			m[p.K] = p.V // in place: the bug
			return m, "ok"
		}
		return m, m[op.(get).K]
	}
	// The get took effect before the put: linearizable.
	h := parseHistory(t, "0 invoke put x 1\n1 invoke get x\n1 return 0\n0 return ok")
	if v := lin.New(&mapModel, 0).Check(0, h); v != lin.Ok {
		t.Fatalf("a sound model: %s", v)
	}
	c := lin.New(&mutating, 0)
	if v := c.Check(0, h); v != lin.ModelFailed {
		t.Fatalf("a model that changes its state: %s", v)
	}
	var me *lin.ModelMutationError
	err := c.ModelErr(h)
	if !errors.As(err, &me) || !errors.Is(err, lin.ErrModel) || me.Op != (put{"x", 1}) || me.Before != "{}" || me.After != `{"x": 1}` {
		t.Fatalf("ModelErr() = %v", err)
	}
}

// TestCanonicalOrder: histories that differ only in the order of
// concurrent events share a key, and are checked in one order: a model
// that panics on some calls then fails on all of them or none, whichever
// the checker meets first (a search's report depended on which of them its
// workers checked first).
func TestCanonicalOrder(t *testing.T) {
	inv := func(c int, op any) sim.HistoryEvent {
		return sim.HistoryEvent{Kind: sim.Invocation, Client: c, Value: op}
	}
	ret := func(c int, v any) sim.HistoryEvent { return sim.HistoryEvent{Kind: sim.Response, Client: c, Value: v} }
	a := []sim.HistoryEvent{inv(0, write{1}), inv(1, read{}), inv(2, read{}), ret(1, 0), ret(0, "ok"), ret(2, 0)}
	b := []sim.HistoryEvent{inv(1, read{}), inv(2, read{}), inv(0, write{1}), ret(1, 0), ret(0, "ok"), ret(2, 0)}
	if ca, cb := lin.Canonical(a), lin.Canonical(b); fmt.Sprint(ca) != fmt.Sprint(cb) {
		t.Fatalf("canonical orders differ:\n%v\n%v", ca, cb)
	}
	// A model whose Apply panics once the register holds a value.
	panicky := registerModel
	panicky.Apply = func(state, op any) (any, any) {
		if state != 0 {
			panic("the model's bug")
		}
		return registerModel.Apply(state, op)
	}
	first := func(hs ...[]sim.HistoryEvent) []lin.Verdict {
		c := lin.New(&panicky, 0)
		var out []lin.Verdict
		for _, h := range hs {
			out = append(out, c.Check(lin.Key(lin.Canonical(h)), h))
		}
		return out
	}
	ab, ba := first(a, b), first(b, a)
	if ab[0] != ba[0] || ab[0] != ab[1] {
		t.Errorf("a then b: %v; b then a: %v", ab, ba)
	}
}

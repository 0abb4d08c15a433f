package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
)

// OrderDifference is a step whose handler did the same things in replays
// of the same path but not in the same order, where the order leaves no
// trace in the state: it sent messages to several nodes, or set and
// cancelled timers, in another order (a range over a map, most often). The
// states agree, so the search's verdicts do not depend on it, but the
// logs, mdb's event graph and anything else that shows the order differ
// from one run to the next. CheckDeterminismOrder finds the first.
type OrderDifference struct {
	// Step is the step whose handler it was (0: the boot) and Event that
	// step's event ("" for the boot).
	Step  int
	Event string
	// Node is the node whose handler did it.
	Node int
	// One and Other are what that node did at the step, in order, in two
	// of the replays ("sends Decision to node 4", "sets timer \"ask\"",
	// "logs \"have\" key=a"); One is the lesser (slices.Compare), whatever
	// replay did it.
	One, Other []string
	// Actions are what the node did at the step in the first replay
	// (lines logged included, when it recorded them), sorted: the text
	// lists them, not an order, which is chance.
	Actions []string
	// Reordered is set when One and Other hold the same things; otherwise
	// the two replays did different things that the state does not show
	// (a message to a node that is down, a timer set and cancelled).
	Reordered bool
}

// logEffectReplays is how many of a determinism check's replays record the
// lines handlers log. Go ranges over a map of up to eight entries from a
// random one of its eight slots: 16 replays all range one of eight entries
// alike about once in 10^13 checks, one of four (from slot 0 five times in
// eight) once in 2,000, one of two (seven times in eight) once in 8.
const logEffectReplays = 16

// logEffectBytes bounds the lines a replay records (logEffects): a step
// that begins past it records none. A 200 KB value logged at each step
// took the whole budget of the check before the search.
const logEffectBytes = 4 << 20

// maxOrderItems is how many of a handler's actions an OrderDifference's
// text lists before "…".
const maxOrderItems = 6

// String describes the difference for a report's warnings, with advice.
func (d *OrderDifference) String() string { return d.Describe("the same path") }

// Describe is String, naming the path replayed (path, e.g. "the violating
// path (error.trace)").
func (d *OrderDifference) Describe(path string) string {
	where := "at boot (Start)"
	if d.Step > 0 {
		where = fmt.Sprintf("at step %d (%s)", d.Step, d.Event)
	}
	how := "did its actions in different orders"
	if !d.Reordered {
		how = "did different actions that the state does not show"
	}
	// The text names no order and no replay: which replays differed, and
	// how, is the map's chance, and the report stays the same run to run.
	return fmt.Sprintf("node %d's handler %s %s in replays of %s: %s. The states agree, so this alone changes no verdict, "+
		"but the logs and the event graph of this system can differ from one run to the next; if the handler ranges over a map, range over its sorted keys (slices.Sorted(maps.Keys(m)))",
		d.Node, where, how, path, orderList(d.Actions))
}

func orderList(items []string) string {
	if len(items) == 0 {
		return "nothing of this kind"
	}
	if len(items) > maxOrderItems {
		return strings.Join(items[:maxOrderItems], ", ") + fmt.Sprintf(", … (%d in all)", len(items))
	}
	return strings.Join(items, ", ")
}

// effect is one thing a handler did whose order leaves no trace in the
// state (Sim.effects): a send (msg set), a timer set or cancelled, or a
// line logged.
type effect struct {
	node, to int32 // to: the receiver of a send
	kind     uint8
	typ      unsafe.Pointer // a send's message type word
	text     string         // a timer's name, a logged line
	msg      any            // for the text only
}

const (
	effectSend uint8 = iota
	effectSet
	effectCancel
	effectLog
)

// same reports whether e and o are the same action.
func (e *effect) same(o *effect) bool {
	return e.node == o.node && e.to == o.to && e.kind == o.kind && e.typ == o.typ && e.text == o.text
}

func (e *effect) String() string {
	switch e.kind {
	case effectSend:
		return fmt.Sprintf("sends %s to node %d", sim.MessageName(e.msg), e.to)
	case effectSet:
		return "sets timer " + safetext.QuoteUnsafe(e.text)
	case effectLog:
		return "logs " + logLineText(e.text)
	default:
		return "cancels timer " + safetext.QuoteUnsafe(e.text)
	}
}

// sendEffect records a send, with Options.CheckMessages.
func (s *Sim) sendEffect(from, to int, msg any) {
	s.effects = append(s.effects, effect{node: int32(from), to: int32(to), kind: effectSend, typ: efaceType(msg), msg: msg})
}

// timerEffect records a timer set or cancelled, with Options.CheckMessages.
func (s *Sim) timerEffect(node int, kind uint8, name string) {
	s.effects = append(s.effects, effect{node: int32(node), kind: kind, text: name})
}

// effectLogger returns the logger of the lines node's handler logs while
// the determinism check compares what handlers do (Options.CheckMessages):
// each line is recorded as an effect.
func (s *Sim) effectLogger(node int) *zerolog.Logger {
	if s.effectLog == nil {
		l := zerolog.New(effectWriter{s})
		s.effectLog = &l
	}
	s.effectNode = int32(node)
	return s.effectLog
}

// effectWriter records each line its simulator's effectLogger writes.
type effectWriter struct{ s *Sim }

func (w effectWriter) Write(p []byte) (int, error) {
	w.s.logBytes += len(p)
	w.s.effects = append(w.s.effects, effect{node: w.s.effectNode, kind: effectLog, text: string(p)})
	return len(p), nil
}

// logLineText is a logged line (zerolog's JSON) as the warning quotes it:
// its message and its other fields but the level, step and node, cut to
// 200 bytes.
func logLineText(line string) string {
	var fields map[string]any
	if err := json.Unmarshal([]byte(line), &fields); err != nil {
		return safetext.QuoteUnsafe(strings.TrimSpace(line))
	}
	msg, _ := fields[zerolog.MessageFieldName].(string)
	text := strconv.Quote(msg)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		switch k {
		case zerolog.MessageFieldName, zerolog.LevelFieldName, "step", "node":
			continue
		}
		text += fmt.Sprintf(" %s=%v", k, fields[k])
	}
	if len(text) > 200 {
		text = text[:200] + "…"
	}
	return safetext.QuoteUnsafe(text)
}

// efaceType is the type word of v.
func efaceType(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0] }

// orderDifference compares the effects of a's and b's last steps, whose
// states agree: nil when they are the same.
func orderDifference(a, b *Sim) *OrderDifference {
	ae, be := a.effects, b.effects
	if a.logCapture != b.logCapture {
		// One of them did not record the lines logged.
		ae, be = withoutLogs(ae), withoutLogs(be)
	}
	i := 0
	for i < len(ae) && i < len(be) && ae[i].same(&be[i]) {
		i++
	}
	if i == len(ae) && i == len(be) {
		return nil
	}
	// The node whose action differs first: its own actions, in order.
	first := ae
	if i >= len(first) {
		first = be
	}
	node := first[i].node
	d := &OrderDifference{Step: a.w.step, Event: eventText(a), Node: int(node), One: ofNode(ae, node), Other: ofNode(be, node)}
	d.Actions = slices.Sorted(slices.Values(ofNode(a.effects, node)))
	d.Reordered = slices.Equal(slices.Sorted(slices.Values(d.One)), slices.Sorted(slices.Values(d.Other)))
	if slices.Compare(d.Other, d.One) < 0 {
		// Which replay ranged its map which way is chance: the text
		// lists the two orders in a fixed order.
		d.One, d.Other = d.Other, d.One
	}
	return d
}

// withoutLogs returns effects without the lines logged (a copy when it
// holds some).
func withoutLogs(effects []effect) []effect {
	if !slices.ContainsFunc(effects, func(e effect) bool { return e.kind == effectLog }) {
		return effects
	}
	return slices.DeleteFunc(slices.Clone(effects), func(e effect) bool { return e.kind == effectLog })
}

// ofNode describes the effects of node, in order.
func ofNode(effects []effect, node int32) []string {
	var out []string
	for i := range effects {
		if effects[i].node == node {
			out = append(out, effects[i].String())
		}
	}
	return out
}

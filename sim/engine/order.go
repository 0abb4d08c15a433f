package engine

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

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
	// of the replays ("sends Decision to node 4", "sets timer \"ask\"").
	One, Other []string
	// Reordered is set when One and Other hold the same things; otherwise
	// the two replays did different things that the state does not show
	// (a message to a node that is down, a timer set and cancelled).
	Reordered bool
}

// maxOrderItems is how many of a handler's actions an OrderDifference's
// text lists before "…".
const maxOrderItems = 6

// String describes the difference for a report's warnings, with advice.
func (d *OrderDifference) String() string {
	where := "at boot (Start)"
	if d.Step > 0 {
		where = fmt.Sprintf("at step %d (%s)", d.Step, d.Event)
	}
	how := "did the same things in another order"
	if !d.Reordered {
		how = "did different things that the state does not show"
	}
	return fmt.Sprintf("node %d's handler %s %s in two replays of the same path: in one it %s; in the other it %s. The states agree, so the verdicts do not depend on it, "+
		"but the logs and the event graph of this system can differ from one run to the next; if the handler ranges over a map, range over its sorted keys (slices.Sorted(maps.Keys(m)))",
		d.Node, where, how, orderList(d.One), orderList(d.Other))
}

func orderList(items []string) string {
	if len(items) == 0 {
		return "did nothing of this kind"
	}
	if len(items) > maxOrderItems {
		return strings.Join(items[:maxOrderItems], ", ") + fmt.Sprintf(", … (%d in all)", len(items))
	}
	return strings.Join(items, ", ")
}

// effect is one thing a handler did whose order leaves no trace in the
// state (Sim.effects): a send (msg set) or a timer set or cancelled.
type effect struct {
	node, to int32 // to: the receiver of a send
	kind     uint8
	typ      unsafe.Pointer // a send's message type word
	timer    string
	msg      any // for the text only
}

const (
	effectSend uint8 = iota
	effectSet
	effectCancel
)

// same reports whether e and o are the same action.
func (e *effect) same(o *effect) bool {
	return e.node == o.node && e.to == o.to && e.kind == o.kind && e.typ == o.typ && e.timer == o.timer
}

func (e *effect) String() string {
	switch e.kind {
	case effectSend:
		return fmt.Sprintf("sends %s to node %d", sim.MessageName(e.msg), e.to)
	case effectSet:
		return "sets timer " + safetext.QuoteUnsafe(e.timer)
	default:
		return "cancels timer " + safetext.QuoteUnsafe(e.timer)
	}
}

// sendEffect records a send, with Options.CheckMessages.
func (s *Sim) sendEffect(from, to int, msg any) {
	s.effects = append(s.effects, effect{node: int32(from), to: int32(to), kind: effectSend, typ: efaceType(msg), msg: msg})
}

// timerEffect records a timer set or cancelled, with Options.CheckMessages.
func (s *Sim) timerEffect(node int, kind uint8, name string) {
	s.effects = append(s.effects, effect{node: int32(node), kind: kind, timer: name})
}

// efaceType is the type word of v.
func efaceType(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0] }

// orderDifference compares the effects of a's and b's last steps, whose
// states agree: nil when they are the same.
func orderDifference(a, b *Sim) *OrderDifference {
	i := 0
	for i < len(a.effects) && i < len(b.effects) && a.effects[i].same(&b.effects[i]) {
		i++
	}
	if i == len(a.effects) && i == len(b.effects) {
		return nil
	}
	// The node whose action differs first: its own actions, in order.
	first := a.effects
	if i >= len(first) {
		first = b.effects
	}
	node := first[i].node
	d := &OrderDifference{Step: a.w.step, Event: eventText(a), Node: int(node), One: ofNode(a.effects, node), Other: ofNode(b.effects, node)}
	d.Reordered = slices.Equal(slices.Sorted(slices.Values(d.One)), slices.Sorted(slices.Values(d.Other)))
	return d
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

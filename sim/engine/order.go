package engine

import (
	"fmt"
	"slices"
	"strings"
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

// effect records what node's handler did, with Options.CheckMessages.
func (s *Sim) effect(node int, format string, args ...any) {
	s.effects = append(s.effects, fmt.Sprintf("%d ", node)+fmt.Sprintf(format, args...))
}

// orderDifference compares the effects of a's and b's last steps, whose
// states agree: nil when they are the same.
func orderDifference(a, b *Sim) *OrderDifference {
	if slices.Equal(a.effects, b.effects) {
		return nil
	}
	i := 0
	for i < len(a.effects) && i < len(b.effects) && a.effects[i] == b.effects[i] {
		i++
	}
	// The node whose action differs first: its own actions, in order.
	first := a.effects
	if i >= len(first) {
		first = b.effects
	}
	node, _, _ := strings.Cut(first[i], " ")
	d := &OrderDifference{Step: a.w.step, Event: eventText(a), One: ofNode(a.effects, node), Other: ofNode(b.effects, node)}
	fmt.Sscan(node, &d.Node)
	d.Reordered = slices.Equal(slices.Sorted(slices.Values(d.One)), slices.Sorted(slices.Values(d.Other)))
	return d
}

// ofNode returns the effects of node (its number as text), without it.
func ofNode(effects []string, node string) []string {
	var out []string
	for _, e := range effects {
		if n, what, _ := strings.Cut(e, " "); n == node {
			out = append(out, what)
		}
	}
	return out
}

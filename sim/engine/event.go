package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
)

// EventKind is the kind of a pending event.
type EventKind uint8

// The kinds of pending events. The first five run a handler of the node;
// reset runs Start on a fresh struct; the rest change the network or stop
// a node: failures injected by the simulator (IsFailure), and the healing
// of a partition.
const (
	// EvApp delivers the node's next application request (HandleApp).
	EvApp EventKind = iota
	// EvMessage delivers the oldest message on a reliable connection.
	EvMessage
	// EvDatagram delivers one datagram.
	EvDatagram
	// EvTimer fires a timer (HandleTimer).
	EvTimer
	// EvConnError tells the node its connection to Peer broke.
	EvConnError
	// EvReset resets the node: its state is lost and Start runs on a new struct.
	EvReset
	// EvBreak breaks the reliable connection between Node and Peer.
	EvBreak
	// EvDrop drops one datagram in flight.
	EvDrop
	// EvCrash stops the node for good (crash-stop).
	EvCrash
	// EvDuplicate duplicates one datagram in flight.
	EvDuplicate
	// EvPartition splits the network in two sides (Event.Side).
	EvPartition
	// EvHeal ends the partition. It is no failure: a partition always
	// may heal, failures on or off.
	EvHeal
	numEventKinds
)

var eventKindNames = [...]string{"app", "message", "datagram", "timer", "connerror", "reset", "break", "drop", "crash", "duplicate", "partition", "heal"}

// String returns the kind's short name, e.g. "message".
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// EventKinds returns every kind of event, in order.
func EventKinds() []EventKind {
	ks := make([]EventKind, numEventKinds)
	for i := range ks {
		ks[i] = EventKind(i)
	}
	return ks
}

// ParseEventKind returns the kind with this short name.
func ParseEventKind(s string) (EventKind, bool) {
	for i, n := range eventKindNames {
		if n == s {
			return EventKind(i), true
		}
	}
	return 0, false
}

// Class returns the weight class of the kind.
func (k EventKind) Class() EventClass {
	switch k {
	case EvApp:
		return ClassApp
	case EvMessage, EvDatagram, EvConnError:
		return ClassMessage
	case EvTimer, EvHeal:
		return ClassTimer
	default:
		return ClassFailure
	}
}

// IsFailure reports whether the kind is an injected failure (a fault
// budgeted by sim.Failures): everything but the handlers' events and
// EvHeal.
func (k EventKind) IsFailure() bool { return k >= EvReset && k != EvHeal && k < numEventKinds }

// Event is one pending (node, event) pair. Node is where it happens: the
// receiver of a message, the node whose timer fires, the node that resets;
// for EvBreak the lower-numbered end; for EvPartition and EvHeal the
// lowest node of the side cut off. Peer is the sender of a message or
// datagram and the other end of a connection; for EvPartition and EvHeal
// it holds the side (see Side).
type Event struct {
	Kind EventKind
	// Cause is the transition (counting from 0) whose handler made the
	// event pending: the step that sent the message or datagram, armed
	// the timer, or reset the node whose driver requests these are; -1
	// when the initial state holds it (boot), or for an injected failure
	// and the connection errors it causes, whose cause is not tracked.
	// Partial-order reduction reads it: an event cannot run before its
	// cause. (It sits beside Kind, in what would be padding, so that an
	// Event stays 64 bytes.)
	Cause int32
	Node  sim.NodeID
	Peer  sim.NodeID
	Timer string
	Msg   sim.Message // the message or datagram; the request for EvApp
	ref   int32       // index into the simulator's queue for this event
	copy  int32       // see CopiedAt: 1 + the step, 0 for none
}

// CopiedAt returns, for a datagram's event (EvDatagram, EvDrop,
// EvDuplicate), the transition (counting from 0, as Cause) that made the
// datagram by duplicating one in flight: it is a copy of the datagram
// sent at Cause. It returns -1 for a datagram as it was sent and for the
// other kinds of events.
func (e Event) CopiedAt() int { return int(e.copy) - 1 }

// Side returns the side a partition cuts off (EvPartition) or cut off
// (EvHeal), one bit per node; 0 for other events. Performance: it lives in
// Peer, which these events do not use, so that an Event stays 64 bytes.
func (e Event) Side() uint64 {
	if e.Kind == EvPartition || e.Kind == EvHeal {
		return uint64(e.Peer)
	}
	return 0
}

// String describes the event in one line, e.g.
// "node 1 receives Ack{seq: 6001} from node 0"; a timer's name is shown
// as safetext.QuoteUnsafe shows it, messages as FormatValueCut does with
// strings cut after EventValueBytes (logs name every event so).
func (e Event) String() string { return e.text(EventValueBytes) }

// EventValueBytes bounds each string of a message in Event.String, and
// SummaryValueBytes in Event.Summary (FormatValueCut: what is cut is said,
// with a digest of the whole).
const (
	EventValueBytes   = 1 << 10
	SummaryValueBytes = 200
)

// Summary is String with the strings of the message cut after
// SummaryValueBytes bytes: "node 1 receives Blob{Data: "aaa"… (199,800
// bytes more, digest 1c0ffee5)} from node 0". It is how a report names an
// event in its lines (the critical transition, the minimized path, a
// lasso's cycle), where a 200 KB payload would otherwise fill the terminal
// once per line that names it; the debugger's state views show it whole.
func (e Event) Summary() string { return e.text(SummaryValueBytes) }

// text is String, with the message's strings cut after maxString bytes.
func (e Event) text(maxString int) string {
	msg := func() string { return FormatValueCut(e.Msg, maxString) }
	switch e.Kind {
	case EvApp:
		return fmt.Sprintf("node %d handles app request %s", e.Node, msg())
	case EvMessage:
		return fmt.Sprintf("node %d receives %s from node %d", e.Node, msg(), e.Peer)
	case EvDatagram:
		return fmt.Sprintf("node %d receives datagram %s from node %d", e.Node, msg(), e.Peer)
	case EvTimer:
		return fmt.Sprintf("node %d timer %s fires", e.Node, safetext.QuoteUnsafe(e.Timer))
	case EvConnError:
		return fmt.Sprintf("node %d learns its connection to node %d broke", e.Node, e.Peer)
	case EvReset:
		return fmt.Sprintf("node %d resets", e.Node)
	case EvBreak:
		return fmt.Sprintf("connection between node %d and node %d breaks", e.Node, e.Peer)
	case EvDrop:
		return fmt.Sprintf("datagram %s from node %d to node %d is dropped", msg(), e.Peer, e.Node)
	case EvCrash:
		return fmt.Sprintf("node %d crashes and stays down", e.Node)
	case EvDuplicate:
		return fmt.Sprintf("datagram %s from node %d to node %d is duplicated", msg(), e.Peer, e.Node)
	case EvPartition:
		return "the network partitions: " + SplitText(e.Side())
	case EvHeal:
		return "the network partition " + SplitText(e.Side()) + " heals"
	}
	return e.Kind.String()
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// SplitText describes a partition by its side, e.g. "{0} | the rest".
func SplitText(side uint64) string {
	var ids []string
	for i := 0; i < 64; i++ {
		if side&(1<<i) != 0 {
			ids = append(ids, strconv.Itoa(i))
		}
	}
	return "{" + strings.Join(ids, ", ") + "} | the rest"
}

// Source identifies where an event comes from, for fairness and for
// schedulers that order sources (PCT's priorities): the node's driver, the
// reliable connection or datagram path from Peer to Node, a named timer of
// Node, Node's connection errors, or a failure of Node. Successive messages
// on one connection have the same source.
func (e Event) Source() uint64 {
	h := mix(uint64(e.Kind)+0x5f, uint64(e.Node)+1)
	switch e.Kind {
	case EvTimer:
		h = mix(h, hashString(e.Timer))
	case EvMessage, EvDatagram:
		h = mix(h, uint64(e.Peer)+1)
	case EvPartition, EvHeal:
		h = mix(h, e.Side())
	}
	return h
}

// FairSource returns the source for fairness (a lasso, a fair cycle of
// the explored state graph) of ev, one of the simulator's Ready events:
// ev.Source(), except that with reordering (sim.Failures.Reorder) each
// datagram is a source of its own, told by its path and its message's
// hash. Datagrams that may arrive in any order are no FIFO queue: one of
// them can wait forever while later ones on its path arrive, and a cycle
// that leaves it waiting is not fair. Two equal datagrams on one path are
// one source (delivering either is the same step). The event the last
// step ran has LastFairSource.
func (s *Sim) FairSource(ev Event) uint64 {
	src := ev.Source()
	if ev.Kind != EvDatagram || !s.reorder {
		return src
	}
	if d := int(ev.ref); d >= 0 && d < len(s.w.dgrams) && s.w.dgrams[d].from == ev.Peer && s.w.dgrams[d].to == ev.Node {
		// The datagram in flight: its hash is kept for the state's.
		return mix(src, s.msgHash(&s.w.dgrams[d]))
	}
	h, ok := s.messageHash(ev.Msg)
	if !ok {
		h = 1 // as msgHash
	}
	return mix(src, h)
}

// LastFairSource returns FairSource of the event the last step ran. A
// datagram is told by its hash before its handler ran (a receiver may
// change what it got: a cycle whose delivered datagram is marked seen is
// still the cycle that delivered it), which a datagram in flight has once
// it was hashed (every state of a search's bounded part, every Ready
// event FairSource was asked about); otherwise by what it holds now.
func (s *Sim) LastFairSource() uint64 {
	ev := s.w.lastEvent
	if ev.Kind != EvDatagram || !s.reorder || s.w.lastDgram == 0 {
		ev.ref = -1 // delivered: no longer in flight
		return s.FairSource(ev)
	}
	return mix(ev.Source(), s.w.lastDgram)
}

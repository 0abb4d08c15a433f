package engine

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// EventKind is the kind of a pending event.
type EventKind uint8

// The kinds of pending events. The first five run a handler of the node;
// the last three are failures injected by the simulator.
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
	numEventKinds
)

var eventKindNames = [...]string{"app", "message", "datagram", "timer", "connerror", "reset", "break", "drop"}

// String returns the kind's short name, e.g. "message".
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
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
	case EvTimer:
		return ClassTimer
	default:
		return ClassFailure
	}
}

// IsFailure reports whether the kind is an injected failure.
func (k EventKind) IsFailure() bool { return k >= EvReset }

// Event is one pending (node, event) pair. Node is where it happens: the
// receiver of a message, the node whose timer fires, the node that resets;
// for EvBreak the lower-numbered end. Peer is the sender of a message or
// datagram and the other end of a connection.
type Event struct {
	Kind  EventKind
	Node  sim.NodeID
	Peer  sim.NodeID
	Timer string
	Msg   sim.Message // the message or datagram; the request for EvApp
	// Cause is the transition (counting from 0) whose handler made the
	// event pending: the step that sent the message or datagram, armed
	// the timer, or reset the node whose driver requests these are; -1
	// when the initial state holds it (boot), or for an injected failure
	// and the connection errors it causes, whose cause is not tracked.
	// Partial-order reduction reads it: an event cannot run before its
	// cause.
	Cause int32
	ref   int // index into the simulator's queue for this event
}

// String describes the event in one line, e.g.
// "node 1 receives Ack{seq: 6001} from node 0".
func (e Event) String() string {
	switch e.Kind {
	case EvApp:
		return fmt.Sprintf("node %d handles app request %s", e.Node, FormatValue(e.Msg))
	case EvMessage:
		return fmt.Sprintf("node %d receives %s from node %d", e.Node, FormatValue(e.Msg), e.Peer)
	case EvDatagram:
		return fmt.Sprintf("node %d receives datagram %s from node %d", e.Node, FormatValue(e.Msg), e.Peer)
	case EvTimer:
		return fmt.Sprintf("node %d timer %s fires", e.Node, e.Timer)
	case EvConnError:
		return fmt.Sprintf("node %d learns its connection to node %d broke", e.Node, e.Peer)
	case EvReset:
		return fmt.Sprintf("node %d resets", e.Node)
	case EvBreak:
		return fmt.Sprintf("connection between node %d and node %d breaks", e.Node, e.Peer)
	case EvDrop:
		return fmt.Sprintf("datagram %s from node %d to node %d is dropped", FormatValue(e.Msg), e.Peer, e.Node)
	}
	return e.Kind.String()
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
	}
	return h
}

package engine

import (
	"fmt"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/macemc/macemc/sim"
)

// The client history (sim.Context.Invoke and Return) is part of the state:
// the checker judges the history of every execution, so two executions may
// only be merged (a path pruned at a state seen before) when their
// histories are equivalent for every future. They are when they have the
// same canonical form: the same operations per client (operation, result
// or still pending) and the same real-time order between them. Whether an
// operation a returned before an operation b was invoked is all that
// linearizability asks of time, and it is decided once b is invoked; so
// two histories with the same canonical form stay equivalent whatever is
// appended to both, and a history is linearizable if and only if every
// history of its form is. The form leaves out in which order concurrent
// events happened (two invocations, two responses), which the
// chronological history shows.
//
// Each operation's record is hashed: the client, its index among the
// client's operations, the operation, and for every other client how many
// of its operations had finished when this one was invoked (a client's
// operations are sequential, so they are the first ones); a response adds
// the result. The history's hash is the sum of the records, kept up to
// date as events are recorded, and Sim.Hash adds it in.

// client is one client's part of the history.
type client struct {
	id int
	// invoked counts the client's operations, finished those that
	// returned or were abandoned (a pending one of a node that reset).
	invoked, finished int32
	pending           bool
	node              sim.NodeID // where the pending operation was invoked
	rec               uint64     // the pending operation's record
}

// Tags mixed into operation records.
const (
	tagRecord  = 0x6f7065726174696f // "operatio"
	tagAbandon = 0x61626e646f6e6564 // "abndoned"
)

// History returns the client history so far, oldest first. The slice is
// the simulator's own: copy it to keep it.
func (s *Sim) History() []sim.HistoryEvent { return s.w.hist }

// HistoryHash returns the hash of the history's canonical form (0 for an
// empty history): two histories with the same hash order the same
// operations, with the same results, the same way in real time, and are
// linearizable alike. Sim.Hash includes it.
func (s *Sim) HistoryHash() uint64 { return s.w.histHash }

// HistoryText returns the history as text, one event a line with its
// step: "step 3  node 4  client 1 invokes Write{Value: 1}".
func (s *Sim) HistoryText() string { return HistoryText(s.w.hist) }

// HistoryText returns a history as text, one event a line with its step,
// values in the simulator's text form.
func HistoryText(h []sim.HistoryEvent) string {
	var b strings.Builder
	for _, e := range h {
		verb := "invokes"
		if e.Kind == sim.Response {
			verb = "returns"
		}
		fmt.Fprintf(&b, "step %d  node %d  client %d %s %s\n", e.Step, e.Node, e.Client, verb, FormatValue(e.Value))
	}
	return b.String()
}

// valueHash hashes a history value's (or a monitor's) canonical encoding
// with the simulator's encoder, without bound: the bound and the
// interruption that the last encode armed are cleared first, or a value
// past them would stop the encoding with a panic nothing recovers.
func (s *Sim) valueHash(v any) uint64 {
	e := &s.enc
	e.buf, e.interrupt = e.buf[:0], nil
	e.arm(0)
	e.value(v)
	return xxhash.Sum64(e.buf)
}

// historyValueHash is valueHash for an operation or a result of the
// clients' history. A closure in one is not looked for (a history's
// values are what a linearizability model compares), so the encoder's
// note of one is dropped rather than left for the next node hashed.
func (s *Sim) historyValueHash(v any) uint64 {
	h := s.valueHash(v)
	s.enc.hidden = ""
	return h
}

// clientIndex finds client id's record, adding it (kept sorted by id).
func (s *Sim) clientIndex(id int) int {
	cs := s.w.clients
	i := 0
	for i < len(cs) && cs[i].id < id {
		i++
	}
	if i < len(cs) && cs[i].id == id {
		return i
	}
	s.w.clients = append(s.w.clients, client{})
	copy(s.w.clients[i+1:], s.w.clients[i:])
	s.w.clients[i] = client{id: id}
	return i
}

// Invoke implements hook.Runtime.
func (r *runtime) Invoke(node, id int, op any) {
	if !r.inHandler(node, "Invoke") {
		return
	}
	s := r.sim()
	if id < 0 {
		misuse(node, "Invoke", "node %d invokes %s for client %d: clients are numbered from 0", node, FormatValue(op), id)
	}
	c := &s.w.clients[s.clientIndex(id)]
	if c.pending {
		misuse(node, "Invoke", "client %d invokes %s at node %d while an operation of its own is pending (a client is sequential: give each concurrent client its own id)", id, FormatValue(op), node)
	}
	rec := mix(mix(mix(tagRecord, uint64(id)+1), uint64(c.invoked)), s.historyValueHash(op))
	for i := range s.w.clients {
		if o := &s.w.clients[i]; o.id != id && o.finished > 0 {
			rec = mix(rec, mix(uint64(o.id)+1, uint64(o.finished)))
		}
	}
	rec = fmix(rec)
	c.pending, c.node, c.rec = true, sim.NodeID(node), rec
	c.invoked++
	s.w.histHash += rec
	s.record(sim.Invocation, node, id, op)
}

// Return implements hook.Runtime.
func (r *runtime) Return(node, id int, result any) {
	if !r.inHandler(node, "Return") {
		return
	}
	s := r.sim()
	i := s.clientIndex(id)
	c := &s.w.clients[i]
	if !c.pending {
		misuse(node, "Return", "client %d returns %s at node %d with no operation pending (each Invoke gets one Return)", id, FormatValue(result), node)
	}
	s.w.histHash += fmix(mix(c.rec, s.historyValueHash(result))) - c.rec
	c.pending = false
	c.finished++
	s.record(sim.Response, node, id, result)
}

func (s *Sim) record(kind sim.HistoryKind, node, id int, v any) {
	s.w.hist = append(s.w.hist, sim.HistoryEvent{Kind: kind, Client: id, Value: v, Node: sim.NodeID(node), Step: s.logStep()})
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", node).Int("client", id).Str("history", kind.String()).Msg(FormatValueCut(v, EventValueBytes))
	}
}

// abandon ends the pending operations invoked at node id, which resets:
// they stay pending in the history (they may or may not take effect), and
// their clients may invoke again.
func (s *Sim) abandon(id sim.NodeID) {
	for i := range s.w.clients {
		if c := &s.w.clients[i]; c.pending && c.node == id {
			s.w.histHash += fmix(mix(c.rec, tagAbandon)) - c.rec
			c.pending = false
			c.finished++
		}
	}
}

// fmix is a finalizer (MurmurHash3's fmix64): records are summed, so each
// must look random on its own.
func fmix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// resetHistory empties the history.
func (s *Sim) resetHistory() {
	clear(s.w.hist)
	s.w.hist = s.w.hist[:0]
	s.w.clients = s.w.clients[:0]
	s.w.histHash = 0
}

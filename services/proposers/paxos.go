package proposers

import (
	"cmp"

	"github.com/macemc/macemc/sim"
)

// Ballot orders proposals: by round, then by proposer.
type Ballot struct {
	Round    int
	Proposer sim.NodeID
}

// Compare returns -1, 0 or 1 as b is lower than, equal to or higher than o.
func (b Ballot) Compare(o Ballot) int {
	if c := cmp.Compare(b.Round, o.Round); c != 0 {
		return c
	}
	return cmp.Compare(b.Proposer, o.Proposer)
}

// IsZero reports whether b is the zero ballot, lower than any proposal.
func (b Ballot) IsZero() bool { return b == Ballot{} }

// Propose is the test driver's request to a proposer: get Value chosen.
type Propose struct{ Value int }

// Prepare is phase 1a: a proposer asks the acceptor to promise Ballot.
type Prepare struct{ Ballot Ballot }

// Promise is phase 1b: the acceptor promised Ballot and reports the value
// it accepted last, if any (Accepted is zero if none).
type Promise struct {
	Ballot   Ballot
	Accepted Ballot
	Value    int
}

// Accept is phase 2a: a proposer asks the acceptor to accept Value at
// Ballot.
type Accept struct {
	Ballot Ballot
	Value  int
}

// Nack refuses a Prepare or Accept for Ballot: the acceptor has promised
// the higher ballot Promised.
type Nack struct {
	Ballot   Ballot
	Promised Ballot
}

// Chosen tells every proposer that the acceptor accepted Value at Ballot:
// with a single acceptor, the value is chosen.
type Chosen struct {
	Value  int
	Ballot Ballot
}

// Acceptor is the single acceptor: it promises the highest ballot it has
// seen and accepts a proposal unless it promised a higher ballot.
type Acceptor struct {
	sim.Base
	// Proposers are told about every accepted value.
	Proposers []sim.NodeID
	// Promised is the highest ballot promised.
	Promised Ballot
	// Accepted is the ballot of the last accepted proposal (zero if none)
	// and Value its value.
	Accepted Ballot
	Value    int
}

// HandleMessage runs phases 1b and 2b.
func (a *Acceptor) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Prepare:
		if m.Ballot.Compare(a.Promised) <= 0 {
			ctx.Send(from, Nack{Ballot: m.Ballot, Promised: a.Promised})
			return
		}
		a.Promised = m.Ballot
		ctx.Send(from, Promise{Ballot: m.Ballot, Accepted: a.Accepted, Value: a.Value})
	case Accept:
		if m.Ballot.Compare(a.Promised) < 0 {
			ctx.Send(from, Nack{Ballot: m.Ballot, Promised: a.Promised})
			return
		}
		a.Promised, a.Accepted, a.Value = m.Ballot, m.Ballot, m.Value
		ctx.Log().Int("value", m.Value).Int("round", m.Ballot.Round).Msg("accepted")
		for _, p := range a.Proposers {
			ctx.Send(p, Chosen{Value: m.Value, Ballot: m.Ballot})
		}
	}
}

// AcceptorKey is the Acceptor's LassoKey.
type AcceptorKey struct {
	PromisedTo sim.NodeID
	AcceptedBy sim.NodeID
	Value      int
}

// LassoKey returns the acceptor's state without ballot rounds, which grow
// without bound while proposers out-bid each other: whose ballot it
// promised and whose proposal (and which value) it accepted. Lasso
// detection hashes it instead of the whole struct.
func (a *Acceptor) LassoKey() any {
	return AcceptorKey{PromisedTo: a.Promised.Proposer, AcceptedBy: a.Accepted.Proposer, Value: a.Value}
}

// Phase is where a proposer is in its protocol.
type Phase uint8

// The phases of a proposer.
const (
	// Idle: no value to propose yet.
	Idle Phase = iota
	// Preparing: a Prepare is on its way.
	Preparing
	// Accepting: an Accept is on its way.
	Accepting
	// Deferring: a higher-ranked proposer is active; wait for Chosen
	// (only with the fix).
	Deferring
	// Decided: knows the chosen value.
	Decided
)

var phaseNames = [...]string{"idle", "preparing", "accepting", "deferring", "decided"}

// String returns the phase's name.
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "phase?"
}

// Proposer tries to get its value chosen. When the acceptor refuses its
// ballot it starts over at once with a higher one; with Defer set it
// instead steps aside when the ballot that beat it belongs to a
// higher-ranked proposer (higher node id), and waits to learn the outcome.
type Proposer struct {
	sim.Base
	// Acceptor is the acceptor's node.
	Acceptor sim.NodeID
	// Defer is the fix: yield to higher-ranked proposers.
	Defer bool
	// Phase is where the proposer is in its protocol.
	Phase Phase
	// Value is the value the driver asked to propose.
	Value int
	// Ballot is the current ballot and Proposal the value proposed in it
	// (Value, or a value the acceptor had already accepted; 0 while
	// preparing).
	Ballot   Ballot
	Proposal int
	// Decision is the chosen value, once Phase is Decided.
	Decision int
}

// HandleApp starts proposing the driver's value.
func (p *Proposer) HandleApp(ctx *sim.Context, req any) {
	r, ok := req.(Propose)
	if !ok || p.Phase != Idle {
		return
	}
	p.Value = r.Value
	p.prepare(ctx, 1)
}

// prepare starts phase 1 with a ballot of at least round.
func (p *Proposer) prepare(ctx *sim.Context, round int) {
	p.Ballot = Ballot{Round: max(round, p.Ballot.Round+1), Proposer: ctx.Self()}
	p.Phase, p.Proposal = Preparing, 0
	ctx.Send(p.Acceptor, Prepare{Ballot: p.Ballot})
}

// HandleMessage runs phases 1 and 2 and learns the outcome.
func (p *Proposer) HandleMessage(ctx *sim.Context, _ sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Promise:
		if p.Phase != Preparing || m.Ballot != p.Ballot {
			return
		}
		p.Proposal = p.Value
		if !m.Accepted.IsZero() {
			p.Proposal = m.Value
		}
		p.Phase = Accepting
		ctx.Send(p.Acceptor, Accept{Ballot: p.Ballot, Value: p.Proposal})
	case Nack:
		if (p.Phase != Preparing && p.Phase != Accepting) || m.Ballot != p.Ballot {
			return
		}
		if p.Defer && m.Promised.Proposer > ctx.Self() {
			ctx.Log().Int("leader", int(m.Promised.Proposer)).Msg("deferring to a higher-ranked proposer")
			p.Phase = Deferring
			return
		}
		ctx.Log().Int("round", m.Promised.Round).Msg("pre-empted, proposing again")
		p.prepare(ctx, m.Promised.Round+1)
	case Chosen:
		p.Phase, p.Decision = Decided, m.Value
	}
}

// ProposerKey is the Proposer's LassoKey.
type ProposerKey struct {
	Phase    Phase
	Value    int
	Proposal int
	Decision int
}

// LassoKey returns the proposer's state without its ballot, whose round
// grows without bound while proposers out-bid each other.
func (p *Proposer) LassoKey() any {
	return ProposerKey{Phase: p.Phase, Value: p.Value, Proposal: p.Proposal, Decision: p.Decision}
}

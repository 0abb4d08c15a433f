package engine

import (
	"strconv"

	"github.com/macemc/macemc/sim"
)

// PropertyWriteError reports a property whose predicate changed a node's
// state (a lazily filled cache, a counter of its calls). The search hashes
// a node again only after its own handlers, so such a write makes the
// states it compares depend on when properties ran, which differs with
// the number of workers: the report would too. The determinism check
// reports it rather than a verdict that may be wrong.
type PropertyWriteError struct {
	// Property changed node Node's state when it was checked in the state
	// after step Step (logs' numbering), or, when Part is set, another
	// part of the global state: "monitor NAME" or "the clients' history"
	// (Node is then -1).
	Property string
	Node     sim.NodeID
	Step     int
	Part     string
	// Driver, when not -1, marks a driver request's condition
	// (sim.Request.When) rather than a property: the request of node
	// Driver named Property.
	Driver int
	// Field is the first field that changed, and Detail its values before
	// and after the check (FirstDifference), when the check could compare
	// them.
	Field, Detail string
}

func (e *PropertyWriteError) Error() string {
	what := ""
	if e.Field != "" {
		what = " (field " + e.Field + ", before the check and after it: " + e.Detail + ")"
	}
	when := "in the initial state"
	if e.Step > 0 {
		when = "after step " + strconv.Itoa(e.Step)
	}
	part := "node " + strconv.Itoa(int(e.Node)) + "'s state"
	if e.Part != "" {
		part = e.Part
	}
	who := "property " + strconv.Quote(e.Property)
	if e.Driver >= 0 {
		who = "the condition (Request.When) of node " + strconv.Itoa(e.Driver) + "'s driver request " + strconv.Quote(e.Property)
	}
	return "sim: " + who + " changed " + part + " when it was checked " +
		when + what + ": a property or a condition must only read the state, or the states the search compares depend on when they ran " +
		"(and the report on --workers); compute into local variables, or keep a cache in a field tagged `macemc:\"-\"`"
}

// Unwrap lets errors.Is match ErrEscape and ErrNondeterministic: like a
// goroutine's, the write changes the state outside the handlers.
func (e *PropertyWriteError) Unwrap() []error { return []error{ErrEscape, ErrNondeterministic} }

// readOnlySteps bounds the steps of a path at which the determinism check
// looks for properties that write: a cache is filled the first time, a
// counter moves every time.
const readOnlySteps = 200

// propertyWrite checks every safety and liveness property of the config
// in the current state, one at a time, and returns the first that changed
// a node's state (its hash, encoded afresh), or nil. A predicate that
// panics is left for the search to report.
func (s *Sim) propertyWrite() *PropertyWriteError {
	props := properties(s.cfg)
	before := make([]uint64, len(s.w.svcs))
	for i, svc := range s.w.svcs {
		before[i] = s.hashNode(svc)
	}
	// The monitors and the history a View shows are state too (hashed
	// from what their handlers and Invoke/Return did, not read again).
	mons := make([]uint64, len(s.w.mons))
	for i := range s.w.mons {
		mons[i], _ = s.stateHash(s.w.mons[i].m, false)
	}
	hist := Hash(s.w.hist)
	changed := func(pw *PropertyWriteError) *PropertyWriteError {
		for i, svc := range s.w.svcs {
			if s.hashNode(svc) != before[i] {
				pw.Node = sim.NodeID(i)
				return pw
			}
		}
		for i := range s.w.mons {
			if h, _ := s.stateHash(s.w.mons[i].m, false); h != mons[i] {
				pw.Part = "monitor " + strconv.Quote(s.cfg.Monitors[i].Name) + "'s state"
				return pw
			}
		}
		if Hash(s.w.hist) != hist {
			pw.Part = "the clients' history (View.History's events)"
			return pw
		}
		return nil
	}
	for p := range props {
		_, _ = s.Holds(&props[p])
		if pw := changed(&PropertyWriteError{Property: props[p].Name, Node: -1, Step: s.w.step, Driver: -1}); pw != nil {
			return pw
		}
	}
	// The conditions of the driver requests next in line are predicates
	// like the properties (they run when the ready events are listed).
	stepErr := s.stepErr
	defer func() { s.stepErr = stepErr }()
	for id := range s.w.nodes {
		nd := &s.w.nodes[id]
		if nd.down || nd.appNext >= len(nd.app) {
			continue
		}
		q, ok := nd.app[nd.appNext].(sim.Request)
		if p, isPtr := nd.app[nd.appNext].(*sim.Request); isPtr && p != nil {
			q, ok = *p, true
		}
		if !ok || q.When == nil {
			continue
		}
		s.condition(id, &q)
		name := q.Name
		if name == "" {
			name = FormatValue(q.Req)
		}
		if pw := changed(&PropertyWriteError{Property: name, Node: -1, Step: s.w.step, Driver: id}); pw != nil {
			return pw
		}
	}
	return nil
}

// describePropertyWrite fills in the field pw's property changed: it
// replays choices to pw's state, copies the node, checks the property and
// compares.
func describePropertyWrite(cfg *sim.Config, choices []int32, opts Options, pw *PropertyWriteError) {
	opts.CheckEscapes, opts.CheckMessages = false, false
	s, err := Replay(cfg, choices, pw.Step, opts)
	if err != nil {
		return
	}
	props := properties(cfg)
	for p := range props {
		if props[p].Name != pw.Property || pw.Node < 0 || pw.Driver >= 0 {
			continue
		}
		svc := s.w.svcs[pw.Node]
		was := deepClone(svc)
		_, _ = s.Holds(&props[p])
		pw.Field, pw.Detail = FirstDifference(was, svc)
		return
	}
}

// describeSharedState fills in the field of ss's node (or monitor) that
// another node's handler changed, when the replays could not compare it
// (the memory the two share is shared by every replay too: an object the
// system's Build made once for all its nodes, a package variable), and
// how they came to share it (sharedOrigin). It replays choices to the
// state before ss's step, copies the node (a deep copy owns what the node
// points to) and compares it with the node after the step.
func describeSharedState(cfg *sim.Config, choices []int32, opts Options, ss *SharedStateError) {
	opts.CheckEscapes, opts.CheckMessages = false, false
	s, err := Replay(cfg, choices, ss.Step-1, opts)
	if err != nil {
		return
	}
	part := s.sharedPart(ss)
	if part == nil {
		return
	}
	was := deepClone(part)
	if ok, err := s.Step(); !ok || err != nil {
		return
	}
	if ss.Field == "" {
		ss.Field, ss.Detail = FirstDifference(was, part)
	}
	sharedOrigin(cfg, opts, s, ss)
}

// properties lists cfg's safety and liveness properties, in that order.
func properties(cfg *sim.Config) []sim.Property {
	return append(append([]sim.Property(nil), cfg.Safety...), cfg.Liveness...)
}

package engine

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
)

// DefaultReplays is how many times CheckDeterminism replays a path. Go
// randomises map iteration order on every loop, so a handler that lets the
// order decide something makes most pairs of replays differ, but not all:
// with more replays the chance that all of them happen to agree falls
// geometrically (the measured catch rates are in the README).
const DefaultReplays = 4

// NondeterminismError reports the first state in which replays of the same
// choices differed, and where.
type NondeterminismError struct {
	// Step is the state that differs: the state after Step steps (0: the
	// initial state), reached by transition Step (Event).
	Step  int
	Event string
	// Node is the first node whose state differs (-1: the nodes agree and
	// the network or the pending events differ); Type is its struct's type.
	Node int
	Type string
	// StepNode is the node whose event transition Step was (-1: the boot):
	// when the nodes agree, its handler is the one that left different
	// messages, timers or driver requests pending.
	StepNode int
	// Driver is set when transition Step delivered a driver request
	// (Config.App's), which a driver that gives other requests each time it
	// is asked makes differ.
	Driver bool
	// Path is the first field that differs, e.g. ".Peers[3].Term", and
	// Detail what differs there in words.
	Path, Detail string
	// Replays is how many replays were compared.
	Replays int
	// Across is set when the replays that differ are one started before
	// the others ran and one started after: the service depends on what
	// changed between them, the time read slowly enough that replays run
	// side by side agree (a trial's time.Now().UnixNano()/7%5), or state it
	// keeps across executions outside the simulator (a file it writes and
	// reads back when it starts, a package variable only Start reads).
	Across bool
	// SharedMap is set when the nodes of the runs that differ hold one
	// map, made once (by Build or a package variable): what one run
	// writes there the other reads. The advice is then about that map.
	SharedMap bool
	// Monitor names the monitor (Config.Monitors) whose state differs
	// while the nodes agree (Node is -1, Path and Detail are the
	// monitor's): its Handle gave replays of the same notifications
	// different states.
	Monitor string
	// Property names the property (a liveness monitor's is its Hot) that
	// held in one replay and not in another whose state was the same
	// (Node is -1): a predicate that reads something other than the View
	// it is given.
	Property string
}

func (e *NondeterminismError) Error() string {
	var b strings.Builder
	if e.Step == 0 {
		b.WriteString("sim: nondeterministic service: replays of the same choices differ in the initial state (after the nodes' Start)")
	} else {
		fmt.Fprintf(&b, "sim: nondeterministic service: replays of the same choices differ in the state after step %d", e.Step)
	}
	if e.Event != "" {
		b.WriteString(" (" + e.Event + ")")
	}
	switch {
	case e.Property != "":
		fmt.Fprintf(&b, ": the states agree, but property %s %s", safetext.QuoteUnsafe(e.Property), e.Detail)
	case e.Monitor != "" && e.Path != "":
		fmt.Fprintf(&b, ": the nodes agree, but monitor %s (%s) differs in field %s: %s", safetext.QuoteUnsafe(e.Monitor), e.Type, e.Path, e.Detail)
	case e.Monitor != "":
		fmt.Fprintf(&b, ": the nodes agree, but monitor %s (%s) differs: %s", safetext.QuoteUnsafe(e.Monitor), e.Type, e.Detail)
	case e.Node >= 0 && e.Path != "":
		fmt.Fprintf(&b, ": node %d (%s) field %s: %s", e.Node, e.Type, e.Path, e.Detail)
	case e.Node >= 0:
		fmt.Fprintf(&b, ": node %d (%s): %s", e.Node, e.Type, e.Detail)
	case e.Detail != "" && e.StepNode >= 0:
		fmt.Fprintf(&b, ": the nodes agree, but what node %d's handler left pending differs: %s", e.StepNode, e.Detail)
	case e.Detail != "":
		b.WriteString(": " + e.Detail)
	}
	if e.SharedMap {
		b.WriteString("; executions share nothing: have Config.Service (or Start) make each node its own map, and keep package variables out of nodes' states")
		return b.String()
	}
	if e.Property != "" {
		b.WriteString("; a property (and a liveness monitor's Hot) must answer from the state it is shown alone: look for map iteration order, " +
			"global math/rand, time.Now, or state kept outside the View (a package variable, a counter of its calls) in it")
		return b.String()
	}
	if e.Monitor != "" && !e.Across {
		b.WriteString("; a monitor's Handle must give the same state for the same notifications: look for map iteration order, " +
			"global math/rand, time.Now, pointer addresses or state kept across runs (a package variable, a counter of its calls) in it")
		return b.String()
	}
	if e.Across {
		b.WriteString("; the replay that differs started after the others had run, and one started before them did not: " +
			"the service depends on what changed between them, which a replay cannot undo: the time (time.Now, time.Since: " +
			"use sim.Context.Now and Elapsed), or state kept across executions outside the simulator (a file or database it writes " +
			"and reads back when it starts, a package variable or cache: keep what a node must keep across its resets in sim.Durable, " +
			"and what it writes elsewhere under a directory of its own for each execution)")
		return b.String()
	}
	b.WriteString("; look for map iteration order, global math/rand or crypto/rand (see sim.Context.Reader), time.Now, goroutines, " +
		"pointer addresses (fmt's %p, ordering by address) or state kept across runs (a package variable, a sync.Pool) in the handlers " +
		"or in a library they call (a process-wide counter behind a field of its type: give the type a canonical form without it, sim.RegisterCanonical; " +
		"a copy of crypto/rand.Reader taken at init, which sim.UseDeterministicCryptoRand cannot replace: hand the library sim.Reader)")
	if e.Driver {
		b.WriteString(", or a driver (Config.App) that gives other requests each time it is asked")
	}
	return b.String()
}

// Unwrap lets errors.Is match ErrNondeterministic.
func (e *NondeterminismError) Unwrap() error { return ErrNondeterministic }

// CheckDeterminism replays choices DefaultReplays times from cfg's
// initial state, in lockstep, and compares the states after every step
// (Hash: a node's part is encoded again after it ran). It
// returns a *NondeterminismError naming the first state where a replay
// differs from the first (the step, the event, the node and its first
// field that differs), an *EscapeError for a service seen acting outside
// its handlers (Options.CheckEscapes is on in two of the replays), or nil. A
// service that is deterministic on this path passes; one whose
// nondeterminism this path does not exercise passes too.
func CheckDeterminism(cfg *sim.Config, choices []int32, opts Options) error {
	return CheckDeterminismN(cfg, choices, opts, DefaultReplays)
}

// CheckDeterminismN is CheckDeterminism with replays replays (at least 2).
func CheckDeterminismN(cfg *sim.Config, choices []int32, opts Options, replays int) error {
	return CheckDeterminismUntil(cfg, choices, opts, replays, nil)
}

// CheckDeterminismUntil is CheckDeterminismN that gives up, answering nil,
// once stop returns true (asked after each replay boots and before each
// step): cancellation, a time budget or a memory alarm reaches inside the
// replays of a long path or of a state that takes long to boot.
func CheckDeterminismUntil(cfg *sim.Config, choices []int32, opts Options, replays int, stop func() bool) error {
	_, err := CheckDeterminismOrder(cfg, choices, opts, replays, stop)
	return err
}

// CheckDeterminismOrder is CheckDeterminismUntil that also returns the
// first step, if any, where replays whose states agreed did the same
// things in another order (an OrderDifference: not a nondeterminism of
// the state, but of the logs).
func CheckDeterminismOrder(cfg *sim.Config, choices []int32, opts Options, replays int, stop func() bool) (*OrderDifference, error) {
	var order *OrderDifference
	err := checkDeterminism(cfg, choices, opts, replays, stop, &order)
	return order, err
}

// checkDeterminism is CheckDeterminismOrder, which sets *order.
func checkDeterminism(cfg *sim.Config, choices []int32, opts Options, replays int, stop func() bool, order **OrderDifference) error {
	replays = max(replays, 2)
	opts.Logger = nil
	// Every replay steps on this goroutine (lockstep): its handlers need
	// not read the goroutine's ID from the stack (see run).
	gid := goroutineID()
	sims := make([]*Sim, replays)
	recs := make([]*Recorded, replays)
	errs := make([]error, replays)
	for i := range sims {
		recs[i] = NewRecorded(choices)
		// Escapes are looked for in two replays (a goroutine a handler
		// leaves running is seen in any of them); the others only
		// compare states, which costs one encoding of the node that ran.
		// The lines handlers log are compared in logEffectReplays
		// replays (formatting them costs: a 200 KB value logged at each
		// step took the whole budget of the check before the search).
		opts.Chooser, opts.CheckEscapes, opts.CheckMessages, opts.logEffects = recs[i], i < 2, true, i < logEffectReplays
		s, err := New(cfg, opts)
		if s == nil {
			return err
		}
		if err := s.HashErr(); err != nil {
			// A node or a message past the bound (the first replay
			// hashes them at boot): every replay would stop there
			// too, and hold the state until the comparison said so.
			return err
		}
		s.guardGID.Store(gid)
		sims[i], errs[i] = s, err
		if stop != nil && stop() {
			return nil
		}
	}
	// One more replay boots now, before the others run, and steps only
	// after them, in lockstep with one that boots then: state a service
	// keeps across executions outside the simulator (a file it writes
	// and reads back in Start) makes those two differ, where replays that
	// boot together agree.
	opts.Chooser, opts.CheckEscapes, opts.logEffects = NewRecorded(choices), false, true
	early, earlyErr := New(cfg, opts)
	if early == nil {
		return earlyErr
	}
	early.guardGID.Store(gid)
	if err := lockstep(sims, recs[0], errs, choices, replays, true, stop, order); err != nil || (stop != nil && stop()) {
		var mc *MessageChangedError
		var pw *PropertyWriteError
		var ss *SharedStateError
		var esc *EscapeError
		switch {
		case errors.As(err, &mc):
			mc.Field, mc.Detail = messageChange(cfg, choices, opts, mc)
		case errors.As(err, &pw):
			describePropertyWrite(cfg, choices, opts, pw)
		case errors.As(err, &ss):
			describeSharedState(cfg, choices, opts, ss)
		case errors.As(err, &esc) && esc.Call == "":
			// A node's state changed outside its handlers: a property
			// or a driver condition that writes it does that too, the
			// latter while the ready events are listed, before the
			// read-only check's look. Name it when one does.
			if pw := PredicateWriter(cfg, choices, opts, esc.Step); pw != nil {
				return pw
			}
			if shared := sharedAcross(sims[0], sims[1], esc.Node, esc.Step); shared != nil {
				return shared
			}
		}
		return err
	}
	rec := opts.Chooser.(*Recorded)
	opts.Chooser = NewRecorded(choices)
	late, lateErr := New(cfg, opts)
	if late == nil {
		return lateErr
	}
	late.guardGID.Store(gid)
	err := lockstep([]*Sim{early, late}, rec, []error{earlyErr, lateErr}, choices, 2, false, stop, order)
	if ne, ok := err.(*NondeterminismError); ok {
		ne.Across, ne.Replays = true, replays+2
	}
	return err
}

// messageChange names the first field of the message mc reports that
// changed in flight, and its values as sent and as delivered: it replays
// choices to the send, copies the messages from mc.From to mc.To sent
// then, replays on to the state before the delivery and compares each copy
// with its message, still in flight there. "" when the replay does not get
// there or nothing differs.
func messageChange(cfg *sim.Config, choices []int32, opts Options, mc *MessageChangedError) (field, detail string) {
	opts.CheckEscapes, opts.CheckMessages = false, false
	s, err := Replay(cfg, choices, mc.Sent, opts)
	if err != nil {
		return "", ""
	}
	sent := map[unsafe.Pointer]any{}
	s.eachInFlight(func(_ int, p *pending) {
		if p.from == mc.From && p.to == mc.To && int(p.cause)+1 == mc.Sent {
			m := any(p.msg)
			sent[efaceData(&m)] = deepClone(m)
		}
	})
	for len(sent) > 0 && s.Steps() < mc.Delivered-1 {
		if ok, err := s.Step(); !ok || err != nil {
			return "", ""
		}
	}
	s.eachInFlight(func(_ int, p *pending) {
		m := any(p.msg)
		if was, ok := sent[efaceData(&m)]; ok && field == "" {
			field, detail = FirstDifference(was, p.msg)
		}
	})
	return field, detail
}

// lockstep steps sims together through choices (rec is the first's
// chooser) and compares their states after every step (compareReplays);
// with checkProps, the first also checks its properties only read the
// state (propertyWrite) in its first readOnlySteps states. The first step
// whose states agree but whose handlers did what they did in another order
// sets *order, if it is nil.
func lockstep(sims []*Sim, rec *Recorded, errs []error, choices []int32, replays int, checkProps bool, stop func() bool, order **OrderDifference) error {
	for {
		if err := compareReplays(sims, errs, replays); err != nil {
			return err
		}
		for _, s := range sims[1:] {
			if *order == nil {
				*order = orderDifference(sims[0], s)
			}
		}
		// The first replay also checks that the properties only read the
		// state (the others compare its state with theirs at the next
		// step, so a write shows there too, as a divergence).
		if first := sims[0]; checkProps && errs[0] == nil && first.w.step < readOnlySteps {
			if pw := first.propertyWrite(); pw != nil {
				return pw
			}
			if ne := propertiesDiffer(sims, errs, replays); ne != nil {
				return ne
			}
		}
		if errs[0] != nil || rec.Used() >= len(choices) {
			return nil
		}
		if stop != nil && stop() {
			return nil
		}
		oks := make([]bool, replays)
		for i, s := range sims {
			oks[i], errs[i] = s.Step()
			if errors.Is(errs[i], ErrEscape) {
				// The next replay has not taken this step yet: its node
				// is as this one's was before it.
				var ss *SharedStateError
				if errors.As(errs[i], &ss) && i+1 < len(sims) {
					if was, now := sims[i+1].sharedPart(ss), s.sharedPart(ss); was != nil && now != nil {
						ss.Field, ss.Detail = FirstDifference(was, now)
					}
				}
				return errs[i]
			}
		}
		for i := range sims {
			if oks[i] != oks[0] {
				return nondeterminismAt(sims[0], replays,
					fmt.Sprintf("one replay could go on after %d steps and another could not", sims[0].w.step))
			}
		}
		if !oks[0] {
			return nil
		}
	}
}

// compareReplays compares the replays' current states (and how their last
// step ended) with the first's.
func compareReplays(sims []*Sim, errs []error, replays int) (err error) {
	// A goroutine a handler left running (seen by the replays that look
	// for escapes, at boot as at a step) is the finding: the replays
	// that did not see it, or a state it changes while it is read, would
	// only make it look like nondeterminism.
	for _, err := range errs {
		if errors.Is(err, ErrEscape) {
			return err
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = racedRead(sims, r)
		}
	}()
	a := sims[0]
	ha := a.Hash()
	for i := 1; i < len(sims); i++ {
		b := sims[i]
		if (errs[0] == nil) != (errs[i] == nil) || errs[0] != nil && errs[0].Error() != errs[i].Error() {
			return nondeterminismAt(a, replays,
				fmt.Sprintf("one replay ended the step with %s, another with %s", errText(errs[0]), errText(errs[i])))
		}
		if err := a.HashErr(); err != nil {
			return err
		}
		if b.w.step != a.w.step || b.Hash() != ha {
			err := diffStates(a, b)
			if ne, ok := err.(*NondeterminismError); ok {
				ne.Replays = replays
			}
			return err
		}
	}
	return nil
}

// propertiesDiffer checks every property (a liveness monitor's Hot among
// them) in the replays' current states, which compareReplays found equal,
// and returns a *NondeterminismError naming the first that holds in one
// replay and not in another, nil when they all agree. A property that
// panics is left for the search to report.
func propertiesDiffer(sims []*Sim, errs []error, replays int) *NondeterminismError {
	props := properties(sims[0].cfg)
	for p := range props {
		first, err := sims[0].Holds(&props[p])
		if err != nil {
			continue
		}
		for i, s := range sims[1:] {
			if errs[i+1] != nil {
				continue
			}
			if ok, err := s.Holds(&props[p]); err == nil && ok != first {
				ne := nondeterminismAt(sims[0], replays, "")
				ne.Property = props[p].Name
				ne.Detail = fmt.Sprintf("%s in one replay and %s in another", holdsText(first), holdsText(ok))
				return ne
			}
		}
	}
	return nil
}

// holdsText is how propertiesDiffer says a property's answer.
func holdsText(ok bool) string {
	if ok {
		return "holds"
	}
	return "does not hold"
}

func errText(err error) string {
	if err == nil {
		return "no error"
	}
	return fmt.Sprintf("%q", err.Error())
}

// nondeterminismAt is the NondeterminismError for s's current state, the
// nodes not (yet) told apart.
func nondeterminismAt(s *Sim, replays int, detail string) *NondeterminismError {
	return &NondeterminismError{Step: s.w.step, Event: eventText(s), Node: -1, StepNode: stepNode(s), Replays: replays,
		Driver: s.w.step > 0 && s.w.lastEvent.Kind == EvApp, Detail: detail}
}

// stepNode is the node whose event the last step was (-1 before the
// first step).
func stepNode(s *Sim) int {
	if s.w.step == 0 {
		return -1
	}
	return int(s.w.lastEvent.Node)
}

func eventText(s *Sim) string {
	if s.w.step == 0 {
		return ""
	}
	return s.w.lastEvent.String()
}

// racedRead is the error of a comparison of replays whose reading of the
// states panicked with r: most likely a goroutine that a handler left
// running changes a node while the comparison reads it (a map or slice
// seen half written; hashicorp/raft's did). Go cannot say which goroutine;
// the error names the node whose handler ran last, and the panic.
func racedRead(sims []*Sim, r any) error {
	a := sims[0]
	return &EscapeError{Node: sim.NodeID(max(stepNode(a), 0)), Step: a.logStep(),
		Detail: fmt.Sprintf("reading the nodes' states to compare the replays panicked (%v): code outside the handlers (a goroutine) "+
			"changes a node's state while it is read, or a canonical form (a Canonical method, sim.RegisterCanonical) panics", r)}
}

// DiffStates says where the states of a and b, two simulators of one
// Config whose Hash was just called (and differed), first differ: a
// *NondeterminismError naming the first node whose struct differs and its
// first field that does, or what the nodes left pending, as the
// determinism checks report it; an *EscapeError when a node changed after
// Hash read it.
func DiffStates(a, b *Sim) error { return diffStates(a, b) }

// diffStates says where two simulators' states first differ, right after
// their Hash calls: the first node whose struct encodes differently and its
// first field that differs; else the first node whose struct changed since
// Hash encoded it (code outside the handlers is changing it); or else the
// first line of their text forms (timers, driver, network) that differs.
func diffStates(a, b *Sim) error {
	ne := nondeterminismAt(a, 0, "")
	fresh := make([][2]uint64, len(a.w.nodes))
	for i := range a.w.nodes {
		sa, sb := a.w.svcs[i], b.w.svcs[i]
		fresh[i] = [2]uint64{a.hashNode(sa), b.hashNode(sb)}
		if fresh[i][0] != fresh[i][1] {
			ne.Node, ne.Type = i, fmt.Sprintf("%T", sa)
			ne.Path, ne.Detail = FirstDifference(sa, sb)
			if ne.Path == "" && ne.Detail == "" {
				ne.Detail = "its canonical encodings differ"
			}
			return ne
		}
	}
	for i := range a.w.nodes {
		if fresh[i][0] != a.w.nodes[i].hash || fresh[i][1] != b.w.nodes[i].hash {
			if err := changedOutside(a, b, sim.NodeID(i)); err != nil {
				return err
			}
			return &EscapeError{Node: sim.NodeID(i), Step: a.logStep(),
				Detail: "its state changed while the replays were compared, after its handler had returned: code outside the handlers (a goroutine) changes it"}
		}
	}
	for i := range a.w.mons {
		if a.monitorHash(i) == b.monitorHash(i) {
			continue
		}
		ma, mb := a.w.mons[i].m, b.w.mons[i].m
		ne.Monitor, ne.Type = a.cfg.Monitors[i].Name, fmt.Sprintf("%T", ma)
		ne.Path, ne.Detail = FirstDifference(ma, mb)
		if fa, fb := a.w.mons[i].failure, b.w.mons[i].failure; ne.Path == "" && fa != fb {
			ne.Detail = fmt.Sprintf("its assertion failed with %q in one replay, %q in another", fa, fb)
		} else if ne.Path == "" && ne.Detail == "" {
			ne.Detail = "its canonical encodings differ"
		}
		return ne
	}
	ta, tb := a.stateText(), b.stateText()
	la, lb := strings.Split(ta, "\n"), strings.Split(tb, "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		x, y := lineAt(la, i), lineAt(lb, i)
		if x != y {
			ne.Detail = fmt.Sprintf("%q in one replay, %q in another", x, y)
			return ne
		}
	}
	ne.Detail = "the pending events differ"
	return ne
}

// changedOutside explains node id's state in a, which changed after a's
// Hash read it (b is another execution of a's path, side by side with
// it), when memory it shares does: it replays a's path alone with the
// escape checks, which name the node whose handler changed it (a
// *SharedStateError, with the field and how the two came to share it:
// an object Build made once that Config.Service handed both, which every
// execution shares too), or else looks for an object node id shares with
// b's nodes (sharedAcross). nil when neither explains it.
func changedOutside(a, b *Sim, id sim.NodeID) error {
	choices := a.ChoiceValues()[:a.StepStart(a.w.step)]
	opts := a.opts
	opts.Chooser, opts.Logger, opts.CheckEscapes, opts.CheckMessages = NewRecorded(choices), nil, true, false
	r, err := New(a.cfg, opts)
	for err == nil && r.w.step < a.w.step {
		r.Hash() // the monitors' hashes, which the escape checks compare
		var ok bool
		if ok, err = r.Step(); !ok {
			break
		}
	}
	var ss *SharedStateError
	if errors.As(err, &ss) {
		describeSharedState(a.cfg, choices, a.opts, ss)
		return ss
	}
	return sharedAcross(a, b, id, a.logStep())
}

// sharedAcross returns an *EscapeError naming an object that node id of
// a and a node of b, two executions of one Config, both reach (seen at
// step step), nil when there is none: Build or a package variable made it
// once and every execution reached it (Config.Service, Config.App's
// requests or a handler that reads a package variable), so what one
// writes the other reads, and a node's state changes while no handler of
// its runs.
func sharedAcross(a, b *Sim, id sim.NodeID, step int) error {
	if int(id) >= len(a.w.svcs) {
		return nil
	}
	refs := map[uintptr]string{}
	other := map[uintptr]sim.NodeID{}
	walkNodes(b, func(j sim.NodeID, p string, r ref) bool {
		refs[r.at], other[r.at] = p, j
		return true
	})
	path, by, obj, ok := sharedObject(reflect.ValueOf(a.w.svcs[id]), refs, "")
	if !ok {
		return nil
	}
	where := func(who, p string) string {
		if p == "" {
			return who + " struct"
		}
		return who + " " + p
	}
	return &EscapeError{Node: id, Step: step, Detail: fmt.Sprintf("its state changed while none of its handlers ran: %s is one %s with %s in every other execution of the system in this process "+
		"(the replays of the path, a search's workers), made once (by Build or a package variable) and reached by each (through Config.Service, a driver request of Config.App, "+
		"or a package variable a handler reads), so what one execution writes the others read; executions share nothing: have Config.Service make each node its own state "+
		"and Config.App each node's requests afresh, and keep package variables out of nodes' states", where("its", path), obj.t, where("node "+strconv.Itoa(int(other[obj.at]))+"'s", by))}
}

func lineAt(ls []string, i int) string {
	if i < len(ls) {
		return ls[i]
	}
	return "(nothing)"
}

// stateText is every node's text form and the network's, for diffs.
func (s *Sim) stateText() string {
	var b strings.Builder
	for i := range s.w.nodes {
		b.WriteString(s.NodeText(sim.NodeID(i)))
	}
	b.WriteString(s.NetworkText())
	return b.String()
}

// FirstDifference returns the first field path at which a and b differ
// in their canonical forms (as hashing sees them: tagged fields left out,
// maps by key, canonical forms of Canonicalizers and registered types),
// and what differs there, e.g. (".Log[3].Term", "2 in one, 3 in the
// other"); ("", "") when they do not differ.
func FirstDifference(a, b any) (path, detail string) {
	var d differ
	return d.diff(reflect.ValueOf(a), reflect.ValueOf(b), "")
}

type differ struct{ depth int }

// encodeValue is v's canonical encoding.
func encodeValue(v reflect.Value) []byte {
	var e encoder
	if !v.IsValid() {
		return nil
	}
	if !e.within(MaxCanonicalBytes, func() { encoderFor(v.Type())(&e, v) }) {
		return tooLarge(nil, v.Type()) // see AppendCanonical
	}
	return e.buf
}

func (d *differ) diff(a, b reflect.Value, path string) (string, string) {
	d.depth++
	defer func() { d.depth-- }()
	if !a.IsValid() || !b.IsValid() {
		if a.IsValid() == b.IsValid() {
			return "", ""
		}
		return or(path), fmt.Sprintf("%s in one, %s in the other", show(a), show(b))
	}
	if a.Type() != b.Type() {
		return or(path), fmt.Sprintf("a %s in one, a %s in the other", a.Type(), b.Type())
	}
	if bytes.Equal(encodeValue(a), encodeValue(b)) {
		return "", ""
	}
	if d.depth > 64 {
		return or(path), "they differ (too deep to say where)"
	}
	f := formatter{}
	if ca, ok := f.canonical(a); ok {
		cb, _ := f.canonical(b)
		return d.diff(ca, cb, path)
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return or(path), fmt.Sprintf("%s in one, %s in the other", show(a), show(b))
		}
		return d.diff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		a, b = addressable(a), addressable(b)
		for _, i := range stateFields(a.Type()) {
			if p, det := d.diff(field(a, i), field(b, i), path+"."+a.Type().Field(i).Name); p != "" || det != "" {
				return p, det
			}
		}
	case reflect.Slice, reflect.Array:
		n := min(a.Len(), b.Len())
		for i := 0; i < n; i++ {
			if p, det := d.diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); p != "" || det != "" {
				return p, det
			}
		}
		if a.Len() != b.Len() {
			return or(path), fmt.Sprintf("%d elements in one, %d in the other", a.Len(), b.Len())
		}
	case reflect.Map:
		ka, _ := mapKeys(a)
		lb, kb := mapKeys(b)
		for _, k := range ka {
			other, ok := kb[k.text]
			if !ok {
				return or(path), fmt.Sprintf("key %s in one only", k.text)
			}
			if p, det := d.diff(a.MapIndex(k.v), b.MapIndex(other.v), path+"["+k.text+"]"); p != "" || det != "" {
				return p, det
			}
		}
		if len(ka) != len(lb) {
			return or(path), fmt.Sprintf("%d keys in one, %d in the other", len(ka), len(kb))
		}
	}
	return or(path), fmt.Sprintf("%s in one, %s in the other", show(a), show(b))
}

type keyed struct {
	text string
	v    reflect.Value
}

// mapKeys returns m's keys in text order, and by text.
func mapKeys(m reflect.Value) ([]keyed, map[string]keyed) {
	var f formatter
	var out []keyed
	by := map[string]keyed{}
	for _, k := range m.MapKeys() {
		f.n = 0 // each key's text on its own bound
		kt := f.inline(k)
		out = append(out, keyed{kt, k})
		by[kt] = keyed{kt, k}
	}
	sort.Slice(out, func(i, j int) bool { return lessKey(out[i].text, out[j].text) })
	return slices.Clip(out), by
}

func show(v reflect.Value) string {
	var f formatter
	s := f.inline(v)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func or(path string) string {
	if path == "" {
		return "(the whole value)"
	}
	return path
}

// PredicateWriter replays choices (run with opts) up to step upto and
// returns the first property or driver condition that changes the state
// when it is checked again in a state on the way, with the field it
// changed when it can tell, or nil: a node whose state changed outside its
// handlers (an *EscapeError) may owe it to one.
func PredicateWriter(cfg *sim.Config, choices []int32, opts Options, upto int) *PropertyWriteError {
	o := opts
	o.Chooser, o.CheckEscapes, o.CheckMessages, o.Logger = NewRecorded(choices), false, false, nil
	s, err := New(cfg, o)
	if err != nil {
		return nil
	}
	for {
		if pw := s.propertyWrite(); pw != nil {
			describePropertyWrite(cfg, choices, opts, pw)
			return pw
		}
		if s.w.step >= upto {
			return nil
		}
		if ok, err := s.Step(); !ok || err != nil {
			return nil
		}
	}
}

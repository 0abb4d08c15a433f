package htmlreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/engine/logline"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// Message fates in pathData.Msgs (the low two bits of the flags).
const (
	fateReceived = 0
	fateDropped  = 1
	fateLost     = 2 // a connection break, a crash or a partition lost it
	fateInFlight = 3 // still pending at the end of the path
	flagDatagram = 4
	// flagCopy marks the copy a duplication made of a datagram in flight:
	// its step is the duplication's.
	flagCopy = 8
	// flagToDown and flagAcross say why a message was lost as it was
	// sent: its receiver had crashed, or it was a datagram across a
	// partition.
	flagToDown = 16
	flagAcross = 32
)

// Property states in pathData.Props.
const (
	propViolated = 0
	propHolds    = 1
	propError    = 2 // the predicate panicked
)

// The widths of the flat records in pathData.
const (
	evWidth    = 5 // kind, node, peer, description, short label
	msgWidth   = 7 // step, from, to, end, flags, text, type
	timerWidth = 3 // step, node, text
	noteWidth  = 3 // step, node, text
	propWidth  = 3 // step, property, state
)

// pathData is one path as the page's script reads it. Strings are indexes
// into pageData.Strs; records are flat arrays of numbers (the widths
// above), which keeps a 20,000-step path to a few megabytes.
type pathData struct {
	Name  string `json:"name"` // "error", "min", "live"
	Title string `json:"title"`
	Steps int    `json:"steps"`
	// Crit is the critical step (the first dead state), -1 when none is
	// on this path; Cond its condition.
	Crit int    `json:"crit"`
	Cond string `json:"cond,omitempty"`
	// Shared is how many steps the path shares with the live alternative
	// (-1 without one); on the live path, with the error path.
	Shared int `json:"shared"`
	// A lasso's cycle: transitions CycleStart+1 .. CycleStart+CycleLen.
	CycleStart int `json:"cycleStart"`
	CycleLen   int `json:"cycleLen"`
	// Fail is the step at which a safety property fails or a handler
	// panics or hangs (-1: none), FailText what happened, Stack a panic's
	// stack.
	Fail     int    `json:"fail"`
	FailText string `json:"failText,omitempty"`
	Stack    string `json:"stack,omitempty"`
	// Depth is the bounded search depth: liveness counts after it.
	Depth int `json:"depth"`
	// Tail: the steps after it only repeat kinds of events seen before
	// and start collapsed (-1: no collapsed tail); TailTop lists the most
	// frequent of them as (text, count) pairs.
	Tail    int   `json:"tail"`
	TailTop []int `json:"tailTop"`
	// Ev: one record per step 1..Steps.
	Ev []int `json:"ev"`
	// Msgs: every message and datagram sent, with where it ended (end is
	// -1 when it is still in flight at the end of the path).
	Msgs   []int `json:"msgs"`
	Timers []int `json:"timers"`
	// Notes are the service's log annotations; NotesLeft counts those
	// past Limits.Notes.
	Notes     []int `json:"notes"`
	NotesLeft int   `json:"notesLeft,omitempty"`
	// Init holds the initial text of every section (each node, then the
	// network) as line indexes; Diffs the changes of each step: step,
	// section, first changed line, lines removed, n, then n lines added.
	Init  [][]int `json:"init"`
	Diffs []int   `json:"diffs"`
	// Props: every property's state at step 0, then each change.
	Props []int `json:"props"`
	// StatesUntil is the last step whose state the page stores: the
	// path's last step unless Limits.StateBytes ran out. -1 with
	// NoStates: the page stores no state of the path, and NoStates says
	// why.
	StatesUntil int    `json:"statesUntil"`
	NoStates    string `json:"noStates,omitempty"`

	choices []int32 // the path's answers
	starts  []int   // starts[i]: where step i+1's answers begin
}

// interner numbers the distinct strings of a page.
type interner struct {
	ids   map[string]int
	list  []string
	bytes int // the length of every string
}

func (in *interner) id(s string) int {
	if i, ok := in.ids[s]; ok {
		return i
	}
	if in.ids == nil {
		in.ids = map[string]int{}
	}
	in.ids[s] = len(in.list)
	in.list = append(in.list, s)
	in.bytes += len(s) + 3
	return len(in.list) - 1
}

func (in *interner) ids2(lines []string) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		out[i] = in.id(l)
	}
	return out
}

// sendRec is a message or datagram on its way.
type sendRec struct {
	idx      int // index of its record in Msgs
	from, to int
	text     string
	datagram bool
	done     bool
	// sent is the step that sent it, or for a copy the datagram it
	// copies; copied the step that made the copy (-1: no copy).
	sent, copied int
	// lost is flagToDown or flagAcross for a message the simulator lost
	// as it was sent; 0 for one it took.
	lost int
}

// is reports whether sr is the message or datagram delivery or drop ev
// takes: the same ends, kind and text, sent by the step ev says
// (Event.Cause), and the same copy (Event.CopiedAt). Equal payloads sent
// by different steps, and a copy and its original, are told apart however
// they overtake each other.
func (sr *sendRec) is(ev engine.Event) bool {
	copied := ev.CopiedAt()
	if copied >= 0 {
		copied++
	}
	return !sr.done && sr.from == int(ev.Peer) && sr.to == int(ev.Node) && sr.datagram == (ev.Kind != engine.EvMessage) &&
		sr.sent == int(ev.Cause)+1 && sr.copied == copied && sr.text == engine.FormatValue(ev.Msg)
}

// capture receives the simulator's log as zerolog JSON during a replay and
// keeps what the page shows of the step being replayed: sends, timer
// changes and the service's annotations.
type capture struct {
	sends  []*sendRec
	timers []timerRec
	notes  []noteRec
	types  []string // message type of each send
	// fields and buf are logline.Parse's, reused from entry to entry.
	fields []logline.Field
	buf    []byte
}

type timerRec struct {
	node int
	text string
}

type noteRec struct {
	node int
	text string
}

// reserved are the log fields every entry has; an annotation shows the
// others.
var reserved = map[string]bool{"level": true, "step": true, "node": true, "message": true, "time": true}

// logLine is the part of a log entry capture reads first.
type logLine struct {
	Message  string          `json:"message"`
	Node     *int            `json:"node"`
	To       *int            `json:"to"`
	Type     string          `json:"type"`
	Periodic bool            `json:"periodic"`
	Event    json.RawMessage `json:"event"`
}

func (c *capture) Write(b []byte) (int, error) {
	var e logLine
	note, ok := c.scan(b, &e)
	if !ok {
		// Not an entry scan reads as encoding/json would: decode it.
		e = logLine{}
		if err := json.Unmarshal(b, &e); err != nil {
			return len(b), nil
		}
		note = func() string { return annotation(b, e.Message) }
	}
	if e.Node == nil {
		return len(b), nil
	}
	node, msg := *e.Node, e.Message
	switch {
	case e.To != nil && strings.HasPrefix(msg, "send datagram "):
		c.sends = append(c.sends, &sendRec{from: node, to: *e.To, datagram: true, text: strings.TrimPrefix(msg, "send datagram ")})
		c.types = append(c.types, e.Type)
	case e.To != nil && strings.HasPrefix(msg, "send "):
		c.sends = append(c.sends, &sendRec{from: node, to: *e.To, text: strings.TrimPrefix(msg, "send ")})
		c.types = append(c.types, e.Type)
	case strings.HasPrefix(msg, "set timer "):
		text := "set " + strings.TrimPrefix(msg, "set timer ")
		if e.Periodic {
			text += " (periodic)"
		}
		c.timers = append(c.timers, timerRec{node, text})
	case strings.HasPrefix(msg, "cancel timer "):
		c.timers = append(c.timers, timerRec{node, "cancel " + strings.TrimPrefix(msg, "cancel timer ")})
	case e.To != nil && strings.HasPrefix(msg, "lost ("):
		// The simulator logs a message it loses as it is sent (to a
		// crashed node, a datagram across a partition) right after its
		// send. What a crash, a break or a partition loses in flight
		// the recorder finds from the step's event, which tells a
		// message from a datagram with the same payload.
		why, text, _ := strings.Cut(strings.TrimPrefix(msg, "lost ("), ") ")
		if n := len(c.sends); n > 0 {
			if sr := c.sends[n-1]; sr.lost == 0 && sr.from == node && sr.to == *e.To && sr.text == text {
				switch why {
				case "node down":
					sr.lost = flagToDown
				case "partition":
					sr.lost = flagAcross
				}
			}
		}
	case msg == "end", msg == "choice", strings.HasPrefix(msg, "begin "):
	case e.Event != nil: // a break or a drop: the step's event itself
	default:
		c.notes = append(c.notes, noteRec{node, note()})
	}
	return len(b), nil
}

// scan reads entry b into e as json.Unmarshal would, and returns its
// annotation's maker. Performance: the entries of a long path are read
// with logline.Parse, several times faster than encoding/json. ok is false
// when scan cannot be sure of reading b as encoding/json does (an entry
// logline does not accept; a field of logLine with a value of an
// unexpected kind, a null event, or a key that matches a field only
// case-insensitively, as encoding/json's keys do).
func (c *capture) scan(b []byte, e *logLine) (func() string, bool) {
	var ok bool
	c.fields, c.buf, ok = logline.Parse(b, c.fields[:0], c.buf[:0])
	if !ok {
		return nil, false
	}
	isNull := func(f *logline.Field) bool { return !f.String && string(f.Value) == "null" }
	intField := func(f *logline.Field) (*int, bool) {
		if isNull(f) {
			return nil, true
		}
		if f.String {
			return nil, false
		}
		n, err := strconv.Atoi(string(f.Value))
		return &n, err == nil
	}
	for i := range c.fields {
		f := &c.fields[i]
		switch f.Key {
		case "message", "type":
			if !f.String && !isNull(f) {
				return nil, false
			}
			if f.Key == "message" {
				e.Message = string(f.Value)
				if !f.String {
					e.Message = ""
				}
			} else if f.String {
				e.Type = string(f.Value)
			}
		case "node", "to":
			n, ok := intField(f)
			if !ok {
				return nil, false
			}
			if f.Key == "node" {
				e.Node = n
			} else {
				e.To = n
			}
		case "periodic":
			switch {
			case f.String:
				return nil, false
			case string(f.Value) == "true":
				e.Periodic = true
			case string(f.Value) != "false" && !isNull(f):
				return nil, false
			}
		case "event":
			if isNull(f) {
				return nil, false
			}
			e.Event = json.RawMessage{} // set: capture only asks whether it is
		default:
			switch strings.ToLower(f.Key) {
			case "message", "node", "to", "type", "periodic", "event":
				return nil, false
			}
		}
	}
	return func() string { return c.note(e.Message) }, true
}

// note formats the entry scan read as annotation does: its message, then
// its own fields as key=value in key order (a string's text, a null as
// nothing, other values as written).
func (c *capture) note(msg string) string {
	var keys []int
	for i, f := range c.fields {
		if !reserved[f.Key] {
			keys = append(keys, i)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return c.fields[keys[i]].Key < c.fields[keys[j]].Key })
	var sb strings.Builder
	sb.WriteString(msg)
	for _, i := range keys {
		f := &c.fields[i]
		v := string(f.Value)
		if !f.String && v == "null" {
			v = "" // json.Unmarshal of null into a string leaves it empty
		}
		sb.WriteString(" " + f.Key + "=" + v)
	}
	return sb.String()
}

// annotation formats a service's log entry: its message, then its own
// fields as key=value in key order.
func annotation(b []byte, msg string) string {
	var e map[string]json.RawMessage
	if err := json.Unmarshal(b, &e); err != nil {
		return msg
	}
	var keys []string
	for k := range e {
		if !reserved[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString(msg)
	for _, k := range keys {
		v := string(e[k])
		var s string
		if json.Unmarshal(e[k], &s) == nil {
			v = s
		}
		fmt.Fprintf(&sb, " %s=%s", k, v)
	}
	return sb.String()
}

func (c *capture) reset() {
	c.sends, c.timers, c.notes, c.types = c.sends[:0], c.timers[:0], c.notes[:0], c.types[:0]
}

// splitLines splits text into lines, without a final empty one.
func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// nodeLines returns node id's state as its title and its other lines.
func nodeLines(s *engine.Sim, id int) (string, []string) {
	title, body, _ := strings.Cut(s.NodeText(sim.NodeID(id)), "\n")
	return title, splitLines(body)
}

// signature describes an event by its kind, nodes and message type or
// timer, leaving out the message's contents: the steps of a dead path's
// tail repeat a few signatures.
func signature(ev engine.Event) string {
	switch ev.Kind {
	case engine.EvApp:
		return fmt.Sprintf("node %d handles app request %s", ev.Node, sim.MessageName(ev.Msg))
	case engine.EvMessage:
		return fmt.Sprintf("node %d receives %s from node %d", ev.Node, sim.MessageName(ev.Msg), ev.Peer)
	case engine.EvDatagram:
		return fmt.Sprintf("node %d receives datagram %s from node %d", ev.Node, sim.MessageName(ev.Msg), ev.Peer)
	case engine.EvDrop:
		return fmt.Sprintf("datagram %s from node %d to node %d is dropped", sim.MessageName(ev.Msg), ev.Peer, ev.Node)
	case engine.EvDuplicate:
		return fmt.Sprintf("datagram %s from node %d to node %d is duplicated", sim.MessageName(ev.Msg), ev.Peer, ev.Node)
	}
	return ev.String()
}

// shortLabel is the label of an event on its node's lane.
func shortLabel(ev engine.Event) string {
	switch ev.Kind {
	case engine.EvApp:
		return "app " + sim.MessageName(ev.Msg)
	case engine.EvMessage, engine.EvDatagram:
		return sim.MessageName(ev.Msg)
	case engine.EvTimer:
		return "timer " + safetext.QuoteUnsafe(ev.Timer)
	case engine.EvConnError:
		return fmt.Sprintf("conn to %d broke", ev.Peer)
	case engine.EvReset:
		return "reset"
	case engine.EvBreak:
		return fmt.Sprintf("break %d-%d", ev.Node, ev.Peer)
	case engine.EvDrop:
		return "drop " + sim.MessageName(ev.Msg)
	case engine.EvDuplicate:
		return "dup " + sim.MessageName(ev.Msg)
	case engine.EvCrash:
		return "crash"
	case engine.EvPartition:
		return "partition " + engine.SplitText(ev.Side())
	case engine.EvHeal:
		return "partition heals"
	}
	return ev.Kind.String()
}

// recorder replays one trace and records its path.
type recorder struct {
	// mu is held while a step is recorded (its predicates and texts are
	// the system's code, which may not return): after the watchdog gave
	// up on the replay, the recorder is read only if no recording is
	// under way, and never written again.
	mu    sync.Mutex
	b     *builder
	t     *trace.Trace
	cfg   *sim.Config
	p     *pathData
	cap   capture
	cur   [][]int         // the current lines of every section
	check []*sim.Property // this replay's properties, in the page's order
	props []int           // the current state of every property
	live  []*sendRec
}

// record replays t and returns its path. The replay runs under the
// simulator's handler watchdog: a trace that ends in a handler that does
// not return stops there.
func (b *builder) record(name, title string, t *trace.Trace) (*pathData, error) {
	cfg, err := t.Config()
	if err != nil {
		return nil, fmt.Errorf("%w: %s path: %w", ErrInput, name, err)
	}
	r := &recorder{b: b, t: t, cfg: cfg}
	r.p = &pathData{Name: name, Title: title, Crit: -1, Shared: -1, Fail: -1, Tail: -1, Depth: t.Depth}
	logger := zerolog.New(&r.cap).Level(zerolog.DebugLevel)
	opts := t.Options()
	opts.Chooser, opts.Logger = engine.NewRecorded(t.Choices), &logger
	// The boot runs under the watchdog too: a Start that never returns
	// must not hold up the page, nor the search that writes it.
	s, err := engine.NewGuarded(cfg, opts, b.o.HandlerTimeout)
	var bootPanic *engine.HandlerPanicError
	var bootHang *engine.HangError
	switch {
	case err != nil && s != nil && t.Steps == 0 && errors.As(err, &bootPanic):
		// A handler panicked while the system booted: the path is the
		// initial state as the panic left it.
	case err != nil && s != nil && t.Steps == 0 && errors.As(err, &bootHang):
		return b.bootHang(r, s, bootHang)
	case err != nil:
		return nil, fmt.Errorf("%w: replay the %s path: %w", ErrInput, name, err)
	}
	if r.check, err = b.checkNodes(s); err != nil {
		return nil, fmt.Errorf("%w: %s path: %w", ErrInput, name, err)
	}
	r.begin(s)
	if bootPanic != nil {
		r.p.Fail, r.p.FailText, r.p.Stack = 0, bootPanic.Error(), bootPanic.Stack
		r.finish(s)
		return r.p, nil
	}
	var stepErr error
	guardErr := s.Guard(b.o.HandlerTimeout, func() error {
		for s.Steps() < t.Steps {
			if err := b.ctxErr(); err != nil {
				return err
			}
			before := s.Steps()
			r.cap.reset()
			ok, err := s.Step()
			if s.Steps() > before {
				r.mu.Lock()
				r.step(s)
				r.mu.Unlock()
			}
			if err != nil {
				stepErr = err
				return nil
			}
			if !ok {
				return fmt.Errorf("nothing can run after step %d but the trace has %d steps", s.Steps(), t.Steps)
			}
		}
		return nil
	})
	var hang *engine.HangError
	switch {
	case guardErr != nil && b.ctxErr() != nil:
		return nil, guardErr
	case errors.As(guardErr, &hang) && !lockWithin(&r.mu, b.o.HandlerTimeout):
		// A property or a state's text did not return while a step was
		// recorded: the abandoned recording may still write the page's
		// data, so none of it is used.
		return nil, fmt.Errorf("the %s path's step %d could not be recorded: %w", name, hang.Step, hang)
	case errors.As(guardErr, &hang):
		// The path ends before the step whose handler never returned.
		// (The simulator is abandoned: its step count may move on as
		// the handler unwinds; the error has the steps before it. The
		// recorder stays locked: the abandoned replay records no more.)
		r.p.Fail, r.p.FailText = hang.Step, hang.Error()
	case guardErr != nil:
		return nil, fmt.Errorf("%w: replay the %s path: %w (was the trace written by another version of the system?)", ErrInput, name, guardErr)
	}
	var hp *engine.HandlerPanicError
	switch {
	case stepErr == nil:
	case errors.As(stepErr, &hp):
		r.p.Fail, r.p.FailText, r.p.Stack = s.Steps(), hp.Error(), hp.Stack
	case errors.Is(stepErr, engine.ErrHang):
		r.p.Fail, r.p.FailText = s.Steps(), stepErr.Error()
	default:
		return nil, fmt.Errorf("%w: replay the %s path at step %d: %w (was the trace written by another version of the system?)", ErrInput, name, s.Steps()+1, stepErr)
	}
	r.finish(s)
	return r.p, nil
}

// lockWithin locks mu within timeout (0: engine.DefaultHandlerTimeout),
// or reports that it could not: a recording the watchdog gave up on that
// ends within that much more time (a slow predicate) is waited for.
func lockWithin(mu *sync.Mutex, timeout time.Duration) bool {
	if timeout <= 0 {
		timeout = engine.DefaultHandlerTimeout
	}
	for end := time.Now().Add(timeout); ; time.Sleep(time.Millisecond) {
		if mu.TryLock() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// bootHang records the path of a system whose boot did not return: no
// steps and no states, since the hung handler may still be changing them
// (reading them could race with it).
func (b *builder) bootHang(r *recorder, s *engine.Sim, hang *engine.HangError) (*pathData, error) {
	if b.nodes == nil {
		for i := 0; i < s.Nodes(); i++ {
			b.nodes = append(b.nodes, s.NodeTitle(sim.NodeID(i)))
		}
	}
	p := r.p
	p.Fail, p.FailText, p.StatesUntil = 0, hang.Error(), -1
	p.NoStates = fmt.Sprintf("No state is shown: node %d's handler did not return while the system booted, and it may still be changing the state.", hang.Node)
	for range s.Nodes() + 1 {
		p.Init = append(p.Init, nil)
	}
	return p, nil
}

// nonNil makes every list of the path an array in JSON, never null.
func (p *pathData) nonNil() {
	for _, l := range []*[]int{&p.Ev, &p.Msgs, &p.Timers, &p.Notes, &p.Diffs, &p.Props, &p.TailTop} {
		if *l == nil {
			*l = []int{}
		}
	}
	for i, c := range p.Init {
		if c == nil {
			p.Init[i] = []int{}
		}
	}
}

// begin records the initial state.
func (r *recorder) begin(s *engine.Sim) {
	in := &r.b.strs
	for i := 0; i < s.Nodes(); i++ {
		_, lines := nodeLines(s, i)
		r.cur = append(r.cur, in.ids2(lines))
	}
	r.cur = append(r.cur, in.ids2(splitLines(s.NetworkText())))
	for _, c := range r.cur {
		r.p.Init = append(r.p.Init, slices.Clone(c))
	}
	r.sends(0)
	for i, pr := range r.check {
		st := propState(s, pr)
		r.props = append(r.props, st)
		r.p.Props = append(r.p.Props, 0, i, st)
	}
}

// step records the step s just took.
func (r *recorder) step(s *engine.Sim) {
	in := &r.b.strs
	p := r.p
	n := s.Steps()
	ev := s.LastEvent()
	p.Steps = n
	p.Ev = append(p.Ev, int(ev.Kind), int(ev.Node), int(ev.Peer), in.id(ev.String()), in.id(shortLabel(ev)))
	// Where the message this step consumed was sent.
	switch ev.Kind {
	case engine.EvMessage, engine.EvDatagram, engine.EvDrop:
		for _, sr := range r.live {
			if sr.is(ev) {
				sr.done = true
				p.Msgs[sr.idx+3] = n
				if ev.Kind == engine.EvDrop {
					p.Msgs[sr.idx+4] = p.Msgs[sr.idx+4]&^3 | fateDropped
				} else {
					p.Msgs[sr.idx+4] &^= 3
				}
				break
			}
		}
	case engine.EvBreak:
		a, b := int(ev.Node), int(ev.Peer)
		for _, sr := range r.live {
			if !sr.done && !sr.datagram && (sr.from == a && sr.to == b || sr.from == b && sr.to == a) {
				r.lose(sr, n, 0)
			}
		}
	case engine.EvCrash:
		// What was on its way to the node is lost, and its connections
		// break: the messages on them either way are lost too. Its
		// datagrams in flight are still delivered.
		a := int(ev.Node)
		for _, sr := range r.live {
			if !sr.done && (sr.to == a || !sr.datagram && sr.from == a) {
				r.lose(sr, n, 0)
			}
		}
	case engine.EvPartition:
		// The datagrams in flight across the split are lost; the
		// messages across it are held until it heals.
		side := ev.Side()
		for _, sr := range r.live {
			if !sr.done && sr.datagram && (side>>sr.from^side>>sr.to)&1 == 1 {
				r.lose(sr, n, 0)
			}
		}
	case engine.EvDuplicate:
		// The copy joins what is in flight, from the original's sender,
		// made at this step.
		text := engine.FormatValue(ev.Msg)
		cp := &sendRec{idx: len(p.Msgs), from: int(ev.Peer), to: int(ev.Node), text: text, datagram: true, sent: int(ev.Cause) + 1, copied: n}
		p.Msgs = append(p.Msgs, n, cp.from, cp.to, -1, fateInFlight|flagDatagram|flagCopy, in.id(text), in.id(sim.MessageName(ev.Msg)))
		r.live = append(r.live, cp)
	}
	r.live = slices.DeleteFunc(r.live, func(sr *sendRec) bool { return sr.done })
	r.sends(n)
	for _, t := range r.cap.timers {
		p.Timers = append(p.Timers, n, t.node, in.id(t.text))
	}
	// The state: in the simulator's model a step changes the state of one
	// node at most, the one whose handler ran or that crashed (a break, a
	// drop, a duplication or a partition changes only the network), so
	// only its text is made again.
	if p.StatesUntil < n-1 {
		// Past the page's size limit: no more states on this path.
	} else if r.b.strs.bytes+8*len(p.Diffs) > r.b.o.Limits.StateBytes {
		p.StatesUntil = n - 1
	} else {
		r.state(s, n, ev)
	}
	for i, pr := range r.check {
		if st := propState(s, pr); st != r.props[i] {
			r.props[i] = st
			p.Props = append(p.Props, n, i, st)
		}
	}
}

// state records how step n changed the state.
func (r *recorder) state(s *engine.Sim, n int, ev engine.Event) {
	r.p.StatesUntil = n
	switch ev.Kind {
	case engine.EvBreak, engine.EvDrop, engine.EvDuplicate, engine.EvPartition, engine.EvHeal:
		// The network's events: no node's state changes.
	default:
		_, lines := nodeLines(s, int(ev.Node))
		r.diff(n, int(ev.Node), lines)
	}
	r.diff(n, s.Nodes(), splitLines(s.NetworkText()))
}

// lose ends message sr at step n: lost, for the reason flags why.
func (r *recorder) lose(sr *sendRec, n, why int) {
	sr.done = true
	r.p.Msgs[sr.idx+3] = n
	r.p.Msgs[sr.idx+4] = r.p.Msgs[sr.idx+4]&^3 | fateLost | why
}

// sends records the sends and annotations captured for step n.
func (r *recorder) sends(n int) {
	in := &r.b.strs
	p := r.p
	for i, sr := range r.cap.sends {
		sr.idx, sr.sent, sr.copied = len(p.Msgs), n, -1
		flags := fateInFlight
		if sr.datagram {
			flags |= flagDatagram
		}
		p.Msgs = append(p.Msgs, n, sr.from, sr.to, -1, flags, in.id(sr.text), in.id(r.cap.types[i]))
		if sr.lost != 0 {
			r.lose(sr, n, sr.lost) // lost as it was sent: never in flight
			continue
		}
		r.live = append(r.live, sr)
	}
	r.cap.sends = nil // the records now belong to r.live
	r.cap.types = r.cap.types[:0]
	for _, nt := range r.cap.notes {
		if len(p.Notes)/noteWidth >= r.b.o.Limits.Notes {
			p.NotesLeft++
			continue
		}
		p.Notes = append(p.Notes, n, nt.node, in.id(nt.text))
	}
	r.cap.notes = r.cap.notes[:0]
}

// diff records how section k changed at step n: the lines between the
// common prefix and the common suffix are replaced.
func (r *recorder) diff(n, k int, lines []string) {
	in := &r.b.strs
	old := r.cur[k]
	if len(old) == len(lines) {
		same := true
		for i, l := range lines {
			if in.list[old[i]] != l {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	now := in.ids2(lines)
	pre := 0
	for pre < len(old) && pre < len(now) && old[pre] == now[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(now)-pre && old[len(old)-1-suf] == now[len(now)-1-suf] {
		suf++
	}
	ins := now[pre : len(now)-suf]
	r.p.Diffs = append(r.p.Diffs, n, k, pre, len(old)-pre-suf, len(ins))
	r.p.Diffs = append(r.p.Diffs, ins...)
	r.cur[k] = now
}

// finish ends the path: what is still in flight stays so, the choices are
// kept to compare paths, and the repetitive tail is found.
func (r *recorder) finish(s *engine.Sim) {
	p, t := r.p, r.t
	p.choices = s.ChoiceValues()
	p.starts = make([]int, p.Steps)
	for i := range p.starts {
		p.starts[i] = s.StepStart(i)
	}
	// The live trace records the critical step too, but no state of the
	// live path is dead; a C2 answer names no step (no dead state was
	// found).
	if t.Critical >= 0 && t.Critical <= p.Steps && t.Condition != "" && t.Condition != "C2" && t.Kind != trace.KindLive {
		p.Crit, p.Cond = t.Critical, t.Condition
	}
	if t.CycleLen > 0 && t.CycleStart+t.CycleLen <= p.Steps {
		p.CycleStart, p.CycleLen = t.CycleStart, t.CycleLen
	}
	if p.Fail < 0 && t.Kind == trace.KindSafety && t.Property == walks.HangProperty && p.Steps > 0 {
		// The trace of a hung handler ends before the hung step, which is
		// not run again here (replay runs it under the watchdog).
		p.Fail = p.Steps
		p.FailText = fmt.Sprintf("the handler of step %d did not return", p.Steps+1)
		if t.HandlerTimeout > 0 {
			p.FailText += fmt.Sprintf(" within %v", t.HandlerTimeout)
		}
	}
	if p.Fail < 0 && t.Kind == trace.KindSafety && p.Steps > 0 {
		p.Fail = p.Steps
		p.FailText = fmt.Sprintf("safety property %s fails at step %d", safetext.QuoteUnsafe(t.Property), p.Steps)
		for i, pr := range r.check {
			if pr.Name == t.Property && r.props[i] == propHolds {
				p.FailText += " (but it holds in this replay: was the trace written by another version of the system?)"
			}
		}
	}
}

// propState checks one property in s's current state.
func propState(s *engine.Sim, pr *sim.Property) int {
	ok, err := s.Holds(pr)
	switch {
	case err != nil:
		return propError
	case ok:
		return propHolds
	}
	return propViolated
}

// collapse finds the path's repetitive tail: the steps after the last
// telling one (a kind of event not seen before, the critical step, the
// divergence from the live path, the lasso's cycle, the failure) plus
// Limits.TailAfter, when there are at least Limits.MinTail of them.
func (b *builder) collapse(p *pathData) {
	seen := map[string]bool{}
	sigs := make([]int, p.Steps+1)
	last := 0
	for n := 1; n <= p.Steps; n++ {
		ev := b.event(p, n)
		sig := signature(ev)
		sigs[n] = b.strs.id(sig)
		if !seen[sig] {
			seen[sig] = true
			last = n
		}
	}
	last = max(last, p.Crit, p.Shared+1, p.CycleStart+p.CycleLen, p.Fail, p.Depth)
	tail := last + b.o.Limits.TailAfter
	if p.Steps-tail < b.o.Limits.MinTail {
		return
	}
	p.Tail = tail
	count := map[int]int{}
	var order []int
	for n := tail + 1; n <= p.Steps; n++ {
		if count[sigs[n]] == 0 {
			order = append(order, sigs[n])
		}
		count[sigs[n]]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	for _, id := range order[:min(len(order), 8)] {
		p.TailTop = append(p.TailTop, id, count[id])
	}
}

// event rebuilds enough of step n's event to describe it.
func (b *builder) event(p *pathData, n int) engine.Event {
	e := p.Ev[(n-1)*evWidth:]
	ev := engine.Event{Kind: engine.EventKind(e[0]), Node: sim.NodeID(e[1]), Peer: sim.NodeID(e[2])}
	switch ev.Kind {
	case engine.EvTimer:
		ev.Timer = strings.TrimPrefix(b.strs.list[e[4]], "timer ")
	case engine.EvApp, engine.EvMessage, engine.EvDatagram, engine.EvDrop, engine.EvDuplicate:
		label := b.strs.list[e[4]]
		for _, prefix := range []string{"app ", "drop ", "dup "} {
			label = strings.TrimPrefix(label, prefix)
		}
		ev.Msg = typeName(label)
	}
	return ev
}

// typeName is a message that names its type: signature only needs it.
type typeName string

// MessageName returns the name.
func (t typeName) MessageName() string { return string(t) }

// shared returns how many leading steps p and q have in common.
func shared(p, q *pathData) int {
	n := 0
	for n < p.Steps && n < q.Steps {
		a, b := choiceAt(p, n+1), choiceAt(q, n+1)
		if !slices.Equal(p.choices[choiceAt(p, n):a], q.choices[choiceAt(q, n):b]) {
			break
		}
		n++
	}
	return n
}

// choiceAt returns how many answers the first n steps of p took.
func choiceAt(p *pathData, n int) int {
	if n < len(p.starts) {
		return p.starts[n]
	}
	return len(p.choices)
}

// stateAt rebuilds the text of every section after n steps of p.
func (b *builder) stateAt(p *pathData, n int) [][]string {
	cur := make([][]int, len(p.Init))
	for i, c := range p.Init {
		cur[i] = slices.Clone(c)
	}
	for d := 0; d < len(p.Diffs); {
		step, k, at, del, nins := p.Diffs[d], p.Diffs[d+1], p.Diffs[d+2], p.Diffs[d+3], p.Diffs[d+4]
		if step > n {
			break
		}
		cur[k] = slices.Replace(cur[k], at, at+del, p.Diffs[d+5:d+5+nins]...)
		d += 5 + nins
	}
	out := make([][]string, len(cur))
	for i, c := range cur {
		for _, id := range c {
			out[i] = append(out[i], b.strs.list[id])
		}
	}
	return out
}

// checkNodes makes sure every path has the error path's nodes and
// properties, and returns the properties to check on this replay.
func (b *builder) checkNodes(s *engine.Sim) ([]*sim.Property, error) {
	var titles []string
	for i := 0; i < s.Nodes(); i++ {
		titles = append(titles, s.NodeTitle(sim.NodeID(i)))
	}
	var check []*sim.Property
	var info []propInfo
	cfg := s.Config()
	for i := range cfg.Safety {
		check = append(check, &cfg.Safety[i])
		info = append(info, propInfo{Name: cfg.Safety[i].Name, Kind: "safety"})
	}
	for i := range cfg.Liveness {
		check = append(check, &cfg.Liveness[i])
		info = append(info, propInfo{Name: cfg.Liveness[i].Name, Kind: "liveness"})
	}
	if b.nodes == nil {
		b.nodes, b.props = titles, info
		return check, nil
	}
	if !slices.Equal(b.nodes, titles) {
		return nil, fmt.Errorf("its nodes %v are not the error path's %v", titles, b.nodes)
	}
	if !slices.Equal(b.props, info) {
		return nil, fmt.Errorf("its properties %v are not the error path's %v", info, b.props)
	}
	return check, nil
}

// propInfo names a property for the page.
type propInfo struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// jsonBytes encodes v compactly; the encoder escapes <, > and & so the
// result can sit inside a script element.
func jsonBytes(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

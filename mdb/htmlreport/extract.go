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
	// propPanicked: the property is a monitor's whose Handle panicked at
	// this step; the panic unwound it, so its state says nothing.
	propPanicked = 3
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
	// (-1 without one); on the live path, with the error path. The
	// minimized path has none: the live alternative is one of the error
	// path's, not of the minimized path's.
	Shared int `json:"shared"`
	// Other is the index of the path whose states this one's are compared
	// with at the same step (the live alternative for the error path, and
	// the other way round), -1 for none.
	Other int `json:"other"`
	// A lasso's cycle: transitions CycleStart+1 .. CycleStart+CycleLen.
	CycleStart int `json:"cycleStart"`
	CycleLen   int `json:"cycleLen"`
	// Fail is the step at which a safety property fails or a handler
	// panics or hangs (-1: none), FailText what happened, Stack a panic's
	// stack. A hung handler's step is Steps+1: the path ends before it,
	// which has no state after it (0: the boot hung).
	Fail     int    `json:"fail"`
	FailText string `json:"failText,omitempty"`
	Stack    string `json:"stack,omitempty"`
	// monitor names the monitor whose Handle panicked at Fail, notified
	// by a node's handler ("": none, or the handler's own panic).
	monitor string
	// Depth is the bounded search depth: liveness counts after it.
	Depth int `json:"depth"`
	// Prefix is the length of the prefix the search started from
	// (--prefix-steps; 0: none): its steps come before the bounded
	// search's, Prefix+1 to Depth.
	Prefix int `json:"prefix"`
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
	// Init holds the initial view of every section (each node, then the
	// network: its text, cut as cut.go says) as line indexes; Diffs the
	// changes of each step's views, hunk by hunk: step, section, first
	// changed line, lines removed, n, then n lines added (a step's hunks
	// apply in order, each at its place once those before it are).
	Init  [][]int `json:"init"`
	Diffs []int   `json:"diffs"`
	// Views are the excerpts (see excerpts) that show what a step
	// changed in a section whose view is cut or was: step, section,
	// first piece of the view replaced, pieces replaced, n, then n
	// (op, line) pairs, op one of opSame, opDel, opAdd.
	Views []int `json:"views"`
	// Cut says that some view of the path is cut.
	Cut bool `json:"cut,omitempty"`
	// Props: every property's state at step 0, then each change.
	Props []int `json:"props"`
	// StatesUntil is the last step whose state the page stores: the
	// path's last step unless Limits.StateBytes ran out. -1 with
	// NoStates: the page stores no state of the path, and NoStates says
	// why.
	StatesUntil int    `json:"statesUntil"`
	NoStates    string `json:"noStates,omitempty"`
	// StatesLimit says which limit StatesUntil stopped at.
	StatesLimit string `json:"statesLimit,omitempty"`

	choices []int32 // the path's answers
	starts  []int   // starts[i]: where step i+1's answers begin
	// kept is every section's text at the step record was asked to keep
	// (nil: none, or no more), which the comparison at the critical step
	// reads.
	kept []*textLines
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

// eventBytes bounds the text of an event, a message, a timer or a log
// annotation on the page (a message's text, sim/engine.FormatValue, can
// run to kilobytes): a longer one is cut as a state's long line is, and
// the log has it whole.
const eventBytes = 1000

// text returns the id of an event's, a message's or an annotation's text,
// cut to eventBytes.
func (b *builder) text(s string) int {
	if len(s) > eventBytes {
		s = cutLine(s, eventBytes, nil)
	}
	return b.strs.id(s)
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

// nodeBody returns node id's state without its title line.
func nodeBody(s *engine.Sim, id int) string {
	_, body, _ := strings.Cut(s.NodeText(sim.NodeID(id)), "\n")
	return body
}

// monitorBody returns monitor i's state (hot or cold, its assertion
// failure, its struct) without its title line.
func monitorBody(s *engine.Sim, i int) string {
	_, body, _ := strings.Cut(s.MonitorText(i), "\n")
	return body
}

// sectionText is section k's text in s: node k's state, then each
// monitor's (as mdb's state shows them: they are part of the global
// state), then the network.
func sectionText(s *engine.Sim, k int) string {
	switch n, m := s.Nodes(), s.Monitors(); {
	case k < n:
		return nodeBody(s, k)
	case k < n+m:
		return monitorBody(s, k-n)
	}
	return s.NetworkText()
}

// own returns a copy of text when it is large: a node's text is made in a
// buffer up to twice its size, which a section kept for the steps after
// would keep.
func own(text string) string {
	if len(text) < 1<<16 {
		return text
	}
	return strings.Clone(text)
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
	secs  []section       // every section as it is now
	read  int             // the bytes of state text read (Limits.TextBytes)
	keep  int             // the step whose sections p.kept holds (-1: none)
	check []*sim.Property // this replay's properties, in the page's order
	props []int           // the current state of every property
	live  []*sendRec
}

// section is a node's state or the network as a path's replay has it now.
type section struct {
	t   *textLines // its text
	ids []int      // its view's lines
	cut bool       // the view cuts something
}

// record replays t and returns its path, keeping every section's text at
// step keep (-1: none; see keepAt). The replay runs under the simulator's handler
// watchdog: a trace that ends in a handler that does not return stops
// there.
func (b *builder) record(name, title string, t *trace.Trace, keep int) (*pathData, error) {
	cfg, err := t.Config()
	if err != nil {
		return nil, fmt.Errorf("%w: %s path: %w", ErrInput, name, err)
	}
	r := &recorder{b: b, t: t, cfg: cfg, keep: keep}
	r.p = &pathData{Name: name, Title: title, Crit: -1, Shared: -1, Other: -1, Fail: -1, Tail: -1, Depth: t.Depth}
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
		r.monitorPanicked(0, bootPanic.Monitor)
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
		r.p.Fail, r.p.FailText = r.p.Steps+1, hang.Error()
	case guardErr != nil:
		return nil, fmt.Errorf("%w: replay the %s path: %w (was the trace written by another version of the system?)", ErrInput, name, guardErr)
	}
	var hp *engine.HandlerPanicError
	switch {
	case stepErr == nil:
	case errors.As(stepErr, &hp):
		r.p.Fail, r.p.FailText, r.p.Stack = s.Steps(), hp.Error(), hp.Stack
		r.monitorPanicked(s.Steps(), hp.Monitor)
	case errors.Is(stepErr, engine.ErrHang):
		r.p.Fail, r.p.FailText = r.p.Steps+1, stepErr.Error()
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
		// The monitors' titles are their names: their state is not read.
		for _, m := range s.Config().Monitors {
			b.monitors = append(b.monitors, "monitor "+safetext.QuoteUnsafe(m.Name))
		}
	}
	p := r.p
	p.Fail, p.FailText, p.StatesUntil = 0, hang.Error(), -1
	p.NoStates = fmt.Sprintf("No state is shown: node %d's handler did not return while the system booted, and it may still be changing the state.", hang.Node)
	for range s.Nodes() + s.Monitors() + 1 {
		p.Init = append(p.Init, nil)
	}
	return p, nil
}

// nonNil makes every list of the path an array in JSON, never null.
func (p *pathData) nonNil() {
	for _, l := range []*[]int{&p.Ev, &p.Msgs, &p.Timers, &p.Notes, &p.Diffs, &p.Views, &p.Props, &p.TailTop} {
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
	last := s.Nodes() + s.Monitors()
	for i := 0; i <= last; i++ {
		text := sectionText(s, i)
		r.read += len(text)
		t := newTextLines(own(text))
		ps, cut := r.b.view(t, i == last)
		sec := section{t: t, ids: pieceIDs(ps), cut: cut}
		r.secs = append(r.secs, sec)
		r.p.Init = append(r.p.Init, slices.Clone(sec.ids))
		r.p.Cut = r.p.Cut || cut
	}
	r.keepAt(0)
	r.sends(0)
	for i, pr := range r.check {
		st := propState(s, pr)
		r.props = append(r.props, st)
		r.p.Props = append(r.p.Props, 0, i, st)
	}
}

// step records the step s just took.
func (r *recorder) step(s *engine.Sim) {
	p := r.p
	n := s.Steps()
	ev := s.LastEvent()
	p.Steps = n
	p.Ev = append(p.Ev, int(ev.Kind), int(ev.Node), int(ev.Peer), r.b.text(ev.String()), r.b.text(shortLabel(ev)))
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
		p.Msgs = append(p.Msgs, n, cp.from, cp.to, -1, fateInFlight|flagDatagram|flagCopy, r.b.text(text), r.b.text(sim.MessageName(ev.Msg)))
		r.live = append(r.live, cp)
	}
	r.live = slices.DeleteFunc(r.live, func(sr *sendRec) bool { return sr.done })
	r.sends(n)
	for _, t := range r.cap.timers {
		p.Timers = append(p.Timers, n, t.node, r.b.text(t.text))
	}
	// The state: in the simulator's model a step changes the state of one
	// node at most, the one whose handler ran or that crashed (a break, a
	// drop, a duplication or a partition changes only the network), so
	// only its text is made again.
	lim := r.b.o.Limits
	if p.StatesUntil < n-1 {
		// Past a limit: no more states on this path.
	} else if r.b.strs.bytes+8*(len(p.Diffs)+len(p.Views)) > lim.StateBytes {
		p.StatesUntil = n - 1
		p.StatesLimit = fmt.Sprintf("the page stores at most %s of states", mib(lim.StateBytes))
	} else if r.read > lim.TextBytes {
		p.StatesUntil = n - 1
		p.StatesLimit = fmt.Sprintf("the page reads at most %s of state text for a path (the text of a node's state is made again at each step that changes it, the network's at every step), and this path's states are larger", mib(lim.TextBytes))
	} else {
		r.state(s, n, ev)
		r.keepAt(n)
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
		r.diff(n, int(ev.Node), nodeBody(s, int(ev.Node)))
		// A handler that ran may have notified the monitors
		// (Context.Notify).
		for i := range s.Monitors() {
			r.diff(n, s.Nodes()+i, monitorBody(s, i))
		}
	}
	r.diff(n, s.Nodes()+s.Monitors(), s.NetworkText())
}

// mib writes a size in MiB when it is whole MiB, else in bytes.
func mib(n int) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return comma(n) + " bytes"
}

// keepAt keeps every section's text when n is the step asked for; on
// the path the builder compares the kept ones with (builder.cmpWith), it
// makes the comparison instead, and lets go of them.
func (r *recorder) keepAt(n int) {
	if n != r.keep {
		return
	}
	if ep := r.b.cmpWith; ep != nil {
		var live []*textLines
		for _, sec := range r.secs {
			live = append(live, sec.t)
		}
		r.b.cmp = r.b.compare(ep, r.p, live)
		ep.kept = nil
		return
	}
	for _, sec := range r.secs {
		r.p.kept = append(r.p.kept, sec.t)
	}
}

// lose ends message sr at step n: lost, for the reason flags why.
func (r *recorder) lose(sr *sendRec, n, why int) {
	sr.done = true
	r.p.Msgs[sr.idx+3] = n
	r.p.Msgs[sr.idx+4] = r.p.Msgs[sr.idx+4]&^3 | fateLost | why
}

// sends records the sends and annotations captured for step n.
func (r *recorder) sends(n int) {
	p := r.p
	for i, sr := range r.cap.sends {
		sr.idx, sr.sent, sr.copied = len(p.Msgs), n, -1
		flags := fateInFlight
		if sr.datagram {
			flags |= flagDatagram
		}
		p.Msgs = append(p.Msgs, n, sr.from, sr.to, -1, flags, r.b.text(sr.text), r.b.text(r.cap.types[i]))
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
		p.Notes = append(p.Notes, n, nt.node, r.b.text(nt.text))
	}
	r.cap.notes = r.cap.notes[:0]
}

// diff records how section k changed at step n, to text: the hunks of its
// view, and when the view is cut or was, the excerpts that show what
// changed.
func (r *recorder) diff(n, k int, text string) {
	r.read += len(text)
	sec := &r.secs[k]
	if text == sec.t.text {
		return
	}
	now := newTextLines(own(text))
	hs := sec.t.diff(now)
	if len(hs) == 0 {
		return
	}
	t := sec.t.next(now, hs)
	ps, cut := r.b.view(t, k == len(r.secs)-1)
	ids := pieceIDs(ps)
	for _, h := range fewerInts(diffInts(sec.ids, ids)) {
		r.p.Diffs = append(r.p.Diffs, n, k, h.ns, h.ol, h.nl)
		r.p.Diffs = append(r.p.Diffs, ids[h.ns:h.ns+h.nl]...)
	}
	if cut || sec.cut {
		for _, e := range r.b.excerpts(sec.t, t, hs, ps) {
			r.p.Views = append(append(r.p.Views, n, k), e...)
		}
		r.p.Cut = true
	}
	*sec = section{t: t, ids: ids, cut: cut}
}

// fewerInts returns hunks hs, or the one hunk from the first's start to
// the last's end when that takes fewer numbers in pathData.Diffs (each
// hunk has five before its lines: in a short section, the lines between
// two changes are fewer).
func fewerInts(hs []hunk) []hunk {
	if len(hs) < 2 {
		return hs
	}
	first, last := hs[0], hs[len(hs)-1]
	one := hunk{first.os, last.os + last.ol - first.os, first.ns, last.ns + last.nl - first.ns}
	many := 0
	for _, h := range hs {
		many += 5 + h.nl
	}
	if 5+one.nl <= many {
		return []hunk{one}
	}
	return hs
}

// pieceIDs returns the lines of a view.
func pieceIDs(ps []piece) []int {
	ids := make([]int, len(ps))
	for i, p := range ps {
		ids[i] = p.id
	}
	return ids
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
		p.Fail = p.Steps + 1
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

// monitorPanicked records that monitor's Handle (none when "") panicked at
// step n: its properties are marked propPanicked there, not the holds or
// violated its unwound state would give.
func (r *recorder) monitorPanicked(n int, monitor string) {
	if monitor == "" {
		return
	}
	r.p.monitor = monitor
	for i, pr := range r.check {
		if pr.Name == monitor {
			r.props[i] = propPanicked
			r.p.Props = append(r.p.Props, n, i, propPanicked)
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

// checkNodes makes sure every path has the error path's nodes and
// properties, and returns the properties to check on this replay.
func (b *builder) checkNodes(s *engine.Sim) ([]*sim.Property, error) {
	var titles, monitors []string
	for i := 0; i < s.Nodes(); i++ {
		titles = append(titles, s.NodeTitle(sim.NodeID(i)))
	}
	for i := range s.Monitors() {
		title, _, _ := strings.Cut(s.MonitorText(i), "\n")
		monitors = append(monitors, title)
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
		b.nodes, b.monitors, b.props = titles, monitors, info
		return check, nil
	}
	if !slices.Equal(b.nodes, titles) {
		return nil, fmt.Errorf("its nodes %v are not the error path's %v", titles, b.nodes)
	}
	if !slices.Equal(b.monitors, monitors) {
		return nil, fmt.Errorf("its monitors %v are not the error path's %v", monitors, b.monitors)
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

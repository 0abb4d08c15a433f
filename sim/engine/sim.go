package engine

import (
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	goruntime "runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/internal/hook"
)

// ErrHandlerPanic marks a handler that panicked; see HandlerPanicError.
var ErrHandlerPanic = errors.New("sim: panic in handler")

// HandlerPanicError reports a handler that panicked, or used the API in a
// way that cannot run (a *MisuseError in Value). The checker treats it as a
// safety violation named "panic in handler".
type HandlerPanicError struct {
	// Step is the transition whose handler panicked, numbered as logs and
	// mdb number them (the transition that leads to the state after Step
	// steps); 0 while the system boots.
	Step int
	// Node is the node whose handler panicked; Event the event it handled.
	Node  sim.NodeID
	Event string
	// Monitor, when not empty, names the monitor (Config.Monitors) whose
	// Handle panicked, called by node Node's handler through
	// sim.Context.Notify: the panic is the monitor's, not the handler's.
	Monitor string
	// Value is what the handler panicked with.
	Value any
	// Stack is the service's own stack frames at the panic, innermost
	// first, without the runtime's and the simulator's frames: pairs of
	// lines "function" and "\tfile:line". FullStack is the whole trace.
	Stack, FullStack string
}

// Error says which handler panicked, in which event, and with what: the
// panic value's text as safetext.QuoteLines shows it (a message of several
// lines keeps them, indented; one with a control character is quoted), so
// that none of it passes for a line of macemc's own.
func (e *HandlerPanicError) Error() string {
	at := fmt.Sprintf("at step %d", e.Step)
	if e.Step == 0 {
		at = "at boot"
	}
	if m, ok := e.Value.(*MisuseError); ok {
		return fmt.Sprintf("sim: invalid API use by node %d %s (%s): %s", e.Node, at, e.Event, m.Problem)
	}
	if e.Monitor != "" {
		return fmt.Sprintf("sim: panic in monitor %s's Handle, notified by node %d's handler %s (%s): %s",
			safetext.QuoteUnsafe(e.Monitor), e.Node, at, e.Event, panicText(e.Value))
	}
	return fmt.Sprintf("sim: panic in handler of node %d %s (%s): %s", e.Node, at, e.Event, panicText(e.Value))
}

// panicText is the text of a panic value v for an error message: fmt's
// %v, as safetext.QuoteLines shows it.
func panicText(v any) string { return safetext.QuoteLines(fmt.Sprint(v)) }

// Unwrap lets errors.Is match ErrHandlerPanic, and the error the handler
// panicked with (ErrMisuse for a *MisuseError).
func (e *HandlerPanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrHandlerPanic, err}
	}
	return []error{ErrHandlerPanic}
}

// ErrMisuse marks a handler that used the sim.Context API in a way that
// cannot run; see MisuseError.
var ErrMisuse = errors.New("sim: invalid API use")

// MisuseError is what a sim.Context method panics with when a handler
// calls it wrongly: a send to a node that does not exist, a nil message, a
// timer without a name, Rand(0), a negative duration. The handler is
// unwound and the checker reports a *HandlerPanicError holding it.
type MisuseError struct {
	Node sim.NodeID
	// Call is the method, e.g. "Send"; Problem says what is wrong.
	Call, Problem string
}

func (e *MisuseError) Error() string { return "sim: invalid API use: " + e.Problem }

// Unwrap lets errors.Is match ErrMisuse.
func (e *MisuseError) Unwrap() error { return ErrMisuse }

// pending is a message or datagram in flight.
type pending struct {
	msg   sim.Message
	from  sim.NodeID
	to    sim.NodeID
	cause int32 // the step that sent it: -1 at boot
	// copy is 1 + the step that made this datagram by duplicating one in
	// flight (EvDuplicate), a copy of the one sent at cause; 0 for one as
	// sent. (It sits beside cause, in what would be padding.)
	copy   int32
	weight float64
	hash   uint64 // of msg; 0 until first needed
}

// queue is a FIFO of messages on one reliable connection.
type queue struct {
	items []pending
	head  int
	part  uint64 // its part in the state's hash (see hashState)
}

func (q *queue) len() int { return len(q.items) - q.head }

// push adds an empty message at the end of the queue and returns it.
func (q *queue) push() *pending {
	q.items = append(q.items, pending{})
	return &q.items[len(q.items)-1]
}

func (q *queue) pop() pending {
	p := q.items[q.head]
	q.items[q.head] = pending{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return p
}

func (q *queue) clear() {
	clear(q.items)
	q.items, q.head = q.items[:0], 0
}

type timer struct {
	name     string
	nameHash uint64
	weight   float64
	armed    bool
	periodic bool
	cause    int32 // the step that armed it: -1 at boot
}

// term is what the timer adds to its node's armedSum while armed: the
// armed timers are a set, hashed as the sum of their names' hashes
// (random 64-bit values), times 3 for a periodic one (a periodic timer
// stays armed after it fires, a one-shot one does not: different states).
func (t *timer) term() uint64 {
	if t.periodic {
		return 3 * t.nameHash
	}
	return t.nameHash
}

type node struct {
	timers []timer // sorted by name
	// armedSum is the sum of the armed timers' terms (timer.term), kept
	// as timers are armed and disarmed: the part of the node's hash that
	// stands for its armed timers (nodePart).
	armedSum uint64
	app      []any
	appNext  int
	appCause int32 // the step that (re)started the driver: -1 at boot
	connErrs []sim.NodeID
	hash     uint64
	dirty    bool
	down     bool // the node crashed for good
}

// nodeExt is the part of a node's record that steps seldom touch, kept
// apart so that the records the step loop reads stay small: restarts
// counts the node's resets, draws is its position in its deterministic
// random stream (Context.Reader), endHash its state hash at the end of its
// last handler when Options.CheckEscapes is on (0: none).
type nodeExt struct {
	restarts int
	draws    uint64
	endHash  uint64
}

// world is everything a snapshot copies.
type world struct {
	nodes []node
	ext   []nodeExt // by node id
	// svcs holds every node's service struct, by node id: the slice the
	// properties' View reads.
	svcs  []sim.Service
	conns []queue // index from*n + to
	// Summaries that let buildReady skip what is empty (performance: it
	// runs before every step): bit c of busy is set when conns[c] holds
	// messages; apps, errs and armed count the nodes with driver requests
	// left, the nodes with connection errors to deliver and the armed
	// timers. Every change to a queue, a driver position, a connection
	// error list or a timer keeps them up to date.
	busy       []uint64
	apps, errs int
	armed      int
	dgrams     []pending
	mons       []monState // the monitors, in Config.Monitors order
	monotone   uint64
	step       int
	resets     int
	breaks     int
	drops      int
	crashes    int
	dups       int
	partitions int
	// cut is the side of the current partition, one bit per node (0: the
	// network is whole).
	cut uint64
	// down counts the crashed nodes.
	down    int
	choices []Choice
	// settings logs the failure switches (SetFailures, SetFailuresUntil)
	// in force from each step on, the first at boot: copying by replay
	// needs them.
	settings   []setting
	stepStarts []int32 // index into choices where each step began
	lastEvent  Event
	// lastDgram is the hash the datagram the last step delivered had
	// before its handler ran, when it had been hashed (see
	// LastFairSource); 0 otherwise.
	lastDgram uint64
	// salt hashes the first saltN choices (see salted).
	salt  uint64
	saltN int
	// The client history (see history.go): its events, its clients and
	// the hash of its canonical form.
	hist     []sim.HistoryEvent
	clients  []client
	histHash uint64
	// shared has bit i set when transition i's handler used state beyond
	// its node (Context.Monotone's counter, the monitors); see Sim.Shared.
	shared []uint64
	// global has bit i set when transition i's event was enabled by a
	// condition over the whole state; see Sim.Global.
	global []uint64
	hs     hashState // see Hash
}

// setting is the failure switches in force from a step on.
type setting struct {
	step     int
	failures bool
	until    int
}

// Options configure a Sim.
type Options struct {
	// Chooser answers every choice point. Default: NewRandom(0).
	Chooser Chooser
	// Logger, when set, receives a line for each transition's begin and
	// end, every send, timer and choice, and the service's annotations.
	// When nil, logging costs nothing.
	Logger *zerolog.Logger
	// NoFailures turns failure events off whatever the config allows.
	// See SetFailures.
	NoFailures bool
	// FailuresUntil, when positive, turns failure events off from that
	// step on (the "gusto" of the original tool: failures during the
	// bounded search, none during the random walks that follow). It is part
	// of an execution's description: replay needs the same value.
	FailuresUntil int
	// CheckEscapes hashes a node at the end of every handler and again
	// before its next event, and reports a difference (state changed by
	// code running outside a handler, such as a goroutine the handler
	// started) as an *EscapeError. The determinism checks use it; it
	// costs two state encodings per step.
	CheckEscapes bool
	// CheckMessages hashes every message when it is sent and again when
	// it is delivered, and reports one that changed in between (its
	// sender kept and changed what it shares with the message) as a
	// *MessageChangedError. The determinism checks use it.
	CheckMessages bool
	// CopyByReplay makes Clone copy by replaying the execution's choices
	// from the start, whatever the state holds (see Clone).
	CopyByReplay bool
	// CheckCopies checks every Clone against its original (see CheckCopy);
	// a copy that fails fails its next Step. The environment variable
	// MACEMC_CHECK_COPIES=1 turns it on for every simulator.
	CheckCopies bool
	// MaxStateBytes bounds the canonical encoding of one node's state or
	// one message in flight (0: DefaultMaxStateBytes); see EncodingError.
	MaxStateBytes int

	// logEffects, with CheckMessages, records the lines handlers log as
	// effects (OrderDifference): the determinism check sets it in a few
	// of its replays, since formatting every line costs.
	logEffects bool
}

// Sim is the deterministic network simulator: every node of a system, the
// network between them, timers, failures, randomness and time. An
// execution is fully determined by the answers its chooser gives, so
// replaying the recorded choices reproduces it exactly.
//
// A Sim is not safe for concurrent use; Clone gives each goroutine its own.
type Sim struct {
	cfg      *sim.Config
	weights  sim.Weights
	n        int
	w        world
	chooser  Chooser
	log      *zerolog.Logger
	failures bool
	until    int
	// The ready list, rebuilt after every step: compact entries (which
	// queue, node or timer each event comes from) and their weights. The
	// Events themselves are only built for the event that runs, and for
	// Ready when asked (readyEv).
	ready      []readyEnt
	readyW     []float64
	pairs      []uint64           // buildReady's scratch bitset of node pairs (see there)
	msgTexts   map[textKey]string // messageText's texts
	readyValid bool
	readyEv    []Event
	readyEvOK  bool
	// The ready list is kept from one step to the next while listOK: a
	// step that runs a driver request, delivers a message or fires a
	// timer edits the list in place as it goes (appEdit for its driver
	// request, msgEdit for messages queued and delivered on reliable
	// connections, timerEdit and timerMoved for timers armed, disarmed
	// and added), and when failures end at FailuresUntil buildReady drops
	// them from the list's end; every other change of what is ready
	// clears listOK and the next buildReady rebuilds the list. msgAt is
	// where its messages begin, tail how many entries follow its timers,
	// failOn says it lists failures. A list is only kept when its entries
	// can be edited so: no partition holds messages back, no failure
	// listed depends on the messages, and no driver request waits on a
	// condition. A new Sim starts without a list, and every change of the
	// world as a whole (Reset, SwapState, a copy) clears listOK.
	listOK bool
	failOn bool
	msgAt  int32
	tail   int32
	// hole, when not -1, is the position in the kept list of a message
	// that left it; the entries after it are still to move down one
	// (msgEdit fills it, buildReady closes it).
	hole int32
	// volatile is set while the list is built when a driver request's
	// condition was evaluated: it may change with any step, so such a list
	// is rebuilt at every step.
	volatile bool
	apps     []appCache     // by node; see driver
	ctxs     []*sim.Context // one per node, handed to its handlers
	view     *sim.View      // the View properties get (Holds): one per Sim, so checking allocates nothing
	enc      encoder

	reorder bool // cfg.Failures.Reorder
	booting bool // Start runs on the initial state (New, Reset)
	// progress counts handler starts and ends: odd while a handler runs,
	// when bits 40 and up hold the running node + 1 (see Guard and
	// runtime.inHandler).
	progress  atomic.Uint64
	abandoned atomic.Bool
	// guardGID is the ID of the goroutine that runs Guard's fn while it
	// runs (0: none): the goroutine of the handlers fn runs.
	guardGID atomic.Uint64
	err      error // a bad choice seen inside a handler

	// Fault filters from the config: the partition sides that may happen,
	// which nodes may reset or crash (nil: all) and which connections may
	// fail (nil: all, else n*n by connection).
	sides   []uint64
	nodeOK  []bool
	linkOK  []bool
	prevSvc sim.Service // the struct a reset replaces, for its Durable state
	// copyMemo is the last problem CopyProblem found, with the choices and
	// failure switches of the state it found it in (see CopyProblem); an
	// atomic pointer, since walks clone one Sim from several goroutines.
	copyMemo atomic.Pointer[copyMemo]
	escape   atomic.Pointer[EscapeError]
	stepErr  error // a driver condition that panicked while listing events
	broken   error // a copy that could not be made; every Step fails with it
	opts     Options
	maxBytes int
	deadline func() bool // see SetInterrupt
	encErr   error       // the first state encoding that failed; see HashErr
	texts    *textMemo   // see serviceText; nil until NodeText is called

	// Rarely used: kept after the fields of the step loop.
	// sent holds the pointer and map messages node sentFrom's handler of
	// step sentStep has sent so far (see ownCopy).
	sent               []unsafe.Pointer
	sentStep, sentFrom int
	// sentType is the type word of the last message sent, and sentRef
	// whether that type is a pointer or a map.
	sentType unsafe.Pointer
	sentRef  bool
	// effects are what the handlers of the last step (or the boot) did
	// whose order leaves no trace in the state (sends, timers set and
	// cancelled), in the order they did it; kept with
	// Options.CheckMessages only (see OrderDifference).
	effects []effect
	// effectLog logs the lines of handlers for effects (effectLogger), of
	// node effectNode.
	effectLog  *zerolog.Logger
	effectNode int32
	// logCapture is set while the lines logged are recorded: in a replay
	// with Options.logEffects, from a step that began with fewer than
	// logEffectBytes of them recorded.
	logCapture bool
	logBytes   int
	// initErr is what made newSim fail to give every node a struct (a
	// *ServiceError), which New returns.
	initErr error
	// lastHidden is what the value stateHash hashed last holds that
	// hashing cannot read ("" for nothing; see HiddenState).
	lastHidden string
	// inMonitor is the monitor whose Handle runs (notify), plus 1: when a
	// handler panics with it set, the panic was the monitor's (0: none).
	inMonitor int

	_ [cacheLine]byte // see padded
}

// cacheLine is the size of a CPU cache line (an upper bound).
const cacheLine = 64

// padded returns a slice of n zero Ts whose memory shares no cache line
// with any other object. Performance: the arrays of a world are written
// at every step; two simulators whose small arrays the allocator placed
// side by side (built one after the other on one goroutine, as a search's
// pool is) would otherwise make two cores fight over one cache line
// ("false sharing"), which cost parallel walks a third of their speed.
func padded[T any](n int) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if size == 0 {
		return make([]T, n)
	}
	pad := (cacheLine + size - 1) / size
	return make([]T, n+2*pad)[pad : pad+n : pad+n]
}

// New builds the initial state of cfg: every node's struct from
// cfg.Service, Start run on each in order, the driver's requests queued.
// Start's effects (sends, timers, choices) are part of the initial state.
//
// A handler that panics at boot makes New return the error (a
// *HandlerPanicError) together with the simulator as the failed boot left
// it, so that a debugger can show that state; it cannot step.
func New(cfg *sim.Config, opts Options) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := newSim(cfg, opts)
	if s.initErr != nil {
		return nil, s.initErr
	}
	if err := s.boot(); err != nil {
		s.breaks(err)
		return s, err
	}
	return s, nil
}

// CheckServices builds cfg's node structs once, without booting them, and
// returns the error New would: a Service constructor that returns nil or a
// struct value instead of a pointer, or panics (wrapping sim.ErrBadConfig,
// naming the node). A search checks it before it writes anything.
func CheckServices(cfg *sim.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	return newSim(cfg, Options{}).initErr
}

// NewGuarded is New with the system's boot under Guard's watchdog: a Start
// that does not return within timeout (0: DefaultHandlerTimeout) makes it
// return a *HangError, with the simulator, abandoned.
func NewGuarded(cfg *sim.Config, opts Options, timeout time.Duration) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := newSim(cfg, opts)
	if s.initErr != nil {
		return nil, s.initErr
	}
	if err := s.Guard(timeout, s.boot); err != nil {
		s.breaks(err)
		return s, err
	}
	return s, nil
}

// newSim builds a simulator of cfg with fresh node structs, not booted.
func newSim(cfg *sim.Config, opts Options) *Sim {
	s := &Sim{cfg: cfg, weights: cfg.Weights.WithDefaults(), n: cfg.Nodes, chooser: opts.Chooser, log: opts.Logger, failures: !opts.NoFailures, until: opts.FailuresUntil}
	if s.chooser == nil {
		s.chooser = NewRandom(0)
	}
	s.opts = opts
	s.opts.Chooser, s.opts.Logger = nil, nil
	s.logCapture = opts.CheckMessages && opts.logEffects // the boot's lines
	s.reorder = cfg.Failures.Reorder
	if checkCopiesEnv() {
		s.opts.CheckCopies = true
	}
	s.maxBytes = opts.MaxStateBytes
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxStateBytes
	}
	s.filters()
	s.bind()
	s.w.nodes = padded[node](s.n)
	s.w.ext = make([]nodeExt, s.n)
	s.w.svcs = make([]sim.Service, s.n)
	s.w.conns = padded[queue](s.n * s.n)
	s.w.busy = padded[uint64]((s.n*s.n + 63) / 64)
	s.w.settings = append(s.w.settings, setting{failures: s.failures, until: s.until})
	s.initHashState()
	s.booting = true // the initial state: causes are -1
	s.initErr = s.initNodes()
	s.initMonitors()
	return s
}

// filters precomputes the config's fault filters.
func (s *Sim) filters() {
	f := &s.cfg.Failures
	if f.Partitions > 0 {
		s.sides = f.PartitionSides(s.n)
	}
	if len(f.Nodes) > 0 {
		s.nodeOK = make([]bool, s.n)
		for _, id := range f.Nodes {
			s.nodeOK[id] = true
		}
	}
	if len(f.Links) > 0 {
		s.linkOK = make([]bool, s.n*s.n)
		for _, l := range f.Links {
			s.linkOK[int(l[0])*s.n+int(l[1])] = true
			s.linkOK[int(l[1])*s.n+int(l[0])] = true
		}
	}
}

// mayFailNode and mayFailLink apply the config's fault filters.
func (s *Sim) mayFailNode(i int) bool    { return s.nodeOK == nil || s.nodeOK[i] }
func (s *Sim) mayFailLink(a, b int) bool { return s.linkOK == nil || s.linkOK[a*s.n+b] }

// across reports whether the current partition separates a and b.
func (s *Sim) across(a, b sim.NodeID) bool { return (s.w.cut>>a^s.w.cut>>b)&1 == 1 }

// bind makes the Contexts and the View of s, backed by s.
func (s *Sim) bind() {
	rt := (*runtime)(s)
	s.ctxs = make([]*sim.Context, s.n)
	for i := range s.ctxs {
		s.ctxs[i] = hook.NewContext(rt, i).(*sim.Context)
	}
	s.view = hook.NewView(rt, &s.w.svcs, &s.w.hist).(*sim.View)
}

// rebindContexts makes the Contexts s holds act on s (SwapState).
func (s *Sim) rebindContexts() {
	rt := (*runtime)(s)
	for _, c := range s.ctxs {
		hook.Rebind(c, rt)
	}
}

// boot runs Start on every node in order, as part of the initial state.
func (s *Sim) boot() error {
	s.booting = true
	defer func() { s.booting = false }()
	for i := range s.w.nodes {
		ev := Event{Kind: EvReset, Node: sim.NodeID(i)}
		if err := s.run(&ev); err != nil {
			return err
		}
	}
	return nil
}

// initNode gives node id a fresh struct from the config, with no timers
// and no connection errors, and starts its driver over (unless a reset
// keeps it, Config.KeepDriver). For a reset, the struct it replaces is
// kept in prevSvc for its durable state.
func (s *Sim) initNode(id sim.NodeID, reset bool) {
	nd := &s.w.nodes[id]
	svc := s.cfg.Service(id)
	if reset {
		s.prevSvc = s.w.svcs[id]
	}
	s.w.svcs[id] = svc
	checkService(id, svc)
	s.listOK = false
	s.disarm(id)
	if !reset || !s.cfg.KeepDriver {
		if nd.appNext < len(nd.app) {
			s.w.apps--
		}
		nd.app = s.driver(id)
		nd.appNext, nd.appCause = 0, s.cause()
		if len(nd.app) > 0 {
			s.w.apps++
		}
	}
	if len(nd.connErrs) > 0 {
		s.w.errs--
	}
	nd.connErrs = nd.connErrs[:0]
	nd.dirty = true
	s.touch(id)
	s.w.ext[id].endHash = 0
}

// driver returns node id's driver requests from the config (nil without
// App). Performance: a node's requests that are plain values (see
// plainValue) are asked for once and reused at every reset: nothing can
// change them, since HandleApp gets a copy, and App must give the same
// requests every time for an execution to replay. Requests that may hold
// state a handler could change (a pointer, a map, a condition's closure)
// are asked for afresh each time, as before. Asking App at every reset
// cost a fifth of a randtree Reset.
func (s *Sim) driver(id sim.NodeID) []any {
	if s.cfg.App == nil {
		return nil
	}
	if s.apps == nil {
		s.apps = make([]appCache, s.n)
	}
	c := &s.apps[id]
	if c.plain {
		return c.reqs
	}
	reqs := s.cfg.App(id)
	if !c.asked {
		c.asked = true
		c.plain = true
		for _, r := range reqs {
			if r == nil || !plainValue(reflect.TypeOf(r)) {
				c.plain = false
				break
			}
		}
		if c.plain {
			c.reqs = reqs
		}
	}
	return reqs
}

// appCache is what driver knows of a node's requests: whether App was
// asked yet, and the requests when they are plain values.
type appCache struct {
	reqs         []any
	asked, plain bool
}

// plainValue reports whether values of type t hold nothing that can be
// changed through a copy of them: no pointer, slice, map, channel, func,
// interface or unsafe pointer, at any depth (strings are immutable).
func plainValue(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return t.Len() == 0 || plainValue(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plainValue(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// disarm unschedules every timer of node id.
func (s *Sim) disarm(id sim.NodeID) {
	nd := &s.w.nodes[id]
	for i := range nd.timers {
		if nd.timers[i].armed {
			s.unarm(id, i)
		}
	}
}

// unarm unschedules node id's armed timer i, keeping the count of armed
// timers, the node's armedSum and the kept ready list.
func (s *Sim) unarm(id sim.NodeID, i int) {
	nd := &s.w.nodes[id]
	t := &nd.timers[i]
	t.armed = false
	nd.armedSum -= t.term()
	s.w.armed--
	if s.listOK {
		s.timerEdit(int32(id), int32(i), false)
	}
}

// appEdit keeps the ready list up to date after node id ran its next
// driver request (nd.appNext moved on): its entry leaves the list when it
// has no request left, and stays when its next request is plain (no
// condition: driverReady holds). A next request with a condition drops
// the list: the rebuild evaluates it.
func (s *Sim) appEdit(nd *node, id int32) {
	if !s.listOK {
		return
	}
	if nd.appNext < len(nd.app) {
		switch r := nd.app[nd.appNext].(type) {
		case sim.Request:
			s.listOK = r.When == nil
		case *sim.Request:
			s.listOK = r.When == nil
		}
		return
	}
	if s.hole >= 0 {
		s.closeHole()
	}
	// The driver requests are listed first, by node.
	p := 0
	for s.ready[p].kind != EvApp || s.ready[p].node != id {
		p++
	}
	s.removeEnt(p)
	s.msgAt--
}

// timerSpan returns where the kept ready list's timers are, ready[lo:hi]
// when it lists k of them: the timers come last but for the tail.
func (s *Sim) timerSpan(k int) (lo, hi int) {
	hi = len(s.ready) - int(s.tail)
	return hi - k, hi
}

// timerEdit keeps the ready list up to date after node id's timer ref was
// armed (armed) or disarmed: its entry joins the list's timers, which are
// listed by node and then by index (a node's timers are sorted by name),
// or leaves them. The caller has counted it in or out of w.armed already.
// Performance: a step that arms or cancels a timer (a node that joins, a
// one-shot timer that fires) keeps the list instead of rebuilding it.
func (s *Sim) timerEdit(id, ref int32, armed bool) {
	ready := s.ready
	if armed {
		lo, hi := s.timerSpan(s.w.armed - 1)
		p := lo
		for p < hi && (ready[p].node < id || ready[p].node == id && ready[p].ref < ref) {
			p++
		}
		s.insertEnt(p, readyEnt{kind: EvTimer, node: id, ref: ref}, s.w.nodes[id].timers[ref].weight)
		return
	}
	p, _ := s.timerSpan(s.w.armed + 1)
	for ready[p].node != id || ready[p].ref != ref {
		p++
	}
	s.removeEnt(p)
}

// insertEnt inserts e with weight w at position p of the ready list, the
// entries from p on moving up one; when the arrays are full it drops the
// list instead (listOK), for the rebuild to grow them. Performance: the
// lists are short, and moving their few entries in a loop costs a fraction
// of two calls of copy (runtime.memmove); storing the slices' lengths alone
// spares the pointers' write barriers.
func (s *Sim) insertEnt(p int, e readyEnt, w float64) {
	n := len(s.ready)
	if n == cap(s.ready) || n == cap(s.readyW) {
		s.listOK = false
		return
	}
	s.ready, s.readyW = s.ready[:n+1], s.readyW[:n+1]
	ready, readyW := s.ready[:n+1], s.readyW[:n+1]
	for j := n; j > p; j-- {
		ready[j], readyW[j] = ready[j-1], readyW[j-1]
	}
	ready[p], readyW[p] = e, w
}

// removeEnt removes the entry at position p of the ready list, the entries
// after it moving down one (see insertEnt).
func (s *Sim) removeEnt(p int) {
	n := len(s.ready)
	ready, readyW := s.ready[:n], s.readyW[:n]
	for j := p + 1; j < n; j++ {
		ready[j-1], readyW[j-1] = ready[j], readyW[j]
	}
	s.ready, s.readyW = s.ready[:n-1], s.readyW[:n-1]
}

// timerMoved keeps the ready list up to date after a timer was added to
// node id's timers at index i: the node's listed timers from index i on
// moved up one.
func (s *Sim) timerMoved(id, i int32) {
	if !s.listOK {
		return
	}
	lo, hi := s.timerSpan(s.w.armed)
	for p := lo; p < hi; p++ {
		if e := &s.ready[p]; e.node == id && e.ref >= i {
			e.ref++
		}
	}
}

// busyBefore returns how many connections before connection c hold
// messages: the position of c's message among the ready messages.
func (s *Sim) busyBefore(c int) int {
	busy := s.w.busy
	n := bits.OnesCount64(busy[c>>6] & (1<<(c&63) - 1))
	for _, w := range busy[:c>>6] {
		n += bits.OnesCount64(w)
	}
	return n
}

// msgEdit keeps the ready list up to date after connection c changed in a
// way that leaves every other connection alone: its first message was
// delivered, or a message was queued on it. added says c was empty before
// (its message joins the list); otherwise, when c is now empty its message
// leaves the list, else its next message takes its place. Performance:
// the list is edited in place instead of rebuilt at the next step, which
// made buildReady most of the simulator's work per step; and a message
// that leaves the list leaves a hole (see hole) that the next message to
// join fills, so that a step that delivers one message and sends one moves
// only the entries between the two, not every later entry twice.
func (s *Sim) msgEdit(c int, added bool) {
	if !s.listOK {
		return
	}
	// i is the position of c's message in the list without the hole.
	i := int(s.msgAt) + s.busyBefore(c)
	h := int(s.hole)
	ready, readyW := s.ready, s.readyW
	q := &s.w.conns[c]
	switch {
	case added:
		p := &q.items[q.head]
		e := readyEnt{kind: EvMessage, node: int32(p.to), ref: int32(c)}
		switch {
		case h < 0:
			s.insertEnt(i, e, p.weight)
			return
		case i <= h:
			for j := h; j > i; j-- {
				ready[j], readyW[j] = ready[j-1], readyW[j-1]
			}
		default:
			for j := h; j < i; j++ {
				ready[j], readyW[j] = ready[j+1], readyW[j+1]
			}
		}
		ready[i], readyW[i] = e, p.weight
		s.hole = -1
	case q.len() == 0:
		if h >= 0 {
			s.closeHole()
		}
		s.hole = int32(i)
	default:
		if h >= 0 && i >= h {
			i++ // after the hole
		}
		readyW[i] = q.items[q.head].weight
	}
}

// closeHole moves the entries after the hole in the ready list down one.
func (s *Sim) closeHole() {
	s.removeEnt(int(s.hole))
	s.hole = -1
}

// push queues an empty message on connection c, for the caller to fill;
// the caller then calls msgEdit when the connection was empty (its
// message joins the ready list).
func (s *Sim) push(c int) *pending {
	s.w.busy[c>>6] |= 1 << (c & 63)
	s.w.hs.stale[c>>6] |= 1 << (c & 63)
	return s.w.conns[c].push()
}

// popConn removes the oldest message of connection c.
func (s *Sim) popConn(c int) {
	q := &s.w.conns[c]
	q.pop()
	if q.len() == 0 {
		s.w.busy[c>>6] &^= 1 << (c & 63)
	}
	s.w.hs.stale[c>>6] |= 1 << (c & 63)
	s.msgEdit(c, false)
}

// clearConn loses everything in flight on connection c.
func (s *Sim) clearConn(c int) {
	s.listOK = false
	s.w.conns[c].clear()
	s.w.busy[c>>6] &^= 1 << (c & 63)
	s.w.hs.stale[c>>6] |= 1 << (c & 63)
}

// connErr queues the news that node id's connection to peer broke.
func (s *Sim) connErr(id, peer sim.NodeID) {
	nd := &s.w.nodes[id]
	if len(nd.connErrs) == 0 {
		s.w.errs++
	}
	s.listOK = false
	nd.connErrs = append(nd.connErrs, peer)
	s.touch(id)
}

// Config returns the configuration the simulator runs.
func (s *Sim) Config() *sim.Config { return s.cfg }

// Nodes returns the number of nodes.
func (s *Sim) Nodes() int { return s.n }

// Steps returns the number of transitions executed so far.
func (s *Sim) Steps() int { return s.w.step }

// Choices returns the choice points answered so far, in order. The slice
// is the simulator's own: copy it to keep it.
func (s *Sim) Choices() []Choice { return s.w.choices }

// ChoiceValues returns a copy of the answers given so far: the sequence
// that replays this execution.
func (s *Sim) ChoiceValues() []int32 { return ChoiceValues(s.w.choices) }

// ChoiceValues returns the answers of a choice log.
func ChoiceValues(cs []Choice) []int32 {
	out := make([]int32, len(cs))
	for i, c := range cs {
		out[i] = c.Value
	}
	return out
}

// StepStart returns the index in Choices at which step i began (i may equal
// Steps(), giving the current length): Choices()[:StepStart(i)] replays the
// execution up to the state after i steps.
func (s *Sim) StepStart(i int) int {
	if i >= len(s.w.stepStarts) {
		return len(s.w.choices)
	}
	return int(s.w.stepStarts[i])
}

// LastEvent returns the event the last step executed.
func (s *Sim) LastEvent() Event { return s.w.lastEvent }

// SetChooser replaces the chooser for the choice points that follow.
func (s *Sim) SetChooser(c Chooser) { s.chooser = c }

// SetLogger turns logging on (l non-nil) or off.
func (s *Sim) SetLogger(l *zerolog.Logger) { s.log = l }

// SetFailures turns injected failures on or off for the steps that follow;
// the per-execution bounds of the config still apply.
func (s *Sim) SetFailures(on bool) {
	s.failures = on
	s.readyValid, s.listOK = false, false
	s.logSettings()
}

// logSettings records the failure switches in force from the current step
// on, if they changed.
func (s *Sim) logSettings() {
	st := setting{step: s.w.step, failures: s.failures, until: s.until}
	if n := len(s.w.settings); n > 0 {
		last := &s.w.settings[n-1]
		if last.failures == st.failures && last.until == st.until {
			return
		}
		if last.step == st.step {
			*last = st
			return
		}
	}
	s.w.settings = append(s.w.settings, st)
}

// SetFailuresUntil turns failures off from step n on (0: no such limit);
// see Options.FailuresUntil.
func (s *Sim) SetFailuresUntil(n int) {
	s.until = n
	s.readyValid, s.listOK = false, false
	s.logSettings()
}

// FailuresUntil returns the step from which failures are off (0: none).
func (s *Sim) FailuresUntil() int { return s.until }

// Service returns node id's current service struct.
func (s *Sim) Service(id sim.NodeID) sim.Service { return s.w.svcs[id] }

// TimerArmed reports whether node id's timer is scheduled.
func (s *Sim) TimerArmed(id sim.NodeID, name string) bool {
	// Performance: properties ask it after every step, usually with the
	// very string the handler armed the timer with (a constant): the
	// loop reads the timers in place and compares the strings' pointers
	// before their bytes.
	timers := s.w.nodes[id].timers
	for i := range timers {
		t := &timers[i]
		if len(t.name) == len(name) && (unsafe.StringData(t.name) == unsafe.StringData(name) || t.name == name) {
			return t.armed
		}
	}
	return false
}

// InFlight returns the number of messages and datagrams in flight.
func (s *Sim) InFlight() int {
	n := len(s.w.dgrams)
	for i := range s.w.conns {
		n += s.w.conns[i].len()
	}
	return n
}

// readyEnt is one ready event in compact form: its kind, the node it
// happens at (the lower end for EvBreak) and ref, the index of its source:
// the connection for EvMessage, the datagram for EvDatagram, EvDrop and
// EvDuplicate, the timer for EvTimer, the peer for EvBreak, the side in
// Sim.sides for EvPartition.
type readyEnt struct {
	kind EventKind
	node int32
	ref  int32
}

// Ready returns the pending events in their canonical order: answer i of
// the next event choice runs Ready()[i]. The slice is valid until the next
// step.
func (s *Sim) Ready() []Event {
	s.buildReady()
	if !s.readyEvOK {
		s.readyEv = s.readyEv[:0]
		for _, k := range s.ready {
			s.readyEv = append(s.readyEv, s.event(k))
		}
		s.readyEvOK = true
	}
	return s.readyEv
}

// event builds the Event of a ready entry from the world.
func (s *Sim) event(k readyEnt) Event {
	var ev Event
	s.eventAt(&ev, k)
	return ev
}

// eventAt builds the Event of a ready entry from the world in *ev.
// Performance: the common kinds are tested first, one by one (a jump
// table over every kind mispredicts on the step loop's random kinds), and
// their Events are written field by field, every field: building an Event
// and copying it (which the compiler does for a composite literal too)
// made the copy's wide loads wait for the fields just stored one by one.
func (s *Sim) eventAt(ev *Event, k readyEnt) {
	switch k.kind {
	case EvDatagram, EvDrop:
		p := &s.w.dgrams[k.ref]
		ev.Kind, ev.Cause, ev.Node, ev.Peer, ev.Timer, ev.Msg, ev.ref, ev.copy = k.kind, p.cause, p.to, p.from, "", p.msg, k.ref, p.copy
	case EvMessage:
		q := &s.w.conns[k.ref]
		p := &q.items[q.head]
		ev.Kind, ev.Cause, ev.Node, ev.Peer, ev.Timer, ev.Msg, ev.ref, ev.copy = EvMessage, p.cause, p.to, p.from, "", p.msg, k.ref, 0
	case EvTimer:
		tm := &s.w.nodes[k.node].timers[k.ref]
		ev.Kind, ev.Cause, ev.Node, ev.Peer, ev.Timer, ev.Msg, ev.ref, ev.copy = EvTimer, tm.cause, sim.NodeID(k.node), 0, tm.name, nil, k.ref, 0
	default:
		*ev = s.rareEvent(k)
	}
}

// rareEvent is event for the other kinds.
func (s *Sim) rareEvent(k readyEnt) Event {
	switch k.kind {
	case EvApp:
		nd := &s.w.nodes[k.node]
		return Event{Kind: EvApp, Node: sim.NodeID(k.node), Msg: appRequest(nd.app[nd.appNext]), Cause: nd.appCause}
	case EvConnError:
		return Event{Kind: EvConnError, Node: sim.NodeID(k.node), Peer: s.w.nodes[k.node].connErrs[0], Cause: -1}
	case EvBreak:
		return Event{Kind: EvBreak, Node: sim.NodeID(k.node), Peer: sim.NodeID(k.ref), Cause: -1}
	case EvDuplicate:
		p := &s.w.dgrams[k.ref]
		return Event{Kind: EvDuplicate, Node: p.to, Peer: p.from, Msg: p.msg, Cause: p.cause, ref: k.ref, copy: p.copy}
	case EvPartition:
		return Event{Kind: EvPartition, Node: sim.NodeID(k.node), Peer: sim.NodeID(s.sides[k.ref]), Cause: -1, ref: k.ref}
	case EvHeal:
		return Event{Kind: EvHeal, Node: sim.NodeID(k.node), Peer: sim.NodeID(s.w.cut), Cause: -1}
	}
	return Event{Kind: k.kind, Node: sim.NodeID(k.node), Cause: -1}
}

// buildReady lists the pending events in canonical order. Performance: it
// runs before every step, so it appends small entries (no Event, no
// message interface copies) to slices it reuses, with no closure; and when
// the last step only ran a driver request, delivered or queued messages on
// connections and armed or disarmed timers, it keeps the list, which the
// step edited in place (see listOK).
func (s *Sim) buildReady() {
	if s.readyValid {
		return
	}
	if s.listOK {
		// The list kept from the last step is up to date, but for the
		// failures it lists when they end here (FailuresUntil): they
		// are its tail. Their budget and switches only change with
		// steps that clear listOK.
		if s.failOn && s.until > 0 && s.w.step >= s.until {
			n := len(s.ready) - int(s.tail)
			s.ready, s.readyW = s.ready[:n], s.readyW[:n]
			s.failOn, s.tail = false, 0
		}
		if s.hole >= 0 {
			s.closeHole()
		}
		s.readyValid, s.readyEvOK = true, false
		return
	}
	s.volatile = false
	ready, readyW := s.ready[:0], s.readyW[:0]
	wt := &s.weights
	nodes := s.w.nodes
	if s.w.apps > 0 {
		for i := range nodes {
			if nd := &nodes[i]; nd.appNext < len(nd.app) && !nd.down && s.driverReady(i, nd) {
				ready = append(ready, readyEnt{kind: EvApp, node: int32(i)})
				readyW = append(readyW, wt.App)
			}
		}
	}
	if s.w.errs > 0 {
		for i := range nodes {
			if len(nodes[i].connErrs) > 0 {
				ready = append(ready, readyEnt{kind: EvConnError, node: int32(i)})
				readyW = append(readyW, wt.Message)
			}
		}
	}
	msgAt := len(ready)
	conns := s.w.conns
	for c := range members(s.w.busy, nil) {
		q := &conns[c]
		p := &q.items[q.head]
		if s.w.cut != 0 && s.across(p.from, p.to) {
			continue // held by the partition
		}
		ready = append(ready, readyEnt{kind: EvMessage, node: int32(p.to), ref: int32(c)})
		readyW = append(readyW, p.weight)
	}
	reorder := s.cfg.Failures.Reorder
	dgrams := s.w.dgrams
	// Without reordering only the oldest datagram of a pair is ready. Many
	// datagrams in flight are told apart with a bitset of the pairs seen
	// (s.pairs, kept from one call to the next and cleared after use),
	// not by looking back for each (quadratic).
	seen := s.pairs
	if !reorder && len(dgrams) > 16 {
		if words := (s.n*s.n + 63) / 64; len(seen) < words {
			seen = make([]uint64, words)
			s.pairs = seen
		}
	} else {
		seen = nil
	}
	for d := range dgrams {
		p := &dgrams[d]
		switch {
		case reorder:
		case seen != nil:
			k := int(p.from)*s.n + int(p.to)
			if seen[k>>6]&(1<<(k&63)) != 0 {
				continue
			}
			seen[k>>6] |= 1 << (k & 63)
		case s.earlierDatagram(d):
			continue
		}
		ready = append(ready, readyEnt{kind: EvDatagram, node: int32(p.to), ref: int32(d)})
		readyW = append(readyW, p.weight)
	}
	if seen != nil {
		for d := range dgrams {
			k := int(dgrams[d].from)*s.n + int(dgrams[d].to)
			seen[k>>6] = 0
		}
	}
	if s.w.armed > 0 {
		for i := range nodes {
			timers := nodes[i].timers
			for t := range timers {
				if tm := &timers[t]; tm.armed {
					ready = append(ready, readyEnt{kind: EvTimer, node: int32(i), ref: int32(t)})
					readyW = append(readyW, tm.weight)
				}
			}
		}
	}
	timersEnd := len(ready)
	failOn := s.failures && (s.until <= 0 || s.w.step < s.until) && s.budgetLeft()
	if failOn {
		ready, readyW = s.failureReady(ready, readyW)
	}
	if s.w.cut != 0 {
		ready = append(ready, readyEnt{kind: EvHeal, node: int32(bits.TrailingZeros64(s.w.cut))})
		readyW = append(readyW, wt.Timer)
	}
	// Store the headers only when append moved the arrays: storing a
	// pointer costs a write barrier while the collector runs.
	if unsafe.SliceData(ready) == unsafe.SliceData(s.ready) {
		s.ready = s.ready[:len(ready)]
	} else {
		s.ready = ready
	}
	if unsafe.SliceData(readyW) == unsafe.SliceData(s.readyW) {
		s.readyW = s.readyW[:len(readyW)]
	} else {
		s.readyW = readyW
	}
	s.readyValid, s.readyEvOK = true, false
	// The failures listed depend on the connections in flight when a
	// break may happen.
	s.listOK = !s.volatile && s.w.cut == 0 && !(failOn && s.w.breaks < s.cfg.Failures.Breaks)
	s.failOn, s.msgAt, s.tail, s.hole = failOn, int32(msgAt), int32(len(ready)-timersEnd), -1
}

// budgetLeft reports whether the execution may still have a failure.
func (s *Sim) budgetLeft() bool {
	f, w := &s.cfg.Failures, &s.w
	return w.drops < f.Drops || w.breaks < f.Breaks || w.resets < f.Resets || w.crashes < f.Crashes ||
		w.dups < f.Duplicates || w.partitions < f.Partitions && w.cut == 0
}

// failureReady appends the failure events that may happen now to the
// ready list. Performance: apart from buildReady, so that the step loop's
// common case keeps its loops' variables in registers.
//
//go:noinline
func (s *Sim) failureReady(ready []readyEnt, readyW []float64) ([]readyEnt, []float64) {
	f := &s.cfg.Failures
	wt := &s.weights
	nodes, conns, dgrams, cut := s.w.nodes, s.w.conns, s.w.dgrams, s.w.cut
	if s.w.drops < f.Drops {
		for d := range dgrams {
			if p := &dgrams[d]; s.linkOK == nil || s.mayFailLink(int(p.from), int(p.to)) {
				ready = append(ready, readyEnt{kind: EvDrop, node: int32(p.to), ref: int32(d)})
				readyW = append(readyW, wt.Failure)
			}
		}
	}
	if s.w.breaks < f.Breaks {
		for a := 0; a < s.n; a++ {
			for b := a + 1; b < s.n; b++ {
				if (conns[a*s.n+b].len() > 0 || conns[b*s.n+a].len() > 0) && s.mayFailLink(a, b) {
					ready = append(ready, readyEnt{kind: EvBreak, node: int32(a), ref: int32(b)})
					readyW = append(readyW, wt.Failure)
				}
			}
		}
	}
	if s.w.resets < f.Resets {
		for i := range nodes {
			if !nodes[i].down && s.mayFailNode(i) && (f.PerNode <= 0 || s.w.ext[i].restarts < f.PerNode) {
				ready = append(ready, readyEnt{kind: EvReset, node: int32(i)})
				readyW = append(readyW, wt.Failure)
			}
		}
	}
	if s.w.crashes < f.Crashes {
		for i := range nodes {
			if !nodes[i].down && s.mayFailNode(i) && (f.PerNode <= 0 || s.w.ext[i].restarts < f.PerNode) {
				ready = append(ready, readyEnt{kind: EvCrash, node: int32(i)})
				readyW = append(readyW, wt.Failure)
			}
		}
	}
	if s.w.dups < f.Duplicates {
		for d := range dgrams {
			if p := &dgrams[d]; s.mayFailLink(int(p.from), int(p.to)) {
				ready = append(ready, readyEnt{kind: EvDuplicate, node: int32(p.to), ref: int32(d)})
				readyW = append(readyW, wt.Failure)
			}
		}
	}
	if s.w.partitions < f.Partitions && cut == 0 {
		for i, side := range s.sides {
			ready = append(ready, readyEnt{kind: EvPartition, node: int32(bits.TrailingZeros64(side)), ref: int32(i)})
			readyW = append(readyW, wt.Failure)
		}
	}
	return ready, readyW
}

// earlierDatagram reports whether a datagram sent earlier on the same pair
// is still in flight (without reordering only the oldest is deliverable).
func (s *Sim) earlierDatagram(d int) bool {
	p := &s.w.dgrams[d]
	for e := 0; e < d; e++ {
		if q := &s.w.dgrams[e]; q.from == p.from && q.to == p.to {
			return true
		}
	}
	return false
}

// cause is the step a handler's effects date from, for Event.Cause: the
// index of the transition being executed, or -1 while the system boots.
func (s *Sim) cause() int32 {
	if s.booting {
		return -1
	}
	return int32(s.w.step)
}

// Shared reports whether the handler of transition i (counting from 0:
// the transition from the state after i steps) used state beyond its own
// node: Context.Monotone's counter or the monitors (Context.Notify, with
// monitors configured), which every node shares. The client
// history, which every node shares too, says itself which steps recorded
// events (sim.HistoryEvent.Step). Partial-order reduction needs both: two
// steps at different nodes commute unless they share such state.
func (s *Sim) Shared(i int) bool { return hasBit(s.w.shared, i) }

// Global reports whether the event of transition i (counting from 0) was
// a driver request held back by a condition (sim.Request.When), which may
// read any node's state and the monitors: any other event can enable or
// disable it, so partial-order reduction takes it as dependent on all.
func (s *Sim) Global(i int) bool { return hasBit(s.w.global, i) }

// gated reports whether driver request r is held back by a condition.
func gated(r any) bool {
	switch q := r.(type) {
	case sim.Request:
		return q.When != nil
	case *sim.Request:
		return q != nil && q.When != nil
	}
	return false
}

// logStep is the step number logs show: transition N counts from 1 (it
// leads to the state after N steps, the numbering of critical steps and of
// mdb), and Start at boot is step 0.
func (s *Sim) logStep() int {
	if s.booting {
		return 0
	}
	return s.w.step + 1
}

// choose asks the chooser and records the answer.
func (s *Sim) choose(kind ChoiceKind, n int, weights []float64) (int, error) {
	var v int
	if r, ok := s.chooser.(*Random); ok && kind == ChooseEvent && n > 1 && !r.Unbiased && len(weights) == n {
		v = r.weighted(weights) // Random.Choose without the interface calls
	} else if ec, ok := s.chooser.(EventChooser); ok && kind == ChooseEvent {
		v = ec.ChooseEvent(s.Ready(), weights)
	} else {
		v = s.chooser.Choose(kind, n, weights)
	}
	if v < 0 || v >= n {
		return 0, &BadChoiceError{Index: len(s.w.choices), Step: s.w.step, Kind: kind, N: n, Value: v}
	}
	s.w.choices = append(s.w.choices, Choice{Kind: kind, N: int32(n), Value: int32(v)})
	if s.log != nil && kind != ChooseEvent {
		s.log.Debug().Int("step", s.logStep()).Str("choice", kind.String()).Int("n", n).Int("value", v).Msg("choice")
	}
	return v, nil
}

// Step chooses one ready event and executes it. It returns false with a
// nil error when nothing is ready (the system is quiescent: nothing will
// ever happen again). An error means the execution cannot go on: a handler
// panicked (ErrHandlerPanic) or the chooser answered impossibly
// (ErrBadChoice).
func (s *Sim) Step() (bool, error) {
	if s.abandoned.Load() {
		// Guard gave up on this execution while its goroutine ran the
		// system's code outside a handler (see giveUpOutside).
		return false, errGivenUp
	}
	s.buildReady()
	if s.stepErr != nil {
		return false, s.takeStepErr()
	}
	if len(s.ready) == 0 {
		return false, nil
	}
	s.w.stepStarts = append(s.w.stepStarts, int32(len(s.w.choices)))
	i, err := s.choose(ChooseEvent, len(s.ready), s.readyW)
	if err != nil {
		s.w.stepStarts = s.w.stepStarts[:len(s.w.stepStarts)-1]
		return false, err
	}
	if s.opts.CheckMessages {
		s.effects = s.effects[:0]
		s.logCapture = s.opts.logEffects && s.logBytes < logEffectBytes
	}
	err = s.execute(s.ready[i])
	if e := s.escape.Load(); e != nil && err == nil {
		err = s.escaped(e)
	}
	return true, err
}

// escaped returns the escape a goroutine recorded, with the step at which
// the simulator saw it.
func (s *Sim) escaped(e *EscapeError) error {
	if e.Step == 0 {
		e.Step = s.w.step
	}
	return e
}

// takeStepErr returns why the simulator cannot step: it is broken (a failed
// boot, a copy that failed), or a driver condition panicked while the
// ready events were listed (an error it then forgets).
func (s *Sim) takeStepErr() error {
	if s.broken != nil {
		return s.broken
	}
	err := s.stepErr
	s.stepErr, s.readyValid, s.listOK = nil, false, false
	return err
}

// breaks marks the simulator broken: every Step fails with err.
func (s *Sim) breaks(err error) {
	s.broken, s.stepErr = err, err
}

// StepEvent executes ready event i as the next step, recording the choice
// as if the chooser had answered i. Used by debuggers to branch.
func (s *Sim) StepEvent(i int) error {
	s.buildReady()
	if s.stepErr != nil {
		return s.takeStepErr()
	}
	if i < 0 || i >= len(s.ready) {
		return &BadChoiceError{Index: len(s.w.choices), Step: s.w.step, Kind: ChooseEvent, N: len(s.ready), Value: i}
	}
	s.w.stepStarts = append(s.w.stepStarts, int32(len(s.w.choices)))
	s.w.choices = append(s.w.choices, Choice{Kind: ChooseEvent, N: int32(len(s.ready)), Value: int32(i)})
	err := s.execute(s.ready[i])
	if e := s.escape.Load(); e != nil && err == nil {
		err = s.escaped(e)
	}
	return err
}

// checkDelivered compares the message event k delivers with its hash when
// it was sent (Options.CheckMessages).
func (s *Sim) checkDelivered(k readyEnt) error {
	var p *pending
	if k.kind == EvDatagram {
		p = &s.w.dgrams[k.ref]
	} else {
		q := &s.w.conns[k.ref]
		p = &q.items[q.head]
	}
	if p.hash == 0 {
		return nil // forgotten (see forget): nothing to compare with
	}
	if h, ok := s.messageHash(p.msg); ok && h != p.hash {
		return &MessageChangedError{From: p.from, To: p.to, Sent: int(p.cause) + 1, Delivered: s.logStep(), Message: sim.MessageName(p.msg)}
	}
	return nil
}

// execute runs ready event k. Performance: the Event is built once, in
// place as the last event, and the handler is called through run's switch
// rather than a closure per kind.
func (s *Sim) execute(k readyEnt) error {
	s.readyValid = false
	if k.kind != EvMessage && k.kind != EvTimer && k.kind != EvApp {
		s.listOK = false
	}
	ev := &s.w.lastEvent
	s.eventAt(ev, k)
	if s.opts.CheckMessages && (k.kind == EvMessage || k.kind == EvDatagram) {
		if err := s.checkDelivered(k); err != nil {
			return err
		}
	}
	nd := &s.w.nodes[ev.Node]
	switch ev.Kind {
	case EvApp:
		if gated(nd.app[nd.appNext]) {
			s.w.global = setBit(s.w.global, s.w.step)
		}
		nd.appNext++
		if nd.appNext == len(nd.app) {
			s.w.apps--
		}
		s.appEdit(nd, k.node)
	case EvMessage:
		s.popConn(int(k.ref))
	case EvDatagram:
		if s.log != nil && s.reorder {
			s.logOvertaking(int(k.ref))
		}
		s.w.lastDgram = s.w.dgrams[k.ref].hash
		s.removeDatagram(int(k.ref))
	case EvTimer:
		if !nd.timers[k.ref].periodic {
			s.unarm(ev.Node, int(k.ref))
		}
	case EvConnError:
		copy(nd.connErrs, nd.connErrs[1:])
		nd.connErrs = nd.connErrs[:len(nd.connErrs)-1]
		if len(nd.connErrs) == 0 {
			s.w.errs--
		}
	case EvReset:
		s.w.resets++
		s.w.ext[ev.Node].restarts++
		s.abandon(ev.Node)
		s.initNode(ev.Node, true)
	case EvBreak:
		s.w.breaks++
		a, b := ev.Node, ev.Peer
		s.logQueueLost(int(a)*s.n+int(b), "connection break")
		s.logQueueLost(int(b)*s.n+int(a), "connection break")
		s.clearConn(int(a)*s.n + int(b))
		s.clearConn(int(b)*s.n + int(a))
		s.connErr(a, b)
		s.connErr(b, a)
		return s.network(ev)
	case EvDrop:
		s.w.drops++
		s.removeDatagram(int(k.ref))
		return s.network(ev)
	case EvCrash:
		s.w.crashes++
		s.crash(ev.Node)
		return s.network(ev)
	case EvDuplicate:
		s.w.dups++
		dup := s.w.dgrams[k.ref]
		dup.msg = copyMessage(dup.msg)
		dup.copy = int32(s.w.step) + 1
		s.w.dgrams = append(s.w.dgrams, dup)
		s.w.hs.fresh++
		return s.network(ev)
	case EvPartition:
		s.w.partitions++
		s.w.cut = ev.Side()
		s.logEvent(*ev)
		// Datagrams in flight across the split are lost.
		for d := 0; d < len(s.w.dgrams); {
			if p := &s.w.dgrams[d]; s.across(p.from, p.to) {
				s.logLost(*p, "partition")
				s.removeDatagram(d)
				continue
			}
			d++
		}
		s.w.step++
		return nil
	case EvHeal:
		s.w.cut = 0
		return s.network(ev)
	}
	err := s.run(ev)
	if err == errGivenUp {
		return err // the step is Guard's to describe: touch nothing
	}
	s.w.step++
	return err
}

// network ends a step that runs no handler.
func (s *Sim) network(ev *Event) error {
	s.logEvent(*ev)
	s.w.step++
	return nil
}

// crash stops node id for good: its timers and driver stop, what is in
// flight to it is lost, and its reliable connections break (the peers with
// messages in flight on them learn so).
func (s *Sim) crash(id sim.NodeID) {
	nd := &s.w.nodes[id]
	nd.down = true
	nd.dirty = true
	s.touch(id)
	s.w.down++
	s.disarm(id)
	if nd.appNext < len(nd.app) {
		s.w.apps--
	}
	nd.app, nd.appNext = nil, 0
	if len(nd.connErrs) > 0 {
		s.w.errs--
	}
	nd.connErrs = nd.connErrs[:0]
	for p := 0; p < s.n; p++ {
		if p == int(id) {
			s.clearConn(p*s.n + p)
			continue
		}
		out, in := int(id)*s.n+p, p*s.n+int(id)
		if s.w.conns[out].len() > 0 || s.w.conns[in].len() > 0 {
			s.logQueueLost(out, "node crashed")
			s.logQueueLost(in, "node crashed")
			s.clearConn(out)
			s.clearConn(in)
			s.connErr(sim.NodeID(p), id)
		}
	}
	for d := 0; d < len(s.w.dgrams); {
		if s.w.dgrams[d].to == id {
			s.logLost(s.w.dgrams[d], "node crashed")
			s.removeDatagram(d)
			continue
		}
		d++
	}
}

// logQueueLost logs the messages in flight on connection c, lost to a
// crash or a break.
func (s *Sim) logQueueLost(c int, why string) {
	if s.log == nil {
		return
	}
	q := &s.w.conns[c]
	for j := q.head; j < len(q.items); j++ {
		s.logLost(q.items[j], why)
	}
}

// logLost logs a message lost to a crash, a break or a partition.
func (s *Sim) logLost(p pending, why string) {
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(p.from)).Int("to", int(p.to)).Str("type", sim.MessageName(p.msg)).
			Msg("lost (" + why + ") " + FormatValueCut(p.msg, EventValueBytes))
	}
}

// logOvertaking logs, before datagram d is delivered, how many datagrams
// between the same nodes sent before it are still in flight: with
// reordering it arrives ahead of them (nothing is logged when none is).
func (s *Sim) logOvertaking(d int) {
	p := &s.w.dgrams[d]
	n := 0
	for e := 0; e < d; e++ {
		if q := &s.w.dgrams[e]; q.from == p.from && q.to == p.to {
			n++
		}
	}
	if n == 0 {
		return
	}
	what := "an earlier datagram"
	if n > 1 {
		what = strconv.Itoa(n) + " earlier datagrams"
	}
	s.log.Info().Int("step", s.logStep()).Int("node", int(p.to)).Int("from", int(p.from)).Str("type", sim.MessageName(p.msg)).
		Msg("out of order: " + FormatValueCut(p.msg, EventValueBytes) + " arrives ahead of " + what + " from node " + strconv.Itoa(int(p.from)) + " still in flight")
}

func (s *Sim) logEvent(ev Event) {
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(ev.Node)).Str("event", ev.Kind.String()).Msg(ev.String())
	}
}

// eventText describes ev for logs and errors; at boot, Start runs for the
// first time ("node 1 starts") rather than after a reset.
func (s *Sim) eventText(ev *Event) string {
	if s.booting {
		return fmt.Sprintf("node %d starts", ev.Node)
	}
	return ev.String()
}

// appRequest returns what HandleApp receives for a driver request: the
// request itself, or a sim.Request's Req.
func appRequest(r any) any {
	switch q := r.(type) {
	case sim.Request:
		return q.Req
	case *sim.Request:
		return q.Req
	}
	return r
}

// driverReady reports whether nd's next driver request is ready: it is no
// sim.Request, or its condition holds.
func (s *Sim) driverReady(id int, nd *node) bool {
	var q *sim.Request
	switch r := nd.app[nd.appNext].(type) {
	case sim.Request:
		q = &r
	case *sim.Request:
		q = r
	default:
		return true
	}
	if q.When == nil {
		return true
	}
	s.volatile = true
	defer s.PredicateEnded()
	return s.condition(id, q)
}

// condition evaluates the condition of node id's driver request q; a panic
// makes the next Step fail with a *PropertyPanicError.
func (s *Sim) condition(id int, q *sim.Request) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
			if s.stepErr == nil {
				name := q.Name
				if name == "" {
					name = FormatValue(q.Req)
				}
				s.stepErr = &PropertyPanicError{Property: name, Step: s.w.step, Value: r, Condition: true, Node: id, Stack: predicateStack()}
			}
		}
	}()
	return q.When(s.view)
}

// running is what run adds to progress while node id's handler runs: one
// (odd: in a handler) and the node + 1 from bit 40 on.
func running(id sim.NodeID) uint64 { return 1 + uint64(id+1)<<40 }

// run executes the handler of ev (which must not be a network event) on
// node ev.Node, turning a panic into an error. ev stays valid and unchanged
// while the handler runs. Performance: the escape checks and the
// process-wide handler slot (sim.Reader) are in runChecked, off the hot
// path.
func (s *Sim) run(ev *Event) (err error) {
	if s.opts.CheckEscapes || hook.Exclusive() {
		return s.runChecked(ev)
	}
	id := ev.Node
	s.w.nodes[id].dirty = true
	s.touch(id)
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(id)).Str("event", ev.Kind.String()).Msg("begin " + s.eventText(ev))
	}
	began := s.progress.Add(running(id))
	returned := false
	defer func() {
		r := recover()
		if r == nil && !returned {
			// runtime.Goexit in the handler: this goroutine ends once the
			// defers ran. The handler stays running for Guard, which
			// reports it (see Guard).
			return
		}
		// No node runs; one more end. Unless Guard gave up on the handler
		// meanwhile (giveUp): then nothing more of the step is done.
		if !s.progress.CompareAndSwap(began, began+2-running(id)) {
			err = errGivenUp
			return
		}
		if r != nil {
			err = s.recovered(ev, r)
			return
		}
		if s.log != nil {
			s.log.Info().Int("step", s.logStep()).Int("node", int(id)).Msg("end")
		}
	}()
	ctx, svc := s.ctxs[id], s.w.svcs[id]
	switch ev.Kind {
	case EvApp:
		svc.HandleApp(ctx, ev.Msg)
	case EvMessage, EvDatagram:
		svc.HandleMessage(ctx, ev.Peer, ev.Msg)
	case EvTimer:
		svc.HandleTimer(ctx, ev.Timer)
	case EvConnError:
		svc.HandleConnError(ctx, ev.Peer)
	case EvReset:
		s.start(id, ctx, svc)
	}
	returned = true
	return nil
}

// runChecked is run with the escape checks (Options.CheckEscapes) and the
// process-wide handler slot (sim.Reader).
func (s *Sim) runChecked(ev *Event) (err error) {
	id := ev.Node
	s.w.nodes[id].dirty = true
	s.touch(id)
	ext := &s.w.ext[id]
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", int(id)).Str("event", ev.Kind.String()).Msg("begin " + s.eventText(ev))
	}
	goroutines := 0
	if s.opts.CheckEscapes {
		if ext.endHash != 0 && ev.Kind != EvReset {
			if h := s.hashNode(s.w.svcs[id]); h != ext.endHash {
				return &EscapeError{Node: id, Step: s.logStep(), Detail: "its state changed after its last handler returned and before this event"}
			}
		}
		goroutines = goruntime.NumGoroutine()
	}
	exclusive := hook.Exclusive()
	var gid uint64
	if exclusive {
		// Inside Guard the goroutine is known: reading it from the stack
		// at every handler made every search in a process that turned
		// the crypto/rand stand-in on 20-35 times slower.
		if gid = s.guardGID.Load(); gid != 0 {
			hook.EnterAs(gid, s.ctxs[id])
		} else {
			gid = hook.Enter(s.ctxs[id])
		}
	}
	began := s.progress.Add(running(id))
	returned := false
	defer func() {
		r := recover()
		if r == nil && !returned {
			// runtime.Goexit in the handler (see run).
			if exclusive {
				hook.Leave(gid)
			}
			return
		}
		givenUp := !s.progress.CompareAndSwap(began, began+2-running(id))
		if exclusive {
			hook.Leave(gid)
		}
		if givenUp {
			err = errGivenUp
			return
		}
		if r != nil {
			err = s.recovered(ev, r)
			return
		}
		if s.opts.CheckEscapes {
			if goruntime.NumGoroutine() > goroutines {
				if fn := escapedGoroutine(); fn != "" {
					err = &EscapeError{Node: id, Step: s.logStep(), Detail: "its handler started a goroutine that was still running when the handler returned (created by " + fn + ")"}
				}
			}
			nd := &s.w.nodes[id]
			ext.endHash = s.hashNode(s.w.svcs[id])
			// The same encoding Hash would compute next.
			nd.hash, nd.dirty = ext.endHash, false
			if err == nil {
				err = s.checkOthers(id)
			}
		}
		if s.log != nil {
			s.log.Info().Int("step", s.logStep()).Int("node", int(id)).Msg("end")
		}
	}()
	s.call(ev)
	returned = true
	return nil
}

// checkOthers compares every node but id that has run a handler with its
// state when its last handler returned (Options.CheckEscapes): one that
// changed while node id's handler ran shares memory with node id. So does
// a monitor that changed though node id notified it of nothing (it is
// compared with its hash when the state was last hashed, if it was not
// notified since).
func (s *Sim) checkOthers(id sim.NodeID) error {
	for j := range s.w.svcs {
		e := &s.w.ext[j]
		if sim.NodeID(j) == id || e.endHash == 0 {
			continue
		}
		if s.hashNode(s.w.svcs[j]) != e.endHash {
			return &SharedStateError{Node: sim.NodeID(j), By: id, Step: s.logStep()}
		}
	}
	for i := range s.w.mons {
		if ms := &s.w.mons[i]; !ms.dirty && s.hashMonitor(i) != ms.hash {
			return &SharedStateError{Node: -1, Monitor: s.cfg.Monitors[i].Name, By: id, Step: s.logStep()}
		}
	}
	return nil
}

// recovered turns what a handler panicked with into run's error.
func (s *Sim) recovered(ev *Event, r any) error {
	inMonitor := s.inMonitor
	s.inMonitor = 0
	if s.err != nil { // a bad choice inside the handler
		err := s.err
		s.err = nil
		return err
	}
	if r == errAbandoned {
		return ErrHang
	}
	id := ev.Node
	full := string(debug.Stack())
	if m, ok := r.(*MisuseError); ok {
		m.Node = id
	}
	var monitor string
	if i := inMonitor - 1; i >= 0 && i < len(s.cfg.Monitors) {
		monitor = s.cfg.Monitors[i].Name
	}
	if s.log != nil {
		e := s.log.Error().Int("step", s.logStep()).Int("node", int(id)).Interface("panic", fmt.Sprint(r))
		if monitor != "" {
			e = e.Str("monitor", monitor)
		}
		e.Msg("panic in handler")
	}
	return &HandlerPanicError{Step: s.logStep(), Node: id, Event: s.eventText(ev), Monitor: monitor, Value: r, Stack: trimStack(full), FullStack: full}
}

// call calls the handler of ev (run has the same switch inline).
func (s *Sim) call(ev *Event) {
	id := ev.Node
	ctx, svc := s.ctxs[id], s.w.svcs[id]
	switch ev.Kind {
	case EvApp:
		svc.HandleApp(ctx, ev.Msg)
	case EvMessage, EvDatagram:
		svc.HandleMessage(ctx, ev.Peer, ev.Msg)
	case EvTimer:
		svc.HandleTimer(ctx, ev.Timer)
	case EvConnError:
		svc.HandleConnError(ctx, ev.Peer)
	case EvReset:
		s.start(id, ctx, svc)
	}
}

// start runs Start on node id's struct; after a reset, the struct first
// gets the durable state of the one it replaces.
func (s *Sim) start(id sim.NodeID, ctx *sim.Context, svc sim.Service) {
	if prev := s.prevSvc; prev != nil {
		s.prevSvc = nil
		if d, ok := prev.(sim.Durable); ok {
			kept := d.Durable()
			r, ok := svc.(sim.Durable)
			if !ok {
				panic(fmt.Sprintf("sim: node %d's old service (%T) is Durable but its new one (%T) is not", id, prev, svc))
			}
			r.Restore(kept)
		}
	}
	svc.Start(ctx)
}

// timerIndex finds or adds node id's timer, keeping timers sorted by name.
func (s *Sim) timerIndex(id sim.NodeID, name string) int {
	nd := &s.w.nodes[id]
	i := sort.Search(len(nd.timers), func(i int) bool { return nd.timers[i].name >= name })
	if i < len(nd.timers) && nd.timers[i].name == name {
		return i
	}
	w := s.weights.Timer
	if tw, ok := s.weights.Timers[name]; ok {
		w = tw
	}
	nd.timers = append(nd.timers, timer{})
	copy(nd.timers[i+1:], nd.timers[i:])
	s.timerMoved(int32(id), int32(i)) // the later timers' indexes moved
	nd.timers[i] = timer{name: name, nameHash: hashString(name), weight: w}
	return i
}

func (s *Sim) messageWeight(m sim.Message) float64 {
	if len(s.weights.Messages) > 0 {
		if w, ok := s.weights.Messages[sim.MessageName(m)]; ok {
			return w
		}
	}
	return s.weights.Message
}

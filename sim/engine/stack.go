package engine

import (
	"fmt"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/internal/hook"
)

// The packages whose frames a service's panic stack leaves out: the
// simulator and the user API it runs handlers through.
var (
	enginePkg = reflect.TypeFor[Sim]().PkgPath() + "."
	simPkg    = reflect.TypeFor[sim.Context]().PkgPath() + "."
)

// trimStack returns the service's own frames of a stack trace taken while
// a panic unwinds (runtime/debug.Stack in a deferred recover): the frames
// below the panic call, without the runtime's frames that raised it, the
// sim.Context method that found a misuse, and the simulator's frames that
// called the handler. Each frame is two lines, the function and
// "\tfile:line", without argument words or offsets.
func trimStack(stack string) string {
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")
	if len(lines) > 0 && strings.HasPrefix(lines[0], "goroutine ") {
		lines = lines[1:]
	}
	type frame struct{ fn, at string }
	var frames []frame
	for i := 0; i+1 < len(lines); i += 2 {
		frames = append(frames, frame{lines[i], lines[i+1]})
	}
	// The frames after the last panic call are the panicking code's.
	start := 0
	for i, f := range frames {
		if strings.HasPrefix(f.fn, "panic(") {
			start = i + 1
		}
	}
	frames = frames[start:]
	// Leave out the runtime's frames that raised the panic (a nil
	// dereference, an index out of range) and the API's that found a
	// misuse, up to the service's first frame.
	for len(frames) > 0 && (strings.HasPrefix(frames[0].fn, "runtime.") || internalFrame(frames[0].fn)) {
		frames = frames[1:]
	}
	// Stop at the simulator's frame that called the handler.
	for i, f := range frames {
		if internalFrame(f.fn) {
			frames = frames[:i]
			break
		}
	}
	var b strings.Builder
	for _, f := range frames {
		// Leave out the argument words and the program counter offset:
		// they change from build to build.
		fn := f.fn
		if i := strings.LastIndexByte(fn, '('); i > 0 && strings.HasSuffix(fn, ")") {
			fn = fn[:i]
		}
		at, _, _ := strings.Cut(f.at, " +0x")
		b.WriteString(fn)
		b.WriteByte('\n')
		b.WriteString(at)
		b.WriteByte('\n')
	}
	return b.String()
}

// internalFrame reports whether a stack frame's function belongs to the
// simulator or to package sim.
func internalFrame(fn string) bool {
	return strings.HasPrefix(fn, enginePkg) || strings.HasPrefix(fn, simPkg) || strings.HasPrefix(fn, "github.com/macemc/macemc/sim/internal/") ||
		strings.HasPrefix(fn, "github.com/macemc/macemc/walks.") // the walks check properties themselves (walks.Walk)
}

// EscapeError reports code of a node's service that acted outside its
// handlers: a call of a sim.Context method after the handler returned (a
// goroutine the handler started, a Context kept for later), or a change of
// the node's state between the end of a handler and the node's next event
// (seen with Options.CheckEscapes). What such code does depends on the
// goroutine scheduler, so the checker reports it as nondeterminism.
type EscapeError struct {
	Node sim.NodeID
	// Step is the transition during (or before) which it was seen, as logs
	// number it; Call the Context method, when one was called.
	Step   int
	Call   string
	Detail string
}

func (e *EscapeError) Error() string {
	what := e.Detail
	if e.Call != "" {
		what = "it called Context." + e.Call + " outside its handlers (a goroutine the handler started, or a Context kept after the handler returned)"
	}
	return "sim: node " + strconv.Itoa(int(e.Node)) + " escaped its handler: " + what + " (seen at step " + strconv.Itoa(e.Step) + ")"
}

// Unwrap lets errors.Is match ErrEscape and ErrNondeterministic.
func (e *EscapeError) Unwrap() []error { return []error{ErrEscape, ErrNondeterministic} }

// MessageChangedError reports a message that changed between its send and
// its delivery (seen with Options.CheckMessages): it shares a slice, map or
// pointer with a node's state, and a handler changed what it points to
// after the send (usually its sender's, later in the same handler or in a
// later one; or a receiver of an earlier copy of a duplicated datagram
// that changed what it got). A network delivers what was sent, so the
// simulation would run an execution no real deployment can; the checker
// reports it rather than a verdict that may be wrong.
type MessageChangedError struct {
	// From sent the message to To at step Sent (0 while booting); it
	// changed before its delivery at step Delivered (logs' numbering).
	From, To        sim.NodeID
	Sent, Delivered int
	// Message is the message's name (sim.MessageName).
	Message string
	// Field is the first field of the message that changed, and Detail
	// its values as sent and as delivered (FirstDifference), when the
	// check could compare them (CheckDeterminism replays the path to the
	// send and copies the message).
	Field, Detail string
}

func (e *MessageChangedError) Error() string {
	sent := " while booting"
	if e.Sent > 0 {
		sent = " at step " + strconv.Itoa(e.Sent)
	}
	to := strconv.Itoa(int(e.To))
	what := ""
	if e.Field != "" {
		what = " (field " + e.Field + ", as sent and as delivered: " + e.Detail + ")"
	}
	return "sim: the " + safetext.QuoteUnsafe(e.Message) + " node " + strconv.Itoa(int(e.From)) + " sent to node " + to + sent + " changed before node " + to +
		" received it at step " + strconv.Itoa(e.Delivered) + what + ": the message shares a slice, map or pointer with a node's state (its sender's, usually)," +
		" which a handler changed after the send; a network delivers what was sent, so send a copy (slices.Clone, maps.Clone)"
}

// Unwrap lets errors.Is match ErrEscape and ErrNondeterministic: like a
// goroutine's, the change reaches the network outside a send.
func (e *MessageChangedError) Unwrap() []error { return []error{ErrEscape, ErrNondeterministic} }

// SharedStateError reports a node whose state changed while another
// node's handler ran (seen with Options.CheckEscapes), or a monitor whose
// state changed while a node's handler ran that notified it of nothing:
// the two share memory, such as a slice, map or pointer one kept from a
// message of the other's (or from an event it was notified of), an
// object the system's Build made once and handed to both, or a package
// variable; or a goroutine the changed node started ran meanwhile. Nodes
// on a network share nothing, and a monitor only sees what it is
// notified of, so the simulation would run an execution no real
// deployment can; the checker reports it rather than a verdict that may
// be wrong.
type SharedStateError struct {
	// Node's state (Monitor's, when Monitor is set; Node is then -1)
	// changed at step Step (logs' numbering), a handler of node By.
	Node, By sim.NodeID
	Step     int
	Monitor  string
	// Field is the first field of Node's state that changed, and Detail
	// its values before and after the step (FirstDifference), when the
	// check could compare them (CheckDeterminism does). Detail is ""
	// when the memory is shared by every execution in the process (Origin
	// is set): the values then are not the path's, every replay of it
	// having changed them.
	Field, Detail string
	// Origin says how the two came to share the memory, when the check
	// could tell (CheckDeterminism does); Shared is where the changed
	// node (or monitor) holds it, e.g. ".Peers", Object its type, and
	// ByShared where node By holds it, or which of node By's driver
	// requests it is (e.g. "request 0").
	Origin                   SharedOrigin
	Shared, ByShared, Object string
}

// SharedOrigin is how two nodes, or a node and a monitor, came to share
// memory (SharedStateError.Origin).
type SharedOrigin uint8

const (
	// OriginUnknown: the check could not tell (kept from a message or
	// an event, a package variable, a goroutine).
	OriginUnknown SharedOrigin = iota
	// OriginService: they held it from the start: Config.Service (or a
	// monitor's New) returned structs that reach one object, which
	// Build or a package variable made once.
	OriginService
	// OriginDriver: Config.App's requests handed it out: the changed
	// node holds an object that is one of node By's driver requests (or
	// what one reaches), which Config.App returns each time it is asked.
	OriginDriver
)

func (e *SharedStateError) Error() string {
	who := "node " + strconv.Itoa(int(e.Node))
	if e.Monitor != "" {
		who = "monitor " + safetext.QuoteUnsafe(e.Monitor)
	}
	by := "node " + strconv.Itoa(int(e.By))
	var b strings.Builder
	b.WriteString("sim: " + who + "'s state changed at step " + strconv.Itoa(e.Step) + ", a handler of " + by)
	if e.Monitor != "" {
		b.WriteString(", which notified it of nothing")
	}
	switch {
	case e.Field != "" && e.Detail != "":
		b.WriteString(" (field " + e.Field + ", before the step and after it: " + e.Detail + ")")
	case e.Field != "":
		b.WriteString(" (field " + e.Field + ")")
	}
	shared := func(who, path string) string {
		if path == "" {
			return who + "'s struct"
		}
		return who + "'s " + path
	}
	switch {
	case e.Origin == OriginService && e.Monitor != "":
		b.WriteString(": " + shared(who, e.Shared) + " and " + shared(by, e.ByShared) + " are one " + e.Object +
			" from the start: the monitor's New and Config.Service returned structs that hold it, made once (by Build or a package variable), so the nodes and monitors of every execution share it;" +
			" a monitor shares nothing with the nodes (it sees what they notify it of): have New make the monitor its own")
	case e.Origin == OriginService:
		b.WriteString(": " + shared(who, e.Shared) + " and " + shared(by, e.ByShared) + " are one " + e.Object +
			" from the start: Config.Service returned structs that hold it, made once (by Build or a package variable), so the nodes of every execution share it;" +
			" nodes on a network share nothing: have Config.Service make each node its own")
	case e.Origin == OriginDriver:
		b.WriteString(": " + shared(who, e.Shared) + " is the " + e.Object + " that Config.App gave " + by + " (its " + e.ByShared + "), made once (by Build or a package variable), so the nodes of every execution share it;" +
			" nodes on a network share nothing: have Config.App make each node's requests afresh, or copy what HandleApp keeps")
	case e.Monitor != "":
		b.WriteString(": the monitor shares memory with " + by + " (a slice, map or pointer of an event it was notified of and kept, or a package variable);" +
			" a monitor sees only what it is notified of, so copy what Handle keeps (slices.Clone, maps.Clone)")
	default:
		b.WriteString(": the two nodes share memory (a slice, map or pointer one kept from a message of the other's, or a package variable; or a goroutine " + who + " started ran meanwhile);" +
			" nodes on a network share nothing, so copy what a node keeps from a message (slices.Clone, maps.Clone)," +
			" or, when what changed is a library's cache (a protobuf message's size), give its type a canonical form (sim.RegisterCanonicalFor)")
	}
	return b.String()
}

// Unwrap lets errors.Is match ErrEscape and ErrNondeterministic.
func (e *SharedStateError) Unwrap() []error { return []error{ErrEscape, ErrNondeterministic} }

// escapedGoroutine looks among all goroutines for one created by the
// calling goroutine, from a function outside the runtime, the test
// framework and macemc itself: a goroutine a handler that just returned
// started and left running. It returns the creating function, or "". It
// stops the world to list the goroutines: the determinism checks call it
// only when the goroutine count grew during a handler.
func escapedGoroutine() string {
	buf := make([]byte, 64)
	buf = buf[:goruntime.Stack(buf, false)]
	self := ""
	if f := strings.Fields(string(buf)); len(f) > 1 && f[0] == "goroutine" {
		self = f[1]
	}
	for _, line := range strings.Split(allStacks(), "\n") {
		fn, ok := strings.CutPrefix(line, "created by ")
		if !ok {
			continue
		}
		fn, parent, _ := strings.Cut(fn, " in goroutine ")
		if parent != self || infrastructure(fn) {
			continue
		}
		return fn
	}
	return ""
}

// allStacks returns the stacks of all goroutines (runtime.Stack), up to
// 64 MiB of them.
func allStacks() string {
	all := make([]byte, 1<<20)
	for {
		n := goruntime.Stack(all, true)
		if n < len(all) {
			return string(all[:n])
		}
		if len(all) >= 64<<20 {
			return string(all)
		}
		all = make([]byte, 2*len(all))
	}
}

// goroutineID returns the calling goroutine's id, as stacks print it.
func goroutineID() uint64 { return hook.GoroutineID() }

// outsideSites are the simulator's functions that call the system's code
// outside the handlers: properties' predicates, driver requests'
// conditions, Config.Service and Config.App.
var outsideSites = []string{
	"github.com/macemc/macemc/walks.(*check).first",
	enginePkg + "(*Sim).FirstViolated",
	enginePkg + "(*Sim).Holds",
	enginePkg + "(*Sim).condition",
	enginePkg + "(*Sim).initNode",
	enginePkg + "(*Sim).driver",
}

// goroutineStack returns goroutine gid's wait state ("running", "chan
// receive", "sync.Mutex.Lock", without how long) and its frames, two lines
// each (function, then file:line), innermost first; "" and nil when it is
// not found.
func goroutineStack(gid uint64) (state string, lines []string) {
	if gid == 0 {
		return "", nil
	}
	dump, head := allStacks(), "goroutine "+strconv.FormatUint(gid, 10)+" ["
	i := strings.Index(dump, head)
	for i > 0 && dump[i-1] != '\n' {
		j := strings.Index(dump[i+1:], head)
		if j < 0 {
			return "", nil
		}
		i += 1 + j
	}
	if i < 0 {
		return "", nil
	}
	block, _, _ := strings.Cut(dump[i:], "\n\n")
	lines = strings.Split(block, "\n")
	state, _, _ = strings.Cut(strings.TrimPrefix(lines[0], head), "]")
	state, _, _ = strings.Cut(state, ",")
	return state, lines[1:]
}

// frameName is a stack line's function without its arguments.
func frameName(line string) string {
	if p := strings.LastIndexByte(line, '('); p > 0 && strings.HasSuffix(line, ")") {
		return line[:p]
	}
	return line
}

// frameFile is the base name of a stack line's file (the line after the
// function's), without the line number.
func frameFile(line string) string {
	file, _, _ := strings.Cut(strings.TrimSpace(line), ":")
	return filepath.Base(file)
}

// outsideAt looks at goroutine gid's stack for the system's code called
// from one of outsideSites: it returns that function (the predicate) and
// its file's name, or "" when the goroutine is elsewhere (waiting, in the
// simulator's own work).
func outsideAt(gid uint64) (fn, at string) {
	_, lines := goroutineStack(gid)
	for k := 0; k+1 < len(lines); k += 2 {
		name := frameName(lines[k])
		if slices.Contains(outsideSites, name) {
			return fn, at
		}
		fn, at = "", ""
		if !infrastructure(name) && !strings.HasPrefix(name, simPkg) {
			// The file, not the line: where a loop's goroutine is found
			// varies from one look to the next, and reports must not.
			fn, at = name, frameFile(lines[k+1]) // the function names the package
		}
	}
	return "", ""
}

// blockedAt says where goroutine gid, running a handler the watchdog gives
// up on, is blocked: "blocked (sync.Mutex.Lock) in sync.(*Mutex).Lock,
// called by jobs.(*Coordinator).note (jobs.go)": the wait, the function it
// waits in, and the first function of another package on the way out (the
// caller that asked for the wait), with its file, not its line. "" when it
// is not waiting (a handler that loops: where it is found varies from one
// look to the next, and reports must not) or not found.
func blockedAt(gid uint64) string {
	state, lines := goroutineStack(gid)
	if state == "" || state == "running" || state == "runnable" {
		return ""
	}
	type frame struct{ name, file string }
	var frames []frame
	for k := 0; k+1 < len(lines); k += 2 {
		if name := frameName(lines[k]); !strings.HasPrefix(name, "runtime.") && !strings.HasPrefix(name, "internal/") {
			frames = append(frames, frame{name, frameFile(lines[k+1])})
		}
	}
	ours := func(f frame) bool { return infrastructure(f.name) || strings.HasPrefix(f.name, simPkg) }
	if len(frames) == 0 || ours(frames[0]) {
		return ""
	}
	in := frames[0]
	for _, f := range frames[1:] {
		if funcPackage(f.name) == funcPackage(in.name) {
			continue
		}
		if ours(f) {
			break // the system's own code waits
		}
		return fmt.Sprintf("blocked (%s) in %s, called by %s (%s)", state, in.name, f.name, f.file)
	}
	return fmt.Sprintf("blocked (%s) in %s (%s)", state, in.name, in.file)
}

// funcPackage is the import path of a function's name as a stack shows it
// ("example.com/x/jobs" of "example.com/x/jobs.(*C).note").
func funcPackage(fn string) string {
	dir, base := "", fn
	if i := strings.LastIndexByte(fn, '/'); i >= 0 {
		dir, base = fn[:i+1], fn[i+1:]
	}
	pkg, _, _ := strings.Cut(base, ".")
	return dir + pkg
}

// infrastructure reports whether fn belongs to the runtime, the test
// framework or macemc's checker, whose goroutines are no service's.
func infrastructure(fn string) bool {
	for _, p := range []string{"runtime.", "testing.", "os/signal.", enginePkg, "github.com/macemc/macemc/search.", "github.com/macemc/macemc/search/",
		"github.com/macemc/macemc/walks.", "github.com/macemc/macemc/walks/", "github.com/macemc/macemc/critical.",
		"github.com/macemc/macemc/mdb.", "github.com/macemc/macemc/cmd/cli.(*App)."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// predicateStack returns the frames of a property's or a driver
// condition's panic, as trimStack does for a handler's: called in the
// deferred recover, while the panic unwinds.
func predicateStack() string { return trimStack(string(debug.Stack())) }

// NewPropertyPanic returns the error of property name's predicate that
// panicked with value in the state after step steps, with the predicate's
// own frames: call it in the deferred recover, while the panic unwinds
// (walks.Walk does, for the properties it checks itself).
func NewPropertyPanic(name string, step int, value any) *PropertyPanicError {
	return &PropertyPanicError{Property: name, Step: step, Value: value, Stack: predicateStack()}
}

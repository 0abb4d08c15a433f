package mdb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// Sentinel errors of mdb.
var (
	// ErrInput marks a command line argument or file mdb cannot open.
	ErrInput = errors.New("mdb: bad input")
	// ErrCommands is returned by RunScript when some commands failed.
	ErrCommands = errors.New("mdb: commands failed")
)

// errInterrupted is returned by a command the user interrupted.
var errInterrupted = errors.New("interrupted")

// errReplay marks a trace that does not replay on this binary's system.
var errReplay = errors.New("the trace does not replay")

// Options configure a Session. Zero values take the defaults.
type Options struct {
	// Out receives everything the session prints. Default os.Stdout.
	Out io.Writer
	// SnapshotEvery is how many steps apart snapshots of the state are
	// kept, at least. Default DefaultSnapshotEvery. A long path takes
	// them further apart, so that their copies of its history stay within
	// 64 MiB (each copies the choices made up to its step).
	SnapshotEvery int
	// Color marks diffs with ANSI colours and bold for a terminal.
	Color bool
	// Limit is how many lines a listing (events, x) shows unless asked for
	// --all. Default 200.
	Limit int
	// MaxLine is how many bytes of a line the session prints: a longer
	// line (a node's 1 MB string in `state`) is cut there, saying how
	// many bytes it left out. Default DefaultMaxLine; negative: no cut.
	MaxLine int
	// Warn receives the warnings about the files opened (a live path
	// that cannot be read or replayed, or that is no live path; a replay
	// that leaves the recorded execution). Default Out; the mdb command
	// gives standard error.
	Warn io.Writer
	// Tool is the command whose search wrote the files, which the report
	// page's commands (g --html) run: "macemc" (the default), or a user's
	// binary that runs mdb as a subcommand.
	Tool string
}

// Session is an mdb debugging session over the error path of a macemc run
// and, when there is one, the live path that shares the longest prefix
// with it, plus the branches the user makes. Exec runs one command; the
// session prints to Options.Out. A Session is not safe for concurrent use,
// except Interrupt.
type Session struct {
	out     io.Writer
	warn    io.Writer
	o       Options
	errT    *trace.Trace
	liveT   *trace.Trace
	paths   []*path // paths[0] is the error path
	live    *path   // nil without a live path
	p       *path   // the current path
	pos     int     // the current step on p
	node    int     // the selected node, -1 for none
	search  *regexp.Regexp
	nbranch int
	done    bool
	intr    atomic.Bool
	shared  int   // steps the error and live paths share
	liveErr error // why the live trace given could not be used
}

// Resolve turns what the user named into the error trace file and, when
// one is there, the live trace file: a directory written by macemc search
// (error.trace and live.trace in it), a trace file, or a log file, whose
// trace is the .trace file next to it with the same base name.
func Resolve(arg string) (errFile, liveFile string, err error) {
	if arg == "" {
		return "", "", fmt.Errorf("%w: no file or directory given", ErrInput)
	}
	fi, err := os.Stat(arg)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrInput, err)
	}
	if fi.IsDir() {
		errFile = filepath.Join(arg, "error.trace")
		if _, err := os.Stat(errFile); err != nil {
			if fileExists(filepath.Join(arg, "report.json")) {
				return "", "", fmt.Errorf("%w: %s has no error.trace: the search that wrote its report.json found nothing to debug (or was stopped before it wrote the trace)", ErrInput, arg)
			}
			return "", "", fmt.Errorf("%w: %s has no error.trace (is it a macemc search output directory?)", ErrInput, arg)
		}
		if l := filepath.Join(arg, "live.trace"); fileExists(l) {
			liveFile = l
		}
		return errFile, liveFile, nil
	}
	f, err := TraceFile(arg)
	return f, "", err
}

// TraceFile returns the trace file for a trace or log file: a .log file's
// trace is the .trace file next to it with the same base name.
func TraceFile(arg string) (string, error) {
	if filepath.Ext(arg) == ".log" {
		t := strings.TrimSuffix(arg, ".log") + ".trace"
		if !fileExists(t) {
			return "", fmt.Errorf("%w: %s is a log; mdb replays traces and found no %s next to it", ErrInput, arg, filepath.Base(t))
		}
		return t, nil
	}
	if _, err := os.Stat(arg); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInput, err)
	}
	return arg, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// Open reads the error trace (and the live trace, when liveArg is not
// empty) named as Resolve and TraceFile accept them, and replays them.
// A missing, truncated or corrupt file, or a trace of a system this binary
// does not know, is refused with an error wrapping ErrInput; but a
// directory's live.trace that cannot be read only leaves the session
// without a live path, which Intro warns of: the error path is what
// matters.
func Open(errArg, liveArg string, o Options) (*Session, error) {
	errFile, liveFile, err := Resolve(errArg)
	if err != nil {
		return nil, err
	}
	if liveArg != "" {
		if liveFile, err = TraceFile(liveArg); err != nil {
			return nil, err
		}
	}
	et, err := readTrace(errFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	var lt *trace.Trace
	var liveErr error
	if liveFile != "" {
		if lt, err = readTrace(liveFile); err != nil {
			if liveArg != "" {
				return nil, fmt.Errorf("%w: %w", ErrInput, err)
			}
			lt, liveErr = nil, err
		}
	}
	s, err := New(et, lt, o)
	if err != nil {
		return nil, err
	}
	s.paths[0].file = errFile
	if s.live != nil {
		s.live.file = liveFile
	}
	if liveErr != nil {
		s.liveErr = liveErr
	}
	return s, nil
}

// readTrace reads a trace file, saying what a bad one's error means.
func readTrace(file string) (*trace.Trace, error) {
	t, err := trace.Read(file)
	switch {
	case err == nil:
		return t, nil
	case errors.Is(err, trace.ErrTruncated):
		return nil, fmt.Errorf("%w (the file is incomplete: was macemc interrupted while writing it?)", err)
	case errors.Is(err, trace.ErrCorrupt):
		return nil, fmt.Errorf("%w (the file is damaged)", err)
	case errors.Is(err, trace.ErrNotTrace):
		return nil, fmt.Errorf("%w (give error.trace, live.trace, their .log files or the output directory)", err)
	default:
		return nil, err
	}
}

// New starts a session over an error trace and, if lt is not nil, the live
// trace that goes with it.
func New(et, lt *trace.Trace, o Options) (*Session, error) {
	if et == nil {
		return nil, fmt.Errorf("%w: no error trace", ErrInput)
	}
	if err := et.Validate(); err != nil {
		return nil, fmt.Errorf("%w: the error trace: %w", ErrInput, err)
	}
	if lt != nil {
		if err := lt.Validate(); err != nil {
			return nil, fmt.Errorf("%w: the live trace: %w", ErrInput, err)
		}
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.SnapshotEvery <= 0 {
		o.SnapshotEvery = DefaultSnapshotEvery
	}
	if o.Limit <= 0 {
		o.Limit = 200
	}
	if o.MaxLine == 0 {
		o.MaxLine = DefaultMaxLine
	}
	out, warn := o.Out, o.Warn
	if o.MaxLine > 0 {
		out = &lineCutter{w: o.Out, max: o.MaxLine}
	}
	switch {
	case warn == nil:
		warn = out
	case o.MaxLine > 0:
		warn = &lineCutter{w: warn, max: o.MaxLine}
	}
	s := &Session{out: out, warn: warn, o: o, errT: et, liveT: lt, node: -1}
	ep, err := s.tracePath("error", et)
	if err != nil {
		return nil, err
	}
	s.paths = append(s.paths, ep)
	if lt != nil {
		if lt.System != et.System || sim.Params(lt.Params).Canonical() != sim.Params(et.Params).Canonical() {
			return nil, fmt.Errorf("%w: the live trace is for %s (%s) but the error trace for %s (%s)", ErrInput,
				safetext.QuoteUnsafe(lt.System), sim.Params(lt.Params).Text(), safetext.QuoteUnsafe(et.System), sim.Params(et.Params).Text())
		}
		lp, err := s.tracePath("live", lt)
		switch {
		case err == nil:
			s.paths = append(s.paths, lp)
			s.live = lp
			s.shared = shared(ep, lp)
		case errors.Is(err, errReplay):
			// The error path is what matters; go on without the live one.
			s.liveErr = err
			if lt.Note != "" {
				s.liveErr = fmt.Errorf("%w (the trace's note: %s)", err, lt.Note)
			}
		default:
			return nil, err
		}
	}
	s.p = ep
	if _, err := ep.at(0); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Session) tracePath(name string, t *trace.Trace) (*path, error) {
	if t.Sys == nil {
		if _, err := sim.Lookup(t.System); err != nil {
			return nil, fmt.Errorf("%w: %w (%s)", ErrInput, err, unknownSystemHint)
		}
	}
	cfg, err := t.Config()
	if err != nil {
		return nil, fmt.Errorf("%w: the %s trace: %w", ErrInput, name, err)
	}
	diverged := s.checkRecorded(cfg, t)
	p, err := newPath(name, cfg, t.Options(), t.Choices, t.Steps, s.o.SnapshotEvery)
	switch {
	case err != nil && diverged != nil:
		return nil, fmt.Errorf("%w: %w: %w; %w", ErrInput, errReplay, err, diverged)
	case err != nil:
		return nil, fmt.Errorf("%w: %w: %w", ErrInput, errReplay, err)
	case diverged != nil:
		fmt.Fprintf(s.warn, "warning: the %s trace: %v\n", name, diverged)
	}
	p.tr, p.timeout = t, t.HandlerTimeout
	return p, nil
}

// unknownSystemHint says how to debug a trace of a system the binary does
// not register, as macemc replay says how to replay one.
const unknownSystemHint = "run mdb with a binary that registers the system: a main package that imports the system's package and calls cli.Main, as `BINARY mdb DIR`"

// checkSteps bounds the steps of a trace replayed when mdb opens it, to
// compare them with the states it recorded.
const checkSteps = 100_000

// checkRecorded replays the trace's first steps and returns how the replay
// left the execution the trace recorded (trace.Trace.States), or nil: what
// mdb shows from there on is another execution than the one the search
// found.
func (s *Session) checkRecorded(cfg *sim.Config, t *trace.Trace) *trace.DivergedError {
	if len(t.States) == 0 {
		return nil
	}
	_, diverged, _ := t.ReplayChecked(cfg, min(t.Steps, checkSteps), t.Options())
	return diverged
}

// Intro prints what was opened: the violation, the step count, the
// critical step, the live path, and the position (step 0); and warns (to
// Options.Warn) of a live path that could not be read or replayed, or
// whose trace records no live path.
func (s *Session) Intro() {
	t := s.errT
	ep := s.paths[0]
	what := describe(t, ep.endErr)
	// A trace's names and parameters, shown as safetext.QuoteUnsafe shows
	// them: a trace is input nobody vouches for.
	sys := safetext.QuoteUnsafe(t.System)
	if len(t.Params) > 0 {
		sys += " " + sim.Params(t.Params).Text()
	}
	if ep.file != "" {
		fmt.Fprintf(s.out, "%s: %s (system %s)\n", safetext.QuoteUnsafe(ep.file), what, sys)
	} else {
		fmt.Fprintf(s.out, "%s (system %s)\n", what, sys)
	}
	fmt.Fprintf(s.out, "error path: %d steps%s\n", ep.steps(), s.critText())
	if start, n, ok := s.cycle(ep); ok {
		fmt.Fprintf(s.out, "lasso: a stem of %s, then a cycle of %s (transitions %d-%d) back to the state of step %d; j cycle jumps to it\n",
			plural(start, "step"), plural(n, "step"), start+1, start+n, start)
	}
	if ep.endErr != nil {
		fmt.Fprintf(s.out, "the path ends with: %v\n", ep.endErr)
	}
	if s.live != nil {
		fmt.Fprintf(s.out, "live path: %d steps, shares %d with the error path; filediff compares them\n", s.live.steps(), s.shared)
		if s.liveT.Kind != trace.KindLive {
			name := "the live trace"
			if s.live.file != "" {
				name = safetext.QuoteUnsafe(s.live.file)
			}
			fmt.Fprintf(s.warn, "warning: %s is not a live path but a %s (its kind is %q, not \"live\"); mdb shows it as the live path all the same\n",
				name, describe(s.liveT, s.live.endErr), s.liveT.Kind)
		}
	}
	if s.liveErr != nil {
		fmt.Fprintf(s.warn, "warning: no live path: %v; filediff has nothing to compare the error path with but the branches you make (filediff STEP b1)\n", s.liveErr)
	}
	s.where()
}

// describe says what a trace records: "liveness violation of AllAcked",
// "safety violation: a handler panicked", "live path (...)"; endErr is how
// its replay ended.
func describe(t *trace.Trace, endErr error) string {
	what := string(t.Kind)
	switch t.Kind {
	case trace.KindLiveness:
		what = "liveness violation"
	case trace.KindSafety:
		what = "safety violation"
	case trace.KindNondeterministic:
		what = "nondeterminism: replays of these choices differ"
	case trace.KindMinimized:
		what = "minimized doomed path"
	case trace.KindLive:
		what = "live path: the live alternative of a critical transition, not a violation"
	case trace.KindPrefix:
		what = "live prefix: where a search started, not a violation"
	case "":
		what = "execution"
	}
	var hp *engine.HandlerPanicError
	switch {
	case errors.As(endErr, &hp) && hp.Monitor != "":
		// The monitor's own code panicked, called by a node's handler:
		// the trace's property is the monitor's name.
		what += ": monitor " + safetext.QuoteUnsafe(hp.Monitor) + " panicked in its Handle"
	case t.Property == walks.PanicProperty && errors.Is(endErr, engine.ErrMisuse):
		what += ": a handler used the API wrongly"
	case t.Property == walks.PanicProperty:
		what += ": a handler panicked"
	case t.Property == walks.HangProperty:
		what += ": a handler did not return"
	case t.Property == walks.OutsideHangProperty:
		what += ": code outside the handlers (a property's predicate?) did not return"
	case t.Kind == trace.KindNondeterministic && t.Property == walks.MessagesProperty:
		what = "a message changed in flight: after it was sent, before its delivery"
	case t.Kind == trace.KindNondeterministic && t.Property == walks.SharedProperty:
		what = "nodes share memory: a node's state changed while another node's handler ran"
	case t.Kind == trace.KindNondeterministic && t.Property == walks.ReadOnlyProperty:
		what = "a property changed the state: checking it wrote a node's fields"
	case t.Kind == trace.KindNondeterministic, t.Kind == trace.KindLive, t.Kind == trace.KindPrefix:
	case t.Property != "":
		what += " of " + safetext.QuoteUnsafe(t.Property)
	}
	return what
}

// plural returns "1 step" or "2 steps".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// critStep returns the critical step of the error path, the first dead
// state, or -1: none, a C2 answer, which names no step (the search for
// it stopped there for lack of evidence), or a trace of a live path.
func (s *Session) critStep() int {
	if s.errT.Condition == "C2" || s.liveKind() {
		return -1
	}
	return s.errT.Critical
}

// liveKind reports whether the error trace records a live execution (the
// live alternative of a critical transition, or the live prefix a search
// started from) rather than a violation: it has no dead state, so no
// critical step, whatever its critical fields say.
func (s *Session) liveKind() bool {
	return s.errT.Kind == trace.KindLive || s.errT.Kind == trace.KindPrefix
}

// noDeadState says why a trace of a live path has no critical step.
func (s *Session) noDeadState() string {
	return fmt.Sprintf("the trace records a live path (kind %s), which has no dead state and so no critical step", s.errT.Kind)
}

func (s *Session) critText() string {
	c := s.errT.Critical
	switch {
	case s.errT.Kind == trace.KindSafety && s.errT.Property == walks.HangProperty && s.paths[0].steps() > 0:
		// The trace ends before the hung step: the state after it does
		// not exist.
		return fmt.Sprintf(", the handler of step %d does not return", s.paths[0].steps()+1)
	case s.errT.Kind == trace.KindSafety && s.errT.Property == walks.OutsideHangProperty:
		return fmt.Sprintf(", then code outside the handlers does not return (props at step %d shows which)", s.paths[0].steps())
	case s.errT.Kind == trace.KindSafety && s.paths[0].endErr != nil:
		var hp *engine.HandlerPanicError
		if errors.As(s.paths[0].endErr, &hp) && hp.Monitor != "" {
			return fmt.Sprintf(", monitor %s panics in its Handle at step %d (notified by node %d's handler)", safetext.QuoteUnsafe(hp.Monitor), s.paths[0].steps(), hp.Node)
		}
		return fmt.Sprintf(", the handler fails at step %d", s.paths[0].steps())
	case s.errT.Kind == trace.KindSafety:
		return fmt.Sprintf(", the property fails at step %d", s.paths[0].steps())
	case s.errT.Kind == trace.KindNondeterministic:
		return ""
	case s.liveKind():
		return ", no critical step (a live path has no dead state)"
	case c < 0:
		return ", no critical step"
	case s.errT.Condition == "C2":
		// C2 names no step: it is where the search stopped.
		return ", no critical transition found within the search depth (C2: not enough evidence, raise the walk depth)"
	}
	cond := ""
	switch s.errT.Condition {
	case "C1":
		cond = " (C1: dead from there on)"
	case "C2":
		cond = " (C2: not enough evidence, raise the walk depth)"
	case "":
	default:
		cond = " (" + s.errT.Condition + ")"
	}
	return fmt.Sprintf(", critical step %d%s", c, cond)
}

// Prompt returns the prompt for the next command: "(mdb 5) " on the error
// path, "(mdb live 5) " on another, with " w1" when node 1 is selected.
func (s *Session) Prompt() string {
	var b strings.Builder
	b.WriteString("(mdb ")
	if s.p != s.paths[0] {
		b.WriteString(s.p.name + " ")
	}
	b.WriteString(strconv.Itoa(s.pos))
	if s.node >= 0 {
		fmt.Fprintf(&b, " w%d", s.node)
	}
	b.WriteString(") ")
	return b.String()
}

// Done reports whether the user asked to quit.
func (s *Session) Done() bool { return s.done }

// Interrupt asks a running command (a long run, a log) to stop; it may be
// called from another goroutine, e.g. on SIGINT.
func (s *Session) Interrupt() { s.intr.Store(true) }

func (s *Session) interrupted() bool { return s.intr.Load() }

// Position returns the current step and the name of the current path
// ("error", "live", "b1", ...).
func (s *Session) Position() (step int, path string) { return s.pos, s.p.name }

// Exec runs one command line. A bad command or argument, or a panic in a
// command, is returned as an error; the session goes on either way.
func (s *Session) Exec(line string) (err error) {
	s.intr.Store(false)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v\n%s", r, debug.Stack())
		}
	}()
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return nil
	}
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	c := lookup(name)
	if c == nil {
		return fmt.Errorf("unknown command %q; help lists the commands", name)
	}
	var args []string
	if !c.raw {
		if args, err = splitArgs(rest); err != nil {
			return err
		}
	}
	if err := c.run(s, args, rest); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}

// Do runs one command line and prints its error, if any; it reports
// whether the command succeeded.
func (s *Session) Do(line string) bool {
	if err := s.Exec(line); err != nil {
		fmt.Fprintf(s.out, "error: %v\n", err)
		return false
	}
	return true
}

// MaxCommandLine is the longest line RunScript reads as commands; a longer
// one is an error of its own and is skipped.
const MaxCommandLine = 1 << 20

// RunScript runs the commands of r, one a line, until the end or quit,
// echoing each after the prompt when echo is set so that the output reads
// like a session. A line longer than MaxCommandLine fails and is skipped.
// It returns an error wrapping ErrCommands if any failed.
func (s *Session) RunScript(r io.Reader, echo bool) error {
	br := bufio.NewReader(r)
	failed := 0
	for n := 1; !s.done; n++ {
		line, long, err := readLine(br, MaxCommandLine)
		if err != nil && err != io.EOF {
			return fmt.Errorf("reading commands: line %d: %w", n, err)
		}
		if long > 0 {
			fmt.Fprintf(s.out, "error: line %d is %d bytes long, over the %d bytes (1 MiB) a command line may have: skipped\n", n, long, MaxCommandLine)
			failed++
		}
		for _, c := range SplitCommands(line) {
			if s.done {
				break
			}
			if echo {
				fmt.Fprintln(s.out, s.Prompt()+c)
			}
			if !s.Do(c) {
				failed++
			}
		}
		if err == io.EOF {
			break
		}
	}
	if failed > 0 {
		return fmt.Errorf("%w: %d", ErrCommands, failed)
	}
	return nil
}

// readLine reads one line of r without its end ("\n" or "\r\n"). A line
// of more than limit bytes is read to its end and dropped: readLine returns
// "" and the line's length. The error is io.EOF at the end of r.
func readLine(r *bufio.Reader, limit int) (line string, long int, err error) {
	var b, tail []byte // the line, and its last two bytes
	n := 0             // the line's bytes, its end included
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		if len(b) <= limit+2 { // a longer line is dropped: keep no more of it
			b = append(b, chunk...)
		}
		tail = append(tail, chunk...)
		tail = tail[max(0, len(tail)-2):]
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil && err != io.EOF:
			return "", 0, err
		}
		end := 0
		if bytes.HasSuffix(tail, []byte("\r\n")) {
			end = 2
		} else if bytes.HasSuffix(tail, []byte("\n")) {
			end = 1
		}
		if n-end > limit {
			return "", n - end, err
		}
		return string(b[:len(b)-end]), 0, err
	}
}

// SplitCommands splits a line such as "j 5; filediff" into commands at
// semicolons outside quotes; "\;" is a semicolon inside a command.
func SplitCommands(line string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs) && rs[i+1] == ';':
			b.WriteRune(';')
			i++
		case quote != 0:
			if r == quote {
				quote = 0
			}
			b.WriteRune(r)
		case r == '"' || r == '\'':
			quote = r
			b.WriteRune(r)
		case r == ';':
			if c := strings.TrimSpace(b.String()); c != "" {
				out = append(out, c)
			}
			b.Reset()
		default:
			b.WriteRune(r)
		}
	}
	if c := strings.TrimSpace(b.String()); c != "" {
		out = append(out, c)
	}
	return out
}

// splitArgs splits a command's arguments at spaces, keeping quoted text
// ("..." or '...') together.
func splitArgs(s string) ([]string, error) {
	var out []string
	var b strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote %c", quote)
	}
	if in {
		out = append(out, b.String())
	}
	return out, nil
}

// unquote strips one pair of matching quotes around s.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// eventLine describes step n of the current path.
func (s *Session) eventLine(p *path, n int) string {
	if n == 0 {
		return "initial state"
	}
	return p.events[n-1].String()
}

// cycle returns the lasso's cycle when p is the error path of a lasso
// trace: state start is where the cycle starts, and transitions start+1 ..
// start+n form it, returning to state start's state.
func (s *Session) cycle(p *path) (start, n int, ok bool) {
	t := s.errT
	// Compared without adding: a corrupt trace's start and length could
	// overflow their sum.
	if p != s.paths[0] || t.CycleLen <= 0 || t.CycleStart < 0 || t.CycleStart > p.steps() || t.CycleLen > p.steps()-t.CycleStart {
		return 0, 0, false
	}
	return t.CycleStart, t.CycleLen, true
}

// cycleTag marks step n of p within the lasso's cycle: "cycle i/L", i
// transitions into it; "" outside it.
func (s *Session) cycleTag(p *path, n int) string {
	start, l, ok := s.cycle(p)
	if !ok || n < start || n > start+l {
		return ""
	}
	tag := fmt.Sprintf("cycle %d/%d", n-start, l)
	switch n {
	case start:
		tag += ", its first state"
	case start + l:
		tag += fmt.Sprintf(", back at step %d's state", start)
	}
	return tag
}

// tags returns the markers of step n on path p: critical, cycle, end.
func (s *Session) tags(p *path, n int) string {
	var t []string
	if c := s.critStep(); c >= 0 && n == c && (p == s.paths[0] || sharedSteps(p, s.paths[0]) >= c) {
		// A path that shares the error path up to the critical step
		// (a branch made after it) has the same first dead state.
		t = append(t, "critical")
	}
	if c := s.cycleTag(p, n); c != "" {
		t = append(t, c)
	}
	if s.live != nil && (p == s.paths[0] || p == s.live) && n == s.shared && s.shared < p.steps() {
		t = append(t, "last shared")
	}
	if n == p.steps() {
		if p.endErr != nil {
			t = append(t, "end: "+p.endErr.Error())
		} else {
			t = append(t, "end")
		}
	}
	if len(t) == 0 {
		return ""
	}
	return " [" + strings.Join(t, ", ") + "]"
}

// critAlternative says, when step n of p is the step that takes another
// transition instead of the error path's critical one (p leaves the error
// path just before its critical step, as the live path does), that it is
// not the critical step; "" otherwise.
func (s *Session) critAlternative(p *path, n int) string {
	c := s.critStep()
	if p == s.paths[0] || c <= 0 || n != c || sharedSteps(p, s.paths[0]) != c-1 {
		return ""
	}
	return fmt.Sprintf("(the %s path leaves the error path after step %d: its step %d follows the transition it takes instead of the critical one, and is no dead state; path error, then j crit, shows the critical step)", p.name, c-1, c)
}

// where prints the current position.
func (s *Session) where() {
	fmt.Fprintf(s.out, "step %d/%d%s: %s\n", s.pos, s.p.steps(), s.tags(s.p, s.pos), s.eventLine(s.p, s.pos))
}

// stepArg parses a step: N, +N, -N (relative), crit, cycle, home, end.
func (s *Session) stepArg(a string, p *path) (int, error) {
	switch strings.ToLower(a) {
	case "cycle", "cyc", "loop":
		t := s.errT
		if t.CycleLen <= 0 {
			return 0, fmt.Errorf("the trace has no lasso cycle (a search records one when it finds a lasso: a fair cycle of its state graph, or --lasso in its walks)")
		}
		if t.CycleStart < 0 || t.CycleStart > p.steps() {
			return 0, fmt.Errorf("the cycle's first state, step %d, is beyond the %s path's %d steps", t.CycleStart, p.name, p.steps())
		}
		return t.CycleStart, nil
	case "crit", "critical", "c":
		if s.liveKind() {
			return 0, fmt.Errorf("%s (the search's error.trace has one)", s.noDeadState())
		}
		if s.errT.Condition == "C2" && s.errT.CycleLen > 0 {
			return 0, fmt.Errorf("a lasso has no critical transition: its cycle (j cycle) can repeat forever without a live state (the report says whether walks from its states still become live)")
		}
		if s.errT.Condition == "C2" {
			return 0, fmt.Errorf("no critical transition was found within the search depth (C2: not enough evidence): raise the walk depth and run the critical subcommand on the trace again")
		}
		if s.errT.Critical < 0 {
			if s.errT.Kind == trace.KindSafety && s.errT.Property == walks.HangProperty && p.steps() > 0 {
				return 0, fmt.Errorf("a handler that does not return has no critical step; the path ends before the hung step %d (end)", s.paths[0].steps()+1)
			}
			if s.errT.Kind == trace.KindSafety {
				return 0, fmt.Errorf("a safety violation has no critical step; the property fails at the last step (end)")
			}
			return 0, fmt.Errorf("the trace has no critical step")
		}
		if n := sharedSteps(p, s.paths[0]); n+1 < s.errT.Critical {
			return 0, fmt.Errorf("the %s path leaves the error path after step %d, before the error path's critical step %d: it has no such step (path error, then j crit)", p.name, n, s.errT.Critical)
		}
		if s.errT.Critical > p.steps() {
			return 0, fmt.Errorf("the critical step %d is beyond the %s path's %d steps", s.errT.Critical, p.name, p.steps())
		}
		return s.errT.Critical, nil
	case "home", "first", "start", "^":
		return 0, nil
	case "end", "last", "$":
		return p.steps(), nil
	case ".", "here":
		return s.pos, nil
	}
	n, err := strconv.Atoi(a)
	if err != nil {
		return 0, fmt.Errorf("%q is not a step (a number, +N, -N, crit, cycle, home or end)", a)
	}
	if strings.HasPrefix(a, "+") || strings.HasPrefix(a, "-") {
		n += s.pos
	}
	if n < 0 || n > p.steps() {
		return 0, fmt.Errorf("step %s is not on the %s path (0-%d)", a, p.name, p.steps())
	}
	return n, nil
}

// nodeArg parses a node number.
func (s *Session) nodeArg(a string) (int, error) {
	a = strings.TrimPrefix(strings.ToLower(a), "node")
	n, err := strconv.Atoi(a)
	if err != nil {
		return 0, fmt.Errorf("%q is not a node number", a)
	}
	if n < 0 || n >= s.p.cfg.Nodes {
		return 0, fmt.Errorf("there is no node %d (nodes 0-%d)", n, s.p.cfg.Nodes-1)
	}
	return n, nil
}

// countArg parses an optional positive count.
func countArg(args []string, def int) (int, error) {
	if len(args) == 0 {
		return def, nil
	}
	if len(args) > 1 {
		return 0, fmt.Errorf("too many arguments")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a positive count", args[0])
	}
	if n > maxCount {
		// A branch keeps every step it runs (and a snapshot every few):
		// a count of 2^63 would take the machine's memory.
		return 0, fmt.Errorf("%d: at most %d steps a command", n, maxCount)
	}
	return n, nil
}

// maxCount bounds the steps one command moves or runs: 50 times the
// default d_max.
const maxCount = 1_000_000

// involves reports whether ev is an event of node n.
func involves(ev engine.Event, n int) bool {
	return int(ev.Node) == n || (ev.Kind == engine.EvBreak && int(ev.Peer) == n)
}

// moveTo moves to step n of the current path.
func (s *Session) moveTo(n int) error {
	if _, err := s.p.at(n); err != nil {
		return err
	}
	s.pos = n
	return nil
}

// current returns the simulator at the current step.
func (s *Session) current() (*engine.Sim, error) { return s.p.at(s.pos) }

func (s *Session) pathByName(name string) (*path, error) {
	for _, p := range s.paths {
		if p.name == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range s.paths {
		names = append(names, p.name)
	}
	return nil, fmt.Errorf("no path %q (paths: %s)", name, strings.Join(names, ", "))
}

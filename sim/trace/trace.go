package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/rs/zerolog"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Sentinel errors for reading trace files.
var (
	// ErrNotTrace means the file does not start like a macemc trace.
	ErrNotTrace = errors.New("trace: not a macemc trace file")
	// ErrTruncated means the file ends before its recorded length.
	ErrTruncated = errors.New("trace: truncated")
	// ErrCorrupt means the file's checksum or contents do not match.
	ErrCorrupt = errors.New("trace: corrupt")
	// ErrVersion means the file was written by an incompatible format.
	ErrVersion = errors.New("trace: unsupported format version")
)

// magic starts every trace file; formatVersion is the layout that follows.
const (
	magic         = "MACEMCTR"
	formatVersion = 1
)

// ToolVersion is the version of macemc recorded in the traces it writes.
var ToolVersion = "0.1.0"

// Trace is one recorded execution: which system with which parameters,
// and the answers to its choice points. Replaying Choices on the same
// system reproduces the execution exactly.
type Trace struct {
	Tool    string            `msgpack:"tool"`
	System  string            `msgpack:"system"`
	Params  map[string]string `msgpack:"params"`
	Seed    uint64            `msgpack:"seed"`
	Choices []int32           `msgpack:"choices"`
	// Steps is the number of transitions the choices drive.
	Steps int `msgpack:"steps"`
	// FailuresUntil is the step from which failures were off (0: never).
	FailuresUntil int `msgpack:"failures_until"`
	// NoFailures records that failures were off throughout.
	NoFailures bool `msgpack:"no_failures"`
	// Properties are the properties the run checked (empty: all).
	Properties []string `msgpack:"properties"`
	// Faults, when set, overrode the system's failure budgets and filters
	// (sim.ParseFailures' form); replay applies it again.
	Faults string `msgpack:"faults"`
	// Kind says what the trace shows (KindLiveness, KindSafety, ...).
	Kind Kind `msgpack:"kind"`
	// Property is the violated property, if any.
	Property string `msgpack:"property"`
	// Depth is the bounded search depth: liveness counts only beyond it.
	Depth int `msgpack:"depth"`
	// WalkDepth is d_max (at most MaxWalkDepth).
	WalkDepth int `msgpack:"walk_depth"`
	// Critical is the critical step (-1 when unknown), Condition C1 or C2.
	Critical  int    `msgpack:"critical"`
	Condition string `msgpack:"condition"`
	// Shared is, for a live alternative, the number of steps it shares
	// with the dead path.
	Shared int `msgpack:"shared"`
	// Lasso: the cycle's first step and its length, when Kind says so.
	CycleStart int    `msgpack:"cycle_start"`
	CycleLen   int    `msgpack:"cycle_len"`
	Note       string `msgpack:"note"`
	// HandlerTimeout is the watchdog's timeout of the search that found a
	// handler that did not return (kind "safety", property "handler did
	// not return"; zero otherwise): replay runs the step after Steps, the
	// hung one, under it.
	HandlerTimeout time.Duration `msgpack:"handler_timeout,omitempty"`
	// Build names the binary that wrote the trace (BuildID), and
	// HashVersion its engine.HashVersion.
	Build       string `msgpack:"build,omitempty"`
	HashVersion int    `msgpack:"hash_version,omitempty"`
	// States fingerprints the recorded execution (Stamp): the state hash
	// (engine.Sim.Hash) after each step StateSteps(Steps) lists, 8 bytes
	// each, little endian; empty when not recorded. A replay compares its
	// states with them (Checker): a trace replayed by a build of the
	// system that behaves differently says where, instead of showing
	// another execution as if it were the recorded one.
	States []byte `msgpack:"states,omitempty"`
	// Sys, when set, is the system itself, which Config builds instead of
	// looking System up among the registered systems: a search sets it on
	// the traces it makes, so that a library user's system need not be
	// registered for the search to write its files. It is never written.
	Sys *sim.System `msgpack:"-"`
}

// Kind says what a trace shows. Trace files store it as its text, so
// files written before it was a type read back the same.
type Kind string

// The kinds of traces.
const (
	// KindLiveness: a liveness violation (a dead state, a lasso, a
	// temperature alarm, a linearizability violation's path).
	KindLiveness Kind = "liveness"
	// KindSafety: a safety violation or a handler failure.
	KindSafety Kind = "safety"
	// KindNondeterministic: a path whose replays diverged.
	KindNondeterministic Kind = "nondeterministic"
	// KindLive: the live alternative of a critical transition.
	KindLive Kind = "live"
	// KindPrefix: a live steady-state prefix the search started from.
	KindPrefix Kind = "prefix"
	// KindMinimized: the minimized doomed path (critical.Minimize).
	KindMinimized Kind = "minimized"
)

// Options returns the simulator options that replay this trace.
func (t *Trace) Options() engine.Options {
	return engine.Options{NoFailures: t.NoFailures, FailuresUntil: t.FailuresUntil}
}

// Config looks up the trace's system (or takes Sys) and builds its config
// with the recorded parameters and property selection.
func (t *Trace) Config() (*sim.Config, error) {
	sys := t.Sys
	if sys == nil {
		var err error
		if sys, err = sim.Lookup(t.System); err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
	}
	cfg, _, err := sys.Config(t.Params)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if err := cfg.Select(t.Properties); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if t.Faults != "" {
		if cfg.Failures, err = sim.ParseFailures(cfg.Failures, t.Faults); err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("trace: faults %s: %w", t.Faults, err)
		}
	}
	return cfg, nil
}

// Replay rebuilds the trace's execution up to step steps (all of it when
// steps < 0), logging to logger when it is not nil.
func (t *Trace) Replay(steps int, logger *zerolog.Logger) (*engine.Sim, error) {
	cfg, err := t.Config()
	if err != nil {
		return nil, err
	}
	opts := t.Options()
	opts.Logger = logger
	if steps < 0 {
		steps = t.Steps
	}
	return engine.Replay(cfg, t.Choices, steps, opts)
}

// Marshal encodes the trace: magic, format version, body length, the
// msgpack body and its xxhash checksum. Equal traces give equal bytes.
func (t *Trace) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(formatVersion)
	b.Write(make([]byte, 8)) // the body length, below
	if err := t.encode(&b); err != nil {
		return nil, fmt.Errorf("trace: encode: %w", err)
	}
	data := b.Bytes()
	body := data[headLen:]
	binary.LittleEndian.PutUint64(data[len(magic)+1:headLen], uint64(len(body)))
	return binary.LittleEndian.AppendUint64(data, xxhash.Sum64(body)), nil
}

// headLen is the length of the header: magic, version, body length.
const headLen = len(magic) + 1 + 8

// Unmarshal decodes a trace, telling apart a file that is not a trace,
// a truncated one and a corrupt one. Every length the file declares is
// checked against the bytes there and against MaxBody and MaxChoices
// before anything is allocated, and what the trace says is checked by
// Validate.
func Unmarshal(data []byte) (*Trace, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, ErrNotTrace
	}
	if len(data) < headLen {
		return nil, fmt.Errorf("%w: %d bytes, header needs %d", ErrTruncated, len(data), headLen)
	}
	if v := data[len(magic)]; v != formatVersion {
		return nil, fmt.Errorf("%w %d (this macemc reads %d)", ErrVersion, v, formatVersion)
	}
	n := binary.LittleEndian.Uint64(data[len(magic)+1 : headLen])
	if n > MaxBody {
		return nil, fmt.Errorf("%w: body length %d, at most %d allowed", ErrCorrupt, n, MaxBody)
	}
	// Compare without computing n+8, which would wrap around for a length
	// near 2^64 (a corrupt or hostile file).
	if rest := uint64(len(data) - headLen); rest < 8 || n > rest-8 {
		return nil, fmt.Errorf("%w: %d bytes, body length %d needs more", ErrTruncated, len(data), n)
	}
	body := data[headLen : headLen+int(n)]
	sum := binary.LittleEndian.Uint64(data[headLen+int(n) : headLen+int(n)+8])
	if xxhash.Sum64(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if len(data) != headLen+int(n)+8 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(data)-headLen-int(n)-8)
	}
	t, err := decodeBody(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// Read reads and decodes a trace file. It reads regular files only (a
// FIFO or device could block or never end), and no more than the header
// declares.
func Read(path string) (*Trace, error) {
	data, err := ReadRegular(path, int64(headLen+MaxBody+8))
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrCorrupt, err)
	}
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	t, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ErrTooLarge marks a file larger than its reader allows.
var ErrTooLarge = errors.New("file too large")

// ReadRegular reads a whole file that must be a regular file (a FIFO or
// a device could block or never end: ErrNotRegular) of at most max bytes
// (ErrTooLarge). A file that grows while it is read is read up to its size
// when opened, and one byte more (which a decoder then refuses).
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%d bytes, at most %d allowed: %w", fi.Size(), max, ErrTooLarge)
	}
	return io.ReadAll(io.LimitReader(f, fi.Size()+1))
}

// OpenRegular opens a file that must be a regular file (ErrNotRegular
// otherwise: a FIFO or a device could block or never end), for a reader
// that streams it.
func OpenRegular(path string) (*os.File, error) {
	// Stat before opening: opening a FIFO blocks until a writer comes.
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w", path, fileType(fi.Mode()), ErrNotRegular)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is %s: %w", path, fileType(fi.Mode()), ErrNotRegular)
	}
	return f, nil
}

// Write writes the trace file whole or not at all; it replaces only a
// regular file (see WriteAtomic).
func (t *Trace) Write(path string) error {
	data, err := t.Marshal()
	if err != nil {
		return err
	}
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

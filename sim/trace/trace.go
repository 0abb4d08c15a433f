package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cespare/xxhash/v2"
	"github.com/rs/zerolog"
	"github.com/vmihailenco/msgpack/v5"

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
	// Kind says what the trace shows: "liveness", "safety", "live", "prefix".
	Kind string `msgpack:"kind"`
	// Property is the violated property, if any.
	Property string `msgpack:"property"`
	// Depth is the bounded search depth: liveness counts only beyond it.
	Depth int `msgpack:"depth"`
	// WalkDepth is d_max.
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
}

// Options returns the simulator options that replay this trace.
func (t *Trace) Options() engine.Options {
	return engine.Options{NoFailures: t.NoFailures, FailuresUntil: t.FailuresUntil}
}

// Config looks up the trace's system and builds its config with the
// recorded parameters and property selection.
func (t *Trace) Config() (*sim.Config, error) {
	sys, err := sim.Lookup(t.System)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	cfg, _, err := sys.Config(t.Params)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if err := cfg.Select(t.Properties); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
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
// msgpack body and its xxhash checksum. Map keys (Params) are written in
// sorted order, so the same trace always gives the same bytes.
func (t *Trace) Marshal() ([]byte, error) {
	var body bytes.Buffer
	enc := msgpack.NewEncoder(&body)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(t); err != nil {
		return nil, fmt.Errorf("trace: encode: %w", err)
	}
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(formatVersion)
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(body.Len())))
	b.Write(body.Bytes())
	b.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(body.Bytes())))
	return b.Bytes(), nil
}

// Unmarshal decodes a trace, telling apart a file that is not a trace,
// a truncated one and a corrupt one.
func Unmarshal(data []byte) (*Trace, error) {
	head := len(magic) + 1 + 8
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, ErrNotTrace
	}
	if len(data) < head {
		return nil, fmt.Errorf("%w: %d bytes, header needs %d", ErrTruncated, len(data), head)
	}
	if v := data[len(magic)]; v != formatVersion {
		return nil, fmt.Errorf("%w %d (this macemc reads %d)", ErrVersion, v, formatVersion)
	}
	n := binary.LittleEndian.Uint64(data[len(magic)+1 : head])
	// Compare without computing n+8, which would wrap around for a length
	// near 2^64 (a corrupt or hostile file).
	if rest := uint64(len(data) - head); rest < 8 || n > rest-8 {
		return nil, fmt.Errorf("%w: %d bytes, body length %d needs more", ErrTruncated, len(data), n)
	}
	body := data[head : head+int(n)]
	sum := binary.LittleEndian.Uint64(data[head+int(n) : head+int(n)+8])
	if xxhash.Sum64(body) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if len(data) != head+int(n)+8 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(data)-head-int(n)-8)
	}
	var t Trace
	if err := msgpack.Unmarshal(body, &t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if t.Steps < 0 || t.System == "" {
		return nil, fmt.Errorf("%w: no system or negative step count", ErrCorrupt)
	}
	return &t, nil
}

// Read reads and decodes a trace file.
func Read(path string) (*Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	t, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Write writes the trace file whole or not at all.
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

// WriteAtomic writes a file through a temporary file in the same directory
// and renames it into place, so a reader never sees half of it.
func WriteAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	// CreateTemp makes the file private (0600); results are ordinary files.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Clean up in a deferred function, so that a write callback that
	// panics does not leave the temporary file behind either.
	closed, renamed := false, false
	defer func() {
		if !closed {
			f.Close()
		}
		if !renamed {
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	closed = true
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	renamed = true
	return nil
}

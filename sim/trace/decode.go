package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"
)

// Bounds on what a trace file may declare. A file is untrusted input: its
// length fields are checked against these and against the bytes actually
// there before anything is allocated.
const (
	// MaxChoices bounds a trace's choices (and so its steps: every step
	// records at least one choice). The longest trace a search writes has
	// about d_max + depth + prefix steps of one to three choices each;
	// this is 2^26, six times the longest with the largest d_max.
	MaxChoices = 1 << 26
	// MaxWalkDepth bounds a trace's d_max (WalkDepth) and search depth:
	// search's --walk-depth range (search.MaxWalkDepth).
	MaxWalkDepth = 10_000_000
	// MaxBody bounds the msgpack body: MaxChoices choices of at most five
	// bytes each, the states of as many steps (States), plus room for the
	// rest.
	MaxBody = 5*MaxChoices + 8*(denseSteps+1+MaxChoices/sparseEvery+1) + 1<<20
	// maxDepth bounds the nesting of values the decoder skips (fields of a
	// newer format): a file of nested one-element arrays would otherwise
	// recurse once per byte.
	maxDepth = 32
)

// remaining is the rest of the body: how many bytes are left to decode,
// and a reader of them.
type remaining interface {
	Len() int
	io.Reader
}

// decoder reads a trace body, checking every declared length against the
// bytes left: a msgpack array of n elements needs at least n bytes, a map
// of n entries at least 2n. The msgpack library's own decoding of a slice
// allocates whatever length the file declares, so fields are decoded one
// by one here instead.
type decoder struct {
	d   *msgpack.Decoder
	buf remaining
}

func decodeBody(body []byte) (*Trace, error) {
	r := bytes.NewReader(body)
	dc := &decoder{d: msgpack.NewDecoder(r), buf: r}
	t, err := dc.trace()
	if err != nil {
		return nil, err
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%d bytes after the trace", r.Len())
	}
	return t, nil
}

// length checks a declared count of items of at least min bytes each.
func (dc *decoder) length(n, min int, what string) error {
	if n < -1 {
		return fmt.Errorf("%s: length %d", what, n)
	}
	if n > 0 && n > dc.buf.Len()/min {
		return fmt.Errorf("%s: %d elements declared, only %d bytes left", what, n, dc.buf.Len())
	}
	return nil
}

func (dc *decoder) trace() (*Trace, error) {
	n, err := dc.d.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errors.New("the body is nil, not a trace")
	}
	if err := dc.length(n, 2, "trace"); err != nil {
		return nil, err
	}
	t := &Trace{}
	seen := map[string]bool{}
	for range n {
		key, err := dc.d.DecodeString()
		if err != nil {
			return nil, fmt.Errorf("field name: %w", err)
		}
		if seen[key] {
			return nil, fmt.Errorf("field %q twice", key)
		}
		seen[key] = true
		if err := dc.field(t, key); err != nil {
			return nil, fmt.Errorf("field %q: %w", key, err)
		}
	}
	return t, nil
}

func (dc *decoder) field(t *Trace, key string) error {
	var err error
	d := dc.d
	switch key {
	case "tool":
		t.Tool, err = d.DecodeString()
	case "system":
		t.System, err = d.DecodeString()
	case "params":
		t.Params, err = dc.stringMap()
	case "seed":
		t.Seed, err = d.DecodeUint64()
	case "choices":
		t.Choices, err = dc.int32s()
	case "steps":
		t.Steps, err = d.DecodeInt()
	case "failures_until":
		t.FailuresUntil, err = d.DecodeInt()
	case "no_failures":
		t.NoFailures, err = d.DecodeBool()
	case "properties":
		t.Properties, err = dc.strings()
	case "kind":
		var k string
		k, err = d.DecodeString()
		t.Kind = Kind(k)
	case "property":
		t.Property, err = d.DecodeString()
	case "depth":
		t.Depth, err = d.DecodeInt()
	case "walk_depth":
		t.WalkDepth, err = d.DecodeInt()
	case "critical":
		t.Critical, err = d.DecodeInt()
	case "condition":
		t.Condition, err = d.DecodeString()
	case "shared":
		t.Shared, err = d.DecodeInt()
	case "cycle_start":
		t.CycleStart, err = d.DecodeInt()
	case "cycle_len":
		t.CycleLen, err = d.DecodeInt()
	case "note":
		t.Note, err = d.DecodeString()
	case "faults":
		t.Faults, err = d.DecodeString()
	case "build":
		t.Build, err = d.DecodeString()
	case "hash_version":
		t.HashVersion, err = d.DecodeInt()
	case "states":
		t.States, err = dc.bytes(8*stateCount(MaxChoices), "states")
	case "handler_timeout":
		var ns int64
		ns, err = d.DecodeInt64()
		t.HandlerTimeout = time.Duration(ns)
	default:
		// A field of a newer format: skip it.
		err = dc.skip(0)
	}
	return err
}

func (dc *decoder) int32s() ([]int32, error) {
	n, err := dc.d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if err := dc.length(n, 1, "choices"); err != nil {
		return nil, err
	}
	if n > MaxChoices {
		return nil, fmt.Errorf("%d choices, at most %d allowed", n, MaxChoices)
	}
	if n < 0 {
		return nil, nil
	}
	out := make([]int32, n)
	for i := range out {
		if out[i], err = dc.d.DecodeInt32(); err != nil {
			return nil, fmt.Errorf("choice %d: %w", i, err)
		}
	}
	return out, nil
}

// bytes reads a msgpack bin of at most max bytes.
func (dc *decoder) bytes(max int, what string) ([]byte, error) {
	n, err := dc.d.DecodeBytesLen()
	if err != nil {
		return nil, err
	}
	if err := dc.length(n, 1, what); err != nil {
		return nil, err
	}
	if n > max {
		return nil, fmt.Errorf("%s: %d bytes, at most %d allowed", what, n, max)
	}
	if n < 0 {
		return nil, nil
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(dc.buf, out); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

func (dc *decoder) strings() ([]string, error) {
	n, err := dc.d.DecodeArrayLen()
	if err != nil {
		return nil, err
	}
	if err := dc.length(n, 1, "list"); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, nil
	}
	out := make([]string, n)
	for i := range out {
		if out[i], err = dc.d.DecodeString(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (dc *decoder) stringMap() (map[string]string, error) {
	n, err := dc.d.DecodeMapLen()
	if err != nil {
		return nil, err
	}
	if err := dc.length(n, 2, "map"); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, nil
	}
	out := make(map[string]string, n)
	for range n {
		k, err := dc.d.DecodeString()
		if err != nil {
			return nil, err
		}
		v, err := dc.d.DecodeString()
		if err != nil {
			return nil, err
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("key %q twice", k)
		}
		out[k] = v
	}
	return out, nil
}

// skip skips one value, refusing nesting deeper than maxDepth.
func (dc *decoder) skip(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("values nested deeper than %d", maxDepth)
	}
	c, err := dc.d.PeekCode()
	if err != nil {
		return err
	}
	per := 0
	switch {
	case msgpcode.IsFixedArray(c) || c == msgpcode.Array16 || c == msgpcode.Array32:
		per = 1
	case msgpcode.IsFixedMap(c) || c == msgpcode.Map16 || c == msgpcode.Map32:
		per = 2
	default:
		return dc.d.Skip() // a scalar, string, binary or extension
	}
	var n int
	if per == 1 {
		n, err = dc.d.DecodeArrayLen()
	} else {
		n, err = dc.d.DecodeMapLen()
	}
	if err != nil {
		return err
	}
	if err := dc.length(n, per, "skipped value"); err != nil {
		return err
	}
	for range n * per {
		if err := dc.skip(depth + 1); err != nil {
			return err
		}
	}
	return nil
}

// encode writes the trace's msgpack body; map keys (the parameters) are
// sorted, so that equal traces have equal bytes.
func (t *Trace) encode(w io.Writer) error {
	enc := msgpack.NewEncoder(w)
	enc.SetSortMapKeys(true)
	return enc.Encode(t)
}

// Validate checks what a trace declares is consistent: counts are not
// negative, every step has its choice, and a lasso's cycle lies within the
// steps. Unmarshal refuses a trace that fails it, with ErrCorrupt.
func (t *Trace) Validate() error {
	switch {
	case t.System == "":
		return fmt.Errorf("%w: no system", ErrCorrupt)
	case len(t.Choices) > MaxChoices:
		return fmt.Errorf("%w: %d choices, at most %d allowed", ErrCorrupt, len(t.Choices), MaxChoices)
	case t.Steps < 0 || t.Steps > len(t.Choices):
		return fmt.Errorf("%w: %d steps with %d choices (every step makes at least one)", ErrCorrupt, t.Steps, len(t.Choices))
	case t.HandlerTimeout < 0 || t.HandlerTimeout > 0 && (t.HandlerTimeout < time.Millisecond || t.HandlerTimeout > time.Hour):
		return fmt.Errorf("%w: handler timeout %v (a search's is 1ms to 1h)", ErrCorrupt, t.HandlerTimeout)
	case t.FailuresUntil < 0 || t.Depth < 0 || t.WalkDepth < 0 || t.Shared < 0:
		return fmt.Errorf("%w: a negative count (failures_until %d, depth %d, walk_depth %d, shared %d)", ErrCorrupt,
			t.FailuresUntil, t.Depth, t.WalkDepth, t.Shared)
	case t.WalkDepth > MaxWalkDepth || t.Depth > MaxWalkDepth:
		// Walks of d_max steps are what replays and probes run: a
		// declared d_max is checked before anything runs that long.
		return fmt.Errorf("%w: walk_depth %d, depth %d (a search's are at most %d)", ErrCorrupt, t.WalkDepth, t.Depth, MaxWalkDepth)
	case t.Critical < -1:
		return fmt.Errorf("%w: critical step %d", ErrCorrupt, t.Critical)
	case len(t.States)%8 != 0 || len(t.States)/8 > stateCount(t.Steps):
		return fmt.Errorf("%w: %d bytes of states for %d steps (8 bytes for each of at most %d)", ErrCorrupt, len(t.States), t.Steps, stateCount(t.Steps))
	case t.CycleStart < 0 || t.CycleLen < 0:
		return fmt.Errorf("%w: cycle from step %d of length %d", ErrCorrupt, t.CycleStart, t.CycleLen)
	case t.CycleLen > 0 && (t.CycleStart > t.Steps || t.CycleLen > t.Steps-t.CycleStart):
		return fmt.Errorf("%w: a cycle of %d steps from step %d does not fit in %d steps", ErrCorrupt, t.CycleLen, t.CycleStart, t.Steps)
	}
	return nil
}

package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// relay: node 0's driver sends N tokens around a ring; a Rand and a timer
// make the execution depend on choices of every kind.
type relay struct {
	sim.Base
	Limit int `macemc:"-"` // the relaying stops at tokens this high
	Seen  []int
}

type token struct{ N int }

// relayLimit stands for the relay's code: a trace recorded with one limit
// and replayed with another is replayed by another build of the system.
var relayLimit = 8

// setRelayLimit changes relayLimit and returns what restores it.
func setRelayLimit(limit int) (restore func()) {
	old := relayLimit
	relayLimit = limit
	return func() { relayLimit = old }
}

func (r *relay) HandleApp(ctx *sim.Context, req any) {
	ctx.Send((ctx.Self()+1)%sim.NodeID(ctx.Nodes()), token{N: req.(int) + ctx.Rand(3)})
	ctx.SetTimer("t")
}

func (r *relay) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	t := m.(token)
	r.Seen = append(r.Seen, t.N)
	if t.N < r.Limit {
		ctx.SendDatagram((ctx.Self()+1)%sim.NodeID(ctx.Nodes()), token{N: t.N + 1})
	}
}

func init() {
	sim.Register(&sim.System{
		Name:   "tracetest-relay",
		Params: []sim.ParamSpec{{Name: "nodes", Kind: sim.ParamInt, Default: "3"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			limit := relayLimit
			return &sim.Config{
				Nodes:   p.Int("nodes"),
				Service: func(sim.NodeID) sim.Service { return &relay{Limit: limit} },
				App: func(id sim.NodeID) []any {
					if id == 0 {
						return []any{1, 2, 3}
					}
					return nil
				},
				Liveness: []sim.Property{{Name: "Busy", Check: func(v *sim.View) bool { return v.InFlight() > 0 }}},
				Safety:   []sim.Property{{Name: "Small", Check: func(v *sim.View) bool { return true }}},
				Failures: sim.Failures{Drops: 1, Resets: 1, Reorder: true},
			}, nil
		},
	})
}

// recorded runs the relay system with a seed and returns its trace and
// final simulator.
func recorded(t *testing.T, seed uint64) (*trace.Trace, *engine.Sim) {
	t.Helper()
	sys, err := sim.Lookup("tracetest-relay")
	if err != nil {
		t.Fatal(err)
	}
	cfg, p, err := sys.Config(map[string]string{"nodes": "4"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(seed), FailuresUntil: 10})
	if err != nil {
		t.Fatal(err)
	}
	for s.Steps() < 40 {
		ok, err := s.Step()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
	}
	tr := &trace.Trace{
		Tool: trace.ToolVersion, System: "tracetest-relay", Params: p, Seed: seed,
		Choices: s.ChoiceValues(), Steps: s.Steps(), FailuresUntil: 10,
		Properties: []string{"Busy"}, Kind: "liveness", Property: "Busy",
		Depth: 5, WalkDepth: 40, Critical: 7, Condition: "C1", Shared: 3,
		CycleStart: 2, CycleLen: 4, Note: "ünïcode note",
	}
	return tr, s
}

func TestRoundTrip(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		tr, s := recorded(t, seed)
		path := filepath.Join(t.TempDir(), "x.trace")
		if err := tr.Write(path); err != nil {
			t.Fatal(err)
		}
		got, err := trace.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tr) {
			t.Fatalf("round trip:\n%+v\n%+v", got, tr)
		}
		// Replaying the trace reaches the same state, with the same log.
		r, err := got.Replay(-1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Hash() != s.Hash() || r.Steps() != s.Steps() || r.FailuresUntil() != 10 {
			t.Fatalf("replayed trace: %d steps hash %x, want %d %x", r.Steps(), r.Hash(), s.Steps(), s.Hash())
		}
		var l1, l2 bytes.Buffer
		if _, err := got.Replay(-1, engine.NewLogger(&l1)); err != nil {
			t.Fatal(err)
		}
		if _, err := got.Replay(-1, engine.NewLogger(&l2)); err != nil {
			t.Fatal(err)
		}
		if l1.Len() == 0 || !bytes.Equal(l1.Bytes(), l2.Bytes()) {
			t.Fatal("replay logs differ or are empty")
		}
		// A prefix.
		r5, err := got.Replay(5, nil)
		if err != nil || r5.Steps() != 5 {
			t.Fatalf("replay 5: %v", err)
		}
		// The property selection applies.
		cfg, err := got.Config()
		if err != nil || len(cfg.Liveness) != 1 || len(cfg.Safety) != 0 || cfg.Nodes != 4 {
			t.Fatalf("Config: %v", err)
		}
		// Marshal is deterministic.
		a, _ := tr.Marshal()
		b, _ := got.Marshal()
		if !bytes.Equal(a, b) {
			t.Fatal("Marshal of equal traces differs")
		}
	}
}

// TestHandlerTimeoutRoundTrip: a hung handler's trace keeps the search's
// watchdog timeout, and a trace without one encodes as before (the field is
// left out).
func TestHandlerTimeoutRoundTrip(t *testing.T) {
	tr, _ := recorded(t, 1)
	without, err := tr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(without, []byte("handler_timeout")) {
		t.Fatal("a trace without a handler timeout encodes the field")
	}
	tr.HandlerTimeout = 1500 * time.Millisecond
	data, err := tr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := trace.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.HandlerTimeout != tr.HandlerTimeout || !reflect.DeepEqual(got, tr) {
		t.Fatalf("handler timeout %v after the round trip, want %v", got.HandlerTimeout, tr.HandlerTimeout)
	}
}

func TestTraceConfigErrors(t *testing.T) {
	tr := &trace.Trace{System: "tracetest-missing"}
	if _, err := tr.Config(); !errors.Is(err, sim.ErrUnknownSystem) {
		t.Fatalf("unknown system: %v", err)
	}
	tr = &trace.Trace{System: "tracetest-relay", Params: map[string]string{"bogus": "1"}}
	if _, err := tr.Config(); !errors.Is(err, sim.ErrUnknownParam) {
		t.Fatalf("unknown param: %v", err)
	}
	tr = &trace.Trace{System: "tracetest-relay", Properties: []string{"Nope"}}
	if _, err := tr.Replay(-1, nil); !errors.Is(err, sim.ErrUnknownProperty) {
		t.Fatalf("unknown property: %v", err)
	}
	// Choices that do not fit.
	tr = &trace.Trace{System: "tracetest-relay", Choices: []int32{99}, Steps: 1}
	if _, err := tr.Replay(-1, nil); !errors.Is(err, engine.ErrBadChoice) {
		t.Fatalf("bad choices: %v", err)
	}
}

func sample(t *testing.T) []byte {
	tr, _ := recorded(t, 5)
	data, err := tr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTruncated: every prefix of a real file is refused as truncated or
// not a trace, never with a panic or as a valid trace.
func TestTruncated(t *testing.T) {
	data := sample(t)
	dir := t.TempDir()
	for n := 0; n < len(data); n++ {
		_, err := trace.Unmarshal(data[:n])
		if n < 8 {
			if !errors.Is(err, trace.ErrNotTrace) {
				t.Fatalf("prefix %d: %v", n, err)
			}
			continue
		}
		if !errors.Is(err, trace.ErrTruncated) {
			t.Fatalf("prefix %d of %d: %v", n, len(data), err)
		}
		if n%17 == 0 { // through Read too
			p := filepath.Join(dir, "t")
			if err := os.WriteFile(p, data[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := trace.Read(p); !errors.Is(err, trace.ErrTruncated) || !strings.Contains(err.Error(), p) {
				t.Fatalf("Read prefix %d: %v", n, err)
			}
		}
	}
	if _, err := trace.Unmarshal(data); err != nil {
		t.Fatal(err)
	}
}

// TestCorrupt: a flipped byte in the body or checksum is ErrCorrupt; in
// the header it is ErrNotTrace (magic), ErrVersion (version), or, in the
// length field, ErrTruncated (a longer length) or ErrCorrupt (a shorter
// one). Trailing bytes are ErrCorrupt.
func TestCorrupt(t *testing.T) {
	data := sample(t)
	const head = 8 + 1 + 8
	for i := range data {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(data)
			bad[i] ^= mask
			_, err := trace.Unmarshal(bad)
			var ok bool
			switch {
			case i < 8:
				ok = errors.Is(err, trace.ErrNotTrace)
			case i == 8:
				ok = errors.Is(err, trace.ErrVersion)
			case i < head:
				ok = errors.Is(err, trace.ErrTruncated) || errors.Is(err, trace.ErrCorrupt)
			default:
				ok = errors.Is(err, trace.ErrCorrupt)
			}
			if !ok {
				t.Fatalf("byte %d ^ %#x: %v", i, mask, err)
			}
		}
	}
	if _, err := trace.Unmarshal(append(bytes.Clone(data), 0)); !errors.Is(err, trace.ErrCorrupt) {
		t.Fatalf("trailing byte: %v", err)
	}
}

// TestHugeLength: a length field near 2^64 must be refused, not wrap around
// into a slice panic.
func TestHugeLength(t *testing.T) {
	data := sample(t)
	for _, n := range []uint64{1<<64 - 1, 1<<64 - 8, 1<<64 - 9, 1 << 63, 1<<63 - 1, uint64(len(data))} {
		bad := bytes.Clone(data)
		binary.LittleEndian.PutUint64(bad[9:17], n)
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("length %#x: panic %v", n, r)
				}
			}()
			if _, err := trace.Unmarshal(bad); !errors.Is(err, trace.ErrTruncated) && !errors.Is(err, trace.ErrCorrupt) {
				t.Fatalf("length %#x: %v", n, err)
			}
		}()
	}
}

// TestBadBody: a body with a valid checksum that is not a trace, or lacks a
// system, is ErrCorrupt.
func TestBadBody(t *testing.T) {
	frame := func(body []byte) []byte {
		var b bytes.Buffer
		b.WriteString("MACEMCTR")
		b.WriteByte(1)
		b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(body))))
		b.Write(body)
		b.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(body)))
		return b.Bytes()
	}
	for name, body := range map[string][]byte{
		"garbage":   []byte("\xc1\xc1\xc1"),
		"empty map": {0x80},
		"empty":     {},
	} {
		if _, err := trace.Unmarshal(frame(body)); !errors.Is(err, trace.ErrCorrupt) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := trace.Unmarshal([]byte("#!/bin/sh\necho hello\n")); !errors.Is(err, trace.ErrNotTrace) {
		t.Fatal("a script is not a trace")
	}
	if _, err := trace.Read(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestWriteAtomic: no temp file is left on success or failure, and a failed
// write does not replace the existing file.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.trace")
	if err := trace.WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "first"); return err }); err != nil {
		t.Fatal(err)
	}
	if got := dirEntries(t, dir); len(got) != 1 || got[0] != "out.trace" {
		t.Fatalf("after success: %v", got)
	}
	// A writer that fails halfway.
	boom := errors.New("disk on fire")
	err := trace.WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "second, half writ")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("failing writer: %v", err)
	}
	if got := dirEntries(t, dir); len(got) != 1 {
		t.Fatalf("after failure: %v", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("failed write replaced the file: %q", b)
	}
	// A writer that panics: the temp file is still removed.
	func() {
		defer func() { recover() }()
		trace.WriteAtomic(path, func(w io.Writer) error { io.WriteString(w, "x"); panic("writer panicked") })
	}()
	if got := dirEntries(t, dir); len(got) != 1 {
		t.Fatalf("after a panicking writer: %v", got)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Fatalf("panicking write replaced the file: %q", b)
	}
	// Success replaces.
	if err := trace.WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "third"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "third" {
		t.Fatalf("got %q", b)
	}
	// A directory that does not exist.
	if err := trace.WriteAtomic(filepath.Join(dir, "no", "such"), func(io.Writer) error { return nil }); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	// Trace.Write goes through WriteAtomic.
	tr, _ := recorded(t, 9)
	if err := tr.Write(path); err != nil {
		t.Fatal(err)
	}
	if got := dirEntries(t, dir); len(got) != 1 {
		t.Fatalf("after Trace.Write: %v", got)
	}
	if _, err := trace.Read(path); err != nil {
		t.Fatal(err)
	}
}

// FuzzUnmarshal: Unmarshal never panics and never allocates much more
// than the input; what it accepts is a valid trace that re-encodes to a
// trace that decodes the same. The corpus is in testdata/fuzz (real
// traces, truncations and the hostile lengths of TestHostileLengths);
// scripts/test.sh fuzzes it briefly.
func FuzzUnmarshal(f *testing.F) {
	tr := &trace.Trace{System: "s", Choices: []int32{1, 2, 3}, Steps: 2}
	data, _ := tr.Marshal()
	f.Add(data)
	f.Add(data[:20])
	f.Add([]byte("MACEMCTR\x01\xff\xff\xff\xff\xff\xff\xff\xff"))
	// A stamped trace: build, hash version and states.
	stamped := &trace.Trace{System: "s", Choices: []int32{1, 2, 3}, Steps: 2, Build: "a/b", HashVersion: 1, States: make([]byte, 24)}
	data, _ = stamped.Marshal()
	f.Add(data)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := trace.Unmarshal(b)
		if err != nil {
			if !errors.Is(err, trace.ErrNotTrace) && !errors.Is(err, trace.ErrTruncated) && !errors.Is(err, trace.ErrCorrupt) && !errors.Is(err, trace.ErrVersion) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		again, err := got.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := trace.Unmarshal(again)
		if err != nil {
			t.Fatalf("re-encoded trace does not decode: %v", err)
		}
		if third, _ := back.Marshal(); !bytes.Equal(third, again) {
			t.Fatal("re-encoding is not stable")
		}
	})
}

// TestMarshalSortsParams: a trace's bytes do not depend on Go's map order:
// the parameters are written in sorted order, every time.
func TestMarshalSortsParams(t *testing.T) {
	tr := &trace.Trace{System: "s", Params: map[string]string{}, Steps: 1}
	for _, k := range strings.Split("nodes messages retries drops resets fixed seed depth width extra", " ") {
		tr.Params[k] = k + "-value"
	}
	first, err := tr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if again, _ := tr.Marshal(); !bytes.Equal(again, first) {
			t.Fatal("two encodings of the same trace differ")
		}
	}
	if i, j := bytes.Index(first, []byte("depth")), bytes.Index(first, []byte("width")); i < 0 || j < i {
		t.Errorf("parameters not in sorted order: depth at %d, width at %d", i, j)
	}
}

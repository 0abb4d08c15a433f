package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/macemc/macemc/sim/trace"
)

// frame wraps a msgpack body in a trace file's header and checksum, as a
// hostile file that passes the checksum would be.
func frame(body []byte) []byte {
	var b bytes.Buffer
	b.WriteString("MACEMCTR")
	b.WriteByte(1)
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(body))))
	b.Write(body)
	b.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(body)))
	return b.Bytes()
}

// mp builds a msgpack body from raw pieces.
func mp(parts ...any) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		switch v := p.(type) {
		case []byte:
			b.Write(v)
		case string: // a fixstr
			b.WriteByte(0xa0 | byte(len(v)))
			b.WriteString(v)
		case byte:
			b.WriteByte(v)
		}
	}
	return b.Bytes()
}

func u32(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHostileLengths: every length prefix of the msgpack body (the map of
// fields, the choices, the parameters, the property list, a skipped field
// of a newer format) that declares more than the bytes there is refused as
// corrupt without allocating what it declares. The first case is the
// 39-byte file that declared 2^32 choices and made replay allocate 17 GB.
func TestHostileLengths(t *testing.T) {
	cases := map[string][]byte{
		"2^32 choices": mp(byte(0x83), "system", "s", "steps", byte(0), "choices", byte(0xdd), u32(1<<32-1)),
		"2^31 choices": mp(byte(0x82), "system", "s", "choices", byte(0xdd), u32(1<<31)),
		"huge map":     mp(byte(0xdf), u32(1<<32-1), "system", "s"),
		"huge params":  mp(byte(0x82), "system", "s", "params", byte(0xdf), u32(1<<30)),
		"huge props":   mp(byte(0x82), "system", "s", "properties", byte(0xdd), u32(1<<30)),
		"huge skipped": mp(byte(0x82), "system", "s", "future", byte(0xdd), u32(1<<30)),
		"skipped map":  mp(byte(0x82), "system", "s", "future", byte(0xdf), u32(1<<30)),
		"deep nesting": mp(byte(0x82), "system", "s", "future", bytes.Repeat([]byte{0x91}, 100_000), byte(0)),
		"huge string":  mp(byte(0x81), "system", byte(0xdb), u32(1<<31)),
		"trailing":     mp(byte(0x81), "system", "s", byte(0)),
		"nil body":     {0xc0},
		"dup field":    mp(byte(0x82), "system", "s", "system", "t"),
		"dup param":    mp(byte(0x82), "system", "s", "params", byte(0x82), "a", "1", "a", "2"),
		"int key":      mp(byte(0x81), byte(1), byte(2)),
	}
	for name, body := range cases {
		data := frame(body)
		var err error
		n := allocated(func() { _, err = trace.Unmarshal(data) })
		if !errors.Is(err, trace.ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", name, err)
		}
		if n > 4<<20 {
			t.Errorf("%s: allocated %d bytes decoding %d", name, n, len(data))
		}
	}
	if n := len(frame(cases["2^32 choices"])); n != 48 {
		t.Logf("the 2^32-choices file is %d bytes", n)
	}
}

// TestDeclaredCounts: what a well-formed trace declares must be
// consistent: a step needs a choice, counts are not negative, a lasso's
// cycle lies within the steps (without overflowing).
func TestDeclaredCounts(t *testing.T) {
	ok := trace.Trace{System: "s", Choices: []int32{0, 1, 0}, Steps: 3, Critical: -1, CycleStart: 1, CycleLen: 2}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	const big = 1<<62 + 1
	for name, mut := range map[string]func(*trace.Trace){
		"no system":           func(t *trace.Trace) { t.System = "" },
		"steps over choices":  func(t *trace.Trace) { t.Steps = 4 },
		"2^32 steps":          func(t *trace.Trace) { t.Steps = 1 << 32 },
		"negative steps":      func(t *trace.Trace) { t.Steps = -1 },
		"negative failures":   func(t *trace.Trace) { t.FailuresUntil = -1 },
		"negative depth":      func(t *trace.Trace) { t.Depth = -5 },
		"negative walk depth": func(t *trace.Trace) { t.WalkDepth = -5 },
		"negative shared":     func(t *trace.Trace) { t.Shared = -5 },
		"critical -2":         func(t *trace.Trace) { t.Critical = -2 },
		"cycle past end":      func(t *trace.Trace) { t.CycleLen = 3 },
		"cycle start past":    func(t *trace.Trace) { t.CycleStart = 4 },
		"negative cycle":      func(t *trace.Trace) { t.CycleStart = -1 },
		"cycle overflow":      func(t *trace.Trace) { t.CycleStart, t.CycleLen = big, big },
		"negative cycle len":  func(t *trace.Trace) { t.CycleLen = -big },
		"negative timeout":    func(t *trace.Trace) { t.HandlerTimeout = -time.Second },
	} {
		tr := ok
		mut(&tr)
		if err := tr.Validate(); !errors.Is(err, trace.ErrCorrupt) {
			t.Errorf("%s: Validate: %v", name, err)
		}
		// Through a file whose checksum is right.
		data, err := tr.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := trace.Unmarshal(data); !errors.Is(err, trace.ErrCorrupt) {
			t.Errorf("%s: Unmarshal: %v", name, err)
		}
	}
}

// TestSortedParams: the parameters are encoded in key order, so two
// writes of one trace give the same bytes (map iteration order is random).
func TestSortedParams(t *testing.T) {
	p := map[string]string{}
	for _, k := range strings.Fields("nodes fixed messages retries drops resets a b c d e f g h") {
		p[k] = k + "v"
	}
	tr := &trace.Trace{System: "s", Params: p, Choices: []int32{1}, Steps: 1}
	first, err := tr.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		again, _ := tr.Marshal()
		if !bytes.Equal(first, again) {
			t.Fatal("two encodings of the same trace differ")
		}
	}
	if i, j := bytes.Index(first, []byte("drops")), bytes.Index(first, []byte("retries")); i < 0 || j < 0 || i > j {
		t.Fatalf("parameters not in key order: %q", first)
	}
}

// TestReadsPlainMsgpack: a body as msgpack.Marshal writes a Trace (the
// format before the checked decoder, fields in any order) still reads.
func TestReadsPlainMsgpack(t *testing.T) {
	tr, _ := recorded(t, 4)
	body, err := msgpack.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	got, err := trace.Unmarshal(frame(body))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tr.Marshal()
	if again, _ := got.Marshal(); !bytes.Equal(again, want) {
		t.Fatal("a plain msgpack trace did not decode to the same trace")
	}
	// A field of a newer format is skipped.
	m := map[string]any{"system": "s", "choices": []int32{2}, "steps": 1, "future": map[string]any{"x": []any{1, "y"}}}
	body, _ = msgpack.Marshal(m)
	if got, err := trace.Unmarshal(frame(body)); err != nil || got.Steps != 1 || got.Choices[0] != 2 {
		t.Fatalf("unknown field: %v %+v", err, got)
	}
}

// TestOnlyRegularFiles: WriteAtomic and Trace.Write never replace a
// symlink, a device, a FIFO or a directory, and leave what is there as it
// was; Read refuses a FIFO (without blocking on it) and a directory.
func TestOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tr := &trace.Trace{System: "s", Choices: []int32{1}, Steps: 1}
	for _, p := range []string{link, fifo, sub, os.DevNull} {
		if err := tr.Write(p); !errors.Is(err, trace.ErrNotRegular) {
			t.Errorf("Write %s: %v", p, err)
		}
		if err := trace.CheckReplaceable(p); !errors.Is(err, trace.ErrNotRegular) {
			t.Errorf("CheckReplaceable %s: %v", p, err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatal("the FIFO was replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Fatal("the symlink's target changed")
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatal("/dev/null became a regular file")
	}
	if got := dirEntries(t, dir); len(got) != 4 {
		t.Fatalf("temporary files left: %v", got)
	}
	// A regular file is replaced; a missing one created.
	if err := tr.Write(target); err != nil {
		t.Fatal(err)
	}
	if err := trace.CheckReplaceable(filepath.Join(dir, "new")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, sub, os.DevNull} {
		if _, err := trace.Read(p); !errors.Is(err, trace.ErrNotRegular) {
			t.Errorf("Read %s: %v", p, err)
		}
	}
	// Reading through a symlink to a trace is fine.
	if _, err := trace.Read(link); err != nil {
		t.Fatal(err)
	}
}

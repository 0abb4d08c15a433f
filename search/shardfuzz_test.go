package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// shardBytes wraps body in a shard file's header and checksum, so that a
// fuzzed body reaches the decoder instead of failing the checksum.
func shardBytes(body []byte) []byte {
	data := make([]byte, shardHead, shardHead+len(body)+8)
	copy(data, shardMagic)
	data[len(shardMagic)] = shardVersion
	binary.LittleEndian.PutUint64(data[len(shardMagic)+1:], uint64(len(body)))
	data = append(data, body...)
	return binary.LittleEndian.AppendUint64(data, xxhash.Sum64(body))
}

// realShardBody returns the body of a real shard file: shard 1 of 2 of a
// small scheduler search (a few kilobytes, with its violations).
func realShardBody(tb testing.TB) []byte {
	tb.Helper()
	sys, err := sim.Lookup("scheduler")
	if err != nil {
		tb.Fatal(err)
	}
	out := tb.TempDir()
	opts := Options{Seed: 1, MaxPaths: 12, WalkDepth: 30, Out: out}
	if _, err := RunShard(context.Background(), sys, opts, 1, 2); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "shard.records"))
	if err != nil {
		tb.Fatal(err)
	}
	return data[shardHead : len(data)-8]
}

// FuzzUnmarshalShard: decoding a shard file's body never panics and fails
// only with ErrShardFile; a body it accepts encodes back to one that
// decodes to the same search and records, and encodes again to the same
// bytes.
func FuzzUnmarshalShard(f *testing.F) {
	f.Add(realShardBody(f))
	f.Add([]byte{0x99})
	f.Fuzz(func(t *testing.T, body []byte) {
		h, recs, err := UnmarshalShard(shardBytes(body))
		if err != nil {
			if !errors.Is(err, ErrShardFile) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		encode := func(h []byte, recs *explore.ShardRecords) []byte {
			var b bytes.Buffer
			if err := encodeShard(msgpack.NewEncoder(&b), h, recs); err != nil {
				t.Fatal(err)
			}
			return b.Bytes()
		}
		again := encode(h, recs)
		h2, recs2, err := UnmarshalShard(shardBytes(again))
		if err != nil {
			t.Fatalf("an accepted shard written back does not read: %v", err)
		}
		if !bytes.Equal(h, h2) || !reflect.DeepEqual(recs, recs2) {
			t.Fatalf("written back, it reads differently:\n%+v\n%+v", recs, recs2)
		}
		if third := encode(h2, recs2); !bytes.Equal(third, again) {
			t.Fatal("encoding is not stable")
		}
	})
}

// TestLargeCorruptShardInConstantMemory: a shard file of 64 MiB whose
// checksum is wrong (a sparse file, as a crafted one can be) is refused
// after streaming it, without holding it in memory.
func TestLargeCorruptShardInConstantMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), ShardFile)
	const body = 64 << 20
	head := append([]byte(shardMagic), shardVersion)
	head = binary.LittleEndian.AppendUint64(head, body)
	if err := os.WriteFile(path, head, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(head))+body+8); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := ReadShardFile(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrShardFile) {
		t.Fatalf("ReadShardFile: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("allocated %d MiB to refuse it", got>>20)
	}
}

// TestShardFileStreamed: a shard file decoded as it is read (ReadShardFile)
// gives what its bytes decode to (UnmarshalShard), and gives each state's
// graph info once, with its first record: the later records of the state
// repeat it (a merge of 245 MB of shard files held 1 GB before; 123 MB
// and 633 MB now).
func TestShardFileStreamed(t *testing.T) {
	sys, err := sim.Lookup("chord")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	opts := Options{Seed: 1, MaxPaths: 300, WalkDepth: 200, Params: map[string]string{"fixed": "true"}, Out: out}
	if _, err := RunShard(context.Background(), sys, opts, 0, 2); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, ShardFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h1, recs1, err := UnmarshalShard(data)
	if err != nil {
		t.Fatal(err)
	}
	h2, recs2, err := ReadShardFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h1, h2) || !reflect.DeepEqual(recs1, recs2) {
		t.Fatal("the streamed shard file reads differently from its bytes")
	}
	given, repeats := map[uint64]bool{}, 0
	for _, r := range recs1.Rounds {
		for _, task := range r.Tasks {
			for _, rec := range task.Records {
				for i, g := range rec.Graph {
					h := rec.Hashes[i]
					if g.Repeat != given[h] || g.Repeat && g.Units != nil {
						t.Fatalf("state %x: repeat %v, given before %v", h, g.Repeat, given[h])
					}
					if g.Repeat {
						repeats++
					}
					given[h] = true
				}
			}
		}
	}
	if repeats == 0 {
		t.Fatal("no state repeated in 300 paths")
	}
	// The streamed decoder hashes every byte it consumes once (msgpack
	// reads a byte again after UnreadByte), so that the bytes decoded are
	// the bytes checked, whatever happened to the file since its check.
	body := data[shardHead : len(data)-8]
	cr := &countingReader{r: bufio.NewReaderSize(bytes.NewReader(body), 16), left: len(body), sum: xxhash.New()}
	if _, _, err := decodeShardBody(cr); err != nil {
		t.Fatal(err)
	}
	if cr.sum.Sum64() != xxhash.Sum64(body) {
		t.Fatal("the streamed decoder's checksum differs from the body's")
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadShardFile(path); !errors.Is(err, ErrShardFile) {
		t.Fatalf("a flipped byte: %v", err)
	}
}

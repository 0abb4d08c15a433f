package search

import (
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

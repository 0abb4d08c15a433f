package engine_test

import (
	"bytes"
	"testing"

	"github.com/macemc/macemc/sim/engine"
)

type fuzzInner struct {
	Count int
	tags  map[string]int
}

type fuzzState struct {
	M      map[string][]int
	Nested map[uint8]map[string]int
	Ptrs   map[string]*fuzzInner
	Any    map[string]any
	hidden map[int8]sortedSet
}

type fuzzEntry struct {
	key  string
	vals []int
}

// fuzzEntries parses data into entries with distinct keys: a length byte,
// a key of up to 3 bytes, then up to 4 values.
func fuzzEntries(data []byte) []fuzzEntry {
	var out []fuzzEntry
	seen := map[string]bool{}
	for len(data) > 0 {
		n := int(data[0])
		data = data[1:]
		kl := min(n%4, len(data))
		key := string(data[:kl])
		data = data[kl:]
		vl := min(n/4%5, len(data))
		var vals []int
		for _, b := range data[:vl] {
			vals = append(vals, int(int8(b))*(n+1))
		}
		data = data[vl:]
		if !seen[key] {
			seen[key] = true
			out = append(out, fuzzEntry{key, vals})
		}
	}
	return out
}

func fuzzBuild(entries []fuzzEntry, order []int) *fuzzState {
	s := &fuzzState{
		M: map[string][]int{}, Nested: map[uint8]map[string]int{}, Ptrs: map[string]*fuzzInner{},
		Any: map[string]any{}, hidden: map[int8]sortedSet{},
	}
	for _, i := range order {
		e := entries[i]
		s.M[e.key] = e.vals
		var b uint8
		if len(e.key) > 0 {
			b = e.key[0] % 5
		}
		if s.Nested[b] == nil {
			s.Nested[b] = map[string]int{}
		}
		s.Nested[b][e.key] = len(e.vals)
		in := &fuzzInner{Count: len(e.vals), tags: map[string]int{}}
		for j, v := range e.vals {
			in.tags[string(rune('a'+j))] = v
		}
		s.Ptrs[e.key] = in
		switch len(e.vals) % 3 {
		case 0:
			s.Any[e.key] = e.vals
		case 1:
			s.Any[e.key] = in
		default:
			s.Any[e.key] = e.key
		}
		// Several keys share a bucket of the unexported map: the set's
		// order of insertion must not matter either.
		k := int8(len(e.key))
		set := s.hidden[k]
		set.items = append(set.items, len(e.vals))
		s.hidden[k] = set
	}
	return s
}

// FuzzCanonical: two insertion orders of the same entries encode equal, hash
// equal and print equal; encoding never panics.
func FuzzCanonical(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x07ab\x01\x02\x03\x0bxyz\x05\x06"))
	f.Add([]byte("\x13k1\x01\x02\x03\x04\x13k2\x01\x02\x03\x04\x13k3\xff\xfe\x00\x01\x02"))
	f.Add(bytes.Repeat([]byte{0x11, 'a', 0x7f, 0x80}, 40))
	f.Add([]byte{0, 0, 0, 1, 2, 3, 255, 254, 253, 4, 8, 12, 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		entries := fuzzEntries(data)
		fwd := make([]int, len(entries))
		rev := make([]int, len(entries))
		mix := make([]int, 0, len(entries))
		for i := range entries {
			fwd[i] = i
			rev[len(entries)-1-i] = i
		}
		// Even positions then odd ones.
		for i := 0; i < len(entries); i += 2 {
			mix = append(mix, i)
		}
		for i := 1; i < len(entries); i += 2 {
			mix = append(mix, i)
		}
		a, b, c := fuzzBuild(entries, fwd), fuzzBuild(entries, rev), fuzzBuild(entries, mix)
		ea := engine.AppendCanonical(nil, a)
		// The hidden sets are built in different orders; their Canonical()
		// sorts, so everything must still agree.
		if eb := engine.AppendCanonical(nil, b); !bytes.Equal(ea, eb) {
			t.Fatalf("forward and reverse insertion encode differently")
		}
		if ec := engine.AppendCanonical(nil, c); !bytes.Equal(ea, ec) {
			t.Fatalf("forward and mixed insertion encode differently")
		}
		if engine.Hash(a) != engine.Hash(b) || engine.Hash(a) != engine.Hash(c) {
			t.Fatal("hashes differ")
		}
		if engine.FormatValue(a) != engine.FormatValue(b) || engine.FormatState(a) != engine.FormatState(c) {
			t.Fatal("text forms differ")
		}
		// A change to the data changes the encoding.
		if len(entries) > 0 {
			a.M[entries[0].key] = append(a.M[entries[0].key], 12345)
			if bytes.Equal(engine.AppendCanonical(nil, a), ea) {
				t.Fatal("a changed value encodes like the original")
			}
		}
	})
}

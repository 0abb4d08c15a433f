package engine_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/cockroachdb/datadriven"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Types for the golden encodings: every shape the encoders treat apart.

type tree struct {
	V    int
	Kids []tree
}

type mapOnly struct{ M map[string]int } // pointer-shaped: an interface holds the map itself

type ptrArr [1]*inner

type myByte uint8

type shapes struct {
	A [2]struct {
		X int
		S []string
	}
	F    float32
	C    complex64
	D    complex128
	U8   uint8
	I16  int16
	U32  uint32
	B    []byte
	MB   []myByte
	Bs   []bool
	Fs   []float64
	Ss   [][]string
	skip int `macemc:"-"`
	Zero struct{}
	Big  [300]int
	i    int
}

type canonInArr struct{ A [2]sortedSet }

type regT struct{ items []int }

func init() {
	sim.RegisterCanonical(func(r *regT) any {
		c := slices.Clone(r.items)
		sort.Ints(c)
		return c
	})
}

type withReg struct {
	R  regT
	r  regT
	P  *regT
	S  []regT
	M  map[string]regT
	In any
}

type firstField struct {
	X inner
	P *inner
}

type key2 struct {
	A int
	B string
}

type hidden struct{ m map[string]int }

type empty struct{}

type onlySkipped struct {
	sim.Base
	X int `macemc:"-"`
}

// goldenValues are the values whose canonical encodings are pinned.
func goldenValues() map[string]any {
	ff := &firstField{X: inner{Name: "x"}}
	ff.P = &ff.X
	self := &ring{V: 1}
	self.Next = self
	type box struct{ X []any }
	bx := &box{}
	bx.X = append(bx.X, bx, 1)
	k1, k2 := &inner{Name: "same"}, &inner{Name: "same"}
	sh := &shapes{F: 1.5, C: 2 + 3i, D: -1 - 2i, U8: 7, I16: -3, U32: 9, B: []byte("ab"), MB: []myByte{1, 2},
		Bs: []bool{true, false}, Fs: []float64{0.5, -0}, Ss: [][]string{{"a"}, {}, nil}, skip: 4, i: 5}
	sh.A[0].X, sh.A[1].S = 1, []string{"p", "q"}
	sh.Big[299] = 1
	queue := make(chan key2, 4)
	for i := range 6 { // wraps around the buffer: 2 3 4 5 left
		queue <- key2{i, "q"}
		if i < 2 {
			<-queue
		}
	}
	closed := make(chan int, 2)
	closed <- 7
	close(closed)
	return map[string]any{
		"chans": &struct {
			Q, N chan key2
			C    chan int
			U    chan string
		}{Q: queue, C: closed, U: make(chan string)},
		"funcs": &struct {
			F, N func(string) string
			M    func() string
		}{F: strings.ToUpper, M: (&strings.Builder{}).String},
		"state":        build(6, perm(1, 6)),
		"sets":         setsOf([]int{3, 1, 2}),
		"ring":         makeRing(1, 2, 3),
		"self-loop":    self,
		"box-cycle":    bx,
		"pointer-keys": map[*inner]string{k1: "a", k2: "b"},
		"inner":        inner{Name: "n", Vals: []int{1, -2}, m: map[string]int{"a": 1, "b": 2}},
		"num":          Num{From: 2, Seq: 3},
		"tree":         tree{V: 1, Kids: []tree{{V: 2}, {V: 3, Kids: []tree{{V: 4}}}}},
		"map-only":     mapOnly{M: map[string]int{"x": 1, "y": 2}},
		"ptr-arr":      ptrArr{{Name: "a"}},
		"shapes":       sh,
		"canon-in-arr": &canonInArr{A: [2]sortedSet{{[]int{2, 1}}, {[]int{3}}}},
		"registered": &withReg{R: regT{[]int{2, 1}}, r: regT{[]int{4, 3}}, P: &regT{[]int{6, 5}},
			S: []regT{{[]int{8, 7}}}, M: map[string]regT{"k": {[]int{9, 0}}}, In: regT{[]int{2, 2, 1}}},
		"first-field": ff,
		"maps": &struct {
			II  map[int]int
			SL  map[string][]int
			AK  map[[2]int]string
			SK  map[key2]key2
			SP  map[string]*inner
			NI  map[int]map[int]int
			Any map[string]any
		}{
			II: map[int]int{3: 1, 1: 2, 2: 3}, SL: map[string][]int{"b": {1}, "a": {2, 3}},
			AK: map[[2]int]string{{1, 2}: "x", {0, 5}: "y"}, SK: map[key2]key2{{1, "a"}: {2, "b"}, {0, "z"}: {3, "c"}},
			SP: map[string]*inner{"p": {Name: "p"}}, NI: map[int]map[int]int{1: {2: 3}},
			Any: map[string]any{"a": 1, "b": "s", "c": key2{1, "k"}, "d": []int{1}},
		},
		"slices": &struct {
			I  []int
			P  []*inner
			A  []any
			K  []key2
			M  []map[int]int
			NI []sim.NodeID
			U  []uint16
		}{I: []int{3, -1}, P: []*inner{{Name: "a"}, nil}, A: []any{1, "x", key2{2, "y"}, nil},
			K: []key2{{1, "a"}}, M: []map[int]int{{1: 2}}, NI: []sim.NodeID{2, 0, 1}, U: []uint16{9}},
		"hidden":       hidden{m: map[string]int{"a": 1, "b": 2}},
		"int":          42,
		"string":       "str",
		"ints":         []int{1, 2, 3},
		"strings":      []string{"a", "bc"},
		"bytes":        []byte{1, 2, 3},
		"array":        [3]int{1, 2, 3},
		"nil":          nil,
		"nil-ptr":      (*inner)(nil),
		"int-map":      map[int]int{1: 2, 3: 4},
		"key-map":      map[key2]int{{1, "a"}: 1, {1, "b"}: 2},
		"empty":        empty{},
		"empty-ptr":    &empty{},
		"only-skipped": &onlySkipped{X: 1},
		"empties":      []empty{{}, {}},
		"any-list":     []any{inner{Name: "i"}, &inner{Name: "p"}, mapOnly{M: map[string]int{"k": 1}}, tree{V: 5}},
	}
}

// holders put a value in the places a value can be encoded from: at the
// top, in an exported and an unexported interface field of a struct
// reached through a pointer (addressable) and of a struct held by an
// interface (not addressable), in a slice and as a map value.
type holder struct {
	X any
	x any
}

func contexts(v any) []struct {
	name string
	v    any
} {
	return []struct {
		name string
		v    any
	}{
		{"top", v},
		{"pointer", &holder{X: v, x: v}},
		{"value", holder{X: v, x: v}},
		{"slice", []any{v, v}},
		{"map", map[string]any{"k": v}},
	}
}

// TestCanonicalGolden pins the canonical encoding of values of every shape
// in every context (testdata/canonical.txt): the fast paths (programs,
// slices read in place, maps without copies) encode the same bytes as the
// reflect encoders did. Directive: encode name=NAME prints the length and
// xxhash of the encoding in each context. go test ./sim/engine -run
// TestCanonicalGolden -rewrite regenerates the file.
func TestCanonicalGolden(t *testing.T) {
	vals := goldenValues()
	datadriven.RunTest(t, "testdata/canonical.txt", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "encode" {
			td.Fatalf(t, "unknown directive %s", td.Cmd)
		}
		var name string
		td.ScanArgs(t, "name", &name)
		v, ok := vals[name]
		if !ok {
			td.Fatalf(t, "no value %s", name)
		}
		var b strings.Builder
		for _, c := range contexts(v) {
			enc := engine.AppendCanonical(nil, c.v)
			fmt.Fprintf(&b, "%-7s %5d bytes %016x\n", c.name, len(enc), xxhash.Sum64(enc))
			if engine.Hash(c.v) != xxhash.Sum64(enc) {
				t.Errorf("%s in %s: Hash is not the hash of the encoding", name, c.name)
			}
		}
		return b.String()
	})
}

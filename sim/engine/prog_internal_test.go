package engine

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/macemc/macemc/sim"
)

// pureAll has a field of every kind a pure program reads.
type pureAll struct {
	sim.Base
	B   bool
	I8  int8
	I16 int16
	I32 int32
	I   int
	U8  uint8
	U16 uint16
	U32 uint32
	U   uint64
	F32 float32
	F   float64
	C64 complex64
	C   complex128
	S   string
	Bs  []byte
	Arr [2]int16
	In  struct {
		X uint8
		Y string
	}
	Is  []int
	Us  []uint16
	Bo  []bool
	Cs  []complex128
	Ss  []string
	Ns  [][]int32
	Ps  []struct{ A, B int }
	Tag int `macemc:"-"`
}

func fullPure() *pureAll {
	v := &pureAll{B: true, I8: -1, I16: -2, I32: -3, I: -4, U8: 1, U16: 2, U32: 3, U: 4, F32: 1.5, F: 2.5,
		C64: 1 + 2i, C: 3 + 4i, S: "s", Bs: []byte{1}, Arr: [2]int16{5, 6}, Is: []int{1, 2}, Us: []uint16{3},
		Bo: []bool{true}, Cs: []complex128{1 + 1i}, Ss: []string{"a", ""}, Ns: [][]int32{{1}, nil}, Ps: []struct{ A, B int }{{1, 2}}}
	v.In.X, v.In.Y = 7, "y"
	return v
}

// TestHashValuePure: a value with a pure program is hashed from memory:
// equal values hash equal, and changing any one field (or element) but a
// left-out one changes the hash, including changes that keep the field's
// size (a complex's imaginary part) and that move bytes between fields.
func TestHashValuePure(t *testing.T) {
	s, err := New(&sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &pureAll{} }}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := progFor(reflect.TypeFor[pureAll]()); p == nil || !p.pure {
		t.Fatal("pureAll has no pure program")
	}
	h0, ok := s.hashValue(fullPure())
	if !ok {
		t.Fatal(s.HashErr())
	}
	if h, _ := s.hashValue(fullPure()); h != h0 {
		t.Fatal("equal values hash differently")
	}
	changes := map[string]func(v *pureAll){
		"B": func(v *pureAll) { v.B = false }, "I8": func(v *pureAll) { v.I8++ }, "I16": func(v *pureAll) { v.I16++ },
		"I32": func(v *pureAll) { v.I32++ }, "I": func(v *pureAll) { v.I++ }, "U8": func(v *pureAll) { v.U8++ },
		"U16": func(v *pureAll) { v.U16++ }, "U32": func(v *pureAll) { v.U32++ }, "U": func(v *pureAll) { v.U++ },
		"F32": func(v *pureAll) { v.F32++ }, "F": func(v *pureAll) { v.F++ },
		"C64 imaginary": func(v *pureAll) { v.C64 += 1i }, "C imaginary": func(v *pureAll) { v.C += 1i },
		"S": func(v *pureAll) { v.S = "t" }, "S longer": func(v *pureAll) { v.S = "ss" },
		"S into In.Y": func(v *pureAll) { v.S, v.In.Y = "", "sy" }, "Bs": func(v *pureAll) { v.Bs[0] = 2 },
		"Bs nil": func(v *pureAll) { v.Bs = nil }, "Arr": func(v *pureAll) { v.Arr[1] = 0 },
		"In.X": func(v *pureAll) { v.In.X = 0 }, "Is": func(v *pureAll) { v.Is[1] = 3 },
		"Is shorter": func(v *pureAll) { v.Is = v.Is[:1] }, "Us": func(v *pureAll) { v.Us[0] = 4 },
		"Bo": func(v *pureAll) { v.Bo[0] = false }, "Cs imaginary": func(v *pureAll) { v.Cs[0] += 1i },
		"Ss": func(v *pureAll) { v.Ss[1] = "b" }, "Ss split": func(v *pureAll) { v.Ss = []string{"a", "", ""} },
		"Ns": func(v *pureAll) { v.Ns[1] = []int32{0} }, "Ps": func(v *pureAll) { v.Ps[0].B = 1 },
	}
	for name, change := range changes {
		v := fullPure()
		change(v)
		if h, _ := s.hashValue(v); h == h0 {
			t.Errorf("changing %s leaves the hash as it was", name)
		}
	}
	v := fullPure()
	v.Tag = 9
	if h, _ := s.hashValue(v); h != h0 {
		t.Error("a field tagged macemc:\"-\" changes the hash")
	}
	// A value that is not pure is hashed from its canonical encoding.
	m := map[string]int{"a": 1}
	if h, _ := s.hashValue(m); h != xxhash.Sum64(AppendCanonical(nil, m)) {
		t.Error("a map is not hashed from its canonical encoding")
	}
}

// TestHashValueBound: a pure value past the simulator's bound is encoded,
// and fails as the encoding does; one within it is hashed from memory.
func TestHashValueBound(t *testing.T) {
	type big struct {
		sim.Base
		Is []int
	}
	for _, c := range []struct {
		n    int
		fail bool
	}{{100, false}, {200, true}} {
		s, err := New(&sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &big{Is: make([]int, c.n)} }}, Options{MaxStateBytes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		s.Hash()
		var ee *EncodingError
		if failed := errors.As(s.HashErr(), &ee); failed != c.fail {
			t.Errorf("%d ints in a bound of 1000 bytes: error %v", c.n, s.HashErr())
		}
	}
}

// boxed holds values in empty interfaces, as a message envelope does.
type boxed struct {
	sim.Base
	A any
	B sim.Message
	N int
}

type myInt int

// TestHashValueInterfaces: a struct whose only fields that are not pure
// are empty interfaces is hashed from memory when they hold values with
// hashable programs (nested too), and from its canonical encoding when
// one holds a pointer or a map; either way, different contents hash
// differently and equal ones equally.
func TestHashValueInterfaces(t *testing.T) {
	s, err := New(&sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &boxed{} }}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := progFor(reflect.TypeFor[boxed]()); p == nil || p.pure || !p.hashable {
		t.Fatal("boxed has no hashable program")
	}
	hash := func(v any) uint64 {
		t.Helper()
		h, ok := s.hashValue(v)
		if !ok {
			t.Fatal(s.HashErr())
		}
		return h
	}
	contents := map[string]func() any{
		"nil": func() any { return nil }, "int 0": func() any { return 0 }, "int 1": func() any { return 1 },
		"int64 0": func() any { return int64(0) }, "myInt 0": func() any { return myInt(0) },
		"string": func() any { return "s" }, "other string": func() any { return "t" },
		"ints": func() any { return []int{1, 2} }, "other ints": func() any { return []int{1, 3} },
		"token": func() any { return token{N: 1} }, "other token": func() any { return token{N: 2} },
		"boxed": func() any { return boxed{A: token{N: 1}} }, "other boxed": func() any { return boxed{A: token{N: 2}} },
		"boxed nil": func() any { return boxed{} },
		"pointer":   func() any { return &token{N: 1} }, "other pointer": func() any { return &token{N: 2} },
		"map": func() any { return map[int]int{1: 2} }, "other map": func() any { return map[int]int{1: 3} },
	}
	seen := map[uint64]string{}
	for name, c := range contents {
		for _, field := range []string{"A", "B"} {
			if name == "nil" && field == "B" {
				continue // the same value as nil in A
			}
			v, w := &boxed{N: 7}, &boxed{N: 7}
			if field == "A" {
				v.A, w.A = c(), c()
			} else {
				v.B, w.B = c(), c()
			}
			h := hash(v)
			if hash(w) != h {
				t.Errorf("%s in %s: equal values hash differently", name, field)
			}
			if prev, dup := seen[h]; dup {
				t.Errorf("%s in %s hashes like %s", name, field, prev)
			}
			seen[h] = name + " in " + field
			pointer := name == "pointer" || name == "other pointer" || name == "map" || name == "other map"
			if encoded := h == xxhash.Sum64(AppendCanonical(nil, v)); encoded != pointer {
				t.Errorf("%s in %s: hashed from its encoding %v, want %v", name, field, encoded, pointer)
			}
		}
	}
}

// TestHashBytesAllLengths: strings and byte slices of every length up to
// past the ones read in place hash equal when equal, wherever they lie,
// and differently when any one byte differs, or when bytes move between
// a string and the next.
func TestHashBytesAllLengths(t *testing.T) {
	type two struct {
		sim.Base
		A, B string
		C    []byte
	}
	s, err := New(&sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &two{} }}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hash := func(v *two) uint64 {
		t.Helper()
		return pureMapHash(t, s, v)
	}
	seen := map[uint64]string{}
	for n := range 40 {
		base := make([]byte, n)
		for i := range base {
			base[i] = byte('a' + i)
		}
		h0 := hash(&two{A: string(base), C: base})
		if h := hash(&two{A: string(append([]byte(nil), base...)), C: append([]byte{}, base...)}); h != h0 {
			t.Fatalf("length %d: equal strings hash differently", n)
		}
		if prev, dup := seen[h0]; dup {
			t.Fatalf("length %d hashes like %s", n, prev)
		}
		seen[h0] = fmt.Sprint("length ", n)
		for i := range n {
			b := append([]byte(nil), base...)
			b[i]++
			if hash(&two{A: string(b), C: base}) == h0 {
				t.Errorf("length %d: changing byte %d of the string leaves the hash as it was", n, i)
			}
			if hash(&two{A: string(base), C: b}) == h0 {
				t.Errorf("length %d: changing byte %d of the byte slice leaves the hash as it was", n, i)
			}
			if hash(&two{A: string(base[:i]), B: string(base[i:]), C: base}) == h0 {
				t.Errorf("length %d: moving bytes %d on to the next string leaves the hash as it was", n, i)
			}
		}
	}
}

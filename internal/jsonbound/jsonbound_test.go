package jsonbound

import (
	"errors"
	"strings"
	"testing"
)

// TestValues counts values outside strings only, escapes included.
func TestValues(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want int
	}{
		{`1`, 1},
		{`[]`, 2},
		{`[1,2,3]`, 4},
		{`{"a":[{},{}],"b":"x,[{"}`, 7},
		{`["a\",[b", "c\\", {}]`, 5},
	} {
		if got := Values([]byte(c.doc)); got != c.want {
			t.Errorf("Values(%s) = %d, want %d", c.doc, got, c.want)
		}
	}
}

// TestCheck refuses a small document of many empty objects.
func TestCheck(t *testing.T) {
	doc := "[" + strings.Repeat("{},", 999) + "{}]"
	if err := Check([]byte(doc), 1000); !errors.Is(err, ErrTooMany) {
		t.Errorf("1,000 objects with a bound of 1,000 values: %v", err)
	}
	if err := Check([]byte(doc), 2001); err != nil { // 1 + '[' + 1,000 '{' + 999 ','
		t.Errorf("with a bound of 2,001: %v", err)
	}
}

func FuzzValues(f *testing.F) {
	f.Add([]byte(`{"a":["b\"",1,{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if n := Values(data); n < 1 || n > len(data)+1 {
			t.Fatalf("Values = %d for %d bytes", n, len(data))
		}
	})
}

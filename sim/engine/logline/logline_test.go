package logline_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/macemc/macemc/sim/engine/logline"
)

// TestParse: flat entries are read as encoding/json reads them (strings
// decoded, other values as written); anything else is refused.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		entry string
		ok    bool
	}{
		{`{"level":"info","step":3,"node":1,"message":"begin node 1 receives Pong{n: 1}"}`, true},
		{` {"a":"x \"q\" \\ \/ \b\f\n\r\t \u00e9","b":-1.5e+3,"c":true,"d":false,"e":null,"f":0} ` + "\n", true},
		{`{}`, true},
		{`{"a":{"b":1}}`, false},
		{`{"a":[1]}`, false},
		{`{"a":1,"a":2}`, false},
		{`{"\u0061":1}`, false},
		{`{"a":"\ud83d\ude00"}`, false},
		{"{\"a\":\"\xff\"}", false},
		{`{"a":01}`, false},
		{`{"a":1.}`, false},
		{`{"a":1} x`, false},
		{`{"a":1`, false},
		{`{"a" 1}`, false},
		{`{"a":tru}`, false},
		{`[1]`, false},
	} {
		fields, _, ok := logline.Parse([]byte(tc.entry), nil, nil)
		if ok != tc.ok {
			t.Errorf("%s: ok %v, want %v", tc.entry, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.entry), &want); err != nil {
			t.Fatalf("%s: %v", tc.entry, err)
		}
		if len(fields) != len(want) {
			t.Errorf("%s: %d fields, want %d", tc.entry, len(fields), len(want))
		}
		for _, f := range fields {
			raw, ok := want[f.Key]
			if !ok {
				t.Errorf("%s: field %q not in the entry", tc.entry, f.Key)
				continue
			}
			var s string
			isString := raw[0] == '"'
			if isString {
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatal(err)
				}
			} else {
				s = string(raw)
			}
			if f.String != isString || string(f.Value) != s {
				t.Errorf("%s: field %q = %q (string %v), want %q (string %v)", tc.entry, f.Key, f.Value, f.String, s, isString)
			}
		}
	}
}

func ExampleParse() {
	entry := []byte(`{"level":"info","step":4,"node":0,"periodic":false,"message":"set timer \"retransmit\""}`)
	fields, _, ok := logline.Parse(entry, nil, nil)
	fmt.Println(ok)
	for _, f := range fields {
		fmt.Printf("%s=%s string=%v\n", f.Key, f.Value, f.String)
	}
	// Output:
	// true
	// level=info string=true
	// step=4 string=false
	// node=0 string=false
	// periodic=false string=false
	// message=set timer "retransmit" string=true
}

package htmlreport

import (
	"encoding/json"
	"reflect"
	"testing"
)

// decoded is what capture reads of an entry: its logLine and annotation.
type decoded struct {
	Message, Type, Note string
	Node, To            *int
	Periodic, Event     bool
}

func viaJSON(b []byte) (decoded, bool) {
	var e logLine
	if err := json.Unmarshal(b, &e); err != nil {
		return decoded{}, false
	}
	return decoded{Message: e.Message, Type: e.Type, Note: annotation(b, e.Message), Node: e.Node, To: e.To, Periodic: e.Periodic, Event: e.Event != nil}, true
}

func viaScan(b []byte) (decoded, bool) {
	var c capture
	var e logLine
	note, ok := c.scan(b, &e)
	if !ok {
		return decoded{}, false
	}
	return decoded{Message: e.Message, Type: e.Type, Note: note(), Node: e.Node, To: e.To, Periodic: e.Periodic, Event: e.Event != nil}, true
}

// TestScanReadsAsJSON: the entries the simulator and services write are
// read without encoding/json, as encoding/json reads them; the others are
// left to it.
func TestScanReadsAsJSON(t *testing.T) {
	for _, tc := range []struct {
		entry string
		fast  bool
	}{
		{`{"level":"info","step":1,"node":0,"to":1,"type":"Data","message":"send datagram Data{seq: 2001, msg: \"m0\"}"}`, true},
		{`{"level":"info","step":4,"node":0,"periodic":true,"message":"set timer retransmit/1"}`, true},
		{`{"level":"info","step":4,"node":0,"event":"drop","message":"datagram dropped"}`, true},
		{`{"level":"info","step":4,"node":0,"conn":0,"isn":2001,"to":1,"peer":null,"ok":false,"x":"a b","message":"open connection"}`, true},
		{`{"level":"debug","step":2,"choice":"rand","n":3,"value":-1,"message":"choice"}`, true},
		{`{"level":"info","node":null,"message":"no node"}`, true},
		{`{"level":"info","node":1,"type":null,"message":null}`, true},
		// Left to encoding/json:
		{`{"level":"info","node":"1","message":"node as a string"}`, false},
		{`{"level":"info","node":1.5,"message":"fractional node"}`, false},
		{`{"level":"info","node":1,"Node":2,"message":"case-insensitive key"}`, false},
		{`{"level":"info","node":1,"event":null,"message":"null event"}`, false},
		{`{"level":"info","node":1,"periodic":"yes","message":"bad periodic"}`, false},
		{`{"level":"info","node":1,"obj":{"a":1},"message":"nested"}`, false},
		{`{"level":"info","node":1,"node":2,"message":"duplicate"}`, false},
		{`not json`, false},
	} {
		got, fast := viaScan([]byte(tc.entry))
		if fast != tc.fast {
			t.Errorf("%s: read without encoding/json: %v, want %v", tc.entry, fast, tc.fast)
		}
		if !fast {
			continue
		}
		if want, ok := viaJSON([]byte(tc.entry)); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v (decodes: %v)", tc.entry, got, want, ok)
		}
	}
}

// FuzzScan: whatever scan reads, it reads as encoding/json does.
func FuzzScan(f *testing.F) {
	f.Add([]byte(`{"level":"info","step":1,"node":0,"to":1,"type":"Data","message":"send x"}`))
	f.Add([]byte(`{"level":"info","node":0,"periodic":false,"event":"e","a":null,"b":1e3,"message":"set timer t"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, fast := viaScan(b)
		if !fast {
			return
		}
		if want, ok := viaJSON(b); !ok || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v (decodes: %v)", b, got, want, ok)
		}
	})
}

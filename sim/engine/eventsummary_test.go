package engine

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

type blob struct{ Data string }

type bytesBlob struct{ B []byte }

// TestEventSummaryCutsLongMessages: String shows each string of a message
// up to EventValueBytes bytes and Summary up to SummaryValueBytes, cut on a
// rune boundary and followed by how many bytes were left out and a digest
// of the whole, so that two messages that differ past the cut still read
// differently; a short message is shown whole by both.
func TestEventSummaryCutsLongMessages(t *testing.T) {
	data := "x" + strings.Repeat("é", 100_000) // the cuts fall inside an é
	long := Event{Kind: EvMessage, Node: 1, Peer: 0, Msg: blob{Data: data}}
	for _, tc := range []struct {
		name string
		text string
		max  int
	}{{"String", long.String(), EventValueBytes}, {"Summary", long.Summary(), SummaryValueBytes}} {
		kept := tc.max - 1 // "x" then 2-byte runes: max-1 bytes is a rune boundary
		want := "node 1 receives blob{Data: " + strconv.Quote(data[:kept]) + cutNote(len(data)-kept, data) + "} from node 0"
		if tc.text != want || !utf8.ValidString(tc.text) {
			t.Errorf("%s:\n got %.120q...\nwant %.120q...", tc.name, tc.text, want)
		}
	}
	other := Event{Kind: EvMessage, Node: 1, Peer: 0, Msg: blob{Data: data[:len(data)-2] + "e"}}
	if other.Summary() == long.Summary() || other.String() == long.String() {
		t.Error("two messages that differ past the cut read alike")
	}
	short := Event{Kind: EvDatagram, Node: 2, Peer: 1, Msg: blob{Data: "hi"}}
	if short.Summary() != short.String() || short.String() != `node 2 receives datagram blob{Data: "hi"} from node 1` {
		t.Errorf("a short message: Summary %q, String %q", short.Summary(), short.String())
	}
	for _, k := range []EventKind{EvApp, EvDrop, EvDuplicate} {
		e := Event{Kind: k, Node: 1, Peer: 0, Msg: blob{Data: strings.Repeat("x", 1000)}}
		if s := e.Summary(); len(s) > SummaryValueBytes+150 || !strings.Contains(s, "800 bytes more, digest ") {
			t.Errorf("%v: Summary %q", k, s)
		}
	}
}

// TestFormatValueCut: FormatValue shows every value whole (the debugger
// pairs a delivery with its send by it); FormatValueCut cuts a string or
// byte slice past its bound, saying how many bytes it left out and a
// digest of the whole.
func TestFormatValueCut(t *testing.T) {
	long := strings.Repeat("L", 10_000)
	note := cutNote(10_000-MaxLogValue, long)
	for _, v := range []any{blob{Data: long}, bytesBlob{B: []byte(long)}, long} {
		if txt := FormatValue(v); !strings.Contains(txt, `"`+long+`"`) {
			t.Errorf("FormatValue(%T) is cut: %d bytes", v, len(txt))
		}
		txt := FormatValueCut(v, MaxLogValue)
		if len(txt) > MaxLogValue+100 || !strings.Contains(txt, `LLLL"`+note) {
			t.Errorf("FormatValueCut(%T): %d bytes, ends %q, want it to end %q", v, len(txt), txt[max(0, len(txt)-60):], note)
		}
	}
	if short := FormatValueCut(blob{Data: "hi"}, 10); short != `blob{Data: "hi"}` {
		t.Errorf("short: %q", short)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 199782: "199,782", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

package engine

import (
	"strings"
	"testing"
	"unicode/utf8"
)

type blob struct{ Data string }

// TestEventSummaryCutsLongMessages: Summary cuts a message's text after
// SummaryValueBytes bytes, on a rune boundary, and says how much it left
// out; a short message's Summary is its String, which cuts only strings
// past MaxLogValue bytes.
func TestEventSummaryCutsLongMessages(t *testing.T) {
	long := Event{Kind: EvMessage, Node: 1, Peer: 0, Msg: blob{Data: "x" + strings.Repeat("é", 100_000)}} // the cut falls inside an é
	full := long.String()
	sum := long.Summary()
	// String shows at most MaxLogValue bytes of a string (FormatValue).
	if !strings.HasPrefix(full, "node 1 receives blob{Data: ") || len(full) < MaxLogValue || len(full) > MaxLogValue+200 || !strings.Contains(full, " bytes more)} from node 0") {
		t.Fatalf("String: %.80q... (%d bytes)", full, len(full))
	}
	value := FormatValue(long.Msg)
	kept := SummaryValueBytes
	for kept > 0 && value[kept]&0xC0 == 0x80 {
		kept--
	}
	want := "node 1 receives " + value[:kept] + "… (" + thousands(len(value)-kept) + " bytes more) from node 0"
	if kept == SummaryValueBytes || !utf8.ValidString(sum) {
		t.Errorf("the cut at %d of %d bytes is not inside a rune, or the summary is not UTF-8", kept, len(value))
	}
	if sum != want {
		t.Errorf("Summary:\n got %q\nwant %q", sum, want)
	}
	short := Event{Kind: EvDatagram, Node: 2, Peer: 1, Msg: blob{Data: "hi"}}
	if short.Summary() != short.String() {
		t.Errorf("a short message's Summary %q differs from its String %q", short.Summary(), short.String())
	}
	for _, k := range []EventKind{EvApp, EvDrop, EvDuplicate} {
		e := Event{Kind: k, Node: 1, Peer: 0, Msg: blob{Data: strings.Repeat("x", 1000)}}
		if s := e.Summary(); len(s) > SummaryValueBytes+100 || !strings.Contains(s, " bytes more)") {
			t.Errorf("%v: Summary %q", k, s)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 199782: "199,782", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

type bytesBlob struct{ B []byte }

// TestFormatValueCutsLongStrings: the one-line form shows a string or byte
// slice past MaxLogValue bytes cut there (quoting 200 KB at every logged
// step of a long path took minutes), saying how many bytes it left out;
// the state views (FormatState) show it whole.
func TestFormatValueCutsLongStrings(t *testing.T) {
	long := strings.Repeat("L", 10_000)
	for _, v := range []any{blob{Data: long}, bytesBlob{B: []byte(long)}, long} {
		txt := FormatValue(v)
		if len(txt) > MaxLogValue+100 || !strings.Contains(txt, `LLLL"… (5,904 bytes more)`) {
			t.Errorf("FormatValue(%T): %d bytes, ends %q", v, len(txt), txt[max(0, len(txt)-60):])
		}
	}
	if st := FormatState(blob{Data: long}); !strings.Contains(st, long) {
		t.Errorf("FormatState cut the string: %d bytes", len(st))
	}
	if short := FormatValue(blob{Data: "hi"}); short != `blob{Data: "hi"}` {
		t.Errorf("short: %q", short)
	}
}

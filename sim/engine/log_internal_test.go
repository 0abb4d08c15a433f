package engine

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// slowLine is what zerolog.ConsoleWriter, as NewLogger configures it
// (zerologWriter), writes for entry p.
func slowLine(p []byte) (string, error) {
	var out bytes.Buffer
	cw := zerologWriter(&out)
	_, err := cw.Write(p)
	return out.String(), err
}

// fastLine is what consoleWriter writes for entry p, and whether it
// formatted it itself rather than handing it to ConsoleWriter.
func fastLine(p []byte) (string, bool, error) {
	var out bytes.Buffer
	c := newConsoleWriter(&out)
	fast := c.format(p)
	_, err := c.Write(p)
	return out.String(), fast, err
}

// TestConsoleWriterMatchesZerolog: the simulator's and services' entries
// are formatted without ConsoleWriter, and every entry, flat or not, gives
// ConsoleWriter's line.
func TestConsoleWriterMatchesZerolog(t *testing.T) {
	for _, tc := range []struct {
		entry string
		fast  bool
	}{
		{`{"level":"info","step":3,"node":1,"event":"message","message":"begin node 1 receives Pong{n: 1} from node 0"}`, true},
		{`{"level":"info","step":1,"node":0,"to":1,"type":"Data","message":"send datagram Data{seq: 2001, syn: true, conn: 0, msg: \"m0\"}"}` + "\n", true},
		{`{"level":"debug","step":2,"choice":"rand","n":3,"value":-1,"message":"choice"}`, true},
		{`{"level":"info","step":4,"node":0,"periodic":false,"message":"set timer retransmit/1"}`, true},
		{`{"level":"error","step":4,"node":0,"panic":"boom \"x\"\n\ttab","message":"panic in handler"}`, true},
		{`{"level":"info","node":0,"error":"conn refused","zeta":null,"alpha":"a b","message":""}`, true},
		{`{"level":"info","f":1.5e-3,"g":-0,"u":"\u00e9\u0001\/","message":"caf\u00e9"}`, true},
		{`{"level":"INFO","message":"upper-case level"}`, true},
		{`{"level":"warn"}`, true},
		{` { "level" : "info" , "message" : "spaces" } `, true},
		// Handed to ConsoleWriter:
		{`{"level":"info","obj":{"b":1,"a":"<x>"},"message":"nested"}`, false},
		{`{"level":"info","arr":[1,2],"message":"array"}`, false},
		{`{"level":"info","a":1,"a":2,"message":"duplicate"}`, false},
		{`{"level":"info","k\u0041":1,"message":"escaped key"}`, false},
		{`{"level":"info","time":"2020-01-01T00:00:00Z","message":"time"}`, false},
		{`{"level":"info","caller":"x.go:1","message":"caller"}`, false},
		{`{"level":"nonsense","message":"unknown level"}`, false},
		{`{"level":"info","message":"surrogate \ud83d\ude00"}`, false},
		{"{\"level\":\"info\",\"message\":\"bad utf-8 \xff\"}", false},
		{`{"level":"info","message":"trailing"} x`, false},
		{`{"level":"info","n":01}`, false},
		{`{"message":"no level"}`, false},
		{`not json`, false},
		{`{"level":"info","message":"unterminated`, false},
		{`{"level":"info","message":5}`, false},
	} {
		want, werr := slowLine([]byte(tc.entry))
		got, fast, gerr := fastLine([]byte(tc.entry))
		if got != want || (werr == nil) != (gerr == nil) {
			t.Errorf("%s:\n got %q (err %v)\nwant %q (err %v)", tc.entry, got, gerr, want, werr)
		}
		if fast != tc.fast {
			t.Errorf("%s: formatted without ConsoleWriter: %v, want %v", tc.entry, fast, tc.fast)
		}
	}
}

// FuzzConsoleWriter: whatever the entry, consoleWriter writes what
// ConsoleWriter does.
func FuzzConsoleWriter(f *testing.F) {
	for _, s := range []string{
		`{"level":"info","step":3,"node":1,"message":"begin node 1 receives Pong{n: 1} from node 0"}`,
		`{"level":"debug","choice":"rand","n":3,"value":-1e5,"message":"choice"}`,
		`{"level":"error","error":"x y","a":true,"b":null,"message":"panic \"p\"\n"}`,
		`{"level":"info","u":"\u00e9\u0001\/\b\f\r\t","message":""}`,
		`{"level":"info","obj":{"b":1},"message":"nested"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		want, werr := slowLine(p)
		got, _, gerr := fastLine(p)
		if got != want || (werr == nil) != (gerr == nil) {
			t.Fatalf("%q:\n got %q (err %v)\nwant %q (err %v)", p, got, gerr, want, werr)
		}
	})
}

// TestLoggerLineHoldsUserText: a message, field name or value with a
// newline, a control character, a bidi control or invalid UTF-8 (what a
// service logs from a message it received) stays one line of printable
// text, quoted, whether consoleWriter formats the entry or hands it to
// ConsoleWriter (a nested value, an escaped key); plain text is as it was.
func TestLoggerLineHoldsUserText(t *testing.T) {
	const hostile = "got \x1b[2J\x1b]0;TITLE\a\r\x00\nreplay: rm -rf ~ \xff \u202egnp.exe\u2028"
	var buf bytes.Buffer
	l := NewLogger(&buf)
	l.Info().Int("step", 3).Str("payload", hostile).Msg(hostile)
	l.Info().Str("key\x1b[2J\n"+"replay: k", "v").Msg("key")
	l.Info().Str("bidi\u202ekey", "v").Msg("bidi key")
	l.Info().Interface("obj", map[string]string{"a": "\u202e\u2066x"}).Msg("nested " + hostile)
	l.Error().Str("error", hostile).Msg("")
	l.Info().Int("node", 1).Msg("set timer heartbeat")
	// A tab and one trailing newline (Printf's habit) leave a message as
	// it was written: plain, one line, grep-able.
	l.Info().Int("node", 1).Msg("sent\t3 messages\n")
	got := buf.String()
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines for 7 entries:\n%s", len(lines), got)
	}
	for _, line := range lines {
		if !utf8.ValidString(line) {
			t.Errorf("line is not valid UTF-8: %q", line)
		}
		for _, r := range line {
			if r < ' ' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 {
				t.Errorf("line holds %U: %q", r, line)
				break
			}
		}
	}
	if want := `INF "got \x1b[2J\x1b]0;TITLE\a\r\x00\nreplay: rm -rf ~ ` + "\uFFFD" + ` \u202egnp.exe\u2028" payload=`; !strings.HasPrefix(lines[0], want) {
		t.Errorf("message line\n got %s\nwant %s…", lines[0], want)
	}
	if want := "INF set timer heartbeat node=1"; lines[5] != want {
		t.Errorf("plain line = %q, want %q", lines[5], want)
	}
	if want := "INF sent\t3 messages node=1"; lines[6] != want {
		t.Errorf("line of a message with a tab and a trailing newline = %q, want %q", lines[6], want)
	}
}

// TestLoggerCutsLongValues: a message or string value past MaxLogValue
// bytes is cut there, on a rune boundary, saying how much was left out, in
// the fast path and in ConsoleWriter's alike; the line's other fields stay
// whole, so that a 200 KB payload logged at every step does not make a log
// of gigabytes.
func TestLoggerCutsLongValues(t *testing.T) {
	long := "x" + strings.Repeat("é", 100_000) // the cut falls inside an é
	for _, entry := range []string{
		`{"level":"info","step":3,"node":1,"payload":"` + long + `","message":"` + long + `"}`,
		`{"level":"info","step":3,"payload":"` + long + ` with spaces","message":"plain"}`,
		`{"level":"info","plain":"` + strings.Repeat("L", 10_000) + `","message":"m"}`,
	} {
		want, werr := slowLine([]byte(entry))
		got, _, gerr := fastLine([]byte(entry))
		if werr != nil || gerr != nil || got != want {
			t.Fatalf("fast and slow lines differ:\n got %.300q (err %v)\nwant %.300q (err %v)", got, gerr, want, werr)
		}
		if len(got) > 3*MaxLogValue || !utf8.ValidString(got) || !strings.Contains(got, " bytes more, digest ") {
			t.Errorf("a line of %d bytes (valid UTF-8 %v): %.200q", len(got), utf8.ValidString(got), got)
		}
	}
	var buf bytes.Buffer
	NewLogger(&buf).Info().Int("step", 7).Str("payload", long).Msg("got " + long)
	line := buf.String()
	if !strings.HasSuffix(line, ")\" step=7\n") || strings.Count(line, " bytes more, digest ") != 2 {
		t.Errorf("line: %.200q ... %q", line, line[max(0, len(line)-80):])
	}
}

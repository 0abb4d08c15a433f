package safetext

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var quoteCases = []struct {
	name, in, want string
}{
	{"empty", "", ""},
	{"name", "tick", "tick"},
	{"spaces and punctuation", `Done: all nodes (k=v, "x") <b>&amp;</b> ~/a\b`, `Done: all nodes (k=v, "x") <b>&amp;</b> ~/a\b`},
	{"letters beyond ASCII", "nœud ü 節點 ✓ 🙂", "nœud ü 節點 ✓ 🙂"},
	{"replacement character itself", "a\uFFFDb", "a\uFFFDb"},
	{"newline", "retry]\nDone: true", `"retry]\nDone: true"`},
	{"carriage return", "a\rb", `"a\rb"`},
	{"tab", "col1\tcol2", "col1\tcol2"},
	{"NUL", "a\x00", `"a\x00"`},
	{"ESC", "tick\x1b[2J", `"tick\x1b[2J"`},
	{"OSC title", "\x1b]0;TITLE\a", `"\x1b]0;TITLE\a"`},
	{"DEL", "a\x7f", `"a\x7f"`},
	{"C1 control", "a\u0085b\u009b", `"a\u0085b\u009b"`},
	{"invalid UTF-8", "fake \xff", `"fake \xff"`},
	{"truncated rune", "\xe2\x80", `"\xe2\x80"`},
	{"RLO", "abc\u202egnp.exe", `"abc\u202egnp.exe"`},
	{"isolates", "\u2066a\u2067b\u2068c\u2069", `"\u2066a\u2067b\u2068c\u2069"`},
	{"line and paragraph separators", "a\u2028b\u2029", `"a\u2028b\u2029"`},
	{"zero-width space", "a\u200bb", `"a\u200bb"`},
	{"no-break and other spaces", "prix\u00a0: 1\u202f234\u00a0€ タイマー\u3000一 a\u2009b", "prix\u00a0: 1\u202f234\u00a0€ タイマー\u3000一 a\u2009b"},
	{"zero-width joiner and non-joiner, soft hyphen", "家族 👨\u200d👩\u200d👧 می\u200cخواهم co\u00adop", "家族 👨\u200d👩\u200d👧 می\u200cخواهم co\u00adop"},
	{"bidi marks", "שלום\u200f حالة\u061c a\u200e", `"שלום\u200f حالة\u061c a\u200e"`},
	{"fake replay line", "tick\x1b[2J\r\nreplay: rm -rf ~", `"tick\x1b[2J\r\nreplay: rm -rf ~"`},
}

// TestQuoteUnsafe: plain text is returned as it is; text with control
// characters, newlines, bidi controls, separators or invalid UTF-8 is
// Go-quoted, reads back as the input, and the quoted text is safe.
func TestQuoteUnsafe(t *testing.T) {
	for _, c := range quoteCases {
		t.Run(c.name, func(t *testing.T) {
			got := QuoteUnsafe(c.in)
			if got != c.want {
				t.Fatalf("QuoteUnsafe(%q) = %s, want %s", c.in, got, c.want)
			}
			if Safe(c.in) != (got == c.in) {
				t.Errorf("Safe(%q) = %v, but QuoteUnsafe gave %s", c.in, Safe(c.in), got)
			}
			if SafeBytes([]byte(c.in)) != Safe(c.in) {
				t.Errorf("SafeBytes(%q) = %v, Safe %v", c.in, SafeBytes([]byte(c.in)), Safe(c.in))
			}
			if b := AppendQuoteUnsafe([]byte("x="), []byte(c.in)); string(b) != "x="+c.want {
				t.Errorf("AppendQuoteUnsafe(%q) = %s, want x=%s", c.in, b, c.want)
			}
			checkOutput(t, c.in, got)
		})
	}
}

// checkOutput checks what QuoteUnsafe(in) returned: safe, the input when
// that was safe, and otherwise a quoted string that reads back as it.
func checkOutput(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("QuoteUnsafe(%q) = %q: not valid UTF-8", in, out)
	}
	for _, r := range out {
		if r < ' ' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f || r == 0x061c {
			t.Fatalf("QuoteUnsafe(%q) = %q: holds %U", in, out, r)
		}
	}
	if !Safe(out) {
		t.Fatalf("QuoteUnsafe(%q) = %q, which is not Safe", in, out)
	}
	if Safe(in) {
		if out != in {
			t.Fatalf("QuoteUnsafe(%q) = %q: safe text changed", in, out)
		}
		return
	}
	back, err := strconv.Unquote(out)
	if err != nil || back != in {
		t.Fatalf("QuoteUnsafe(%q) = %s reads back as %q, %v", in, out, back, err)
	}
}

// TestQuoteUnsafeAllocs: safe text costs no allocation.
func TestQuoteUnsafeAllocs(t *testing.T) {
	s := "node 0 timer heartbeat (periodic) fires: nœud ✓"
	b := []byte(s)
	dst := make([]byte, 0, 128)
	if n := testing.AllocsPerRun(100, func() {
		_ = QuoteUnsafe(s)
		_ = AppendQuoteUnsafe(dst[:0], b)
	}); n != 0 {
		t.Errorf("QuoteUnsafe of safe text: %v allocations, want 0", n)
	}
}

// TestQuoteLines: a message whose only unsafe characters are newlines
// keeps its lines, indented after the first (one trailing newline
// dropped); anything else unsafe is quoted whole.
func TestQuoteLines(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"Error Trace:\tnode_test.go:42\nError:\tNot equal\n", "Error Trace:\tnode_test.go:42\n    Error:\tNot equal"},
		{"raft: failed\n  caused by: x\nreplay: rm -rf ~", "raft: failed\n      caused by: x\n    replay: rm -rf ~"},
		{"a\nb\x1b[2J", `"a\nb\x1b[2J"`},
		{"a\r\nb", `"a\r\nb"`},
	} {
		got := QuoteLines(c.in)
		if got != c.want {
			t.Errorf("QuoteLines(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, line := range strings.Split(got, "\n")[1:] {
			if !strings.HasPrefix(line, LinesIndent) || !Safe(line) {
				t.Errorf("QuoteLines(%q): line %q is not indented, or not safe", c.in, line)
			}
		}
	}
}

var errBase = errors.New("build error")

// TestError: the error's text is quoted when unsafe, and errors.Is still
// finds what it wraps.
func TestError(t *testing.T) {
	if Error(nil) != nil {
		t.Fatal("Error(nil) is not nil")
	}
	err := Error(fmt.Errorf("%w \x1b[2J\nreplay: x", errBase))
	if got, want := err.Error(), `"build error \x1b[2J\nreplay: x"`; got != want {
		t.Errorf("Error = %s, want %s", got, want)
	}
	if !errors.Is(err, errBase) {
		t.Error("errors.Is does not see the wrapped error")
	}
	if got := Error(errBase).Error(); got != "build error" {
		t.Errorf("Error of a plain error = %q, want it unchanged", got)
	}
}

// FuzzQuoteUnsafe: whatever the input, the output is valid UTF-8 with no
// control character, bidi control or separator; safe input comes back
// unchanged and other input quoted so that it reads back as it was.
func FuzzQuoteUnsafe(f *testing.F) {
	for _, c := range quoteCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := QuoteUnsafe(in)
		checkOutput(t, in, out)
		if SafeBytes([]byte(in)) != Safe(in) {
			t.Fatalf("SafeBytes and Safe disagree on %q", in)
		}
		if QuoteUnsafe(out) != out {
			t.Fatalf("QuoteUnsafe is not idempotent on %q", in)
		}
	})
}

// Package safetext keeps text a user's system chose (timer, property and
// monitor names, panic values, assertion errors, log messages, string
// parameters) from acting on the terminal, log or state text macemc prints
// it in: such text is shown as it is when it is plain, and Go-quoted when
// it holds a control character other than the tab, a newline, a bidi
// control or bytes that are not UTF-8, so that it stays one visible string
// on its line.
//
// # Usage
//
//	fmt.Fprintf(w, "node %d timer %s fires\n", id, safetext.QuoteUnsafe(name))
//	// node 0 timer tick fires
//	// node 0 timer "tick\x1b[2J\nreplay: x" fires
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Safe reports whether s is valid UTF-8 made only of characters that
// cannot move the cursor, start a line or reorder the text around them:
// printable ones (strconv.IsPrint: letters, marks, numbers, punctuation,
// symbols and the ASCII space), the tab, every other space (U+00A0,
// U+202F, U+3000, ...: Unicode's Zs), the zero-width joiner and non-joiner
// (emoji sequences, Persian spelling) and the soft hyphen. Not safe: the
// other C0 and C1 control characters (newline, carriage return, escape),
// DEL, the other format characters (the bidi marks, overrides and
// isolates U+200E-U+200F, U+202A-U+202E and U+2066-U+2069, U+061C), and
// the line and paragraph separators (U+2028, U+2029). Performance: a byte
// scan that allocates nothing.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !printable(r) {
			return false
		}
		i += n
	}
	return true
}

// SafeBytes is Safe of a byte slice's text, without copying it.
func SafeBytes(s []byte) bool { return Safe(unsafe.String(unsafe.SliceData(s), len(s))) }

// printable reports whether r, past ASCII, is safe (see Safe).
func printable(r rune) bool {
	switch r {
	case 0x200C, 0x200D, 0x00AD: // zero-width non-joiner and joiner, soft hyphen
		return true
	}
	return strconv.IsPrint(r) || unicode.Is(unicode.Zs, r)
}

// QuoteUnsafe returns s unchanged when it is Safe, and otherwise s quoted
// as a Go string literal (strconv.Quote: "tick\x1b[2J\nreplay: x"), whose
// text is Safe and reads back (strconv.Unquote) as s, byte for byte. It
// allocates only for text it quotes.
func QuoteUnsafe(s string) string {
	if Safe(s) {
		return s
	}
	return strconv.Quote(s)
}

// LinesIndent is what QuoteLines puts before each line of a message after
// its first.
const LinesIndent = "    "

// QuoteLines is QuoteUnsafe for a message that may span lines (a panic's
// value, a wrapped error, testify's report): when its only unsafe
// characters are newlines, it keeps its lines, each after the first
// indented by LinesIndent, so that none can pass for a line of macemc's
// own (a "replay:" command, a finding's headline) and the message reads as
// written; one trailing newline is dropped. Other unsafe text is quoted as
// QuoteUnsafe quotes it.
func QuoteLines(s string) string {
	if Safe(s) {
		return s
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for _, l := range lines {
		if !Safe(l) {
			return strconv.Quote(s)
		}
	}
	return strings.Join(lines, "\n"+LinesIndent)
}

// AppendQuoteUnsafe appends QuoteUnsafe of s (a byte slice's text) to dst.
func AppendQuoteUnsafe(dst, s []byte) []byte {
	if SafeBytes(s) {
		return append(dst, s...)
	}
	return strconv.AppendQuote(dst, string(s))
}

// Error returns err with its text passed through QuoteLines: an error
// whose text a user's code chose (a system's Build error) prints as one
// plain string. errors.Is and errors.As still see err; Error(nil) is nil.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return &quotedError{err}
}

// quotedError is Error's error.
type quotedError struct{ err error }

func (e *quotedError) Error() string { return QuoteLines(e.err.Error()) }

// Unwrap returns the error whose text is quoted.
func (e *quotedError) Unwrap() error { return e.err }

// Package safetext keeps text a user's system chose (timer, property and
// monitor names, panic values, assertion errors, log messages, string
// parameters) from acting on the terminal, log or state text macemc prints
// it in: such text is shown as it is when it is plain, and Go-quoted when
// it holds a control character, a newline, a bidi control or bytes that
// are not UTF-8, so that it stays one visible string on its line.
//
// # Usage
//
//	fmt.Fprintf(w, "node %d timer %s fires\n", id, safetext.QuoteUnsafe(name))
//	// node 0 timer tick fires
//	// node 0 timer "tick\x1b[2J\nreplay: x" fires
package safetext

import (
	"strconv"
	"unicode/utf8"
)

// Safe reports whether s is valid UTF-8 made only of printable characters
// (strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the
// ASCII space): no C0 or C1 control character (newline, carriage return,
// tab, escape), no DEL, no format character (the bidi overrides and
// isolates U+202A-U+202E and U+2066-U+2069, zero-width characters), no
// line or paragraph separator (U+2028, U+2029), and no other space than
// U+0020. Performance: a byte scan that allocates nothing.
func Safe(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// SafeBytes is Safe of a byte slice's text, without converting it.
func SafeBytes(s []byte) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
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

// AppendQuoteUnsafe appends QuoteUnsafe of s (a byte slice's text) to dst.
func AppendQuoteUnsafe(dst, s []byte) []byte {
	if SafeBytes(s) {
		return append(dst, s...)
	}
	return strconv.AppendQuote(dst, string(s))
}

// Error returns err with its text passed through QuoteUnsafe: an error
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

func (e *quotedError) Error() string { return QuoteUnsafe(e.err.Error()) }

// Unwrap returns the error whose text is quoted.
func (e *quotedError) Unwrap() error { return e.err }

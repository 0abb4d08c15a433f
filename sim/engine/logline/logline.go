package logline

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// Field is one field of an entry.
type Field struct {
	Key string
	// Value is a string's decoded text, or the literal of a number, true,
	// false or null.
	Value []byte
	// String says the value is a JSON string.
	String bool
}

// Parse scans the JSON object p (surrounding white space allowed) and
// appends its fields to fields in their order, decoding string values into
// buf. Values point into the returned buf. ok is false, and the results
// are not to be used, unless every value is a string, number, true, false
// or null, every key is a plain string (no escapes or control bytes)
// given once, every string is valid UTF-8 without surrogate escapes, and
// nothing but white space follows the object: encoding/json then reads p
// as Parse does.
func Parse(p []byte, fields []Field, buf []byte) (_ []Field, _ []byte, ok bool) {
	start := len(fields)
	var ends []int // where each value ends in buf (values start where the previous ends)
	var endsArr [16]int
	ends = endsArr[:0]
	base := len(buf)
	sc := scanner{b: p}
	sc.space()
	if !sc.byte('{') {
		return fields, buf, false
	}
	sc.space()
	for first := true; !sc.byte('}'); first = false {
		if !first && !sc.byte(',') {
			return fields, buf, false
		}
		sc.space()
		key, ok := sc.key()
		if !ok {
			return fields, buf, false
		}
		for _, f := range fields[start:] {
			if f.Key == key {
				return fields, buf, false
			}
		}
		sc.space()
		if !sc.byte(':') {
			return fields, buf, false
		}
		sc.space()
		isString := sc.peek() == '"'
		if buf, ok = sc.value(buf); !ok {
			return fields, buf, false
		}
		sc.space()
		fields = append(fields, Field{Key: key, String: isString})
		ends = append(ends, len(buf))
	}
	sc.space()
	if sc.i != len(sc.b) {
		return fields, buf, false
	}
	from := base
	for i := range ends {
		fields[start+i].Value = buf[from:ends[i]:ends[i]]
		from = ends[i]
	}
	return fields, buf, true
}

// scanner reads a JSON entry in place.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) byte(b byte) bool {
	if s.peek() == b {
		s.i++
		return true
	}
	return false
}

// key reads a key: a string without escapes or control bytes, in valid
// UTF-8.
func (s *scanner) key() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	j := bytes.IndexByte(s.b[s.i:], '"')
	if j < 0 {
		return "", false
	}
	k := s.b[s.i : s.i+j]
	if bytes.IndexByte(k, '\\') >= 0 || !utf8.Valid(k) {
		return "", false
	}
	for _, c := range k {
		if c < 0x20 {
			return "", false
		}
	}
	s.i += j + 1
	return string(k), true
}

// value appends the next value to out: a string decoded, a number's
// literal, true, false or null; false for anything else.
func (s *scanner) value(out []byte) ([]byte, bool) {
	switch c := s.peek(); {
	case c == '"':
		return s.str(out)
	case c == '-' || c >= '0' && c <= '9':
		return s.number(out)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
			s.i += len(lit)
			return append(out, lit...), true
		}
	}
	return out, false
}

// str decodes a string value: the escapes JSON allows, except surrogates;
// the text must be valid UTF-8 (encoding/json replaces invalid bytes).
func (s *scanner) str(out []byte) ([]byte, bool) {
	s.i++ // the opening quote
	start := len(out)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return out, utf8.Valid(out[start:])
		case c < 0x20:
			return out, false
		case c != '\\':
			j := s.i + 1
			for j < len(s.b) && s.b[j] != '"' && s.b[j] != '\\' && s.b[j] >= 0x20 {
				j++
			}
			out = append(out, s.b[s.i:j]...)
			s.i = j
			continue
		}
		if s.i+1 >= len(s.b) {
			return out, false
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if s.i+4 > len(s.b) {
				return out, false
			}
			r, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
			if err != nil || r >= 0xd800 && r <= 0xdfff {
				return out, false
			}
			out = utf8.AppendRune(out, rune(r))
			s.i += 4
		default:
			return out, false
		}
	}
	return out, false
}

// number appends a number's literal, checked against JSON's grammar.
func (s *scanner) number(out []byte) ([]byte, bool) {
	start := s.i
	digits := func() int {
		j := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		return s.i - j
	}
	s.byte('-')
	switch {
	case s.peek() == '0':
		s.i++
	case digits() == 0:
		return out, false
	}
	if s.byte('.') && digits() == 0 {
		return out, false
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if digits() == 0 {
			return out, false
		}
	}
	return append(out, s.b[start:s.i]...), true
}

// Package jsonbound bounds what decoding an untrusted JSON document can
// allocate: the number of values it holds, counted in one pass over its
// bytes before it is decoded. A file of a few megabytes can hold millions
// of empty objects, each of which a decoder turns into a struct of its
// own: bounding the file's size alone does not bound the memory.
//
// # Usage
//
//	if err := jsonbound.Check(data, 1_000_000); err != nil {
//		return err // errors.Is(err, jsonbound.ErrTooMany)
//	}
//	err := json.Unmarshal(data, &v)
package jsonbound

import (
	"errors"
	"fmt"
)

// ErrTooMany marks a document with more values than allowed.
var ErrTooMany = errors.New("jsonbound: too many values")

// Values returns a bound of the number of values in the JSON document
// data: one, plus one for every comma, '[' and '{' outside strings, so
// that an element that is an array or an object counts twice (its comma
// and its bracket). It does not validate data: a malformed document gets a
// count, and the decoder that follows says what is wrong with it.
func Values(data []byte) int {
	n, inString, escaped := 1, false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == ',' || c == '[' || c == '{':
			n++
		}
	}
	return n
}

// Check returns an error wrapping ErrTooMany when Values(data) is more
// than max.
func Check(data []byte, max int) error {
	if n := Values(data); n > max {
		return fmt.Errorf("%w: %d values, at most %d", ErrTooMany, n, max)
	}
	return nil
}

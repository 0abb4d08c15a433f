package engine

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim/engine/logline"
)

// NewLogger returns a logger that writes one plain-text line per log entry
// to w, with no timestamps or colour, so that replaying the same choices
// writes the same bytes:
//
//	INF begin node 1 receives Pong{n: 1} from node 0 event=message node=1 step=3
//
// The lines are zerolog.ConsoleWriter's (NoColor, level then message, the
// other fields sorted by name with "error" first), byte for byte, but for
// text that would not stay on its line: a message, field name or field
// value that holds a newline, a control character, a bidi control or
// bytes that are not UTF-8 (a service's Logf of what it received) is
// Go-quoted (safetext.QuoteUnsafe), as ConsoleWriter quotes such string
// values already; and a message or string value longer than MaxLogValue
// bytes is cut there, saying how many bytes it left out.
func NewLogger(w io.Writer) *zerolog.Logger {
	l := zerolog.New(newConsoleWriter(w)).Level(zerolog.DebugLevel)
	return &l
}

// MaxLogValue bounds the bytes of a log line's message and of each of its
// string values: past it the text is cut (on a rune boundary) and ends
// "… (N bytes more, digest XXXXXXXX)", the digest of the whole text, so
// that two values that differ past the cut read differently. A service
// that logs a 200 KB payload at every step of a 20,000-step path would
// otherwise write gigabytes of log (6 GB, in a trial), and mdb would hold
// them in memory; the engine's own lines show messages with
// FormatValueCut, and the debugger's state views keep every value whole.
const MaxLogValue = 4 << 10

// cutLogValue returns v cut after MaxLogValue bytes with how much was left
// out, or v when it is not longer.
func cutLogValue(v []byte) []byte {
	if len(v) <= MaxLogValue {
		return v
	}
	cut := MaxLogValue
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	out := append([]byte(nil), v[:cut]...)
	return append(out, cutNote(len(v)-cut, string(v))...)
}

// consoleWriter turns zerolog's JSON entries into ConsoleWriter's lines.
// Performance: ConsoleWriter decodes every entry into a map through
// encoding/json, which made writing a 20,000-step log six times slower
// than the replay with JSON logging; consoleWriter scans the flat entries
// the simulator and services write (logline.Parse) and hands any other
// entry (nested values, duplicate or escaped keys, an unusual level, time
// or caller fields, text that is not valid UTF-8) to ConsoleWriter, so that
// the output is the same.
type consoleWriter struct {
	out    io.Writer
	slow   zerolog.ConsoleWriter
	line   []byte
	buf    []byte
	fields []logline.Field
	others []logline.Field // the fields other than level and message
}

func newConsoleWriter(w io.Writer) *consoleWriter {
	return &consoleWriter{out: w, slow: zerologWriter(w)}
}

// zerologWriter returns the zerolog.ConsoleWriter whose lines NewLogger's
// are: no colour, level then message, and every message, field name and
// field value passed through safetext.QuoteUnsafe.
func zerologWriter(w io.Writer) zerolog.ConsoleWriter {
	name := func(i any) string { return safetext.QuoteUnsafe(fmt.Sprintf("%s", i)) }
	text := func(i any) string {
		s := fmt.Sprintf("%s", i)
		if len(s) > MaxLogValue {
			// ConsoleWriter quoted a string value that needs it before
			// this sees it: cut what it says, as consoleWriter does,
			// and quote the rest again if it still needs it.
			// A value cut, with the note's spaces, needs quoting.
			if u, err := strconv.Unquote(s); err == nil && s[0] == '"' {
				s = u
			}
			if s = string(cutLogValue([]byte(s))); needsQuote([]byte(s)) {
				s = strconv.Quote(s)
			}
		}
		return safetext.QuoteUnsafe(s)
	}
	return zerolog.ConsoleWriter{
		Out:        w,
		NoColor:    true,
		PartsOrder: []string{zerolog.LevelFieldName, zerolog.MessageFieldName},
		FormatMessage: func(i any) string {
			if i == nil || i == "" {
				return ""
			}
			// One trailing newline is the Printf habit, not part of
			// what was said.
			return safetext.QuoteUnsafe(string(cutLogValue([]byte(strings.TrimSuffix(fmt.Sprintf("%s", i), "\n")))))
		},
		FormatFieldName:     func(i any) string { return name(i) + "=" },
		FormatErrFieldName:  func(i any) string { return name(i) + "=" },
		FormatFieldValue:    text,
		FormatErrFieldValue: text,
	}
}

// Write writes the line of the JSON entry p.
func (c *consoleWriter) Write(p []byte) (int, error) {
	if !c.format(p) {
		return c.slow.Write(p)
	}
	_, err := c.out.Write(c.line)
	return len(p), err
}

// format makes the line of entry p in c.line; false when p is not a flat
// entry it formats as ConsoleWriter does.
func (c *consoleWriter) format(p []byte) bool {
	var ok bool
	c.fields, c.buf, ok = logline.Parse(p, c.fields[:0], c.buf[:0])
	if !ok {
		return false
	}
	var level, msg *logline.Field
	fields := c.others[:0]
	for i := range c.fields {
		f := &c.fields[i]
		switch f.Key {
		case zerolog.LevelFieldName:
			level = f
			continue
		case zerolog.MessageFieldName:
			msg = f
			continue
		case zerolog.TimestampFieldName, zerolog.CallerFieldName, "":
			return false
		}
		fields = append(fields, *f)
	}
	c.others = fields
	if level == nil || !level.String || msg != nil && !msg.String {
		return false
	}
	lv, err := zerolog.ParseLevel(string(level.Value))
	name, known := zerolog.FormattedLevels[lv]
	if err != nil || !known {
		return false
	}
	c.line = append(c.line[:0], name...)
	if msg != nil && len(msg.Value) > 0 {
		c.line = append(c.line, ' ')
		c.line = safetext.AppendQuoteUnsafe(c.line, cutLogValue(bytes.TrimSuffix(msg.Value, []byte("\n"))))
	}
	// The other fields by name, "error" first.
	slices.SortFunc(fields, func(a, b logline.Field) int {
		switch {
		case a.Key == b.Key:
			return 0
		case a.Key == zerolog.ErrorFieldName:
			return -1
		case b.Key == zerolog.ErrorFieldName:
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	for _, f := range fields {
		c.line = append(c.line, ' ')
		if safetext.Safe(f.Key) {
			c.line = append(c.line, f.Key...)
		} else {
			c.line = strconv.AppendQuote(c.line, f.Key)
		}
		c.line = append(c.line, '=')
		if f.String {
			f.Value = cutLogValue(f.Value)
		}
		if f.String && needsQuote(f.Value) {
			// ConsoleWriter quotes strings with spaces, quotes,
			// backslashes or bytes outside printable ASCII.
			c.line = strconv.AppendQuote(c.line, string(f.Value))
		} else {
			c.line = append(c.line, f.Value...)
		}
	}
	c.line = append(c.line, '\n')
	return true
}

// needsQuote is ConsoleWriter's test for quoting a string value.
func needsQuote(s []byte) bool {
	for _, b := range s {
		if b < 0x20 || b > 0x7e || b == ' ' || b == '\\' || b == '"' {
			return true
		}
	}
	return false
}

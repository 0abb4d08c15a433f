package trace_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/cockroachdb/datadriven"

	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// TestScenarios runs the trace scenarios of testdata/scenarios/*.txt. Directives:
//
//	record seed=N            record 40 steps of tracetest-relay (recorded)
//	encode                   the recorded trace's bytes (hex dump)
//	decode                   decode them: the trace's fields, and whether it
//	                         equals the recording and encodes to the same bytes
//	replay                   replay the decoded trace against the recording
//	stamp                    record the recording's states (Trace.Stamp)
//	                         and encode it again
//	replay-checked [limit=L] [steps=N]
//	                         replay the decoded trace with ReplayChecked,
//	                         the relay's code changed to stop at tokens
//	                         of L (default 8, the recording's): where it
//	                         left the recorded execution, and its error
//	truncate n=N             decode the first N bytes
//	flip at=I [mask=M]       decode with byte I xor M (default 0xff); I < 0
//	                         counts from the end
//	append n=N               decode with N zero bytes appended
//	length value=V           decode with the body length field set to V
//	body hex=H               decode a frame around the body H (valid checksum)
//	raw text=T               decode the bytes T
//
// Decoding errors print which sentinel they match and the message. go test
// ./sim/trace -rewrite regenerates the files.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata/scenarios", func(t *testing.T, path string) {
		var rec *trace.Trace
		var data []byte
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key, def string) string {
				if a, ok := td.Arg(key); ok {
					return a.SingleVal(t)
				}
				return def
			}
			num := func(key, def string) uint64 {
				n, err := strconv.ParseUint(arg(key, def), 0, 64)
				if err != nil {
					td.Fatalf(t, "%s: %v", key, err)
				}
				return n
			}
			if td.Cmd != "record" && td.Cmd != "raw" && td.Cmd != "body" && data == nil {
				td.Fatalf(t, "%s before record", td.Cmd)
			}
			switch td.Cmd {
			case "record":
				rec, _ = recorded(t, num("seed", "1"))
				rec.Tool = "tracetest" // not the version, which changes
				var err error
				if data, err = rec.Marshal(); err != nil {
					td.Fatalf(t, "%v", err)
				}
				return fmt.Sprintf("%s %s, seed %d: %d steps, %d choices, %d bytes\n", rec.System, mapText(rec.Params), rec.Seed, rec.Steps, len(rec.Choices), len(data))
			case "encode":
				return hex.Dump(data)
			case "decode":
				got, err := trace.Unmarshal(data)
				if err != nil {
					return decodeError(err)
				}
				again, err := got.Marshal()
				if err != nil {
					td.Fatalf(t, "%v", err)
				}
				return fmt.Sprintf("%sequal to the recording: %v\nencodes to the same bytes: %v\n", fields(got), reflect.DeepEqual(got, rec), bytes.Equal(again, data))
			case "replay":
				got, err := trace.Unmarshal(data)
				if err != nil {
					td.Fatalf(t, "%v", err)
				}
				_, want := recorded(t, rec.Seed)
				s, err := got.Replay(-1, nil)
				if err != nil {
					return fmt.Sprintf("error: %v\n", err)
				}
				return fmt.Sprintf("replayed %d steps; the state equals the recording's: %v\n", s.Steps(), s.Hash() == want.Hash() && s.Steps() == want.Steps())
			case "stamp":
				if err := rec.Stamp(); err != nil {
					return fmt.Sprintf("error: %v\n", err)
				}
				var err error
				if data, err = rec.Marshal(); err != nil {
					td.Fatalf(t, "%v", err)
				}
				return fmt.Sprintf("%d states, after steps %v; build recorded: %v; hash version %d\n",
					len(rec.States)/8, trace.StateSteps(rec.Steps), rec.Build == trace.BuildID() && rec.Build != "", rec.HashVersion)
			case "replay-checked":
				got, err := trace.Unmarshal(data)
				if err != nil {
					td.Fatalf(t, "%v", err)
				}
				defer setRelayLimit(int(num("limit", "8")))()
				cfg, err := got.Config()
				if err != nil {
					td.Fatalf(t, "%v", err)
				}
				steps, err := strconv.Atoi(arg("steps", "-1"))
				if err != nil {
					td.Fatalf(t, "steps: %v", err)
				}
				s, diverged, err := got.ReplayChecked(cfg, steps, got.Options())
				var b strings.Builder
				fmt.Fprintf(&b, "replayed %d steps\n", s.Steps())
				if diverged != nil {
					fmt.Fprintf(&b, "diverged: step %d, since %d, same build %v\n%v\n", diverged.Step, diverged.Since, diverged.SameBuild(), diverged)
				}
				if err != nil {
					fmt.Fprintf(&b, "error (ErrNoFit %v, ErrBadChoice %v): %v\n", errors.Is(err, trace.ErrNoFit), errors.Is(err, engine.ErrBadChoice), err)
				}
				return b.String()
			case "truncate":
				return decodeError(unmarshal(data[:num("n", "0")]))
			case "flip":
				bad := bytes.Clone(data)
				at, err := strconv.Atoi(arg("at", "0"))
				if err != nil {
					td.Fatalf(t, "at: %v", err)
				}
				if at < 0 {
					at += len(bad)
				}
				bad[at] ^= byte(num("mask", "0xff"))
				return decodeError(unmarshal(bad))
			case "append":
				return decodeError(unmarshal(append(bytes.Clone(data), make([]byte, num("n", "1"))...)))
			case "length":
				bad := bytes.Clone(data)
				binary.LittleEndian.PutUint64(bad[9:17], num("value", "0"))
				return decodeError(unmarshal(bad))
			case "body":
				body, err := hex.DecodeString(arg("hex", ""))
				if err != nil {
					td.Fatalf(t, "%v", err)
				}
				var b bytes.Buffer
				b.WriteString("MACEMCTR\x01")
				b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(body))))
				b.Write(body)
				b.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(body)))
				return decodeError(unmarshal(b.Bytes()))
			case "raw":
				return decodeError(unmarshal([]byte(arg("text", ""))))
			}
			td.Fatalf(t, "unknown command %q", td.Cmd)
			return ""
		})
	})
}

// unmarshal decodes data and returns only the error.
func unmarshal(data []byte) error {
	_, err := trace.Unmarshal(data)
	return err
}

// decodeError names the sentinel err matches and gives its message.
func decodeError(err error) string {
	if err == nil {
		return "decoded\n"
	}
	for _, s := range []struct {
		name string
		err  error
	}{{"ErrNotTrace", trace.ErrNotTrace}, {"ErrTruncated", trace.ErrTruncated}, {"ErrCorrupt", trace.ErrCorrupt}, {"ErrVersion", trace.ErrVersion}, {"ErrNotExist", os.ErrNotExist}} {
		if errors.Is(err, s.err) {
			return fmt.Sprintf("%s: %v\n", s.name, err)
		}
	}
	return fmt.Sprintf("unclassified: %v\n", err)
}

// fields lists a trace's fields that a file holds, one a line.
func fields(t *trace.Trace) string {
	var b strings.Builder
	v := reflect.ValueOf(t).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Tag.Get("msgpack") == "-" {
			continue // never written (Sys)
		}
		f := v.Field(i)
		var s string
		switch x := f.Interface().(type) {
		case map[string]string:
			s = mapText(x)
		case []byte: // States: hashes, which change with the hashing
			s = fmt.Sprintf("%d bytes", len(x))
		case string:
			s = x
			if x != "" && x == trace.BuildID() {
				s = "(this binary)" // a build ID changes with every build
			}
		default:
			s = fmt.Sprint(f.Interface())
		}
		fmt.Fprintf(&b, "%s: %s\n", v.Type().Field(i).Name, s)
	}
	return b.String()
}

func mapText(m map[string]string) string { return fmt.Sprint(m) } // fmt sorts map keys

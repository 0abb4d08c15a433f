// Package trace reads and writes macemc trace files: the system, its
// parameters and the sequence of choices that replays one execution
// exactly, plus what the checker concluded about it (the violated
// property, the critical step).
//
// A file is the magic "MACEMCTR", a format version byte, the body length,
// a msgpack body and an xxhash checksum of the body, so that a truncated or
// corrupt file is refused with ErrTruncated or ErrCorrupt instead of being
// half read. Files are written to a temporary name and renamed.
//
// # Usage
//
//	t := &trace.Trace{System: "transport", Params: p, Choices: s.ChoiceValues(), Steps: s.Steps()}
//	if err := t.Write("macemc-out/error.trace"); err != nil { ... }
//
//	t, err := trace.Read("macemc-out/error.trace")
//	s, err := t.Replay(-1, nil) // the simulator after the last step
package trace

// Package trace reads and writes macemc trace files: the system, its
// parameters and the sequence of choices that replays one execution
// exactly, plus what the checker concluded about it (the violated
// property, the critical step).
//
// A file is the magic "MACEMCTR", a format version byte, the body length,
// a msgpack body and an xxhash checksum of the body, so that a truncated or
// corrupt file is refused with ErrTruncated or ErrCorrupt instead of being
// half read. A file is untrusted input: every length it declares (the
// body, the msgpack map of fields, the choices, the parameters) is checked
// against the bytes actually there and against MaxBody and MaxChoices
// before anything is allocated, and Validate checks what the fields say
// (a step needs a choice, no negative counts, a lasso's cycle within the
// steps). Parameters are encoded in key order, so equal traces have equal
// bytes.
//
// A trace a search writes also fingerprints its execution (Stamp): the
// build that wrote it (BuildID) and the state hash after every step up to
// 1,000 and every 100th after (States, StateSteps). ReplayChecked replays
// the choices and compares: another build of the system, whose handlers
// changed, may follow the same choices into another execution, and a
// DivergedError says from which step, instead of that execution passing
// for the recorded one; choices that no longer fit wrap ErrNoFit.
//
// Files are written to a temporary name and renamed (WriteAtomic), and
// only ever replace a regular file: a symlink, device, FIFO or directory
// at the path is refused with ErrNotRegular. Read reads regular files only.
//
// # Usage
//
//	t := &trace.Trace{System: "transport", Params: p, Choices: s.ChoiceValues(), Steps: s.Steps()}
//	if err := t.Write("macemc-out/error.trace"); err != nil { ... }
//
//	t, err := trace.Read("macemc-out/error.trace")
//	s, err := t.Replay(-1, nil) // the simulator after the last step
//
//	cfg, err := t.Config()
//	s, diverged, err := t.ReplayChecked(cfg, -1, t.Options())
//	if diverged != nil { ... } // not the execution the trace recorded
package trace

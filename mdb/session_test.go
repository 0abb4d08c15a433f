package mdb_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/sim/trace"
)

// TestSessions runs the mdb sessions of testdata/*.txt over the mdbtest
// fixture (mdbtest.Find: a deterministic error path of 200 steps, its
// critical step and live path). Directives:
//
//	open [lasso|transport|history|boom|monitor|reorder|lost] [file=NAME] [live=NAME] [limit=N] [snapshot=N] [color] [live-critical] [corrupt-live]
//
// writes the fixture's error.trace and live.trace into a new directory
// (with lasso: the philosophers' livelock found with lasso detection,
// lassoOutput; with transport: MaceTransport's bug, transportOutput; with
// history: the buggy register's linearizability violation, historyOutput;
// with boom: a safety trace that ends with a handler panic, boomOutput;
// with monitor: the search of a monitor whose Handle panics,
// monitorOutput;
// with reorder: mdbtest.Reorder's equal datagrams that overtake each
// other and a copy taken before its original, reorderOutput; with lost:
// mdbtest.Lost's messages lost to a break, a partition and a crash,
// lostOutput)
// and opens a session on it (or on the file NAME in it), printing the
// intro (and the warnings, Options.Warn being Out); live-critical first
// writes live.trace again with the error trace's critical step and
// condition, as the live traces of searches before they stopped recording
// them did, and corrupt-live flips a byte in the middle of live.trace;
//
//	run
//	COMMAND
//	...
//
// runs the commands in that session as a script (Session.RunScript with
// echo), so the output reads like a terminal session: prompt and command,
// then what it printed or "error: ...". The directory is shown as $DIR, and
// the goroutine stack of a command that panicked (an internal error) as
// <stack>.
// go test ./mdb -rewrite regenerates the files.
func TestSessions(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sessions in testdata: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) { session(t, path) })
	}
}

// session runs the mdb session of one file.
func session(t *testing.T, path string) {
	{
		var s *mdb.Session
		var out bytes.Buffer
		var dir string
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "open":
				switch {
				case td.HasArg("lasso"):
					dir, _ = lassoOutput(t)
				case td.HasArg("transport"):
					dir, _ = transportOutput(t)
				case td.HasArg("history"):
					dir = historyOutput(t)
				case td.HasArg("boom"):
					dir = boomOutput(t)
				case td.HasArg("monitor"):
					dir = monitorOutput(t)
				case td.HasArg("reorder"):
					dir = reorderOutput(t)
				case td.HasArg("lost"):
					dir = lostOutput(t)
				default:
					dir, _ = writeFixture(t)
				}
				if td.HasArg("live-critical") {
					liveCritical(t, dir)
				}
				if td.HasArg("corrupt-live") {
					corrupt(t, filepath.Join(dir, "live.trace"))
				}
				arg, live := dir, ""
				o := mdb.Options{Out: &out}
				for _, a := range td.CmdArgs {
					switch a.Key {
					case "file":
						arg = filepath.Join(dir, a.SingleVal(t))
					case "live":
						live = filepath.Join(dir, a.SingleVal(t))
					case "limit":
						o.Limit = atoi(t, td, a.SingleVal(t))
					case "snapshot":
						o.SnapshotEvery = atoi(t, td, a.SingleVal(t))
					case "color":
						o.Color = true
					case "lasso", "transport", "history", "boom", "monitor", "reorder", "lost", "live-critical", "corrupt-live":
					default:
						td.Fatalf(t, "unknown argument %q", a.Key)
					}
				}
				out.Reset()
				var err error
				s, err = mdb.Open(arg, live, o)
				if err != nil {
					return "error: " + strings.ReplaceAll(err.Error(), dir, "$DIR") + "\n"
				}
				s.Intro()
			case "run":
				if s == nil {
					td.Fatalf(t, "run before open")
				}
				out.Reset()
				_ = s.RunScript(strings.NewReader(strings.ReplaceAll(td.Input, "$DIR", dir)), true) // failures show as "error: ..." lines
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			return goroutineStack.ReplaceAllString(strings.ReplaceAll(out.String(), dir, "$DIR"), "<stack>\n")
		})
	}
}

// liveCritical writes dir's live.trace again with the critical step and
// condition of its error.trace.
func liveCritical(t *testing.T, dir string) {
	t.Helper()
	et, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	lt, err := trace.Read(filepath.Join(dir, "live.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if lt.Kind != trace.KindLive || et.Critical <= 0 {
		t.Fatalf("live.trace of kind %q, error.trace's critical step %d", lt.Kind, et.Critical)
	}
	lt.Critical, lt.Condition = et.Critical, et.Condition
	if err := lt.Write(filepath.Join(dir, "live.trace")); err != nil {
		t.Fatal(err)
	}
}

// corrupt flips a byte in the middle of a file.
func corrupt(t *testing.T, file string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goroutineStack matches the stack an internal error carries, which
// differs from one build and run to the next.
var goroutineStack = regexp.MustCompile(`(?s)goroutine \d+ \[running\]:\n.*?\n\n`)

func atoi(t *testing.T, td *datadriven.TestData, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	return n
}

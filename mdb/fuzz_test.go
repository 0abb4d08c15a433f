package mdb_test

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/sim/trace"
)

// TestUntrustedTrace: a trace handed to New (not read from a file, so not
// checked by trace.Unmarshal) that declares more steps than it has
// choices, or a lasso cycle whose start and length overflow, is refused
// as bad input before anything is allocated for it.
func TestUntrustedTrace(t *testing.T) {
	f := found(t)
	for name, mut := range map[string]func(*trace.Trace){
		"2^40 steps":     func(tr *trace.Trace) { tr.Steps = 1 << 40 },
		"cycle overflow": func(tr *trace.Trace) { tr.CycleStart, tr.CycleLen = 1<<62+1, 1<<62+1 },
		"negative cycle": func(tr *trace.Trace) { tr.CycleStart, tr.CycleLen = -5, 2 },
	} {
		et := *f.Error
		mut(&et)
		if _, err := mdb.New(&et, nil, mdb.Options{Out: io.Discard}); !errors.Is(err, mdb.ErrInput) || !errors.Is(err, trace.ErrCorrupt) {
			t.Errorf("%s: error trace: %v", name, err)
		}
		if _, err := mdb.New(f.Error, &et, mdb.Options{Out: io.Discard}); !errors.Is(err, mdb.ErrInput) {
			t.Errorf("%s: live trace: %v", name, err)
		}
	}
}

// FuzzExec: no command line, however malformed, panics a session (Exec
// turns a panic into an "internal error", which fails here) or leaves it
// unusable. Lines that write files (--svg) or ask for long runs (counts
// over 1000) are left out: the fuzzer must not write where it likes, and
// must stay fast. The corpus in testdata/fuzz covers every command.
func FuzzExec(f *testing.F) {
	for _, c := range []string{
		"help", "help g", "n", "n 3", "p 2", "j 5", "j crit", "j cycle", "j +3", "j -2", "j end", "home", "end", ".",
		"info", "st", "st 1", "st net", "props", "d", "d 3 5", "m", "m 4 live", "a", "B 0", "B 0 7", "r 20 3",
		"R 50", "w 1", "w all", "e message", "e Ack node=1 --all", "s retx", "x --all Data", "l 3", "g", "g 1 5",
		"g cycle", "paths", "path live", "path error", "q", `e "unterminated`, "j 99999999999999999999",
		"j +9223372036854775807", "g 5 1", "d -1 -2", "B -1", "st node-1", "x (", "path b1; n",
	} {
		f.Add(c)
	}
	fx := found(f)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(strings.ToLower(line), "svg") {
			return
		}
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ';' || r == '=' || r == '"' || r == '\'' }) {
			if n, err := strconv.ParseInt(strings.TrimLeft(w, "+-"), 10, 64); err == nil && n > 1000 && !strings.HasPrefix(strings.ToLower(line), "j") {
				return
			}
		}
		var out bytes.Buffer
		s, err := mdb.New(fx.Error, fx.Live, mdb.Options{Out: &out})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range mdb.SplitCommands(line) {
			if err := s.Exec(c); err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: %v", c, err)
			}
		}
		// The session still works.
		if err := s.Exec("home"); err != nil {
			t.Fatalf("after %q: home: %v", line, err)
		}
		if n, _ := s.Position(); n != 0 {
			t.Fatalf("after %q: home is step %d", line, n)
		}
	})
}

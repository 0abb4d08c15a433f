package mdb_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/mdbtest"
)

var (
	fixtureOnce sync.Once
	fixture     *mdbtest.Found
	fixtureErr  error
)

// found returns the fixture's error and live traces (found once).
func found(t testing.TB) *mdbtest.Found {
	t.Helper()
	fixtureOnce.Do(func() { fixture, fixtureErr = mdbtest.Find(mdbtest.Options{}) })
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

// writeFixture writes error.trace and live.trace into a new directory.
func writeFixture(t testing.TB) (dir string, f *mdbtest.Found) {
	t.Helper()
	f = found(t)
	dir = t.TempDir()
	if err := f.Error.Write(dir + "/error.trace"); err != nil {
		t.Fatal(err)
	}
	if err := f.Live.Write(dir + "/live.trace"); err != nil {
		t.Fatal(err)
	}
	return dir, f
}

// reorderOutput is mdbtest.ErrorDir of mdbtest.Reorder, for the session
// of testdata/reorder.txt.
func reorderOutput(t testing.TB) string { return mdbtest.ErrorDir(t, mdbtest.Reorder) }

// lostOutput is mdbtest.ErrorDir of mdbtest.Lost, for the session of
// testdata/lost.txt.
func lostOutput(t testing.TB) string { return mdbtest.ErrorDir(t, mdbtest.Lost) }

// drawSVG runs mdb's g with --svg over steps from to to of the path in
// dir and returns the SVG.
func drawSVG(t testing.TB, dir string, from, to int) []byte {
	t.Helper()
	s := open(t, dir, "", mdb.Options{})
	svg := filepath.Join(dir, "g.svg")
	s.run(fmt.Sprintf("g %d %d --svg %s", from, to, svg))
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// tsession is a session whose output the test reads command by command.
type tsession struct {
	*mdb.Session
	t   testing.TB
	out *bytes.Buffer
}

func open(t testing.TB, dir string, live string, o mdb.Options) *tsession {
	t.Helper()
	var buf bytes.Buffer
	o.Out = &buf
	s, err := mdb.Open(dir, live, o)
	if err != nil {
		t.Fatal(err)
	}
	return &tsession{Session: s, t: t, out: &buf}
}

// fixtureSession opens the fixture's output directory.
func fixtureSession(t testing.TB) (*tsession, *mdbtest.Found) {
	t.Helper()
	dir, f := writeFixture(t)
	return open(t, dir, "", mdb.Options{}), f
}

// run runs a command that must succeed and returns what it printed.
func (s *tsession) run(cmd string) string {
	s.t.Helper()
	s.out.Reset()
	if err := s.Exec(cmd); err != nil {
		s.t.Fatalf("%s: %v\noutput:\n%s", cmd, err, s.out)
	}
	return s.out.String()
}

// fail runs a command that must fail and returns its error text.
func (s *tsession) fail(cmd string) string {
	s.t.Helper()
	s.out.Reset()
	err := s.Exec(cmd)
	if err == nil {
		s.t.Fatalf("%s: succeeded, want an error\noutput:\n%s", cmd, s.out)
	}
	return err.Error()
}

// at checks the session's current step and path.
func (s *tsession) at(step int, path string) {
	s.t.Helper()
	if n, p := s.Position(); n != step || p != path {
		s.t.Fatalf("at %s step %d, want %s step %d", p, n, path, step)
	}
}

func mustContain(t testing.TB, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func mustNotContain(t testing.TB, out string, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if strings.Contains(out, w) {
			t.Errorf("output has %q:\n%s", w, out)
		}
	}
}

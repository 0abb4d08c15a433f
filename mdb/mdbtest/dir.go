package mdbtest

import (
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/sim/trace"
)

// ErrorDir writes the path a scripted system makes (script: Reorder, Lost)
// as error.trace into a new directory of tb's and returns the directory.
func ErrorDir(tb testing.TB, script func() (*trace.Trace, error)) string {
	tb.Helper()
	tr, err := script()
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if err := tr.Write(filepath.Join(dir, "error.trace")); err != nil {
		tb.Fatal(err)
	}
	return dir
}

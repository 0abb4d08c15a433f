package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// Check runs `macemc search` with args inside a Go test and fails the test
// with the report and the command that replays the violation when one is
// found; it also fails on usage errors. Unless args set --out, results go
// to a directory under os.TempDir() named after the test, which is kept so
// that the replay command works after the test ends.
//
//	func TestPingPong(t *testing.T) {
//		cli.Check(t, "--system", "pingpong", "--max-paths", "500", "--seed", "1")
//	}
func Check(t testing.TB, args ...string) {
	t.Helper()
	hasOut := false
	for _, a := range args {
		if a == "--out" || len(a) > 6 && a[:6] == "--out=" {
			hasOut = true
		}
	}
	if !hasOut {
		name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
		args = append(args, "--out", filepath.Join(os.TempDir(), "macemc-"+name))
	}
	var stdout, stderr bytes.Buffer
	app := &App{Name: "macemc", Stdout: &stdout, Stderr: &stderr}
	switch code := app.Run(append([]string{"search"}, args...)); code {
	case ExitNone:
	case ExitViolation:
		t.Errorf("macemc found a violation:\n%s", stdout.String())
	default:
		t.Errorf("macemc search failed (exit %d):\n%s%s", code, stderr.String(), stdout.String())
	}
}

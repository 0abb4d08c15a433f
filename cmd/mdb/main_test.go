package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/mdbtest"
)

// TestMain runs mdb itself when the test binary is started as the helper
// process of the terminal test (with the test's fixture system registered).
func TestMain(m *testing.M) {
	mdbtest.Register()
	if os.Getenv("MDB_TEST_RUN_MAIN") == "1" {
		os.Exit(mdb.Main("mdb", os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

var (
	fixOnce sync.Once
	fix     *mdbtest.Found
	fixErr  error
)

// fixture writes the fixture's error.trace and live.trace into a new directory.
func fixture(t *testing.T) (string, *mdbtest.Found) {
	t.Helper()
	fixOnce.Do(func() { fix, fixErr = mdbtest.Find(mdbtest.Options{}) })
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	dir := t.TempDir()
	if err := fix.Error.Write(filepath.Join(dir, "error.trace")); err != nil {
		t.Fatal(err)
	}
	if err := fix.Live.Write(filepath.Join(dir, "live.trace")); err != nil {
		t.Fatal(err)
	}
	return dir, fix
}

// runMain runs mdb in the test process with stdin from a file holding input.
func runMain(t *testing.T, input string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(in, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out, errOut bytes.Buffer
	code = mdb.Main("mdb", args, f, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCommandFlag(t *testing.T) {
	dir, f := fixture(t)
	code, out, errOut := runMain(t, "", dir, "-c", "j crit; filediff; g --svg "+filepath.Join(dir, "g.svg"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		fmt.Sprintf("error path: 200 steps, critical step %d (C1: dead from there on)", f.Error.Critical),
		"(mdb 0) j crit",
		fmt.Sprintf("(mdb %d) filediff", f.Error.Critical),
		fmt.Sprintf("--- error step %d\n+++ live step %d", f.Error.Critical, f.Error.Critical),
		"- timers: []", "+ timers: [retx]",
		"wrote " + filepath.Join(dir, "g.svg"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour in output that is not a terminal")
	}
	if _, err := os.Stat(filepath.Join(dir, "g.svg")); err != nil {
		t.Error(err)
	}
}

func TestStdinScript(t *testing.T) {
	dir, _ := fixture(t)
	code, out, _ := runMain(t, "n 2\nstate 0\nq\nn\n", filepath.Join(dir, "error.trace"), "--live", filepath.Join(dir, "live.trace"))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"(mdb 0) n 2\n", "step 2/200", "(mdb 2) state 0\nnode 0 (Sender)", "(mdb 2) q\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(mdb 2) n\n") {
		t.Error("ran a command after quit")
	}
	// Without echo only the commands' output.
	_, out, _ = runMain(t, "n\n", dir, "--echo=false")
	if strings.Contains(out, "(mdb 0) n") || !strings.Contains(out, "step 1/200") {
		t.Errorf("--echo=false:\n%s", out)
	}
}

func TestExitCodes(t *testing.T) {
	dir, f := fixture(t)
	bad := filepath.Join(t.TempDir(), "bad.trace")
	if err := os.WriteFile(bad, []byte("MACEMCTR\x01\x05"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := *f.Error
	other.System = "no-such-system"
	otherFile := filepath.Join(t.TempDir(), "error.trace")
	if err := other.Write(otherFile); err != nil {
		t.Fatal(err)
	}
	errTrace, liveTrace := filepath.Join(dir, "error.trace"), filepath.Join(dir, "live.trace")
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		inErr string
	}{
		{"no arguments", nil, 2, "give the output directory of macemc search, or an error trace\nusage: mdb DIR"},
		{"two arguments", []string{dir, dir}, 2, "one directory or trace expected"},
		{"missing", []string{filepath.Join(dir, "nope")}, 2, "no such file"},
		{"truncated", []string{bad}, 2, "trace: truncated"},
		{"bad flag", []string{"--frobnicate", dir}, 2, "unknown flag"},
		{"bad colour", []string{"--color", "purple", dir}, 2, `mdb: --color "purple": allowed auto, always or never`},
		{"bad snapshot", []string{"--snapshot-every", "0", dir}, 2, "mdb: --snapshot-every 0: allowed a positive number of steps (default 256)\n"},
		{"snapshot not a number", []string{"--snapshot-every", "abc", dir}, 2, "mdb: --snapshot-every abc: allowed a positive number of steps (default 256)\n"},
		{"max-line not a number", []string{"--max-line", "abc", dir}, 2, "mdb: --max-line abc: allowed 0 (lines whole) or a positive number of bytes\n"},
		// A failed command is exit 2, not 1: every macemc command exits
		// 1 with a violation found, and a CI wrapper reads it so.
		{"failed command", []string{dir, "-c", "j 999"}, 2, "mdb: commands failed: 1 (each one's error is in the output above, after its command)\n"},
		{"unknown command", []string{dir, "-c", "bogus; n; x"}, 2, "mdb: commands failed: 2 (each one's"},
		{"good", []string{dir, "-c", "end; q"}, 0, ""},
		{"unknown system", []string{otherFile}, 2, `mdb: sim: unknown system "no-such-system" (known: `},
		{"unknown system's hint", []string{otherFile}, 2, "(run mdb with a binary that registers the system: a main package that imports the system's package and calls cli.Main, as `BINARY mdb DIR`)\n"},
		{"live twice", []string{errTrace, "--live", liveTrace, "-l", errTrace}, 2, fmt.Sprintf("mdb: --live given twice, as %q and %q: give it once", liveTrace, errTrace)},
		{"live twice alike", []string{errTrace, "--live", liveTrace, "-l", liveTrace, "-c", "filediff 6"}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runMain(t, "", c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, errOut)
			}
			if !strings.Contains(errOut, c.inErr) {
				t.Errorf("stderr lacks %q: %s", c.inErr, errOut)
			}
		})
	}
}

// TestHelp: --help, asked for, prints the usage on stdout and exits 0.
func TestHelp(t *testing.T) {
	code, out, errOut := runMain(t, "", "--help")
	if code != 0 || errOut != "" {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"usage: mdb DIR | ERROR_TRACE_OR_LOG", "-l, --live", "--max-line N"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestLiveNotLive: a --live trace that records no live path is warned of
// once, on stderr, saying what it records (testdata/notlive.txt in
// package mdb shows the session).
func TestLiveNotLive(t *testing.T) {
	dir, _ := fixture(t)
	errTrace := filepath.Join(dir, "error.trace")
	code, out, errOut := runMain(t, "", errTrace, "--live", errTrace, "-c", "i; filediff 6; paths")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "warning: " + errTrace + " is not a live path but a liveness violation of AllAcked (its kind is \"liveness\", not \"live\"); mdb shows it as the live path all the same\n"
	if errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}
	if strings.Contains(out, "warning") {
		t.Errorf("a warning on stdout:\n%s", out)
	}
}

// TestCorruptLive: a directory whose live.trace is corrupt opens its
// error path, with a warning on stderr that says why there is no live
// path (testdata/corruptlive.txt in package mdb shows the session).
func TestCorruptLive(t *testing.T) {
	dir, f := fixture(t)
	live := filepath.Join(dir, "live.trace")
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(live, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runMain(t, "", dir, "-c", "j crit")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "warning: no live path: " + live + ": trace: corrupt: checksum mismatch (the file is damaged); filediff has nothing to compare the error path with"; !strings.HasPrefix(errOut, want) {
		t.Errorf("stderr:\n%s\nwant it to start with:\n%s", errOut, want)
	}
	if want := fmt.Sprintf("step %d/200 [critical]", f.Error.Critical); !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
}

// TestLongLine: a line over 1 MiB on stdin fails on its own, saying the
// limit; the session goes on with the next lines and exits 2, as for any
// failed command.
func TestLongLine(t *testing.T) {
	dir, _ := fixture(t)
	code, out, errOut := runMain(t, "x "+strings.Repeat("a", 1<<20)+"\nn\n", dir)
	if want := "mdb: commands failed: 1 (each one's error is in the output above, after its command)\n"; code != 2 || errOut != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	for _, want := range []string{"error: line 1 is 1048578 bytes long, over the 1048576 bytes (1 MiB) a command line may have: skipped\n", "(mdb 0) n\nstep 1/200"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// terminal is mdb running on a pseudo-terminal, as a person uses it.
type terminal struct {
	t    *testing.T
	tty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // how much of the (unescaped) output expect has consumed
	done chan struct{}
}

func startTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MDB_TEST_RUN_MAIN=1", "TERM=xterm", "NO_COLOR=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	term := &terminal{t: t, tty: tty, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		tty.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return term
}

// ansi matches terminal control sequences.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\r`)

// expect waits until the output after what the last expect matched
// contains want, and returns the output up to the end of want.
func (term *terminal) expect(want string) string {
	term.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		term.mu.Lock()
		text := ansi.ReplaceAllString(term.out.String(), "")
		if i := strings.Index(text[term.seen:], want); i >= 0 {
			from := term.seen
			term.seen += i + len(want)
			term.mu.Unlock()
			return text[from:term.seen]
		}
		term.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	term.t.Fatalf("timed out waiting for %q; the terminal shows:\n%s", want, ansi.ReplaceAllString(term.out.String(), "")[term.seen:])
	return ""
}

// typeKeys types keys one at a time, as a person would.
func (term *terminal) typeKeys(keys string) {
	term.t.Helper()
	for _, k := range []byte(keys) {
		if _, err := term.tty.Write([]byte{k}); err != nil {
			term.t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestTerminal drives an interactive session through a pseudo-terminal:
// open, jump, step, recall a command from history, diff, quit.
func TestTerminal(t *testing.T) {
	dir, f := fixture(t)
	crit := f.Error.Critical
	term := startTerminal(t, dir, "--history", filepath.Join(t.TempDir(), "history"))
	term.expect(fmt.Sprintf("critical step %d", crit))
	term.expect("(mdb 0) ")
	term.typeKeys("j crit\r")
	term.expect(fmt.Sprintf("step %d/200 [critical]", crit))
	term.expect(fmt.Sprintf("(mdb %d) ", crit))
	term.typeKeys("n\r")
	term.expect(fmt.Sprintf("(mdb %d) ", crit+1))
	// Up arrow recalls "n" from the history; Enter runs it again.
	term.typeKeys("\x1b[A\r")
	term.expect(fmt.Sprintf("step %d/200", crit+2))
	term.expect(fmt.Sprintf("(mdb %d) ", crit+2))
	// Line editing: type a wrong word, erase it, type the right one.
	term.typeKeys("j crix\x7ft\r")
	term.expect(fmt.Sprintf("(mdb %d) ", crit))
	term.typeKeys("filediff\r")
	out := term.expect(fmt.Sprintf("(mdb %d) ", crit))
	for _, want := range []string{fmt.Sprintf("--- error step %d", crit), fmt.Sprintf("+++ live step %d", crit), "- timers: []", "+ timers: [retx]"} {
		if !strings.Contains(out, want) {
			t.Errorf("filediff on the terminal lacks %q:\n%s", want, out)
		}
	}
	term.typeKeys(fmt.Sprintf("d %d %d\r", crit-1, crit))
	out = term.expect(fmt.Sprintf("(mdb %d) ", crit))
	if !strings.Contains(out, fmt.Sprintf("--- step %d", crit-1)) || !strings.Contains(out, "+ timers: []") {
		t.Errorf("d on the terminal:\n%s", out)
	}
	term.typeKeys("bogus\r")
	term.expect(`error: unknown command "bogus"`)
	term.typeKeys("q\r")
	select {
	case <-term.done:
	case <-time.After(10 * time.Second):
		t.Fatal("mdb did not exit after q")
	}
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("mdb exited with %v", err)
	}
}

// TestTerminalEOF ends an interactive session with Ctrl-D.
func TestTerminalEOF(t *testing.T) {
	dir, _ := fixture(t)
	term := startTerminal(t, dir, "--history", "")
	term.expect("(mdb 0) ")
	term.typeKeys("\x04")
	select {
	case <-term.done:
	case <-time.After(10 * time.Second):
		t.Fatal("mdb did not exit on Ctrl-D")
	}
	if err := term.cmd.Wait(); err != nil {
		t.Fatalf("mdb exited with %v", err)
	}
}

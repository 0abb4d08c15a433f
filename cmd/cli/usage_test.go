package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestUsageErrors runs the command lines of testdata/usage.txt: each
//
//	macemc
//	ARG ...
//
// runs the arguments (one line, split at spaces; $DIR is a directory that
// holds a previous run's report.json, passed as --out where a command
// writes, and $DANGLING a symlink in it to a file that does not exist)
// and prints the exit code, stdout and stderr. Every command in the
// file must exit 2 and leave that report.json in place. The systems an
// unknown name is told about, which depend on what the test binary
// registers, show as "(known: ...)". go test ./cmd/cli -rewrite
// regenerates the file.
func TestUsageErrors(t *testing.T) {
	datadriven.RunTest(t, "testdata/usage.txt", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "macemc" {
			td.Fatalf(t, "unknown command %q", td.Cmd)
		}
		dir := t.TempDir()
		prev := filepath.Join(dir, "report.json")
		if err := os.WriteFile(prev, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
			t.Fatal(err)
		}
		input := strings.ReplaceAll(td.Input, "$DANGLING", filepath.Join(dir, "dangling"))
		args := strings.Fields(strings.ReplaceAll(input, "$DIR", dir))
		code, out, errs := run(t, args...)
		if code != ExitUsage {
			t.Errorf("%s: exit %d, want %d", td.Pos, code, ExitUsage)
		}
		if _, err := os.Stat(prev); err != nil {
			t.Errorf("%s: a usage error removed the previous results in --out: %v", td.Pos, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "exit %d\n", code)
		if out != "" {
			b.WriteString("stdout:\n" + out)
		}
		if errs != "" {
			b.WriteString("stderr:\n" + errs)
		}
		return knownSystems.ReplaceAllString(strings.ReplaceAll(b.String(), dir, "$DIR"), "(known: ...)")
	})
}

// knownSystems matches the list of registered systems in an unknown
// system's error.
var knownSystems = regexp.MustCompile(`\(known: [^)]*\)`)

// TestVersionHelp: `version --help` prints the command's usage and exits 0,
// as every command's --help does (it was "unexpected argument", exit 2).
func TestVersionHelp(t *testing.T) {
	code, out, errs := run(t, "version", "--help")
	if code != ExitNone || !strings.HasPrefix(out, "usage: macemc version") || errs != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestSearchHelpStrategyOptions: `search --help` shows each strategy
// option's flag with its kind as the flag's type and its range, as `list`
// shows a system parameter's (every strategy flag showed as "string", and
// no range).
func TestSearchHelpStrategyOptions(t *testing.T) {
	code, out, errs := run(t, "search", "--help")
	if code != ExitNone {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	flagLine := func(name string) string {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == "--"+name {
				return l
			}
		}
		t.Fatalf("no --%s in\n%s", name, out)
		return ""
	}
	for name, want := range map[string]*regexp.Regexp{
		"pct-steps":    regexp.MustCompile(`^ +--pct-steps int +--strategy pct: .*\(int, 1 to 1048575\) \(default 100\)$`),
		"random-steps": regexp.MustCompile(`^ +--random-steps int +.*\(int, 1 to 1048575\) \(default 100\)$`),
		"pct-depth":    regexp.MustCompile(`^ +--pct-depth int +.*\(int\) \(default 3\)$`),
		"pct-unit":     regexp.MustCompile(`^ +--pct-unit string +.*\(string\) \(default "source"\)$`),
		"dpor-sleep":   regexp.MustCompile(`^ +--dpor-sleep +--strategy dpor: .*\(bool\) \(default true\)$`),
	} {
		if l := flagLine(name); !want.MatchString(l) {
			t.Errorf("--%s:\n%s\nwant it to match %s", name, l, want)
		}
	}
}

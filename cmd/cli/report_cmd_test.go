package cli

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCommand makes the page of a search's result directory, and
// refuses what is not one.
func TestReportCommand(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--walk-depth", "100", "--out", dir); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs := run(t, "report", dir)
	page := filepath.Join(dir, "report.html")
	if code != ExitNone || !strings.Contains(out, "wrote "+page) {
		t.Fatalf("report: exit %d\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(data), "Liveness violation of Counted") || !strings.Contains(string(data), "macemc report "+dir) {
		t.Errorf("the page does not show the finding: %v", err)
	}
	other := filepath.Join(t.TempDir(), "page.html")
	if code, _, errs := run(t, "report", dir, "--html", other); code != ExitNone {
		t.Errorf("report --html: exit %d: %s", code, errs)
	} else if _, err := os.Stat(other); err != nil {
		t.Error(err)
	}
	// A damaged live.trace leaves the page of the error path, with a
	// warning that names it.
	if err := os.WriteFile(filepath.Join(dir, "live.trace"), []byte("not a trace"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, "report", dir)
	if code != ExitNone || !strings.HasPrefix(errs, "macemc report: warning: the page is made without a path that could not be read: ") || !strings.Contains(errs, "live.trace") {
		t.Errorf("report with a damaged live.trace: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{{"report"}, {"report", dir, dir}, {"report", t.TempDir()}, {"report", filepath.Join(dir, "nope")}} {
		if code, _, errs := run(t, args...); code != ExitUsage || errs == "" {
			t.Errorf("%v: exit %d, want %d with a message (%q)", args, code, ExitUsage, errs)
		}
	}
}

// TestReportMovedDir makes the page of a result directory moved since the
// search wrote it: its commands name the files where they are now, with
// the binary that makes the page, not report.json's commands (which name
// the directory the search wrote).
func TestReportMovedDir(t *testing.T) {
	root := t.TempDir()
	old, moved := filepath.Join(root, "out-false"), filepath.Join(root, "moved")
	runAs := func(name string, args ...string) (int, string) {
		var out, errb bytes.Buffer
		app := &App{Name: name, Stdout: &out, Stderr: &errb}
		code := app.Run(args)
		return code, out.String() + errb.String()
	}
	if code, out := runAs("./searchbin", "search", "--system", "clitest-poison", "--walk-depth", "100", "--out", old); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s", code, out)
	}
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	if code, out := runAs("./mybin", "report", moved); code != ExitNone {
		t.Fatalf("report: exit %d\n%s", code, out)
	}
	data, err := os.ReadFile(filepath.Join(moved, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(data))
	debug := "./mybin mdb " + moved + " -c 'j crit; filediff'"
	if _, err := os.Stat(filepath.Join(moved, "live.trace")); err != nil {
		debug = "./mybin mdb " + moved + " -c 'j crit'"
	}
	for _, want := range []string{
		"./mybin replay --trace " + filepath.Join(moved, "error.trace") + " --log " + filepath.Join(moved, "error.log"),
		debug,
		"./mybin report " + moved,
	} {
		if !strings.Contains(page, `data-copy="`+want+`"`) {
			t.Errorf("the page has no command %q", want)
		}
	}
	if strings.Contains(page, old) || strings.Contains(page, "searchbin") {
		t.Errorf("the page names the directory the search wrote, %s, or its binary", old)
	}
}

// TestReportRefusesResults: report --html never writes the page over a
// trace, the directory's report.json or another of a search's results, or
// anything but a regular file: exit 2, the file as it was (it replaced
// error.trace with the page, exit 0, and the evidence was lost).
func TestReportRefusesResults(t *testing.T) {
	dir := t.TempDir()
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--walk-depth", "100", "--out", dir); code != ExitViolation {
		t.Fatalf("search: exit %d\n%s%s", code, out, errs)
	}
	elsewhere := filepath.Join(t.TempDir(), "copy.trace")
	data, err := os.ReadFile(filepath.Join(dir, "error.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(elsewhere, data, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "page.html")
	if err := os.Symlink(filepath.Join(dir, "error.log"), link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, why string }{
		{filepath.Join(dir, "error.trace"), "refusing to replace it: trace: the file is a macemc trace (give another file name)"},
		{filepath.Join(dir, "live.trace"), "refusing to replace it: trace: the file is a macemc trace (give another file name)"},
		{filepath.Join(dir, "min.trace"), "refusing to replace it: trace: the file is a macemc trace (give another file name)"},
		{elsewhere, "refusing to replace it: trace: the file is a macemc trace (give another file name)"},
		{filepath.Join(dir, "report.json"), "refusing to replace it: report.json is a result file of a search (give another file name)"},
		{filepath.Join(dir, "error.log"), "refusing to replace it: error.log is a result file of a search (give another file name)"},
		{link, "refusing to replace a symbolic link: not a regular file"},
		{dir, "refusing to replace a directory: not a regular file"},
	} {
		before, _ := os.ReadFile(tc.file)
		code, out, errs := run(t, "report", dir, "--html", tc.file)
		if want := "macemc report: --html: write " + tc.file + ": " + tc.why; code != ExitUsage || out != "" || !strings.HasPrefix(errs, want) {
			t.Errorf("report --html %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.file, code, out, errs, want)
		}
		if after, _ := os.ReadFile(tc.file); !bytes.Equal(before, after) {
			t.Errorf("report --html %s changed the file", tc.file)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
	// The page itself is replaced, as the default does.
	if code, _, errs := run(t, "report", dir, "--html", filepath.Join(dir, "report.html")); code != ExitNone {
		t.Errorf("report --html DIR/report.html: exit %d: %s", code, errs)
	}
}

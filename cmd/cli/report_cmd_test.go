package cli

import (
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
	for _, args := range [][]string{{"report"}, {"report", dir, dir}, {"report", t.TempDir()}, {"report", filepath.Join(dir, "nope")}} {
		if code, _, errs := run(t, args...); code != ExitUsage || errs == "" {
			t.Errorf("%v: exit %d, want %d with a message (%q)", args, code, ExitUsage, errs)
		}
	}
}

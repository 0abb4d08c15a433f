package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/macemc/macemc/mdb"
)

// TestConfidenceAndMinimizedPath: a search's report carries the
// confirmation of its C1 critical transition and the minimized doomed path,
// written as min.trace, which replay and mdb open. clitest-poison's doomed
// path needs two events: node 1's request sends the poison, node 0 takes
// it before its third tick. Budget: d_max 200, k 20, the default
// confirmation.
func TestConfidenceAndMinimizedPath(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "search", "--system", "clitest-poison", "--out", dir, "--seed", "1", "--depth", "1", "--walk-depth", "200", "--json")
	if code != ExitViolation {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var rep struct {
		Critical struct {
			Step int `json:"step"`
		} `json:"critical"`
		Confidence *struct {
			BeforeStep      int    `json:"before_step"`
			BeforeRecovered int    `json:"before_recovered"`
			Step            int    `json:"step"`
			Walks           int    `json:"walks"`
			Forced          bool   `json:"forced"`
			Recovered       int    `json:"recovered"`
			Thin            bool   `json:"thin"`
			Text            string `json:"text"`
		} `json:"confidence"`
		Minimized *struct {
			StepsBefore int      `json:"steps_before"`
			StepsAfter  int      `json:"steps_after"`
			OneMinimal  bool     `json:"one_minimal"`
			Kept        []int    `json:"kept"`
			Events      []string `json:"events"`
		} `json:"minimized"`
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	c, conf, m := rep.Critical, rep.Confidence, rep.Minimized
	if conf == nil || m == nil {
		t.Fatalf("critical %+v confidence %+v minimized %+v", c, conf, m)
	}
	// From the poisoned state only its timer runs, forever: every walk
	// from it is one execution, and that one walk is the sample. It comes
	// back to a state it passed, so it goes round forever: dead for
	// certain.
	if conf.Step != c.Step || conf.BeforeStep != c.Step-1 || conf.Recovered != 0 || conf.Walks != 1 || !conf.Forced || conf.BeforeRecovered == 0 || conf.Thin ||
		!strings.Contains(conf.Text, "goes round forever: state") || !strings.Contains(conf.Text, "dead for certain") {
		t.Errorf("confidence %+v", conf)
	}
	want := []string{`node 1 handles app request "send"`, `node 0 receives "poison" from node 1`}
	if !slices.Equal(m.Events, want) || m.StepsAfter != 2 || m.StepsBefore != c.Step || !m.OneMinimal || m.Kept[len(m.Kept)-1] != c.Step {
		t.Errorf("minimized %+v", m)
	}
	if rep.Files["min_trace"] != filepath.Join(dir, "min.trace") || rep.Files["min_log"] == "" {
		t.Errorf("files %v", rep.Files)
	}
	code, out, errs = run(t, "replay", "--trace", filepath.Join(dir, "min.trace"), "--json")
	if code != ExitViolation || !strings.Contains(out, `"reproduced": true`) || !strings.Contains(out, `"kind": "minimized"`) || !strings.Contains(out, `"critical": 2`) {
		t.Errorf("replay min.trace: exit %d\n%s%s", code, out, errs)
	}
	// Its critical transition is searched from its end, which is no
	// search depth: the answer says so.
	code, out, errs = run(t, "critical", "--trace", filepath.Join(dir, "min.trace"), "--out", t.TempDir())
	if code != ExitViolation || !strings.Contains(out, "No walk recovered from d_init = 2, the minimized path's end") || strings.Contains(out, "bounded search") {
		t.Errorf("critical min.trace: exit %d\n%s%s", code, out, errs)
	}
	var buf bytes.Buffer
	s, err := mdb.Open(filepath.Join(dir, "min.trace"), "", mdb.Options{Out: &buf})
	if err != nil {
		t.Fatal(err)
	}
	s.Intro()
	if err := s.Exec("j crit"); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.Contains(got, "minimized doomed path of Counted") || !strings.Contains(got, "critical step 2 (C1") || !strings.Contains(got, `step 2/2 [critical, end]: node 0 receives "poison" from node 1`) {
		t.Errorf("mdb:\n%s", got)
	}
	// The summary shows both; --no-minimize and --no-confirm drop them.
	code, out, _ = run(t, "search", "--system", "clitest-poison", "--out", t.TempDir(), "--seed", "1", "--depth", "1", "--walk-depth", "200")
	if code != ExitViolation || !strings.Contains(out, "minimized doomed path: 2 steps instead of") || !strings.Contains(out, "Confirmation: ") {
		t.Errorf("summary:\n%s", out)
	}
	dir2 := t.TempDir()
	code, out, _ = run(t, "search", "--system", "clitest-poison", "--out", dir2, "--seed", "1", "--depth", "1", "--walk-depth", "200", "--json", "--no-minimize", "--no-confirm")
	if code != ExitViolation || strings.Contains(out, `"confidence"`) || strings.Contains(out, `"minimized"`) {
		t.Errorf("--no-minimize --no-confirm: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir2, "min.trace")); err == nil {
		t.Error("min.trace written with --no-minimize")
	}
	code, _, errs = run(t, "search", "--system", "clitest-poison", "--minimize-budget", "0")
	if code != ExitUsage || !strings.Contains(errs, "--minimize-budget") {
		t.Errorf("--minimize-budget 0: exit %d %s", code, errs)
	}
}

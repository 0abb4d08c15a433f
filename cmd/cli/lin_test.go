package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/macemc/macemc/services/kvmap"
	_ "github.com/macemc/macemc/services/register"
)

// TestLinearizability: the DS2 systems from the command line. The buggy
// register (reads do not write back) and the buggy map (stale follower
// reads) are reported as linearizability violations with a minimal
// history, its HTML visualizations and a trace that replays it, by dfs and
// by dpor; their fixes are clean when the search is exhausted.
func TestLinearizability(t *testing.T) {
	for _, tc := range []struct {
		system, param, strategy string
		min                     []string // lines of the minimal history
	}{
		{"register", "variant=buggy", "dfs", []string{"client 0 invokes Write{Value: 1}", "client 1 returns 1", "client 2 returns 0"}},
		{"register", "variant=buggy", "dpor", []string{"client 0 invokes Write{Value: 1}", "client 1 returns 1", "client 2 returns 0"}},
		{"kvmap", "fixed=false", "dpor", []string{`client 0 invokes Put{Key: "x", Value: 1}`, `client 0 returns "ok"`, "returns 0"}},
	} {
		t.Run(tc.system+"/"+tc.strategy, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errs := run(t, "search", "--system", tc.system, "--param", tc.param, "--strategy", tc.strategy, "--out", dir, "--json")
			if code != ExitViolation {
				t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
			}
			var rep struct {
				Verdict, Kind, Property, Certainty string
				Minimal                            []string `json:"minimal_history"`
				History                            []string
				Lin                                map[string]any `json:"linearizability"`
				Files                              map[string]string
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != "safety" || rep.Kind != "linearizability" || rep.Property != "Linearizable" || rep.Certainty != "certain" {
				t.Errorf("report: %+v", rep)
			}
			if len(rep.Minimal) == 0 || len(rep.Minimal) > len(rep.History) {
				t.Errorf("minimal history %d events of %d", len(rep.Minimal), len(rep.History))
			}
			min := strings.Join(rep.Minimal, "\n")
			for _, l := range tc.min {
				if !strings.Contains(min, l) {
					t.Errorf("the minimal history lacks %q:\n%s", l, min)
				}
			}
			if rep.Lin["not_linearizable"].(float64) < 1 || rep.Lin["unknown"].(float64) != 0 {
				t.Errorf("linearizability stats %v", rep.Lin)
			}
			for _, role := range []string{"history_html", "history_full_html", "error_trace"} {
				data, err := os.ReadFile(rep.Files[role])
				if err != nil {
					t.Fatalf("%s: %v", role, err)
				}
				if role != "error_trace" && !strings.Contains(string(data), "<html") {
					t.Errorf("%s is not an HTML page", role)
				}
			}
			code, out, errs = run(t, "replay", "--trace", filepath.Join(dir, "error.trace"), "--json")
			if code != ExitViolation || !strings.Contains(out, `"reproduced": true`) {
				t.Errorf("replay: exit %d\n%s%s", code, out, errs)
			}
		})
	}
	for _, tc := range [][]string{
		{"--system", "register", "--param", "variant=correct"},
		{"--system", "register", "--param", "variant=correct", "--strategy", "dpor"},
		{"--system", "kvmap", "--param", "fixed=true", "--strategy", "dpor"},
	} {
		code, out, errs := run(t, append([]string{"search", "--out", t.TempDir()}, tc...)...)
		if code != ExitNone || !strings.Contains(out, "stopped: exhausted") || !strings.Contains(out, "0 not linearizable, 0 undecided") {
			t.Errorf("%v: exit %d\n%s%s", tc, code, out, errs)
		}
	}
}

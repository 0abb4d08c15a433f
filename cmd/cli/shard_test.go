package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameReport strips what may differ between two runs of one search (the
// times and where the files went) from a --json report.
func sameReport(t *testing.T, out string) map[string]any {
	t.Helper()
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, out)
	}
	var strip func(v any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k := range x {
				if strings.HasSuffix(k, "_s") || k == "files" || k == "replay" || k == "debug" || k == "bytes" {
					delete(x, k)
				} else {
					x[k] = strip(x[k])
				}
			}
		case []any:
			for i := range x {
				x[i] = strip(x[i])
			}
		}
		return v
	}
	return strip(rep).(map[string]any)
}

// Four shards of a search, each run as `search --shard I/4`, merged by
// `merge`, give the report of the search run in one process and the same
// error trace, byte for byte.
func TestShardsMerge(t *testing.T) {
	dir := t.TempDir()
	search := []string{"search", "--system", "clitest-poison", "--seed", "3", "--depth", "8", "--walk-depth", "200", "--max-paths", "400", "--no-minimize", "--json", "--progress", "none"}
	code, one, errs := run(t, append(search, "--out", filepath.Join(dir, "one"))...)
	if code != ExitViolation {
		t.Fatalf("one process: exit %d\n%s%s", code, one, errs)
	}
	var dirs []string
	for i := range 4 {
		d := filepath.Join(dir, "shard"+string(rune('0'+i)))
		dirs = append(dirs, d)
		code, out, errs := run(t, append(search, "--shard", string(rune('0'+i))+"/4", "--out", d)...)
		if code != ExitNone {
			t.Fatalf("shard %d: exit %d\n%s%s", i, code, out, errs)
		}
		var sum map[string]any
		err := json.Unmarshal([]byte(out), &sum)
		if _, stopIsWord := sum["stop"].(string); err != nil || sum["shard"] != float64(i) || sum["shards"] != float64(4) || !stopIsWord || sum["elapsed_s"] == nil {
			t.Fatalf("shard %d: summary %v (%v)\n%s", i, sum, err, out)
		}
	}
	merged := filepath.Join(dir, "merged")
	code, out, errs := run(t, append(append([]string{"merge"}, dirs...), "--out", merged, "--json", "--progress", "none")...)
	if code != ExitViolation {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errs)
	}
	a, b := sameReport(t, out), sameReport(t, one)
	aj, _ := json.MarshalIndent(a, "", " ")
	bj, _ := json.MarshalIndent(b, "", " ")
	if !bytes.Equal(aj, bj) {
		t.Errorf("merged report\n%s\none process\n%s", aj, bj)
	}
	// --exit-zero: the same report, exit 0 for a job runner.
	if code, out, errs := run(t, append(append([]string{"merge"}, dirs...), "--out", filepath.Join(dir, "merged0"), "--exit-zero", "--progress", "none")...); code != ExitNone || !strings.Contains(out, "LIVENESS VIOLATION") {
		t.Errorf("merge --exit-zero: exit %d\n%s%s", code, out, errs)
	}
	ta, err1 := os.ReadFile(filepath.Join(merged, "error.trace"))
	tb, err2 := os.ReadFile(filepath.Join(dir, "one", "error.trace"))
	if err1 != nil || err2 != nil || !bytes.Equal(ta, tb) {
		t.Errorf("error traces differ (%v, %v)", err1, err2)
	}

	// What a merge refuses, with exit 2 and the reason.
	other := filepath.Join(dir, "other")
	if code, out, errs := run(t, "search", "--system", "clitest-poison", "--seed", "4", "--shard", "3/4", "--out", other, "--progress", "none"); code != ExitNone {
		t.Fatalf("other shard: exit %d\n%s%s", code, out, errs)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dirs[0], "shard.records"))
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(filepath.Join(bad, "shard.records"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"merge"}, dirs[:3]...), "shard 0 of 4, but 3 directories given: merge the result directories of all 4 shards (missing: shard 3)"},
		{[]string{"merge", dirs[0], dirs[1], dirs[2], other}, "a shard of another search than " + filepath.Join(dirs[0], "shard.records") + " (they differ in "},
		{[]string{"merge", dirs[0], dirs[1], dirs[2], dirs[2]}, "shard 2 of 4 is given twice, in " + dirs[2] + " and " + dirs[2]},
		{[]string{"merge", bad, dirs[1], dirs[2], dirs[3]}, "checksum mismatch"},
		{[]string{"merge", filepath.Join(dir, "nowhere")}, "no such file"},
		{[]string{"merge"}, "give the result directories"},
		{[]string{"search", "--system", "clitest-poison", "--shard", "4/4"}, "--shard 4/4: allowed I/N: shard I of N, 0 <= I < N <= 4096"},
		{[]string{"search", "--system", "clitest-poison", "--shard", "1/2", "--lasso"}, "cannot be sharded"},
		{[]string{"search", "--system", "clitest-poison", "--shard", "0/2", "--strategy", "random"}, "strategy random cannot be sharded: its paths do not split into subtrees (its explorer is not an explore.Forker"},
	} {
		code, out, errs := run(t, append(tc.args, "--out", filepath.Join(dir, "refused"), "--progress", "none")...)
		if code != ExitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s%s", tc.args, code, tc.want, out, errs)
		}
	}
}

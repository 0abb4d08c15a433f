package search_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
)

// FuzzReportJSON: reading a report.json never panics; what it accepts
// writes back to a report that reads the same. The corpus in testdata/fuzz
// holds real reports (a dead state with its critical transition, a lasso,
// an interrupted run, nothing found).
func FuzzReportJSON(f *testing.F) {
	f.Add([]byte(`{"verdict":"none","system":"s","params":{},"properties":[],"seed":1,"strategy":"dfs","rounds":1,"deepest_complete":0,"paths":3,"pruned":0,"walks":3,"transitions":9,"distinct_states":2,"stop":"paths","elapsed_s":0.1,"search_s":0.1,"files":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r search.Report
		if err := json.Unmarshal(b, &r); err != nil {
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			if !errors.Is(err, search.ErrReport) && !errors.As(err, &se) && !errors.As(err, &te) {
				t.Fatalf("unclassified error %v", err)
			}
			return
		}
		again, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		var back search.Report
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatalf("a report written back does not read: %v\n%s", err, again)
		}
		third, _ := json.Marshal(&back)
		if !bytes.Equal(third, again) {
			t.Fatalf("not stable:\n%s\n%s", again, third)
		}
	})
}

// TestReadReportOfManyEmptyObjects: a report.json of a few megabytes
// holding a million and a half empty violations is refused before it is
// decoded (it decoded into gigabytes).
func TestReadReportOfManyEmptyObjects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	doc := `{"verdict":"liveness","violations":[` + strings.Repeat("{},", 1_500_000) + `{}]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := search.ReadReport(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, search.ErrReport) || !strings.Contains(err.Error(), "too many values") {
		t.Fatalf("ReadReport: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("allocated %d MiB to refuse it", got>>20)
	}
}

package mdb_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
)

// TestStateLinesAreCut: a node whose state holds a 5,000-byte string is
// shown with that line cut after --max-line bytes, saying how many bytes
// it left out (a 1 MB field was one 1,000,008-byte line on the terminal);
// --max-line 0 prints it whole.
func TestStateLinesAreCut(t *testing.T) {
	dir := t.TempDir()
	reporttest.BigState(t, dir)
	for _, tc := range []struct {
		maxLine string
		bound   int // the longest line printed, note included
		whole   bool
	}{{"4096", 4096 + 100, false}, {"1000", 1000 + 100, false}, {"0", 0, true}} {
		var out, errs bytes.Buffer
		code := mdb.Main("mdb", []string{"--max-line", tc.maxLine, "-c", "state 0", dir}, nil, &out, &errs)
		if code != 0 {
			t.Fatalf("--max-line %s: exit %d\n%s", tc.maxLine, code, errs.String())
		}
		longest := 0
		for _, l := range strings.Split(out.String(), "\n") {
			longest = max(longest, len(l))
		}
		cut := strings.Contains(out.String(), " bytes more of this line: mdb --max-line 0 prints lines whole)")
		switch {
		case tc.whole && (cut || longest < reporttest.BigLog):
			t.Errorf("--max-line 0: longest line %d bytes, cut %v", longest, cut)
		case !tc.whole && (!cut || longest > tc.bound):
			t.Errorf("--max-line %s: longest line %d bytes, cut %v", tc.maxLine, longest, cut)
		}
	}
	var errs bytes.Buffer
	if code := mdb.Main("mdb", []string{"--max-line", "-1", dir}, nil, &bytes.Buffer{}, &errs); code != 2 || !strings.Contains(errs.String(), "--max-line -1: allowed 0 (lines whole) or a positive number of bytes") {
		t.Errorf("--max-line -1: exit %d, %s", code, errs.String())
	}
}

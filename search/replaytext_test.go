package search_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim/trace"
)

// TestReplayTextOfTheLiveAlternative: the replay of live.trace says it is
// the dead path's live alternative, not the violation's trace: no
// "critical transition" of its own and no "not reproduced".
func TestReplayTextOfTheLiveAlternative(t *testing.T) {
	out := t.TempDir()
	rep, err := search.Run(context.Background(), system(t, "transport"), search.Options{Seed: 1, MaxPaths: 1000, Out: out})
	if err != nil || rep.First() == nil || rep.Files["live_trace"] == "" {
		t.Fatalf("setup: %v, %v", err, rep.Files)
	}
	tr, err := trace.Read(filepath.Join(out, "live.trace"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := search.Replay(tr, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b, "live.trace", ""); err != nil {
		t.Fatal(err)
	}
	c := rep.First().Critical
	want := fmt.Sprintf("the live alternative of a dead path whose critical transition is step %d (%s): compare them there", c.Step, c.Condition)
	if got := b.String(); !strings.Contains(got, want) || strings.Contains(got, "critical transition: step") || strings.Contains(got, "not reproduced") {
		t.Errorf("replay of live.trace:\n%s\nwant the line %q", got, want)
	}
}

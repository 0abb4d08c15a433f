package servicetest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/macemc/macemc/services/servicetest"
)

// fatals records Fatalf instead of stopping the test.
type fatals struct {
	testing.TB
	msgs []string
}

func (f *fatals) Helper() {}

func (f *fatals) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

// TestCheckLive: CheckLive fails on a walk that never turned live or broke
// safety, naming the walk, and passes when every walk turned live safely.
func TestCheckLive(t *testing.T) {
	live := servicetest.Result{Start: 0, End: 10, Live: 10, Unsafe: -1}
	stuck := servicetest.Result{Start: 0, End: 50, Live: -1, Unsafe: -1}
	unsafe := servicetest.Result{Start: 0, End: 7, Live: 7, Unsafe: 5}
	for _, c := range []struct {
		rs   servicetest.Results
		want string
	}{
		{servicetest.Results{live, live}, ""},
		{servicetest.Results{live, stuck}, "batch: walk 1: not live after 50 steps"},
		{servicetest.Results{unsafe, live}, "batch: walk 0: safety violated at step 5"},
	} {
		f := &fatals{TB: t}
		c.rs.CheckLive(f, "batch")
		switch {
		case c.want == "" && len(f.msgs) > 0:
			t.Errorf("%+v: failed: %v", c.rs, f.msgs)
		case c.want != "" && (len(f.msgs) == 0 || !strings.Contains(f.msgs[0], c.want)):
			t.Errorf("%+v: %v, want %q", c.rs, f.msgs, c.want)
		}
	}
}

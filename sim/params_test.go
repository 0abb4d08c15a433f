package sim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestParamRange: Resolve refuses an int parameter outside its Min and
// Max with ErrBadParam naming the range; each end and the default pass;
// Register refuses a default outside the range.
func TestParamRange(t *testing.T) {
	sys := &sim.System{Name: "range-test", Params: []sim.ParamSpec{
		{Name: "nodes", Kind: sim.ParamInt, Default: "3", Min: sim.Bound(2), Max: sim.Bound(28)},
		{Name: "low", Kind: sim.ParamInt, Default: "0", Min: sim.Bound(0)},
		{Name: "free", Kind: sim.ParamInt, Default: "0"},
	}}
	for v, want := range map[string]string{
		"1": "nodes=1: allowed 2 to 28", "29": "nodes=29: allowed 2 to 28", "100000": "nodes=100000: allowed 2 to 28",
		"x": `nodes="x" is not an integer (allowed 2 to 28)`,
	} {
		_, err := sys.Resolve(map[string]string{"nodes": v})
		if !errors.Is(err, sim.ErrBadParam) || !strings.Contains(err.Error(), want) {
			t.Errorf("nodes=%s: %v", v, err)
		}
	}
	for v, want := range map[string]int{"2": 2, "28": 28} {
		if p, err := sys.Resolve(map[string]string{"nodes": v, "free": "-5"}); err != nil || p.Int("nodes") != want {
			t.Errorf("nodes=%s: %v", v, err)
		}
	}
	if _, err := sys.Resolve(map[string]string{"low": "-1"}); !errors.Is(err, sim.ErrBadParam) || !strings.Contains(err.Error(), "allowed at least 0") {
		t.Errorf("low=-1: %v", err)
	}
	if r := sys.Params[2].Range(); r != "" {
		t.Errorf("unbounded range %q", r)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "not in its range 2 to 28") {
			t.Errorf("Register of a default out of range: %v", r)
		}
	}()
	bad := *sys
	bad.Name = "range-test-bad"
	bad.Build = func(sim.Params) (*sim.Config, error) { return nil, nil }
	bad.Params = []sim.ParamSpec{{Name: "nodes", Kind: sim.ParamInt, Default: "1", Min: sim.Bound(2), Max: sim.Bound(28)}}
	sim.Register(&bad)
}

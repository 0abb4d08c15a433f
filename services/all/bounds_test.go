package all_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestParamRangesBuild: the range every int parameter declares (what
// macemc list prints) is what the system accepts: each end builds, with
// the other parameters at their defaults or, where the parameters depend
// on each other (the doc says so), at values that fit; one past either
// end is refused with ErrBadParam naming the range.
func TestParamRangesBuild(t *testing.T) {
	// Values of the other parameters that let an end of this one build.
	with := map[string]map[string]string{
		"failuredetector failures=62": {"nodes": "62"},
		"storage nodes=1":             {"replicas": "1", "failures": "0"},
		"storage replicas=1":          {"failures": "0"},
		"storage replicas=62":         {"nodes": "62", "failures": "0"},
		"storage failures=30":         {"nodes": "62", "replicas": "31"},
	}
	n := 0
	for _, sys := range sim.Systems() {
		for _, p := range sys.Params {
			if p.Kind != sim.ParamInt {
				continue
			}
			if p.Min == nil || p.Max == nil {
				t.Errorf("%s: parameter %s has no range", sys.Name, p.Name)
				continue
			}
			for _, v := range []int{*p.Min, *p.Max} {
				key := fmt.Sprintf("%s %s=%d", sys.Name, p.Name, v)
				given := map[string]string{p.Name: fmt.Sprint(v)}
				for k, x := range with[key] {
					given[k] = x
				}
				if _, _, err := sys.Config(given); err != nil {
					t.Errorf("%s: %v", key, err)
				}
				n++
			}
			for _, v := range []int{*p.Min - 1, *p.Max + 1} {
				_, _, err := sys.Config(map[string]string{p.Name: fmt.Sprint(v)})
				if !errors.Is(err, sim.ErrBadParam) || !strings.Contains(err.Error(), "allowed "+p.Range()) {
					t.Errorf("%s %s=%d: %v", sys.Name, p.Name, v, err)
				}
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d ends checked", n)
	}
}

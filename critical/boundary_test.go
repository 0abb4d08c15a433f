package critical_test

import (
	"testing"

	"github.com/macemc/macemc/critical"
)

// TestDoublingStopsPastHalfDMax: Algorithm 3's exponential search stops
// as soon as d_curr > d_max/2, and not at d_curr = d_max/2; Find then
// probes state d_max/2 (a deviation, see Find). Poisoned at step 100, with
// d_init 0 the doubling probes 64 (recovers) and then 128: with d_max =
// 256, 128 is not past half of it, so 128 is probed (dead) and the binary
// search finds C1 at 100; with d_max = 255, 128 is past half, Algorithm 3
// would answer C2 at 128, and Find probes 127 (dead) and finds C1 at 100;
// with d_max = 199, 99 is probed and recovers: C2 at 128. Budget: k = 20,
// E as long as d_max.
func TestDoublingStopsPastHalfDMax(t *testing.T) {
	for _, tc := range []struct {
		dmax, step int
		cond       critical.Condition
	}{
		{256, 100, critical.C1},
		{255, 100, critical.C1},
		{199, 128, critical.C2},
	} {
		p := poisonSys{apps: 300, poison: 100}
		c := poisonConfig(t, p, tc.dmax, tc.dmax)
		res := find(t, c)
		if res.Step != tc.step || res.Condition != tc.cond {
			t.Errorf("d_max %d: got (%d, %v), want (%d, %v); probes %+v", tc.dmax, res.Step, res.Condition, tc.step, tc.cond, res.Probes)
		}
	}
}

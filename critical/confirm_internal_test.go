package critical

import (
	"math"
	"testing"
)

// TestFisherLower checks the one-sided Fisher test against values worked
// by hand: all k recoveries in the first sample has probability
// C(n1, k) / C(n1+n2, k).
func TestFisherLower(t *testing.T) {
	for _, c := range []struct {
		n1, r1, n2, r2 int
		want           float64
	}{
		{62, 3, 62, 0, 62.0 * 61 * 60 / (124 * 123 * 122)},
		{10, 10, 10, 0, 1.0 / 184756},
		{60, 3, 61, 0, 60.0 * 59 * 58 / (121 * 120 * 119)},
		{5, 0, 5, 0, 1},
		{4, 2, 4, 2, (1.0 + 16 + 36) / 70},
	} {
		if got := fisherLower(c.n1, c.r1, c.n2, c.r2); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("fisherLower(%d, %d, %d, %d) = %.6g, want %.6g", c.n1, c.r1, c.n2, c.r2, got, c.want)
		}
	}
}

// TestChanceCountsTheRateBeforeAsASample: 3 of 62 against 0 of 62 is thin
// (a chance of 0.12); taking 3/62 for c-1's exact rate made it 0.046,
// strong.
func TestChanceCountsTheRateBeforeAsASample(t *testing.T) {
	c := newConfidence(Probe{Step: 596, Walks: 62, Recovered: 3}, Probe{Step: 597, Walks: 62}, false)
	if math.Abs(c.Chance-0.122) > 0.001 || !c.Thin {
		t.Errorf("chance %.4f, thin %v; want 0.122, thin", c.Chance, c.Thin)
	}
	c = newConfidence(Probe{Step: 16, Walks: 62, Recovered: 50}, Probe{Step: 17, Walks: 61}, false)
	if c.Chance > 1e-20 || c.Thin {
		t.Errorf("50 of 62 against 0 of 61: chance %.3g, thin %v", c.Chance, c.Thin)
	}
}

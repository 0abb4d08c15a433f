package critical_test

import (
	"context"
	"testing"

	"github.com/macemc/macemc/critical"
)

// benchConfig is the poison system with its critical transition at step
// 150, E of 20,000 steps, d_max = 20,000, k = 20, Workers = NumCPU.
func benchConfig(b *testing.B) critical.Config {
	return poisonConfig(b, poisonSys{apps: 200, poison: 150}, 20000, 20000)
}

// BenchmarkRecovers measures probes per second: "dead" probes state 150,
// where all k walks run their 19,850 steps; "transient" probes state 149,
// where the first walk recovers at once.
func BenchmarkRecovers(b *testing.B) {
	c := benchConfig(b)
	for _, bc := range []struct {
		name string
		i    int
		want bool
	}{{"dead", 150, false}, {"transient", 149, true}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p, _, err := critical.Recovers(context.Background(), c, bc.i)
				if err != nil || p.Recovers != bc.want {
					b.Fatal(p, err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "probes/s")
		})
	}
}

// BenchmarkFind measures a whole search: d_max = 20,000, k = 20, critical
// transition at step 150.
func BenchmarkFind(b *testing.B) {
	c := benchConfig(b)
	var res critical.Result
	for b.Loop() {
		var err error
		res, err = critical.Find(context.Background(), c)
		if err != nil || res.Step != 150 || res.Condition != critical.C1 {
			b.Fatal(res.Step, res.Condition, err)
		}
	}
	b.ReportMetric(float64(len(res.Probes)), "probes")
	b.ReportMetric(float64(res.Transitions), "transitions")
	b.ReportMetric(float64(res.Transitions)/res.Elapsed.Seconds(), "transitions/s")
}

package explore_test

import (
	"testing"
	"time"

	"github.com/macemc/macemc/search/explore"
)

// BenchmarkBoundedSearch measures paths and transitions per second of the
// bounded search with short walks, with and without state hashing.
func BenchmarkBoundedSearch(b *testing.B) {
	for _, hashing := range []bool{true, false} {
		name := "hashing"
		if !hashing {
			name = "nohashing"
		}
		b.Run(name, func(b *testing.B) {
			var paths, transitions int64
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				res, err := run(explore.Config{System: counterConfig(3, 3), DepthStep: 6, MaxDepth: 6, WalkDepth: 12, Workers: 1, NoHashing: !hashing})
				if err != nil {
					b.Fatal(err)
				}
				paths += res.Stats.Paths
				transitions += res.Stats.Transitions
				elapsed += res.Stats.Elapsed
			}
			b.ReportMetric(float64(paths)/elapsed.Seconds(), "paths/s")
			b.ReportMetric(float64(transitions)/elapsed.Seconds(), "transitions/s")
		})
	}
}

// BenchmarkWalks measures transitions per second of the random walks a
// search runs (a system that never turns live, so every walk is d_max long).
func BenchmarkWalks(b *testing.B) {
	var transitions int64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		res, err := run(explore.Config{System: stuckConfig(), DepthStep: 1, MaxDepth: 1, WalkDepth: 20000, Workers: 1, MaxViolations: 1 << 30, NoHashing: true})
		if err != nil {
			b.Fatal(err)
		}
		transitions += res.Stats.Transitions
		elapsed += res.Stats.Elapsed
	}
	b.ReportMetric(float64(transitions)/elapsed.Seconds(), "transitions/s")
}

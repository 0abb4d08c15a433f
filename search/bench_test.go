package search_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

// BenchmarkWriteLog20000 writes the log of transport's 20,000-step dead
// path: one replay with full logging, each entry turned into a text line.
// bytes/log is the log's size.
func BenchmarkWriteLog20000(b *testing.B) {
	dir := b.TempDir()
	reporttest.Search20000(b, dir)
	t, err := trace.Read(filepath.Join(dir, "error.trace"))
	if err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "bench.log")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := search.WriteLog(t, out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	fi, err := os.Stat(out)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size()), "bytes/log")
}

// BenchmarkRandtreeDepth15 is the search of randtree seed 7 (its liveness
// properties, the defaults, two workers, no critical transition): one of
// the seeds whose depth-10 round finds nothing, so the search exhausts the
// rounds up to depth 10 (490,823 paths) and finds the bug in the 20th path
// of depth 15 (146,691 walks and 8.5 million transitions in all). Profile it
// with
//
//	go test ./search -run X -bench RandtreeDepth15 -benchtime 1x -cpuprofile cpu.out
func BenchmarkRandtreeDepth15(b *testing.B) {
	sys, err := sim.Lookup("randtree")
	if err != nil {
		b.Fatal(err)
	}
	o := search.Options{Seed: 7, Workers: 2, NoCritical: true, Properties: []string{"OneRoot", "NoLoops", "HasParent", "KidsMatch"}}
	var paths int64
	for i := 0; i < b.N; i++ {
		rep, err := search.Run(context.Background(), sys, o)
		if err != nil {
			b.Fatal(err)
		}
		if rep.First() == nil || rep.Stats.Depth != 15 {
			b.Fatalf("want a violation found at depth 15, got %d findings at depth %d", len(rep.Findings), rep.Stats.Depth)
		}
		paths = rep.Stats.Paths
	}
	b.ReportMetric(float64(paths), "paths")
}

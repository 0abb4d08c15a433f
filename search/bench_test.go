package search_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
	"github.com/macemc/macemc/search"
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

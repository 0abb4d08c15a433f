package htmlreport_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/mdb/htmlreport/reporttest"
)

// BenchmarkPage20000 makes the page of transport's 20,000-step dead path
// (and its live alternative): two replays with every node's state and the
// network recorded at each step. bytes/page is the page's size.
func BenchmarkPage20000(b *testing.B) {
	dir := b.TempDir()
	reporttest.Search20000(b, dir)
	in, err := htmlreport.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n countWriter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n = 0
		if err := htmlreport.Render(&n, in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "bytes/page")
	if err := htmlreport.WriteFile(filepath.Join(dir, htmlreport.PageFile), in); err != nil {
		b.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, htmlreport.PageFile)); err != nil || fi.Size() != int64(n) {
		b.Fatalf("the written page differs in size from the rendered one: %v", err)
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

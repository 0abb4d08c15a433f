package mdb_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/mdbtest"
	_ "github.com/macemc/macemc/services/transport"
)

var (
	transportOnce  sync.Once
	transportFound *mdbtest.Found
	transportErr   error
)

// transportOutput writes a liveness violation of the MaceTransport example
// system (seed 003 §5), its critical step and live path into a new
// directory, as macemc search would (found once per test binary).
func transportOutput(t testing.TB) (string, *mdbtest.Found) {
	t.Helper()
	transportOnce.Do(func() {
		transportFound, transportErr = mdbtest.FindIn("transport", map[string]string{"fixed": "false"},
			mdbtest.Options{Depth: 15, Steps: 2000, WalkDepth: 2000, Walks: 10, Tries: 500})
	})
	if errors.Is(transportErr, mdbtest.ErrNotFound) {
		t.Fatal("no liveness violation of transport in 500 walks")
	}
	if transportErr != nil {
		t.Fatal(transportErr)
	}
	dir := t.TempDir()
	if err := transportFound.Error.Write(filepath.Join(dir, "error.trace")); err != nil {
		t.Fatal(err)
	}
	if err := transportFound.Live.Write(filepath.Join(dir, "live.trace")); err != nil {
		t.Fatal(err)
	}
	return dir, transportFound
}

// TestTransportSVG: the SVG event graph around the transport's critical
// step names its nodes (testdata/transport.txt debugs it as the paper
// does).
func TestTransportSVG(t *testing.T) {
	dir, f := transportOutput(t)
	s := open(t, dir, "", mdb.Options{})
	crit := f.Error.Critical
	svg := filepath.Join(dir, "g.svg")
	s.run(fmt.Sprintf("g %d %d --svg %s", max(1, crit-5), min(f.Error.Steps, crit+5), svg))
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, svgTexts(t, data), "node 0 (Node)", "node 1 (Node)")
}

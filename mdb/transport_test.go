package mdb_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/mdbtest"
	_ "github.com/macemc/macemc/services/transport"
	"github.com/macemc/macemc/sim"
)

// TestTransport debugs a liveness violation of the MaceTransport example
// system (seed 003 §5) as the paper does: jump to the critical step, diff it
// against the live path, draw the event graph around it.
func TestTransport(t *testing.T) {
	if _, err := sim.Lookup("transport"); err != nil {
		t.Fatalf("no transport system: %v", err)
	}
	f, err := mdbtest.FindIn("transport", map[string]string{"fixed": "false"}, mdbtest.Options{Depth: 15, Steps: 2000, WalkDepth: 2000, Walks: 10, Tries: 500})
	if errors.Is(err, mdbtest.ErrNotFound) {
		t.Fatal("no liveness violation of transport in 500 walks")
	}
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := f.Error.Write(filepath.Join(dir, "error.trace")); err != nil {
		t.Fatal(err)
	}
	if err := f.Live.Write(filepath.Join(dir, "live.trace")); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir, "", mdb.Options{})
	s.Intro()
	crit := f.Error.Critical
	mustContain(t, s.out.String(), "liveness violation of AllAcked (system transport", fmt.Sprintf("critical step %d (C1", crit))
	mustContain(t, s.run("j crit"), fmt.Sprintf("step %d/%d [critical]", crit, f.Error.Steps))
	out := s.run("filediff")
	mustContain(t, out, fmt.Sprintf("the paths part after step %d:", crit-1), fmt.Sprintf("--- error step %d\n+++ live step %d\n", crit, crit))
	mustNotContain(t, out, "no difference")
	mustContain(t, s.run("props"), "AllAcked", "VIOLATED")
	svg := filepath.Join(dir, "g.svg")
	s.run(fmt.Sprintf("g %d %d --svg %s", max(1, crit-5), min(f.Error.Steps, crit+5), svg))
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, svgTexts(t, data), "node 0 (Node)", "node 1 (Node)")
	s.run("events datagram")
	s.run("x begin")
	s.run("end")
	mustContain(t, s.run("R 500"), "not live")
}

package mdb_test

import (
	"math/rand/v2"
	"testing"

	"github.com/macemc/macemc/mdb"
	"github.com/macemc/macemc/mdb/mdbtest"
)

// longPath writes a 20,000-step walk of the fixture as error.trace.
func longPath(tb testing.TB, steps int) string {
	tb.Helper()
	tr, err := mdbtest.Walk(7, steps, 12)
	if err != nil {
		tb.Fatal(err)
	}
	if tr.Steps != steps {
		tb.Fatalf("walk ran %d steps, want %d", tr.Steps, steps)
	}
	tr.Kind, tr.Property, tr.Critical = "liveness", "AllAcked", steps/2
	dir := tb.TempDir()
	if err := tr.Write(dir + "/error.trace"); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkJump jumps to random steps of a 20,000-step path and reads the
// state there: the cost of `j N` (at most SnapshotEvery steps replayed).
func BenchmarkJump(b *testing.B) {
	dir := longPath(b, 20000)
	s := open(b, dir, "", mdb.Options{})
	rng := rand.New(rand.NewPCG(1, 2))
	b.ResetTimer()
	for b.Loop() {
		if err := s.Exec("j " + itoa(rng.IntN(20001))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStepBack steps backward one step at a time through a 20,000-step
// path: each `p` replays from the snapshot before it.
func BenchmarkStepBack(b *testing.B) {
	dir := longPath(b, 20000)
	s := open(b, dir, "", mdb.Options{})
	if err := s.Exec("end"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if n, _ := s.Position(); n == 0 {
			_ = s.Exec("end")
		}
		if err := s.Exec("p"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen opens a 20,000-step path: one replay with snapshots.
func BenchmarkOpen(b *testing.B) {
	dir := longPath(b, 20000)
	for b.Loop() {
		open(b, dir, "", mdb.Options{})
	}
}

func itoa(n int) string {
	return string(appendInt(nil, n))
}

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

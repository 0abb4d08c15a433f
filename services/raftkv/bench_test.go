package raftkv

import (
	"syscall"
	"testing"
	"time"

	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// BenchmarkWalk is the workload of the main module's services/bench
// BenchmarkOverhead walks, on raft: random walks from the initial state,
// failures on for the first 10 steps, up to 5,000 steps or a live state.
// It reports transitions per second of CPU time (the machine is shared).
func BenchmarkWalk(b *testing.B) {
	cfg, _, err := System.Config(nil)
	if err != nil {
		b.Fatal(err)
	}
	rnd := engine.NewRandom(0)
	s, err := engine.New(cfg, engine.Options{Chooser: rnd, FailuresUntil: 10})
	if err != nil {
		b.Fatal(err)
	}
	wc := walks.Config{MaxSteps: 5000, LiveAfter: 10, Safety: cfg.Safety, Liveness: cfg.Liveness}
	var steps int64
	start := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rnd.Reseed(walks.SeedFor(1, uint64(i)))
		if err := s.Reset(rnd); err != nil {
			b.Fatal(err)
		}
		res := walks.Walk(s, &wc)
		if res.Outcome == walks.Failed || res.Outcome == walks.Unsafe {
			b.Fatalf("walk %d: %v %s %v", i, res.Outcome, res.Property, res.Err)
		}
		steps += int64(res.Steps)
	}
	b.StopTimer()
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(steps)/d.Seconds(), "transitions/cpu-s")
	}
	b.ReportMetric(float64(steps)/float64(b.N), "steps/walk")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

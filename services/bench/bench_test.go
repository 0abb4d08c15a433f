package bench

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/dfs"
	"github.com/macemc/macemc/search/explore"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks"
)

// systems are the example systems measured, the four of seed 003 first.
var systems = []string{"transport", "randtree", "chord", "pastry", "philosophers", "proposers", "storage", "failuredetector", "scheduler"}

// The walk workload: what a search's walks do after a bounded prefix of
// walkLiveAfter steps with failures on.
const (
	walkLiveAfter = 10
	walkDepth     = 5000
	// walkSetTransitions is about how many transitions the fixed set of
	// walks holds: enough walks to be typical, few enough that their
	// recordings stay small next to the heap the walks themselves use.
	walkSetTransitions = 50_000
)

func config(tb testing.TB, name string, params map[string]string) *sim.Config {
	tb.Helper()
	sys, err := sim.Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, _, err := sys.Config(params)
	if err != nil {
		tb.Fatal(err)
	}
	return cfg
}

// walker runs walk i of the workload on its own simulator.
type walker struct {
	cfg *sim.Config
	s   *engine.Sim
	rnd *engine.Random
	wc  walks.Config
}

func newWalker(tb testing.TB, cfg *sim.Config) *walker {
	w := &walker{cfg: cfg, rnd: engine.NewRandom(0)}
	s, err := engine.New(cfg, engine.Options{Chooser: w.rnd, FailuresUntil: walkLiveAfter})
	if err != nil {
		tb.Fatal(err)
	}
	w.s = s
	w.wc = walks.Config{MaxSteps: walkDepth, LiveAfter: walkLiveAfter, Safety: cfg.Safety, Liveness: cfg.Liveness}
	return w
}

// walk runs walk i from the initial state and returns its length.
func (w *walker) walk(tb testing.TB, i int) int {
	w.rnd.Reseed(walks.SeedFor(1, uint64(i)))
	if err := w.s.Reset(w.rnd); err != nil {
		tb.Fatal(err)
	}
	res := walks.Walk(w.s, &w.wc)
	if res.Outcome == walks.Failed {
		tb.Fatalf("walk %d failed: %v", i, res.Err)
	}
	return res.Steps
}

// workload is a fixed set of walks of one system: walks 0..len(steps)-1
// of the walker, with their recordings when recorded.
type workload struct {
	cfg     *sim.Config
	steps   []int // length of walk i
	choices [][]int32
	recs    []*engine.Recording
	total   int
}

// load returns the system's walk workload: the first walks of the walker
// that together make walkSetTransitions transitions, recorded for Bare
// when record is set.
func load(tb testing.TB, name string, record bool) *workload {
	cfg := config(tb, name, nil)
	wl := &workload{cfg: cfg}
	w := newWalker(tb, cfg)
	for i := 0; wl.total < walkSetTransitions; i++ {
		n := w.walk(tb, i)
		if record {
			rec, err := engine.Record(cfg, w.s.ChoiceValues(), engine.Options{FailuresUntil: walkLiveAfter})
			if err != nil {
				tb.Fatal(err)
			}
			if len(rec.Events) != n {
				tb.Fatalf("walk %d: %d steps, recording %d", i, n, len(rec.Events))
			}
			wl.recs = append(wl.recs, rec)
			wl.choices = append(wl.choices, w.s.ChoiceValues())
		}
		wl.steps = append(wl.steps, n)
		wl.total += n
	}
	return wl
}

// perSecond reports n things per second of the benchmark's elapsed time.
func perSecond(b *testing.B, n int64, unit string) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(n)/s, unit)
	}
}

// cpuTime is the process's user and system CPU time so far. On a shared
// machine it is steadier than wall time for a one-goroutine benchmark:
// other processes slow the wall clock, not the CPU time this one uses
// (its garbage collector's included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuClock is the process's CPU time so far (CLOCK_PROCESS_CPUTIME_ID):
// cpuTime to the nanosecond, for measuring one short walk.
func cpuClock() time.Duration {
	var ts syscall.Timespec
	const processCPUTime = 2 // CLOCK_PROCESS_CPUTIME_ID
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, processCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return cpuTime()
	}
	return time.Duration(ts.Nano())
}

// perCPUSecond reports n things per second of CPU time since start.
func perCPUSecond(b *testing.B, n int64, start time.Duration, unit string) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(n)/d.Seconds(), unit)
	}
}

// BenchmarkOverhead: per system, the checked random walks (walk) and the
// same walks' handlers with no checker (bare), one walk per iteration,
// cycling over the workload. Both run with the workload's recordings in
// memory, so that the garbage collector sees the same live heap; the
// recordings of one system are dropped before the next is loaded.
func BenchmarkOverhead(b *testing.B) {
	for _, name := range systems {
		b.Run(name, func(b *testing.B) {
			wl := load(b, name, true)
			b.Run("walk", func(b *testing.B) {
				w := newWalker(b, wl.cfg)
				var tr int64
				b.ReportAllocs()
				cpu := cpuTime()
				for i := 0; b.Loop(); i++ {
					tr += int64(w.walk(b, i%len(wl.steps)))
				}
				perCPUSecond(b, tr, cpu, "cpu-transitions/s")
				perSecond(b, tr, "transitions/s")
			})
			b.Run("replay", func(b *testing.B) {
				// The simulator alone: the walks replayed from their
				// choices, no properties, no walk loop, no random chooser.
				s, err := engine.New(wl.cfg, engine.Options{FailuresUntil: walkLiveAfter})
				if err != nil {
					b.Fatal(err)
				}
				var tr int64
				b.ReportAllocs()
				cpu := cpuTime()
				for i := 0; b.Loop(); i++ {
					j := i % len(wl.choices)
					if err := s.Reset(engine.NewRecorded(wl.choices[j])); err != nil {
						b.Fatal(err)
					}
					for s.Steps() < wl.steps[j] {
						if _, err := s.Step(); err != nil {
							b.Fatal(err)
						}
					}
					tr += int64(wl.steps[j])
				}
				perCPUSecond(b, tr, cpu, "cpu-transitions/s")
				perSecond(b, tr, "transitions/s")
			})
			b.Run("bare", func(b *testing.B) {
				bare, err := engine.NewBare(wl.cfg)
				if err != nil {
					b.Fatal(err)
				}
				var tr int64
				b.ReportAllocs()
				cpu := cpuTime()
				for i := 0; b.Loop(); i++ {
					j := i % len(wl.recs)
					if err := bare.Run(wl.recs[j]); err != nil {
						b.Fatal(err)
					}
					tr += int64(wl.steps[j])
				}
				perCPUSecond(b, tr, cpu, "cpu-transitions/s")
				perSecond(b, tr, "transitions/s")
			})
		})
	}
}

// BenchmarkHash: per system, each of the workload's checked walks twice in
// turn, without and with engine.Sim.Hash after every step (as a search's
// walks hash every state they reach), on two simulators: the ratio of
// their CPU times (hash-ratio: what hashing costs a walk), the
// transitions per CPU second with hashing, and the allocations and bytes
// allocated per transition of each way. Alternating the walks one by one
// keeps the ratio steady on a shared machine, where the load changes
// between whole benchmark runs.
func BenchmarkHash(b *testing.B) {
	for _, name := range systems {
		b.Run(name, func(b *testing.B) {
			wl := load(b, name, false)
			var sink uint64
			plain, hashed := newWalker(b, wl.cfg), newWalker(b, wl.cfg)
			plain.wc.Observe = walks.ObserveFunc(func(*engine.Sim) bool { return true })
			hashed.wc.Observe = walks.ObserveFunc(func(s *engine.Sim) bool {
				sink ^= s.Hash()
				return true
			})
			var tr int64
			var cpu [2]time.Duration // without, with hashing
			for i := 0; b.Loop(); i++ {
				for k, w := range []*walker{plain, hashed} {
					c := cpuClock()
					n := w.walk(b, i%len(wl.steps))
					cpu[k] += cpuClock() - c
					if k == 1 {
						tr += int64(n)
					}
				}
			}
			if err := hashed.s.HashErr(); err != nil {
				b.Fatal(err)
			}
			if tr == 0 || cpu[0] == 0 {
				return
			}
			b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "hash-ratio")
			b.ReportMetric(float64(tr)/cpu[1].Seconds(), "cpu-transitions/s")
			// Allocations, outside the timed loop: the whole workload
			// once each way, counted exactly (ReadMemStats stops the
			// world).
			for k, w := range []*walker{plain, hashed} {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				n := 0
				for i := range wl.steps {
					n += w.walk(b, i)
				}
				runtime.ReadMemStats(&after)
				unit := map[int]string{0: "", 1: "-hashed"}[k]
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(n), "allocs/transition"+unit)
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "B/transition"+unit)
			}
			_ = sink
		})
	}
}

// TestBareMatchesWalk checks that the bare runs do the checked walks'
// handler work: every node ends in the state the walk left it in.
func TestBareMatchesWalk(t *testing.T) {
	for _, name := range systems {
		t.Run(name, func(t *testing.T) {
			cfg := config(t, name, nil)
			w := newWalker(t, cfg)
			bare, err := engine.NewBare(cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 100 {
				n := w.walk(t, i)
				rec, err := engine.Record(cfg, w.s.ChoiceValues(), engine.Options{FailuresUntil: walkLiveAfter})
				if err != nil {
					t.Fatal(err)
				}
				if err := bare.Run(rec); err != nil {
					t.Fatalf("walk %d (%d steps): %v", i, n, err)
				}
				for id := range cfg.Nodes {
					if got, want := engine.Hash(bare.Service(sim.NodeID(id))), engine.Hash(w.s.Service(sim.NodeID(id))); got != want {
						t.Fatalf("walk %d: node %d differs after the bare run:\nbare: %s\nwalk: %s", i, id,
							engine.FormatValue(bare.Service(sim.NodeID(id))), engine.FormatValue(w.s.Service(sim.NodeID(id))))
					}
				}
			}
		})
	}
}

// BenchmarkWalkWorkers: the workload's walks handed out in index order to
// 1 or 2 goroutines with a simulator each, as critical's probes do.
func BenchmarkWalkWorkers(b *testing.B) {
	for _, name := range systems {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				wl := load(b, name, false)
				ws := make([]*walker, workers)
				for i := range ws {
					ws[i] = newWalker(b, wl.cfg)
				}
				var tr atomic.Int64
				b.ResetTimer()
				cpu := cpuTime()
				for b.Loop() {
					var next atomic.Int64
					var wg sync.WaitGroup
					for _, w := range ws {
						wg.Go(func() {
							n := 0
							for {
								i := int(next.Add(1) - 1)
								if i >= len(wl.steps) {
									break
								}
								n += w.walk(b, i)
							}
							tr.Add(int64(n))
						})
					}
					wg.Wait()
				}
				perCPUSecond(b, tr.Load(), cpu, "cpu-transitions/s")
				perSecond(b, tr.Load(), "transitions/s")
			})
		}
	}
}

// pathBudget is the bounded search's budget of paths in BenchmarkPaths:
// long enough (a second or so) that what a search costs to start (a
// simulator per worker, the first, shallow rounds) does not decide how it
// scales.
const pathBudget = 100000

// heapSampler records the peak of the heap in use (runtime/metrics, which
// does not stop the world) while a benchmark runs.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

func sampleHeap() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	read := func() {
		metrics.Read(samples)
		if v := samples[0].Value.Uint64() + samples[1].Value.Uint64(); v > h.peak {
			h.peak = v
		}
	}
	go func() {
		defer close(h.done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) peakMB() float64 {
	close(h.stop)
	<-h.done
	return float64(h.peak) / (1 << 20)
}

// BenchmarkPaths: the bounded search of the fixed variant (nothing to
// find, so the whole budget runs), walks to d_max = 5,000, on 1 and 2
// workers.
func BenchmarkPaths(b *testing.B) {
	for _, name := range systems {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				cfg := config(b, name, map[string]string{"fixed": "true"})
				var paths, states, tr, ahead int64
				var elapsed time.Duration
				runtime.GC() // count this search's heap, not what earlier ones left
				heap := sampleHeap()
				cpu := cpuTime()
				for b.Loop() {
					res, err := explore.Run(context.Background(), explore.Config{System: cfg, Strategy: dfs.Strategy{}, Seed: 1, WalkDepth: walkDepth, MaxPaths: pathBudget, Workers: workers})
					if err != nil {
						b.Fatal(err)
					}
					if res.Verdict != explore.None {
						b.Fatalf("fixed %s: %s %s", name, res.Verdict, res.Violations[0].Property)
					}
					paths += res.Stats.Paths
					states += res.Stats.DistinctStates
					tr += res.Stats.Transitions
					elapsed += res.Stats.Elapsed
					ahead += res.Speculation.AheadPaths
				}
				perCPUSecond(b, paths, cpu, "cpu-paths/s")
				b.ReportMetric(heap.peakMB(), "peak-MB")
				// Paths the workers ran ahead of the order, per path of the
				// search (with more than one worker): above 1 is work thrown
				// away.
				b.ReportMetric(float64(ahead)/float64(paths), "ahead/path")
				b.ReportMetric(float64(paths)/elapsed.Seconds(), "paths/s")
				b.ReportMetric(float64(states)/elapsed.Seconds(), "states/s")
				b.ReportMetric(float64(tr)/elapsed.Seconds(), "transitions/s")
			})
		}
	}
}

// shardCount is how many shards BenchmarkShards splits a search into.
const shardCount = 4

// BenchmarkShards: the search of BenchmarkPaths (one worker) as 4 shards
// run one after the other and merged, against the search in one process:
// the CPU time of the shards and the merge over the one process's
// (shard-cpu: 1 would be free sharding; the generators that every shard
// runs, paths run below states another shard reached first, and the
// paths the merge runs itself make it more), and the merge's own share.
func BenchmarkShards(b *testing.B) {
	for _, name := range systems {
		b.Run(name, func(b *testing.B) {
			cfg := config(b, name, map[string]string{"fixed": "true"})
			c := explore.Config{System: cfg, Strategy: dfs.Strategy{}, Seed: 1, WalkDepth: walkDepth, MaxPaths: pathBudget, Workers: 1}
			var one, shards, merge time.Duration
			for b.Loop() {
				start := cpuTime()
				want, err := explore.Run(context.Background(), c)
				if err != nil {
					b.Fatal(err)
				}
				one += cpuTime() - start
				start = cpuTime()
				var recs []*explore.ShardRecords
				for i := range shardCount {
					r, err := explore.Shard(context.Background(), c, i, shardCount)
					if err != nil {
						b.Fatal(err)
					}
					recs = append(recs, r)
				}
				shards += cpuTime() - start
				start = cpuTime()
				m := c
				m.Records = recs
				got, err := explore.Run(context.Background(), m)
				if err != nil {
					b.Fatal(err)
				}
				merge += cpuTime() - start
				if got.Stats.Paths != want.Stats.Paths || got.Stats.Transitions != want.Stats.Transitions || got.Verdict != want.Verdict {
					b.Fatalf("%s: merged %d paths %d transitions %v, one process %d %d %v", name, got.Stats.Paths, got.Stats.Transitions, got.Verdict,
						want.Stats.Paths, want.Stats.Transitions, want.Verdict)
				}
			}
			b.ReportMetric(float64(shards+merge)/float64(one), "shard-cpu")
			b.ReportMetric(float64(merge)/float64(one), "merge-cpu")
		})
	}
}

// findOptions are the search options of BenchmarkFind: the budget and
// properties of services/all's end-to-end tests for seed 003's four
// systems (liveness only, as the paper searched), every property and a
// common budget for the others.
var findOptions = map[string]search.Options{
	"transport": {Properties: []string{"AllAcked"}, Seed: 1, MaxPaths: 3000},
	"randtree":  {Properties: []string{"OneRoot", "NoLoops", "HasParent", "KidsMatch"}, Seed: 8, MaxPaths: 10000},
	"chord":     {Properties: []string{"AllNodes"}, Seed: 2, MaxPaths: 3000},
	"pastry":    {Properties: []string{"AllNodes"}, Seed: 1, MaxPaths: 3000},
}

// BenchmarkFind: the whole pipeline of `macemc search` on the buggy
// variant, result files included.
func BenchmarkFind(b *testing.B) {
	for _, name := range systems {
		b.Run(name, func(b *testing.B) {
			o, paper := findOptions[name]
			if !paper {
				o = search.Options{Seed: 1, MaxPaths: 3000}
			}
			o.WalkDepth, o.Walks, o.Time = 5000, 20, 30*time.Second
			sys, err := sim.Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			var find, crit, wall float64
			critStep := -1.0
			for b.Loop() {
				o.Out = b.TempDir()
				start := time.Now()
				r, err := search.Run(context.Background(), sys, o)
				wall += time.Since(start).Seconds()
				if err != nil {
					b.Fatal(err)
				}
				find += r.SearchTime.Seconds()
				f := r.First()
				if f != nil && f.Critical != nil {
					crit += f.Critical.Elapsed.Seconds()
					if f.Critical.Condition == critical.C1 {
						critStep = float64(f.Critical.Step)
					}
				}
				if paper && (r.Verdict != search.VerdictLiveness || critStep < 0) {
					b.Fatalf("%s: want a liveness violation with a C1 critical transition, got %s", name, r.Verdict)
				}
			}
			n := float64(b.N)
			b.ReportMetric(find/n, "find-s")
			b.ReportMetric(crit/n, "critical-s")
			b.ReportMetric(wall/n, "wall-s")
			b.ReportMetric(critStep, "critical-step")
		})
	}
}

// BenchmarkReset: per system, Sim.Reset with a random chooser (what every
// path and walk of a search starts with: the initial state rebuilt, the
// system booted) against the bare boot of the same system (engine.Bare on
// an empty recording: the fresh structs from Config.Service and Start on
// each, no checker). The difference is what the simulator adds to a
// reset: its own buffers, the driver's requests, the hash state, the
// monitors, and queueing Start's sends and timers.
func BenchmarkReset(b *testing.B) {
	for _, name := range systems {
		b.Run(name, func(b *testing.B) {
			cfg := config(b, name, nil)
			b.Run("reset", func(b *testing.B) {
				w := newWalker(b, cfg)
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					w.rnd.Reseed(uint64(i))
					if err := w.s.Reset(w.rnd); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("bare", func(b *testing.B) {
				bare, err := engine.NewBare(cfg)
				if err != nil {
					b.Fatal(err)
				}
				rec := &engine.Recording{}
				b.ReportAllocs()
				for b.Loop() {
					if err := bare.Run(rec); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

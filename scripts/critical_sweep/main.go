package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
)

// paperEvent tells whether a critical transition is the one the paper (or
// the system's documentation, for the systems of seeds 000 and 001) names.
var paperEvent = map[string]func(c *search.Critical) bool{
	// Seed 003 §5: the sender handling ACK 6001 or, in the other order,
	// the receiver taking the stale SYN 2001.
	"transport": func(c *search.Critical) bool {
		return c.Kind == "datagram" && (c.Node == 0 && c.Message == "Ack" && strings.Contains(c.Event, "Ack{seq: 6001,") ||
			c.Node == 1 && c.Message == "Data" && strings.Contains(c.Event, "seq: 2001, syn: true"))
	},
	// Seed 003 §6: the reset node receiving the JoinReply.
	"randtree": func(c *search.Critical) bool { return c.Message == "JoinReply" },
	// Seed 003 §6: the Notify that sets the predecessor, not the successor.
	"chord": func(c *search.Critical) bool { return c.Message == "Notify" },
	// Seed 003 §1: the rejoining node's join timer.
	"pastry": func(c *search.Critical) bool {
		return c.Kind == "timer" && strings.HasSuffix(c.Event, "timer join fires")
	},
	// Seed 000 §V / seed 001: the manager handling the stale SyncReport.
	"storage": func(c *search.Critical) bool { return c.Node == 0 && c.Message == "SyncReport" },
	// Seed 000 A.3: the detector's round declaring the failure.
	"failuredetector": func(c *search.Critical) bool {
		return c.Node == 0 && c.Kind == "timer" && strings.HasSuffix(c.Event, "timer round fires")
	},
	// Seed 000 A.4: the server handling the last Produce.
	"scheduler": func(c *search.Critical) bool {
		return c.Node == 0 && c.Kind == "app" && strings.Contains(c.Event, "Produce")
	},
}

var defaultSystems = []string{"transport", "randtree", "chord", "pastry", "storage", "failuredetector", "scheduler"}

// run is one search's figures.
type run struct {
	seed               uint64
	cond, event        string
	paper, thin        bool
	refined, below     bool
	wall, minS         float64
	searchS, critS     float64
	before, after      int
	minimal, minimized bool
	err                string
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err := strconv.ParseUint(a, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: %w", s, err)
		}
		hi := lo
		if isRange {
			if hi, err = strconv.ParseUint(b, 10, 64); err != nil || hi < lo {
				return nil, fmt.Errorf("--seeds %q: bad range", s)
			}
		}
		for x := lo; x <= hi; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}

func main() {
	seedsFlag := pflag.String("seeds", "1-50", "seeds: a range 1-50 or a list 1,4,10")
	workers := pflag.Int("workers", 2, "--workers of every search")
	noMin := pflag.Bool("no-minimize", false, "skip the minimization")
	rows := pflag.Bool("rows", false, "print one line per run")
	walksK := pflag.Int("walks", 0, "k of every search (0: the default, 20)")
	budget := pflag.Int64("confirm-budget", 0, "confirmation budget of every search (0: the default)")
	noConfirm := pflag.Bool("no-confirm", false, "Algorithm 3 alone: no confirmation")
	pflag.Parse()
	seeds, err := parseSeeds(*seedsFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	systems := pflag.Args()
	if len(systems) == 0 {
		systems = defaultSystems
	}
	var table, notes, loads []string
	for _, name := range systems {
		isPaper, ok := paperEvent[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "critical_sweep: no paper event known for system %q\n", name)
			os.Exit(2)
		}
		sys, err := sim.Lookup(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		cfg, _, err := sys.Config(nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		var props []string
		for _, p := range cfg.Liveness {
			props = append(props, p.Name)
		}
		var runs []run
		cpu0 := cpuTime()
		for _, seed := range seeds {
			r := runOne(sys, seed, *workers, props, *noMin, search.Options{Walks: *walksK, ConfirmBudget: *budget, NoConfirm: *noConfirm}, isPaper)
			runs = append(runs, r)
			if *rows {
				fmt.Printf("%s seed %d: %s %s paper=%v thin=%v refined=%v below=%v time %.2fs (search %.2fs, critical %.2fs) min %d->%d %.2fs %s\n",
					name, seed, r.cond, r.event, r.paper, r.thin, r.refined, r.below, r.wall, r.searchS, r.critS, r.before, r.after, r.minS, r.err)
			}
			if !r.paper {
				notes = append(notes, fmt.Sprintf("%s seed %d: %s %s%s", name, seed, r.cond, r.event, r.err))
			}
		}
		table = append(table, summarize(name, runs, (cpuTime()-cpu0)/float64(len(runs))))
		loads = append(loads, fmt.Sprintf("%s %s", name, loadAvg()))
	}
	fmt.Printf("# critical_sweep: seeds %s, --workers %d, --walks %d, --confirm-budget %d, --no-confirm %v, %s; load average after each system: %s\n\n",
		*seedsFlag, *workers, *walksK, *budget, *noConfirm, time.Now().UTC().Format("2006-01-02"), strings.Join(loads, ", "))
	fmt.Println("| system | C1 at the paper's event | other answers | thin | below d_init | refined | time per run median / max (s) | cpu per run (s) | search median / max (s) | critical median / max (s) | minimized steps (median) | shorter (mean) | 1-minimal | minimize median / max (s) |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, l := range table {
		fmt.Println(l)
	}
	if len(notes) > 0 {
		fmt.Println()
		for _, n := range notes {
			fmt.Println("- " + n)
		}
	}
}

func runOne(sys *sim.System, seed uint64, workers int, props []string, noMin bool, extra search.Options, isPaper func(*search.Critical) bool) run {
	r := run{seed: seed}
	out, err := os.MkdirTemp("", "macemc-sweep-")
	if err != nil {
		r.err = err.Error()
		return r
	}
	defer os.RemoveAll(out)
	o := extra
	o.Seed, o.Workers, o.Properties, o.Out, o.Minimize = seed, workers, props, out, !noMin
	t0 := time.Now()
	rep, err := search.Run(context.Background(), sys, o)
	wall := time.Since(t0).Seconds()
	if err != nil {
		r.cond, r.err = "error", " ("+err.Error()+")"
		return r
	}
	f := rep.First()
	if f == nil {
		r.cond = "nothing found"
		r.wall = wall
		return r
	}
	if m := f.Minimized; m != nil {
		r.minS, r.before, r.after, r.minimal, r.minimized = m.Elapsed.Seconds(), m.StepsBefore, m.StepsAfter, m.OneMinimal, m.StepsAfter > 0
	}
	r.wall = wall - r.minS
	r.searchS = rep.SearchTime.Seconds()
	c := f.Critical
	if c == nil {
		r.cond = "no critical transition (" + f.Kind.String() + ")"
		return r
	}
	r.cond = c.Condition.String()
	r.event = fmt.Sprintf("at %d: %s", c.Step, c.Event)
	r.critS = c.Elapsed.Seconds()
	r.paper = c.Condition == critical.C1 && isPaper(c)
	r.refined = len(c.Refined) > 0
	r.below = c.Note != ""
	r.thin = c.Confidence != nil && c.Confidence.Thin
	return r
}

// loadAvg returns the one-minute load average (Linux), or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// cpuTime is the process's CPU time so far (user and system), in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func summarize(name string, runs []run, cpu float64) string {
	paper, thin, below, refined, minimal, nmin := 0, 0, 0, 0, 0, 0
	others := map[string]int{}
	var walls, searches, crits, mins, afters []float64
	var shorter float64
	for _, r := range runs {
		if r.paper {
			paper++
		} else {
			others[r.cond]++
		}
		if r.thin {
			thin++
		}
		if r.below {
			below++
		}
		if r.refined {
			refined++
		}
		walls = append(walls, r.wall)
		searches = append(searches, r.searchS)
		crits = append(crits, r.critS)
		if r.minimized {
			nmin++
			mins = append(mins, r.minS)
			afters = append(afters, float64(r.after))
			shorter += 1 - float64(r.after)/float64(r.before)
			if r.minimal {
				minimal++
			}
		}
	}
	var other []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range others {
			if !yield(k) {
				return
			}
		}
	}) {
		other = append(other, fmt.Sprintf("%d %s", others[k], k))
	}
	if len(other) == 0 {
		other = []string{"-"}
	}
	minCol, shortCol, minimalCol, minTime := "-", "-", "-", "-"
	if nmin > 0 {
		var befores []float64
		for _, r := range runs {
			if r.minimized {
				befores = append(befores, float64(r.before))
			}
		}
		minCol = fmt.Sprintf("%.0f -> %.0f", median(befores), median(afters))
		shortCol = fmt.Sprintf("%.0f%%", 100*shorter/float64(nmin))
		minimalCol = fmt.Sprintf("%d/%d", minimal, nmin)
		minTime = fmt.Sprintf("%.2f / %.2f", median(mins), slices.Max(mins))
	}
	return fmt.Sprintf("| %s | %d/%d | %s | %d | %d | %d | %.2f / %.2f | %.2f | %.2f / %.2f | %.2f / %.2f | %s | %s | %s | %s |",
		name, paper, len(runs), strings.Join(other, ", "), thin, below, refined, median(walls), slices.Max(walls), cpu,
		median(searches), slices.Max(searches), median(crits), slices.Max(crits), minCol, shortCol, minimalCol, minTime)
}

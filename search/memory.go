package search

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// DefaultMaxMemory is the memory a run may be estimated to need before Run
// refuses it (Options.MaxMemory): 4 GiB.
const DefaultMaxMemory = 4 << 30

// The parts of the memory model (see Estimate).
const (
	// stepBytes is what a simulator holds per step of its execution: its
	// choices (one or more of engine.Choice each) and where each step
	// began, with the slack of growing them by appending.
	stepBytes = 2 * (int64(unsafe.Sizeof(engine.Choice{}))*3/2 + 4)
	// nodeBytes is a node's bookkeeping and a typical service struct;
	// connBytes one reliable connection's queue (a simulator has n*n).
	nodeBytes = 1 << 10
	connBytes = 40
	// gcFactor is the Go heap's headroom: the garbage collector lets the
	// heap grow to about twice what is live before it collects.
	gcFactor = 2
	// graphStateBytes is a state of the explored state graph with its
	// transitions, their choices and the maps that index them (a full
	// default graph of chord, 262,144 states and 689,244 transitions,
	// held 70 MiB by fair.Graph.Bytes).
	graphStateBytes = 300
)

// Estimate is the memory a run is expected to need at its peak, by part,
// in bytes. It is a model, not a measurement: it counts what grows with
// the options and the system's size, and is meant to catch a run that
// cannot fit (a million nodes, a billion-step walk on a thousand workers)
// before it starts, not to predict the resident set to the megabyte.
type Estimate struct {
	// Visited is the visited-state table at its bound (12 bytes a slot,
	// and the half-size table it replaces while it grows), and with more
	// than one worker the tables of speculation (explore.HintBytes, and
	// the set of its generator). The visited table is kept outside the
	// garbage-collected heap where the system allows.
	Visited int64
	// Simulators is the simulators' fixed part: every node and the n*n
	// connection queues, for each of the simulators the search keeps
	// (workers, the coordinator, those carrying paths between them).
	Simulators int64
	// Walks is the choices of the walks in progress, d_max steps each, in
	// the search and in the critical-transition search.
	Walks int64
	// Violations is the choices of the violating paths kept.
	Violations int64
	// Graph is the explored state graph at its bound (GraphOptions), in
	// the heap; 0 with the graph off.
	Graph int64
	// Total is the sum, with the garbage collector's headroom on the parts
	// in its heap.
	Total int64
}

// workers is the number of workers o runs.
func workers(o *Options) int64 {
	if o.Workers <= 0 {
		return int64(explore.DefaultWorkers())
	}
	return int64(o.Workers)
}

// simulators is how many simulators the search keeps: one per worker,
// the coordinator's, and those that carry paths between them (the
// executor's pool and the jobs in its queues).
func simulators(workers int64) int64 { return 14*workers + 3 }

// EstimateMemory estimates the memory a run of cfg with o needs (o as
// Validate fills it in: Workers 0 counts as explore's default, all
// cores).
func EstimateMemory(cfg *sim.Config, o *Options) Estimate {
	w := workers(o)
	n := int64(max(cfg.Nodes, 1))
	var e Estimate
	if !o.NoHashing {
		e.Visited = explore.VisitedBytes(o.MaxStates)
		if w > 1 {
			// Speculation's hint table and its generator's set.
			e.Visited += explore.HintBytes(o.MaxStates) + explore.VisitedBytes(explore.GeneratorStates(o.MaxStates))
		}
	}
	steps := int64(o.WalkDepth) + int64(o.PrefixSteps) + int64(o.Depth)
	e.Simulators = mulSat(simulators(w), n*nodeBytes+mulSat(n*n, connBytes))
	// The search's walkers and the critical-transition search's, each a
	// d_max-long execution, and the coordinator's bounded path.
	e.Walks = mulSat(2*w+1, mulSat(steps, stepBytes))
	e.Violations = mulSat(int64(o.MaxViolations), mulSat(steps, 4))
	if !o.Graph.Off {
		e.Graph = mulSat(int64(o.Graph.MaxStates), graphStateBytes)
	}
	e.Total = addSat(e.Visited, mulSat(gcFactor, addSat(addSat(addSat(e.Simulators, e.Walks), e.Violations), e.Graph)))
	return e
}

// String describes the estimate by part, e.g. "1.2 GiB (visited set 96
// MiB, simulators 3 MiB, walks 1.1 GiB, violations 80 KiB, state graph 75
// MiB)".
func (e Estimate) String() string {
	return fmt.Sprintf("%s (visited set %s, simulators %s, walks %s, violations %s, state graph %s, with the garbage collector's headroom)",
		FormatBytes(e.Total), FormatBytes(e.Visited), FormatBytes(e.Simulators), FormatBytes(e.Walks), FormatBytes(e.Violations), FormatBytes(e.Graph))
}

func mulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > (1<<63-1)/b {
		return 1<<63 - 1
	}
	return a * b
}

func addSat(a, b int64) int64 {
	if a > 1<<63-1-b {
		return 1<<63 - 1
	}
	return a + b
}

// checkMemory refuses a run estimated to need more than o.MaxMemory.
func checkMemory(cfg *sim.Config, o *Options) error {
	if o.MaxMemory < 0 {
		return nil
	}
	e := EstimateMemory(cfg, o)
	if e.Total <= o.MaxMemory {
		return nil
	}
	why := ""
	switch {
	case e.Graph >= e.Simulators && e.Graph >= e.Walks && e.Graph >= e.Visited:
		why = "the explored state graph: lower --graph-states (Options.Graph.MaxStates), or turn it off with --no-graph (Graph.Off)"
	case e.Simulators >= e.Walks && e.Simulators >= e.Visited:
		why = fmt.Sprintf("%d nodes make %d connection queues in each of %d simulators: use fewer nodes, or fewer --workers (Options.Workers)", cfg.Nodes, int64(cfg.Nodes)*int64(cfg.Nodes), simulators(workers(o)))
	case e.Walks >= e.Visited:
		why = "walks of --walk-depth steps on every worker: lower --walk-depth (Options.WalkDepth) or --workers (Workers)"
	default:
		why = "the visited-state set: lower --max-states (Options.MaxStates)"
	}
	return &MemoryError{Estimate: e, Limit: o.MaxMemory, Why: why}
}

// MemoryError is the error of a run whose estimated memory (Estimate)
// exceeds Options.MaxMemory. It wraps ErrOptions.
type MemoryError struct {
	Estimate Estimate
	Limit    int64
	// Why names the largest part and what lowers it.
	Why string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("this run would need about %s, over the limit of %s (--max-memory, Options.MaxMemory): %s; or raise --max-memory",
		e.Estimate, FormatBytes(e.Limit), e.Why)
}

// Unwrap lets errors.Is match ErrOptions.
func (e *MemoryError) Unwrap() error { return ErrOptions }

// FormatBytes writes a byte count with a binary unit, e.g. "96 MiB".
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 || f >= 100 {
		return fmt.Sprintf("%.0f %s", f, units[i])
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// ParseBytes reads a size such as 4GiB, 1.5 GiB, 512MiB, 2G, 100000
// (bytes), or "none" (no limit: -1). Units are binary (K, M, G and T are
// KiB, MiB, GiB and TiB).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "none") || strings.EqualFold(t, "unlimited") {
		return -1, nil
	}
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || v < 0 || v*mult >= 1<<63 || num == "" || strings.ContainsAny(num, "eE+-") {
		return 0, fmt.Errorf("%q is not a size (e.g. 4GiB, 512MiB, or none)", s)
	}
	return int64(v * mult), nil
}

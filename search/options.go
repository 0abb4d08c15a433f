package search

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/lin"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks/lasso"
)

// ErrOptions marks Options that cannot run; see OptionError.
var ErrOptions = errors.New("search: bad options")

// OptionError names an option whose value is out of its range.
type OptionError struct {
	// Field is the Options field (e.g. "DepthStep"); Flag the command-line
	// flag that sets it (e.g. "depth-step"), "" when none does (a key of
	// StrategyParams that is no option of the strategy).
	Field, Flag string
	// Value is the value given, Range the values allowed.
	Value any
	Range string
}

func (e *OptionError) Error() string {
	if e.Flag == "" {
		return fmt.Sprintf("search: option %s is %v; allowed: %s", e.Field, e.Value, e.Range)
	}
	return fmt.Sprintf("search: option %s (--%s) is %v; allowed: %s", e.Field, e.Flag, e.Value, e.Range)
}

// Unwrap lets errors.Is match ErrOptions.
func (e *OptionError) Unwrap() error { return ErrOptions }

// Defaults and bounds of Options.
const (
	DefaultDepthStep     = explore.DefaultDepthStep
	DefaultWalkDepth     = explore.DefaultWalkDepth
	DefaultWalks         = critical.DefaultWalks
	DefaultMaxViolations = 1
	DefaultMaxStates     = explore.DefaultMaxStates
	DefaultStrategy      = "dfs"

	// MaxWalkDepth bounds d_max: a walk keeps its choices, about 13 bytes
	// a step, once per worker and per violation kept.
	MaxWalkDepth = trace.MaxWalkDepth
	// MaxDepthBound bounds the depth of the bounded part (the visited set
	// records depths below 2^20).
	MaxDepthBound = 1<<20 - 1
	// MaxWalks bounds k, the walks of one critical-transition probe.
	MaxWalks = 100_000
	// MaxViolationsBound bounds MaxViolations (each keeps a path).
	MaxViolationsBound = 10_000
	// MaxWorkers bounds Workers.
	MaxWorkers = 1024
	// MaxStatesBound bounds the visited set (12 bytes a slot, 16 GiB at
	// this bound).
	MaxStatesBound = 1 << 30
	// MinHandlerTimeout and MaxHandlerTimeout bound HandlerTimeout.
	MinHandlerTimeout = time.Millisecond
	MaxHandlerTimeout = time.Hour
	// MaxLassoReplays bounds Lasso.Replays.
	MaxLassoReplays = 10_000
	// MaxReplays bounds Replays.
	MaxReplays = 1000
	// MaxMinimizeTests bounds MinimizeTests.
	MaxMinimizeTests = 100_000_000
)

// FaultsRange says in words what Options.Faults allows.
const FaultsRange = "comma-separated NAME=VALUE settings: resets, crashes, breaks, drops, duplicates, partitions, pernode (counts), reorder (true or false), nodes (0+1+... or all), links (0-1+1-2... or all; they limit breaks, drops and duplicates), splits (0+1/2... or default), each given once"

// Options say what to search and with what budget. The zero value of a
// field means its default; Validate fills the defaults in.
type Options struct {
	// Params are the system's parameter values (defaults for the rest).
	Params map[string]string
	// Properties, when set, selects the properties to check (default all).
	Properties []string
	// Faults, when set, overrides the system's failure budgets and
	// filters, in sim.ParseFailures' form (e.g.
	// "crashes=1,partitions=1,nodes=0+1"); settings it does not name keep
	// the system's values. Traces record it, so replays apply it again.
	Faults string
	// Strategy names the exploration order (default "dfs"; see
	// explore.Strategies) and StrategyParams its own options, keyed by
	// their names as the strategy declares them: the flag --pct-depth is
	// StrategyParams["depth"] (a key with the strategy's prefix,
	// "pct-depth" or "--pct-depth", is taken the same).
	Strategy       string
	StrategyParams map[string]string
	// Depth caps the bounded search (0: deepen until a budget ends or the
	// state space is exhausted); DepthStep is the iterative-deepening
	// increment (default 5).
	Depth, DepthStep int
	// WalkDepth is d_max, the length of every random walk (default 20,000).
	WalkDepth int
	// Walks is k, the random walks per critical-transition probe (default 20).
	Walks int
	// Seed makes the run reproducible: the same system, options and seed
	// give the same report.
	Seed uint64
	// Time and MaxPaths are budgets (0: none). A time budget stops the
	// search at a moment that depends on the machine; a MaxPaths or Depth
	// budget gives the same report every time. Time also bounds the
	// analysis of a violation found (its determinism check, critical
	// transition and minimization), which gets the same time again and
	// stops as on cancellation, keeping what it found (Report.Warnings
	// says so); the files are written after it.
	Time     time.Duration
	MaxPaths int64
	// MaxViolations stops after this many violating paths (default 1).
	MaxViolations int
	// Workers is how many goroutines run the search (0: all cores): the
	// walks, and with the dfs strategy the bounded search too (see
	// search/explore). The report does not depend on it.
	Workers int
	// MaxStates bounds the visited-state set (default 4,194,304 states).
	MaxStates int
	// NoHashing turns state hashing off.
	NoHashing bool
	// Unbiased makes random walks ignore event weights.
	Unbiased bool
	// WalkFailures keeps failures on during random walks.
	WalkFailures bool
	// NoCritical skips the critical-transition search.
	NoCritical bool
	// NoConfirm answers as Algorithm 3 alone: no confirmation of the
	// critical transition with more walks (critical.Config.ConfirmWalks).
	NoConfirm bool
	// ConfirmBudget bounds the transitions of each confirmation sample
	// (0: critical's default, 60 walks of d_max).
	ConfirmBudget int64
	// Minimize reduces the doomed path up to a C1 critical transition to a
	// 1-minimal one (critical.Minimize), written as min.trace. The command
	// line does it unless --no-minimize.
	Minimize bool
	// MinimizeBudget bounds the minimization's transitions (default
	// critical.DefaultMinimizeBudget), and MinimizeTests the subsets it
	// replays (default critical.DefaultMinimizeTests): a minimization
	// that reaches either is not proved 1-minimal (Minimized.Stopped).
	MinimizeBudget int64
	MinimizeTests  int
	// Prefix (a trace file) or PrefixSteps (walk to a live steady state of
	// at least this many steps first) start the search from a live steady
	// state (seed 003 §4.2 point 4). They exclude each other.
	Prefix      string
	PrefixSteps int
	// HandlerTimeout reports a handler that runs longer (default 5s). Go
	// cannot stop a goroutine: the hung handler's goroutine is abandoned
	// and runs on after Run returns, until the process exits (a handler
	// that spins keeps a core busy; in go test, for the rest of the
	// package's tests). Fix the hang it reports, or run such a check last.
	HandlerTimeout time.Duration
	// MaxMemory is the most memory the run may be estimated to need
	// (EstimateMemory) before Run refuses it with a *MemoryError (0:
	// DefaultMaxMemory; negative: no limit). A run also watches the heap:
	// when its objects (garbage included) have grown by more than the limit
	// leaves after the visited-state table, it stops as an interrupted run
	// does, keeping what it found, with Report.MemoryLimited set
	// (ErrMemoryLimit), and a handler that allocates without returning is
	// given up on and reported (engine.HangError.Memory). The heap is the
	// process's (Go cannot tell one run's objects from another's): what
	// runs searching side by side in one process, or the calling program,
	// allocate after a run began counts against its limit too.
	MaxMemory int64
	// LinTimeout bounds the linearizability check of one history (default
	// 10s); a history it cannot decide in time is counted unknown, never
	// linearizable (Report.Lin.Unknown).
	LinTimeout time.Duration
	// Replays is how many times the determinism checks replay a path
	// (engine.CheckDeterminismN); 0 chooses by the path's length: 64 for
	// paths up to 1,562 steps, fewer (at least engine.DefaultReplays) for
	// longer ones.
	Replays int
	// Lasso configures lasso detection and the temperature method.
	Lasso LassoOptions
	// Graph configures the explored state graph and its fair cycles.
	Graph GraphOptions
	// Out is the directory for the result files (traces, logs,
	// report.json); empty: write nothing.
	Out string
	// Command is the program name in the replay and debug commands the
	// report gives (default "macemc").
	Command string
	// Progress, when set, is told what the run is doing, from the
	// goroutine that called Run (the search's reports included, about
	// every 250 ms: the search waits while it runs). A callback that
	// panics, or calls runtime.Goexit (testing.T's Fatal), does so on that
	// goroutine, after the search is stopped.
	Progress func(Progress) `json:"-"`
}

// LassoOptions configure liveness violations without a dead state (seed
// 000): hot fair lassos and the temperature method.
type LassoOptions struct {
	// On detects lassos during every walk.
	On bool
	// Replays is RT, how often a suspected cycle is replayed before it is
	// reported (default 10).
	Replays int
	// Partial compares states by node type (or LassoKey) and pending
	// message types only.
	Partial bool
	// NodeFairness counts a cycle as fair when every node with an enabled
	// event runs (seed 000's rule) instead of every event source.
	NodeFairness bool
	// Temperature reports a walk with this many non-live steps in a row
	// (0: off).
	Temperature int
}

// bound is the range of one numeric option.
type bound struct {
	field, flag string
	get         func(*Options) int64
	min, max    func(*Options) int64
	// zero, when set, says what 0 means (the option then allows it).
	zero string
}

func constant(v int64) func(*Options) int64 { return func(*Options) int64 { return v } }

var bounds = []bound{
	{"Depth", "depth", func(o *Options) int64 { return int64(o.Depth) }, constant(1), constant(MaxDepthBound), "no cap"},
	{"DepthStep", "depth-step", func(o *Options) int64 { return int64(o.DepthStep) }, constant(1), constant(MaxDepthBound), ""},
	{"WalkDepth", "walk-depth", func(o *Options) int64 { return int64(o.WalkDepth) }, constant(1), constant(MaxWalkDepth), ""},
	{"Walks", "walks", func(o *Options) int64 { return int64(o.Walks) }, constant(1), constant(MaxWalks), ""},
	{"Time", "time", func(o *Options) int64 { return int64(o.Time) }, constant(1), constant(1<<63 - 1), "none"},
	{"MaxPaths", "max-paths", func(o *Options) int64 { return o.MaxPaths }, constant(1), constant(1<<63 - 1), "none"},
	{"MaxViolations", "max-violations", func(o *Options) int64 { return int64(o.MaxViolations) }, constant(1), constant(MaxViolationsBound), ""},
	{"Workers", "workers", func(o *Options) int64 { return int64(o.Workers) }, constant(1), constant(MaxWorkers), "all cores"},
	{"MaxStates", "max-states", func(o *Options) int64 { return int64(o.MaxStates) }, constant(1), constant(MaxStatesBound), ""},
	{"Graph.MaxStates", "graph-states", func(o *Options) int64 { return int64(o.Graph.MaxStates) }, constant(1), constant(MaxStatesBound), ""},
	{"PrefixSteps", "prefix-steps", func(o *Options) int64 { return int64(o.PrefixSteps) }, constant(1), func(o *Options) int64 { return int64(o.WalkDepth) }, "none"},
	{"ConfirmBudget", "confirm-budget", func(o *Options) int64 { return o.ConfirmBudget }, constant(1), constant(1<<63 - 1), "60 walks of d_max"},
	{"MinimizeBudget", "minimize-budget", func(o *Options) int64 { return o.MinimizeBudget }, constant(1), constant(1<<63 - 1), ""},
	{"MinimizeTests", "minimize-tests", func(o *Options) int64 { return int64(o.MinimizeTests) }, constant(1), constant(MaxMinimizeTests), ""},
	{"HandlerTimeout", "handler-timeout", func(o *Options) int64 { return int64(o.HandlerTimeout) }, constant(int64(MinHandlerTimeout)), constant(int64(MaxHandlerTimeout)), ""},
	{"LinTimeout", "lin-timeout", func(o *Options) int64 { return int64(o.LinTimeout) }, constant(int64(time.Millisecond)), constant(int64(time.Hour)), ""},
	{"Lasso.Replays", "lasso-replays", func(o *Options) int64 { return int64(o.Lasso.Replays) }, constant(1), constant(MaxLassoReplays), ""},
	{"Replays", "replays", func(o *Options) int64 { return int64(o.Replays) }, constant(2), constant(MaxReplays), "by the path's length"},
	{"Lasso.Temperature", "temperature", func(o *Options) int64 { return int64(o.Lasso.Temperature) }, constant(1), func(o *Options) int64 { return int64(o.WalkDepth) }, "off"},
}

// text says the range of b for o in words.
func (b *bound) text(o *Options) string {
	show := func(v int64) string {
		if b.field == "HandlerTimeout" || b.field == "LinTimeout" {
			return time.Duration(v).String()
		}
		return fmt.Sprint(v)
	}
	var r string
	if b.max(o) == 1<<63-1 {
		r = "a positive value"
		if b.field == "Time" {
			r = "a positive duration"
		}
	} else {
		r = fmt.Sprintf("%s to %s", show(b.min(o)), show(b.max(o)))
	}
	if b.zero != "" {
		r = fmt.Sprintf("0 (%s) or %s", b.zero, r)
	}
	return r
}

// Allowed returns the values the option set by the command-line flag
// allows, in words (e.g. "1 to 10000000"), for the defaults of the other
// options; false for a flag that is not a numeric option.
func Allowed(flag string) (string, bool) {
	o := Options{}
	o.fillDefaults()
	for i := range bounds {
		if bounds[i].flag == flag {
			return bounds[i].text(&o), true
		}
	}
	return "", false
}

// fillDefaults replaces zero values by the defaults.
func (o *Options) fillDefaults() {
	if o.Strategy == "" {
		o.Strategy = DefaultStrategy
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.DepthStep, DefaultDepthStep)
	def(&o.WalkDepth, DefaultWalkDepth)
	def(&o.Walks, DefaultWalks)
	def(&o.MaxViolations, DefaultMaxViolations)
	def(&o.MaxStates, DefaultMaxStates)
	def(&o.Graph.MaxStates, DefaultGraphStates)
	def(&o.Lasso.Replays, lasso.DefaultReplays)
	def(&o.MinimizeTests, critical.DefaultMinimizeTests)
	if o.MinimizeBudget == 0 {
		o.MinimizeBudget = critical.DefaultMinimizeBudget
	}
	if o.HandlerTimeout == 0 {
		o.HandlerTimeout = engine.DefaultHandlerTimeout
	}
	if o.MaxMemory == 0 {
		o.MaxMemory = DefaultMaxMemory
	}
	if o.LinTimeout == 0 {
		o.LinTimeout = lin.DefaultTimeout
	}
	if o.Command == "" {
		o.Command = "macemc"
	}
}

// Validate fills in the defaults and checks every option against its
// range. The error is an *OptionError naming the first bad field, its flag
// and the values it allows.
func (o *Options) Validate() error {
	o.fillDefaults()
	strat, err := explore.Lookup(o.Strategy)
	if err != nil {
		return &OptionError{Field: "Strategy", Flag: "strategy", Value: o.Strategy, Range: StrategyNames()}
	}
	o.StrategyParams = unprefixed(strat.Name(), o.StrategyParams)
	if err := checkStrategyParams(strat, o.StrategyParams); err != nil {
		return err
	}
	for i := range bounds {
		b := &bounds[i]
		v := b.get(o)
		if v == 0 && b.zero != "" {
			continue
		}
		if v < b.min(o) || v > b.max(o) {
			var shown any = v
			if b.field == "HandlerTimeout" || b.field == "LinTimeout" || b.field == "Time" {
				shown = time.Duration(v)
			}
			return &OptionError{Field: b.field, Flag: b.flag, Value: shown, Range: b.text(o)}
		}
	}
	if _, err := sim.ParseFailures(sim.Failures{}, o.Faults); err != nil {
		return &OptionError{Field: "Faults", Flag: "faults", Value: o.Faults, Range: FaultsRange + " (" + strings.TrimPrefix(err.Error(), "sim: ") + ")"}
	}
	if o.Prefix != "" && o.PrefixSteps > 0 {
		return &OptionError{Field: "PrefixSteps", Flag: "prefix-steps", Value: o.PrefixSteps, Range: "0 when Prefix (--prefix) is set: they exclude each other"}
	}
	return nil
}

// unprefixed returns params with the prefix of strategy name's flags
// ("pct-" or "--pct-") taken off its keys: a new map when a key had one
// (the caller's is left as it was), params itself otherwise.
func unprefixed(name string, params map[string]string) map[string]string {
	var out map[string]string
	for k, v := range params {
		short, ok := strings.CutPrefix(strings.TrimPrefix(k, "--"), name+"-")
		if !ok {
			continue
		}
		if out == nil {
			out = maps.Clone(params)
		}
		delete(out, k)
		if _, both := params[short]; !both {
			out[short] = v
		}
	}
	if out == nil {
		return params
	}
	return out
}

// checkStrategyParams checks the values given for a strategy's own
// options (Options.StrategyParams) against what it declares; the error
// names the option as StrategyParams[NAME] and its flag --STRATEGY-NAME.
func checkStrategyParams(s explore.Strategy, given map[string]string) error {
	names := make([]string, 0, len(given))
	for name := range given {
		names = append(names, name)
	}
	slices.Sort(names)
	specs := s.Params()
	for _, name := range names {
		i := slices.IndexFunc(specs, func(p sim.ParamSpec) bool { return p.Name == name })
		if i < 0 {
			known := make([]string, len(specs))
			for j := range specs {
				known[j] = specs[j].Name
			}
			r := "none: strategy " + s.Name() + " has no options"
			if len(known) > 0 {
				r = "the options of strategy " + s.Name() + ": " + strings.Join(known, ", ")
			}
			// No flag: --STRATEGY-NAME is no flag for a name the strategy
			// does not have (and may be another flag: --walk-depth).
			return &OptionError{Field: "StrategyParams key", Value: strconv.Quote(name), Range: r}
		}
		spec := specs[i]
		if strings.TrimSpace(given[name]) == "" {
			// An empty value is no choice (a caller's unset variable):
			// leave the option out for its default.
			return &OptionError{Field: "StrategyParams[" + name + "]", Flag: s.Name() + "-" + name, Value: strconv.Quote(given[name]),
				Range: paramRange(spec) + ", or no value at all for the default " + strconv.Quote(spec.Default)}
		}
		one := sim.System{Name: "strategy " + s.Name(), Params: []sim.ParamSpec{spec}}
		if _, err := one.Resolve(map[string]string{name: given[name]}); err != nil {
			return &OptionError{Field: "StrategyParams[" + name + "]", Flag: s.Name() + "-" + name, Value: given[name], Range: paramRange(spec)}
		}
	}
	return nil
}

// paramRange says in words what values a parameter takes.
func paramRange(p sim.ParamSpec) string {
	switch p.Kind {
	case sim.ParamInt:
		if r := p.Range(); r != "" {
			return r
		}
		return "an integer"
	case sim.ParamBool:
		return "true or false"
	}
	return "any text"
}

// StrategyNames lists the registered strategies' names, e.g. "delay, dfs,
// dpor, pct, random, walk".
func StrategyNames() string {
	var s string
	for i, st := range explore.Strategies() {
		if i > 0 {
			s += ", "
		}
		s += st.Name()
	}
	return s
}

// flagFields names the Options field behind each command-line flag of
// `macemc search` that the bounds do not (bounds give the others).
var flagFields = map[string]string{
	"param": "Params", "property": "Properties", "faults": "Faults", "strategy": "Strategy", "seed": "Seed",
	"no-hashing": "NoHashing", "unbiased": "Unbiased", "walk-failures": "WalkFailures", "no-critical": "NoCritical",
	"no-confirm": "NoConfirm", "no-minimize": "Minimize (false)", "prefix": "Prefix", "max-memory": "MaxMemory",
	"lasso": "Lasso.On", "partial-hash": "Lasso.Partial", "lasso-node-fairness": "Lasso.NodeFairness",
	"no-graph": "Graph.Off", "out": "Out",
}

// OptionForFlag returns the Options field that the command-line flag
// --flag (given without its dashes) sets, e.g. "Graph.MaxStates" for
// "graph-states", and false for a flag the library has no field for.
// Texts of the report name flags; a program that calls Run can say which
// field each is (searchtest does).
func OptionForFlag(flag string) (field string, ok bool) {
	for _, b := range bounds {
		if b.flag == flag {
			return b.field, true
		}
	}
	field, ok = flagFields[flag]
	return field, ok
}

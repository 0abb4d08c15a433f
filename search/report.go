package search

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// Verdict is what a run concluded.
type Verdict int

// The verdicts.
const (
	// VerdictNone: nothing was found within the budget.
	VerdictNone Verdict = iota
	// VerdictSafety: a safety property failed, or a handler panicked or
	// did not return.
	VerdictSafety
	// VerdictLiveness: a liveness violation (see Finding.Certainty).
	VerdictLiveness
	// VerdictNondeterministic: the system's replays diverged, so nothing
	// the search finds in it can be trusted.
	VerdictNondeterministic
)

var verdictNames = [...]string{"none", "safety", "liveness", "nondeterministic"}

// String returns the verdict as reports give it, e.g. "liveness".
func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// traceKind is the kind of the trace of a finding with this verdict.
func (v Verdict) traceKind() trace.Kind {
	switch v {
	case VerdictSafety:
		return trace.KindSafety
	case VerdictNondeterministic:
		return trace.KindNondeterministic
	}
	return trace.KindLiveness
}

// Kind is what a finding is.
type Kind int

// The kinds of findings.
const (
	// KindSafety: a safety property failed.
	KindSafety Kind = iota + 1
	// KindDead: an execution that never becomes live: a dead state
	// (with a critical transition) or a quiescent one.
	KindDead
	// KindLasso: an infinite fair execution without a live state, shown as
	// a stem and a cycle (seed 000).
	KindLasso
	// KindTemperature: the temperature method's alarm (seed 000).
	KindTemperature
	// KindNondeterminism: two replays of the same choices diverged.
	KindNondeterminism
	// KindHandlerPanic: a handler panicked (or used the API wrongly, such
	// as sending to a node that does not exist).
	KindHandlerPanic
	// KindHandlerHang: a handler did not return within the timeout.
	KindHandlerHang
	// KindLinearizability: a client history is not linearizable.
	KindLinearizability
	// KindMisuse: a handler used the sim.Context API in a way that cannot
	// run (a send to a node that does not exist, Rand(0), ...).
	KindMisuse
	// KindEscape: a service acted outside its handlers (a goroutine it
	// started, a Context it kept), a kind of nondeterminism.
	KindEscape
)

var kindNames = [...]string{"", "safety", "dead", "lasso", "temperature", "nondeterminism", "panic", "hang", "linearizability", "misuse", "escape"}

// String returns the kind as reports give it, e.g. "dead".
func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Certainty says how sure a finding is.
type Certainty int

// The certainties.
const (
	// Suspected: no live state within d_max, and no stronger evidence
	// (critical transition C2, a temperature alarm, a lasso of partial
	// states). Raise --walk-depth and search again.
	Suspected Certainty = iota + 1
	// Likely: a dead state, by k random walks that never recovered from
	// it (critical transition C1, seed 003 §3.2).
	Likely
	// Certain: a safety violation, a handler failure, a quiescent state
	// that is not live, a lasso of exact states, or replays that diverged.
	Certain
)

var certaintyNames = [...]string{"", "suspected", "likely", "certain"}

// String returns "suspected", "likely" or "certain".
func (c Certainty) String() string {
	if int(c) < len(certaintyNames) && c > 0 {
		return certaintyNames[c]
	}
	return fmt.Sprintf("certainty(%d)", int(c))
}

// Report is what a run concluded, with the evidence and what was covered.
// It marshals itself to report.json (MarshalJSON).
type Report struct {
	// What was searched.
	System     string
	Params     map[string]string
	Properties []string
	Seed       uint64
	Strategy   string
	// StrategyParams are the strategy's own options as resolved, its
	// defaults included (e.g. pct's depth, steps and unit).
	StrategyParams map[string]string
	// Faults are the failure budgets and filters in force (sim.Failures in
	// sim.ParseFailures' form).
	Faults string
	// WalkFailures says failures were injected in the walks too
	// (Options.WalkFailures); else only in each path's bounded part, up to
	// its depth bound (seed 003), but for --strategy walk, whose paths are
	// all walk.
	WalkFailures bool
	// PrefixSteps, when not 0, is the length of the prefix the search
	// started from (Options.Prefix or PrefixSteps): every path, and every
	// verdict, is of executions that begin with it.
	PrefixSteps int
	// Stats say what the search covered and why it stopped.
	Stats explore.Stats
	// GraphPartial says the explored state graph's states are partial
	// states (Options.Lasso.Partial): each stands for every state with its
	// partial hash, and is hot or not as the first of them was.
	GraphPartial bool
	// Verdict is the verdict of the first finding (VerdictNone without).
	Verdict Verdict
	// Incomplete marks a run that was cancelled: what it reports is what
	// it had found and checked by then.
	Incomplete bool
	// MemoryLimited marks a run that stopped because its heap grew past
	// what Options.MaxMemory allows (ErrMemoryLimit); it is Incomplete
	// too, and its Stats.Stop is explore.StopMemory when the search was
	// the phase it stopped.
	MemoryLimited bool
	// LogsSkipped marks a run that wrote its traces but not the logs (a
	// log replays the whole path, which can take seconds), because it was
	// cancelled (Incomplete) or writing them reached the time budget
	// (Options.Time, given to the files once more): the Replay command
	// writes them.
	LogsSkipped bool
	// Findings lists every violation found, in search order; the first is
	// the one analysed (critical transition, lasso, files).
	Findings []Finding
	// LassoStats say what lasso detection and the temperature method saw
	// over all walks (with Options.Lasso).
	LassoStats *LassoStats
	// Lin says what the linearizability check saw (systems with a
	// sim.Model); nil without one.
	Lin *LinStats
	// Files maps each result file's role (FileErrorTrace, FileErrorLog,
	// FileReport, ...) to its path.
	Files map[FileRole]string
	// Replay and Debug are the commands that replay the first finding and
	// open it in the debugger.
	Replay, Debug string
	// SearchTime is the time to find the violation; Elapsed the whole run.
	SearchTime, Elapsed time.Duration
	// Phases is the time the run spent in each phase, in the order they
	// began (a phase met again adds to its time): where Elapsed went.
	Phases []PhaseTime
	// Warnings say what the run could not do without failing: a result
	// file that is only a view of the evidence (the report page).
	Warnings []string
}

// NothingSearched reports whether the run found nothing because its
// search finished no path within the time budget, Options.Time: the check
// before the search (the precheck) used all of it (a warning says so), or
// the first paths' walks took longer than what was left (a walk running
// when the budget ends stops there, and its path is not counted). Such a
// report is evidence of nothing: `macemc search` exits 2 for it, asking
// for a larger --time, and package searchtest fails the test. A run that
// was stopped (Incomplete) is not one: it says so itself.
func (r *Report) NothingSearched() bool {
	return r.First() == nil && !r.Incomplete && r.Stats.Paths == 0
}

// First returns the first finding, or nil.
func (r *Report) First() *Finding {
	if len(r.Findings) == 0 {
		return nil
	}
	return &r.Findings[0]
}

// Finding is one violation and its evidence.
type Finding struct {
	Kind      Kind
	Certainty Certainty
	Verdict   Verdict
	// Property is the violated property (for a handler failure,
	// walks.PanicProperty or walks.HangProperty).
	Property string
	// Outcome is how the violating execution ended.
	Outcome walks.Outcome
	// Steps is the violating execution's length (for a lasso, up to the
	// end of the cycle's first round); Path its index in search order;
	// Depth the step after which liveness counted.
	Steps int
	Path  int64
	Depth int
	// PathSteps is the length of the path the search found (a walk that
	// repeated a lasso's cycle goes on to d_max).
	PathSteps int
	// Err is the handler panic, hang or nondeterminism behind the finding.
	Err error
	// Node is the node whose handler panicked, hung or escaped (or
	// notified the monitor that panicked), whose state first differed
	// between replays, or, when the nodes' states agreed, whose handler
	// left different events pending (-1: none, as when a monitor's state
	// or a property's answer differed between replays: the
	// engine.NondeterminismError names it).
	Node int
	// Stack is a panicking handler's own stack frames (see
	// engine.HandlerPanicError).
	Stack string
	// AlsoViolated lists, for a safety violation, the other safety
	// properties and monitor assertions that fail in the same state, as
	// "NAME" or "NAME: its assertion's message" (a monitor's message often
	// says more than the property the search met first).
	AlsoViolated []string
	// Events are, for a safety violation of a property or a monitor's
	// assertion, the violating path's transitions as the text report lists
	// them (error.log has each in full), the failures they needed among
	// them.
	Events []string
	// FailureSteps are the steps (from 1) of Events that are failures
	// (resets, crashes, drops, partitions, ...): the text report lists
	// them even where it leaves the middle of a long path out.
	FailureSteps []int
	// Critical is the critical transition of a dead-state violation.
	Critical *Critical
	// Lasso is the cycle behind a liveness violation, when one was found.
	Lasso *Lasso
	// Temperature is the temperature method's alarm.
	Temperature *Temperature
	// History is a linearizability violation's history.
	History *History
	// Trace replays the violation; Live is the live alternative sharing
	// the longest prefix with it (critical transition); Min the minimized
	// doomed path (kind "minimized"). In memory only: the report's Files
	// name the files written.
	Trace, Live, Min *trace.Trace
	// Minimized is the doomed path up to a C1 critical transition reduced
	// by delta debugging (critical.Minimize), or why it was not.
	Minimized *Minimized
}

// Critical is the critical transition of a liveness violation (seed 003
// §3.2): the step after which the execution can never become live again.
type Critical struct {
	// Step is the critical step, Condition C1 (dead from this step) or C2
	// (no evidence of death within d_max).
	Step      int
	Condition critical.Condition
	// Event is the critical transition's event, its Node, Kind (as
	// engine.EventKind's String names it: "message", "timer", "drop", ...;
	// engine.ParseEventKind reads it back) and Message type.
	Event   string
	Node    int
	Kind    string
	Message string
	// Walks (k), WalkDepth (d_max) and Probes describe the search.
	Walks, WalkDepth, Probes int
	// LiveSteps and Shared describe the live alternative.
	LiveSteps, Shared int
	Elapsed           time.Duration
	// Explain tells the answer in words; Note how it was searched when
	// that was not Algorithm 3 from the search depth as written.
	Explain, Note string
	// Interrupted marks a search that was cancelled before it ended; Step
	// is then -1 and Recovered and Dead say how far it had narrowed.
	Interrupted bool
	// Recovered is the highest state a probe saw recover and Dead the
	// lowest from which no walk recovered (-1: no such probe): the
	// critical transition lies after state Recovered, at or before state
	// Dead. A complete C1 answer has Recovered = Step-1 and Dead = Step.
	Recovered, Dead int
	// Confidence confirms a C1 answer with many more walks from the
	// critical state and the one before it; Refined lists the candidate
	// steps that confirmation found near dead, Unchanged those whose
	// transition changed nothing (critical.Result).
	Confidence *critical.Confidence
	Refined    []int
	Unchanged  []int
}

// Lasso is a hot fair cycle: state Stem is where it starts and
// transitions Stem+1 .. Stem+Length form it.
type Lasso struct {
	Stem, Length int
	// Confirmed is how many times it was replayed; Proof says it proves
	// the violation (exact hashing); Hash is "exact" or "partial".
	Confirmed int
	Proof     bool
	Hash      string
	// Repeated is how many further steps the execution repeated it;
	// Origin says where it was found, Source the same in words (for a
	// fair cycle of the explored graph, with the graph's figures).
	Repeated int
	Origin   LassoOrigin
	Source   string
	Note     string
	// Events are the cycle's transitions.
	Events []string
	// NodeFair says the cycle is fair per node only (--lasso-node-fairness):
	// no proof, since node fairness admits cycles no fair network runs.
	NodeFair bool
	// InTurn names the liveness properties when each holds in some state
	// of the cycle but never all at once (a state is live only when every
	// one does); empty when the violated property (Finding.Property) holds
	// in no state of it.
	InTurn []string
}

// LassoOrigin says where a lasso was found.
type LassoOrigin int

// The origins of lassos.
const (
	// OriginPath: lasso detection on the violating path itself.
	OriginPath LassoOrigin = iota + 1
	// OriginGraph: a fair cycle of hot states in the explored state graph
	// (Options.Graph), confirmed on the path that follows it.
	OriginGraph
	// OriginSearchWalk: a detector during one of the search's walks.
	OriginSearchWalk
	// OriginEndWalks: walks from the violating path's end, after a
	// critical-transition search that found no dead state (C2).
	OriginEndWalks
	// OriginAlarm: lasso detection on a temperature alarm's path.
	OriginAlarm
)

// originText is what report.json's lasso "source" says for each origin
// (a graph's lasso says more: explore.GraphLasso.String).
var originText = [...]string{OriginPath: "violating path", OriginSearchWalk: "search walk", OriginEndWalks: "walks from the violating path's end",
	OriginAlarm: "temperature alarm path"}

// originOf reads a lasso's origin back from its source text.
func originOf(source string) LassoOrigin {
	for o, text := range originText {
		if text != "" && text == source {
			return LassoOrigin(o)
		}
	}
	if strings.Contains(source, "explored state graph") {
		return OriginGraph
	}
	return 0
}

// Cycle returns the step numbers of the cycle's transitions.
func (l *Lasso) Cycle() []int {
	out := make([]int, l.Length)
	for i := range out {
		out[i] = l.Stem + 1 + i
	}
	return out
}

// Temperature is a temperature alarm (seed 000 Algorithm 2).
type Temperature struct {
	Threshold, AlarmStep int
	// LiveAt is the step at which the execution became live after the
	// alarm (0: it did not within d_max).
	LiveAt int
	// Verdict is "lasso" (the alarm's path contains a confirmed lasso),
	// "false alarm" (the execution became live later) or "unknown".
	Verdict string
	Note    string
}

// LassoStats count what the walks' detectors saw and average the
// findings: MeanTrace is the mean length stem+cycle of the confirmed
// lassos (seed 000's L_T), MeanCycle their mean cycle length (L_C),
// MeanAlarm the mean step of the temperature alarms.
type LassoStats struct {
	Method      string  `json:"method"`
	Hash        string  `json:"hash"`
	Fairness    string  `json:"fairness"`
	Replays     int     `json:"replays"`
	Temperature int     `json:"temperature,omitempty"`
	Walks       int64   `json:"walks"`
	States      int64   `json:"states"`
	Repeats     int64   `json:"repeats"`
	Mismatched  int64   `json:"mismatched"`
	Unfair      int64   `json:"unfair"`
	Discarded   int64   `json:"discarded"`
	Confirmed   int64   `json:"confirmed"`
	Refuted     int64   `json:"refuted"`
	Alarms      int64   `json:"alarms"`
	Recovered   int64   `json:"alarms_recovered"`
	MeanTrace   float64 `json:"mean_trace"`
	MeanStem    float64 `json:"mean_stem"`
	MeanCycle   float64 `json:"mean_cycle"`
	MeanAlarm   float64 `json:"mean_alarm_steps"`
}

// reportJSON is report.json: the run, its coverage, the first finding
// described in full and a summary of every finding.
type reportJSON struct {
	Verdict   string `json:"verdict"`
	Kind      string `json:"kind,omitempty"`
	Certainty string `json:"certainty,omitempty"`
	Property  string `json:"property,omitempty"`
	Outcome   string `json:"outcome,omitempty"`

	System     string            `json:"system"`
	Params     map[string]string `json:"params"`
	Properties []string          `json:"properties"`
	Seed       uint64            `json:"seed"`
	Strategy   string            `json:"strategy"`
	// StrategyParams is Report.StrategyParams.
	StrategyParams map[string]string `json:"strategy_params,omitempty"`
	Faults         string            `json:"faults"`
	// WalkFailures is Report.WalkFailures.
	WalkFailures bool `json:"walk_failures,omitempty"`
	// PrefixSteps is Report.PrefixSteps.
	PrefixSteps int `json:"prefix_steps,omitempty"`

	Rounds          int     `json:"rounds"`
	DepthBound      int     `json:"depth_bound"`
	DeepestComplete int     `json:"deepest_complete"`
	Paths           int64   `json:"paths"`
	Pruned          int64   `json:"pruned"`
	Blocked         int64   `json:"blocked,omitempty"`
	TimeCut         int64   `json:"paths_time_cut,omitempty"`
	Walks           int64   `json:"walks"`
	Transitions     int64   `json:"transitions"`
	DistinctStates  int64   `json:"distinct_states"`
	Forgotten       int64   `json:"states_forgotten,omitempty"`
	Unrecorded      int64   `json:"states_unrecorded,omitempty"`
	Unhashed        bool    `json:"states_not_hashed,omitempty"`
	Stop            string  `json:"stop"`
	Incomplete      bool    `json:"incomplete,omitempty"`
	MemoryLimited   bool    `json:"memory_limited,omitempty"`
	NothingSearched bool    `json:"nothing_searched,omitempty"` // Report.NothingSearched, for machines (ReadReport derives it)
	LogsSkipped     bool    `json:"logs_skipped,omitempty"`
	ElapsedS        float64 `json:"elapsed_s"`
	SearchS         float64 `json:"search_s"`
	// PhasesS maps each phase's name (Phase.String) to its seconds.
	PhasesS map[string]float64 `json:"phases_s,omitempty"`

	Steps        *int             `json:"steps,omitempty"` // the first finding's (0 included), as Path and Depth
	Path         *int64           `json:"path,omitempty"`
	Depth        *int             `json:"depth,omitempty"`
	Error        string           `json:"error,omitempty"`
	Node         *int             `json:"node,omitempty"`
	Stack        string           `json:"stack,omitempty"`
	AlsoViolated []string         `json:"also_violated,omitempty"`
	Events       []string         `json:"events,omitempty"`
	FailureSteps []int            `json:"failure_steps,omitempty"`
	Critical     *criticalJSON    `json:"critical,omitempty"`
	CriticalNote string           `json:"critical_note,omitempty"`
	Lasso        *lassoJSON       `json:"lasso,omitempty"`
	Stem         *int             `json:"stem,omitempty"`
	Cycle        []int            `json:"cycle,omitempty"`
	Temperature  *temperatureJSON `json:"temperature,omitempty"`
	Confidence   *confidenceJSON  `json:"confidence,omitempty"`
	Minimized    *minimizedJSON   `json:"minimized,omitempty"`
	LassoStats   *LassoStats      `json:"lasso_stats,omitempty"`
	Graph        *graphJSON       `json:"graph,omitempty"`
	Lin          *LinStats        `json:"linearizability,omitempty"`
	History      []string         `json:"history,omitempty"`
	Minimal      []string         `json:"minimal_history,omitempty"`
	TypeHint     string           `json:"history_type_hint,omitempty"`

	Violations []violationJSON     `json:"violations,omitempty"`
	Files      map[FileRole]string `json:"files"`
	Replay     string              `json:"replay,omitempty"`
	Debug      string              `json:"debug,omitempty"`
	Warnings   []string            `json:"warnings,omitempty"`
}

type violationJSON struct {
	Verdict  string `json:"verdict"`
	Kind     string `json:"kind"`
	Property string `json:"property"`
	Outcome  string `json:"outcome"`
	Steps    int    `json:"steps"`
	Path     int64  `json:"path"`
}

type criticalJSON struct {
	Step        int     `json:"step"`
	Condition   string  `json:"condition"`
	Event       string  `json:"event"`
	Node        int     `json:"node"`
	Kind        string  `json:"kind"`
	Message     string  `json:"message,omitempty"`
	Walks       int     `json:"walks"`
	WalkDepth   int     `json:"walk_depth"`
	Probes      int     `json:"probes"`
	LiveSteps   int     `json:"live_steps,omitempty"`
	Shared      int     `json:"shared,omitempty"`
	ElapsedS    float64 `json:"elapsed_s"`
	Explain     string  `json:"explain"`
	Interrupted bool    `json:"interrupted,omitempty"`
	Recovered   int     `json:"recovered"`
	Dead        int     `json:"dead"`
	Refined     []int   `json:"refined,omitempty"`
	Unchanged   []int   `json:"unchanged,omitempty"`
}

type lassoJSON struct {
	Stem        int      `json:"stem"`
	CycleLength int      `json:"cycle_length"`
	Confirmed   int      `json:"confirmed_replays"`
	Note        string   `json:"note"`
	Hash        string   `json:"hash"`
	Proof       bool     `json:"proof"`
	Repeated    int      `json:"repeated_steps,omitempty"`
	Source      string   `json:"source"`
	Events      []string `json:"events"`
	InTurn      []string `json:"in_turn,omitempty"`
}

type graphJSON struct {
	States   int  `json:"states"`
	Edges    int  `json:"transitions"`
	Bytes    int  `json:"bytes"`
	Checks   int  `json:"checks"`
	Rejected int  `json:"rejected,omitempty"`
	Full     bool `json:"full,omitempty"`
	Partial  bool `json:"partial,omitempty"`
	// TimeWaits: explore.GraphStats.TimeWaits.
	TimeWaits int    `json:"time_waits,omitempty"`
	Verdict   string `json:"verdict"`
}

type temperatureJSON struct {
	Threshold int    `json:"threshold"`
	AlarmStep int    `json:"alarm_step"`
	LiveAt    int    `json:"live_at,omitempty"`
	Verdict   string `json:"verdict"`
	Note      string `json:"note"`
}

// outcomeText is a finding's outcome as the report gives it: the walk's
// outcome ("dead", "quiescent", "unsafe", "failed"), or for a lasso or
// temperature alarm that a walk's detector reported, the finding's kind.
func (f *Finding) outcomeText() string {
	if f.Outcome == walks.Observed && (f.Kind == KindLasso || f.Kind == KindTemperature) {
		return f.Kind.String()
	}
	return f.Outcome.String()
}

// MarshalJSON writes the report as report.json has it.
func (r *Report) MarshalJSON() ([]byte, error) {
	j := reportJSON{
		Verdict: r.Verdict.String(), System: r.System, Params: r.Params, Properties: r.Properties, Seed: r.Seed, Strategy: r.Strategy, StrategyParams: r.StrategyParams, Faults: r.Faults, WalkFailures: r.WalkFailures, PrefixSteps: r.PrefixSteps,
		Rounds: r.Stats.Rounds, DepthBound: r.Stats.Depth, DeepestComplete: r.Stats.DeepestComplete, Paths: r.Stats.Paths, Pruned: r.Stats.Pruned,
		Walks: r.Stats.Walks, Transitions: r.Stats.Transitions, DistinctStates: r.Stats.DistinctStates, Forgotten: r.Stats.Forgotten, Unrecorded: r.Stats.Unrecorded, Unhashed: r.Stats.Unhashed, Stop: r.Stats.Stop.String(),
		Blocked: r.Stats.Blocked, TimeCut: r.Stats.TimeCut, Lin: r.Lin,
		Incomplete: r.Incomplete, MemoryLimited: r.MemoryLimited, NothingSearched: r.NothingSearched(), LogsSkipped: r.LogsSkipped, ElapsedS: r.Elapsed.Seconds(), SearchS: r.SearchTime.Seconds(),
		LassoStats: r.LassoStats, Files: r.Files, Replay: r.Replay, Debug: r.Debug, Warnings: r.Warnings,
	}
	if g := r.Stats.Graph; g != nil {
		j.Graph = &graphJSON{States: g.States, Edges: g.Edges, Bytes: g.Bytes, Checks: g.Checks, Rejected: g.Rejected, Full: g.Full, Partial: r.GraphPartial,
			TimeWaits: g.TimeWaits, Verdict: r.GraphVerdict()}
	}
	if j.Params == nil {
		j.Params = map[string]string{}
	}
	if j.Properties == nil {
		j.Properties = []string{}
	}
	if j.Files == nil {
		j.Files = map[FileRole]string{}
	}
	if len(r.Phases) > 0 {
		j.PhasesS = map[string]float64{}
		for _, pt := range r.Phases {
			j.PhasesS[pt.Phase.String()] = pt.Time.Seconds()
		}
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		j.Violations = append(j.Violations, violationJSON{Verdict: f.Verdict.String(), Kind: f.Kind.String(), Property: f.Property,
			Outcome: f.outcomeText(), Steps: f.PathSteps, Path: f.Path})
	}
	if f := r.First(); f != nil {
		j.Kind, j.Certainty, j.Property, j.Outcome = f.Kind.String(), f.Certainty.String(), f.Property, f.outcomeText()
		j.Steps, j.Path, j.Depth = &f.Steps, &f.Path, &f.Depth
		if f.Err != nil {
			j.Error = f.Err.Error()
		}
		if f.Node >= 0 && f.Err != nil {
			node := f.Node
			j.Node = &node
		}
		j.Stack, j.AlsoViolated, j.Events, j.FailureSteps = f.Stack, f.AlsoViolated, f.Events, f.FailureSteps
		if c := f.Critical; c != nil {
			j.Critical = &criticalJSON{Step: c.Step, Condition: c.Condition.String(), Event: c.Event, Node: c.Node, Kind: c.Kind, Message: c.Message,
				Walks: c.Walks, WalkDepth: c.WalkDepth, Probes: c.Probes, LiveSteps: c.LiveSteps, Shared: c.Shared,
				ElapsedS: c.Elapsed.Seconds(), Explain: c.Explain, Interrupted: c.Interrupted, Recovered: c.Recovered, Dead: c.Dead, Refined: c.Refined, Unchanged: c.Unchanged}
			j.CriticalNote = c.Note
			j.Confidence = newConfidenceJSON(c.Confidence)
		}
		if l := f.Lasso; l != nil {
			j.Lasso = &lassoJSON{Stem: l.Stem, CycleLength: l.Length, Confirmed: l.Confirmed, Note: l.Note, Hash: l.Hash, Proof: l.Proof,
				Repeated: l.Repeated, Source: l.Source, Events: l.Events, InTurn: l.InTurn}
			stem := l.Stem
			j.Stem, j.Cycle = &stem, l.Cycle()
		}
		if h := f.History; h != nil {
			j.History, j.Minimal, j.TypeHint = h.Lines, h.MinimalLines, h.TypeHint
			if h.Events != nil || h.Minimal != nil {
				j.History, j.Minimal = historyLines(h.Events), historyLines(h.Minimal)
			}
			if m := h.TypeMismatch; m != nil {
				j.TypeHint = m.String()
			}
		}
		if t := f.Temperature; t != nil {
			j.Temperature = &temperatureJSON{Threshold: t.Threshold, AlarmStep: t.AlarmStep, LiveAt: t.LiveAt, Verdict: t.Verdict, Note: t.Note}
		}
		j.Minimized = newMinimizedJSON(f.Minimized)
	}
	return json.Marshal(j)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// GraphVerdict says in words what the explored state graph (Options.Graph)
// shows: "" without one; for a search that exhausted the reachable states
// and found no violation, that liveness holds under fairness. With partial
// states (GraphPartial) it says no more than that none was found: a graph
// state stands for every state with its partial hash and is hot or not as
// the first of them was, so a fair cycle of hot states can hide behind a
// partial state first reached in a live state. Nor does an exhausted DPOR
// search prove it: its graph holds one order of the events that commute.
// Nor does a graph whose only fair cycles wait forever on a timeout
// (explore.GraphStats.TimeWaits): they are set aside as unfair to time,
// which is right when the deadline waited for is fixed and wrong when it
// keeps moving, and macemc cannot tell the two apart.
func (r *Report) GraphVerdict() string {
	g := r.Stats.Graph
	if g == nil || g.States == 0 {
		return ""
	}
	f := r.First()
	switch {
	case f != nil && f.Kind == KindLasso && f.Lasso != nil && f.Lasso.Origin == OriginGraph:
		return "a fair cycle of hot states: the lasso reported"
	case f != nil:
		return "no fair cycle of hot states found before the violation"
	case g.Rejected > 0 && r.GraphPartial:
		return rejectedCycles(g.Rejected, "hot partial states") + " (partial states merge states that differ), so this is no proof of liveness; another cycle through the same partial states may still be real: --lasso looks for cycles along each walk, and a search without --partial-hash finds one that repeats exactly"
	case g.Rejected > 0:
		return rejectedCycles(g.Rejected, "hot states") + ", so this is no proof of liveness (--lasso looks for cycles along each walk)"
	case r.Stats.Stop == explore.StopExhausted && !g.Full && r.GraphPartial:
		return "no fair cycle of hot partial states among all reachable states (the search exhausted them); partial states merge states that differ, so this is no proof of liveness (search without --partial-hash for one)"
	case r.Stats.Stop == explore.StopExhausted && !g.Full && reducesOrders(r.Strategy):
		return "no fair cycle of hot states among the states this search ran; " + r.Strategy + " runs one order of independent events, so its graph lacks the transitions of the other orders and this is no proof of liveness (search with --strategy dfs for one)"
	case r.Stats.Stop == explore.StopExhausted && !g.Full && g.TimeWaits > 0:
		among := "among all reachable states"
		if r.PrefixSteps > 0 {
			among = fmt.Sprintf("among all states reachable from the end of the %d-step prefix", r.PrefixSteps)
		}
		return fmt.Sprintf("no fair cycle of hot states %s (the search exhausted them) is fair to time: the fair cycles of hot states in %s wait forever on a timeout "+
			"(a node asks ctx.Elapsed in them and is told \"not yet\" at every ask) and were set aside as unfair to time, which is right if those deadlines are fixed "+
			"and wrong if one keeps moving (a heartbeat renewing it), which macemc cannot tell: this is no proof of liveness",
			among, plural(g.TimeWaits, "strongly connected component"))
	case r.Stats.Stop == explore.StopExhausted && !g.Full && g.Rejected == 0 && r.PrefixSteps > 0:
		return fmt.Sprintf("no fair cycle of hot states among all states reachable from the end of the %d-step prefix (the search exhausted them): every fair execution that begins with the prefix becomes live again (up to 64-bit hash collisions and what hashing cannot see, README: What cannot be caught; fairness per event source); this says nothing of the executions that leave it earlier", r.PrefixSteps)
	case r.Stats.Stop == explore.StopExhausted && !g.Full && g.Rejected == 0:
		return "no fair cycle of hot states among all reachable states (the search exhausted them): every fair execution becomes live again, so liveness holds (up to 64-bit hash collisions and what hashing cannot see, README: What cannot be caught; fairness per event source)"
	case g.Full:
		return "no fair cycle of hot states among the states recorded; the graph is full (raise --graph-states)"
	default:
		return "no fair cycle of hot states among the states explored so far"
	}
}

// rejectedCycles says that n fair cycles of the graph's states did not
// replay on the system.
func rejectedCycles(n int, states string) string {
	were := "were"
	if n == 1 {
		were = "was"
	}
	return fmt.Sprintf("%s of %s found in the graph did not replay on the system and %s set aside", plural(n, "fair cycle"), states, were)
}

// reducesOrders says whether the strategy named runs one order of the
// events that commute (explore.OrderReducer): a fair cycle through the
// orders it left out is not in its graph (two nodes whose independent
// timers, taken in turns, keep the state hot forever).
func reducesOrders(strategy string) bool {
	s, err := explore.Lookup(strategy)
	return err == nil && explore.ReducesOrders(s)
}

// historyLines is a history as report.json gives it: one line an event.
func historyLines(h []sim.HistoryEvent) []string {
	text := strings.TrimSuffix(engine.HistoryText(h), "\n")
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	// An invocation its client never got a response to is pending: it may
	// or may not have taken effect.
	answered := map[int]bool{}
	for i := len(h) - 1; i >= 0 && i < len(lines); i-- {
		switch {
		case h[i].Kind == sim.Response:
			answered[h[i].Client] = true
		case !answered[h[i].Client]:
			lines[i] += "  (pending: never returns, may or may not take effect)"
		default:
			delete(answered, h[i].Client)
		}
	}
	return lines
}

package search

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/macemc/macemc/internal/jsonbound"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// ErrReport marks a report.json that cannot be read: not JSON, not a
// report, too large, or saying something inconsistent.
var ErrReport = errors.New("search: bad report")

// MaxReportSize bounds the size of a report.json ReadReport reads. A
// report holds one finding in full and a line per further finding (at
// most MaxViolationsBound); a lasso's events are its largest part.
const MaxReportSize = 64 << 20

// maxReportValues bounds the values a report.json may hold (see
// jsonbound): a real one holds at most MaxViolationsBound violations of a
// dozen values and a few histories; a few megabytes of empty objects
// would decode into gigabytes.
const maxReportValues = 1_000_000

// ReadReport reads a report.json as Run writes it. The file is untrusted:
// ReadReport reads regular files of at most MaxReportSize bytes and checks
// what the report says (known verdicts and kinds, no negative counts, a
// lasso's cycle within the steps) with UnmarshalJSON. The report's
// in-memory traces (Finding.Trace, Live) are not in the file: read
// Files[FileErrorTrace] with trace.Read.
func ReadReport(path string) (*Report, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReport, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s: %w", ErrReport, path, trace.ErrNotRegular)
	}
	if fi.Size() > MaxReportSize {
		return nil, fmt.Errorf("%w: %s has %d bytes, a report at most %d", ErrReport, path, fi.Size(), MaxReportSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrReport, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReportSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrReport, path, err)
	}
	if len(data) > MaxReportSize {
		return nil, fmt.Errorf("%w: %s grew past %d bytes", ErrReport, path, MaxReportSize)
	}
	if err := jsonbound.Check(data, maxReportValues); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrReport, path, err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		if errors.Is(err, ErrReport) {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrReport, path, err)
	}
	return &r, nil
}

// parseName returns the value whose String is name among the first n
// values of a named int type.
func parseName[T ~int](name, what string, n int) (T, error) {
	for i := range n {
		if v := T(i); fmt.Sprint(v) == name {
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown %s %q", ErrReport, what, name)
}

// parseOutcome reads a finding's outcome as outcomeText writes it.
func parseOutcome(name string) (walks.Outcome, error) {
	if name == KindLasso.String() || name == KindTemperature.String() {
		return walks.Observed, nil
	}
	return parseName[walks.Outcome](name, "outcome", int(walks.Observed)+1)
}

func parseKind(name string) (Kind, error) {
	if name == "" {
		return 0, fmt.Errorf("%w: a finding without a kind", ErrReport)
	}
	return parseName[Kind](name, "kind", len(kindNames))
}

func seconds(s float64) (time.Duration, error) {
	if s < 0 || s > 1e9 {
		return 0, fmt.Errorf("%w: %v seconds", ErrReport, s)
	}
	// Rounded: a duration written as seconds reads back the same.
	return time.Duration(math.Round(s * float64(time.Second))), nil
}

// UnmarshalJSON reads a report as MarshalJSON writes it, checking what it
// says: the verdict, kinds, certainty, outcomes and stop reason are known
// names, counts are not negative, a first finding comes with every
// finding, and a lasso's cycle lies within its steps. Unknown fields are
// ignored (a newer macemc may add some).
func (r *Report) UnmarshalJSON(b []byte) error {
	var j reportJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("%w: %w", ErrReport, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: data after the report", ErrReport)
	}
	var out Report
	var err error
	if j.System == "" {
		return fmt.Errorf("%w: no system", ErrReport)
	}
	if out.Verdict, err = parseName[Verdict](j.Verdict, "verdict", len(verdictNames)); err != nil {
		return err
	}
	out.System, out.Params, out.Properties, out.Seed, out.Strategy = j.System, j.Params, j.Properties, j.Seed, j.Strategy
	out.StrategyParams = j.StrategyParams
	out.Files, out.Replay, out.Debug, out.Incomplete, out.LassoStats = j.Files, j.Replay, j.Debug, j.Incomplete, j.LassoStats
	out.LogsSkipped, out.Warnings, out.MemoryLimited = j.LogsSkipped, j.Warnings, j.MemoryLimited
	if out.Params == nil {
		out.Params = map[string]string{}
	}
	if out.Files == nil {
		out.Files = map[FileRole]string{}
	}
	if j.Rounds < 0 || j.DeepestComplete < 0 || j.Paths < 0 || j.Pruned < 0 || j.Walks < 0 || j.Transitions < 0 || j.DistinctStates < 0 || j.Forgotten < 0 || j.Unrecorded < 0 ||
		j.Pruned > j.Paths || j.Walks > j.Paths {
		return fmt.Errorf("%w: inconsistent counts (rounds %d, paths %d, pruned %d, walks %d, transitions %d, states %d)", ErrReport,
			j.Rounds, j.Paths, j.Pruned, j.Walks, j.Transitions, j.DistinctStates)
	}
	stop, ok := explore.ParseStop(j.Stop)
	if !ok {
		return fmt.Errorf("%w: unknown stop reason %q", ErrReport, j.Stop)
	}
	if j.DepthBound < 0 || j.Blocked < 0 || j.TimeCut < 0 {
		return fmt.Errorf("%w: depth bound %d, %d blocked paths, %d paths cut by the time budget", ErrReport, j.DepthBound, j.Blocked, j.TimeCut)
	}
	out.Stats = explore.Stats{Rounds: j.Rounds, Depth: j.DepthBound, DeepestComplete: j.DeepestComplete, Paths: j.Paths, Pruned: j.Pruned, Walks: j.Walks,
		Transitions: j.Transitions, DistinctStates: j.DistinctStates, Forgotten: j.Forgotten, Unrecorded: j.Unrecorded, Unhashed: j.Unhashed, Stop: stop, Violations: len(j.Violations), Blocked: j.Blocked, TimeCut: j.TimeCut}
	if err := j.checkCounts(); err != nil {
		return err
	}
	out.Faults, out.WalkFailures, out.Lin, out.PrefixSteps = j.Faults, j.WalkFailures, j.Lin, j.PrefixSteps
	if out.Elapsed, err = seconds(j.ElapsedS); err != nil {
		return err
	}
	if out.SearchTime, err = seconds(j.SearchS); err != nil {
		return err
	}
	out.Stats.Elapsed = out.SearchTime
	// The phases in their order of the run's (a map keeps none): the
	// order of the Phase constants, the precheck first.
	for _, ph := range []Phase{PhasePrefix, PhasePrecheck, PhaseSearch, PhaseCheck, PhaseCritical, PhaseLasso, PhaseFiles} {
		s, ok := j.PhasesS[ph.String()]
		if !ok {
			continue
		}
		d, err := seconds(s)
		if err != nil {
			return err
		}
		out.Phases = append(out.Phases, PhaseTime{Phase: ph, Time: d})
	}
	if g := j.Graph; g != nil {
		if g.States < 0 || g.Edges < 0 || g.Bytes < 0 || g.Checks < 0 || g.Rejected < 0 || g.TimeWaits < 0 {
			return fmt.Errorf("%w: negative counts of the explored graph", ErrReport)
		}
		out.Stats.Graph = &explore.GraphStats{States: g.States, Edges: g.Edges, Bytes: g.Bytes, Checks: g.Checks, Rejected: g.Rejected, Full: g.Full, TimeWaits: g.TimeWaits}
		out.GraphPartial = g.Partial
	}
	if len(j.Violations) > MaxViolationsBound {
		return fmt.Errorf("%w: %d violations, at most %d", ErrReport, len(j.Violations), MaxViolationsBound)
	}
	for i, v := range j.Violations {
		f := Finding{Property: v.Property, PathSteps: v.Steps, Steps: v.Steps, Path: v.Path}
		if f.Verdict, err = parseName[Verdict](v.Verdict, "verdict", len(verdictNames)); err != nil {
			return err
		}
		if f.Kind, err = parseKind(v.Kind); err != nil {
			return err
		}
		if f.Outcome, err = parseOutcome(v.Outcome); err != nil {
			return err
		}
		if v.Steps < 0 || v.Path < 0 || f.Verdict == VerdictNone {
			return fmt.Errorf("%w: violation %d: verdict %s, %d steps, path %d", ErrReport, i, v.Verdict, v.Steps, v.Path)
		}
		out.Findings = append(out.Findings, f)
	}
	if (out.Verdict == VerdictNone) != (len(out.Findings) == 0) {
		return fmt.Errorf("%w: verdict %s with %d findings", ErrReport, out.Verdict, len(out.Findings))
	}
	if f := out.First(); f != nil {
		if err := j.first(f); err != nil {
			return err
		}
		if f.Verdict != out.Verdict {
			return fmt.Errorf("%w: verdict %s, its first finding's %s", ErrReport, out.Verdict, f.Verdict)
		}
	}
	*r = out
	return nil
}

// checkCounts refuses the counts of the linearizability and lasso
// statistics and the prefix that no search writes: negative ones, more
// histories judged in a way than were checked, a depth bound past the
// largest a search takes.
func (j *reportJSON) checkCounts() error {
	if j.PrefixSteps < 0 || j.DepthBound > MaxDepthBound || j.DeepestComplete > j.DepthBound {
		return fmt.Errorf("%w: prefix of %d steps, depth bound %d, deepest complete %d", ErrReport, j.PrefixSteps, j.DepthBound, j.DeepestComplete)
	}
	if l := j.Lin; l != nil {
		if min(l.Checked, l.Distinct, l.Illegal, l.Unknown, l.ModelFailed) < 0 || l.Distinct > l.Checked || l.Illegal+l.Unknown+l.ModelFailed > l.Checked {
			return fmt.Errorf("%w: linearizability: %d histories checked, %d distinct, %d not linearizable, %d unknown, %d failed", ErrReport,
				l.Checked, l.Distinct, l.Illegal, l.Unknown, l.ModelFailed)
		}
	}
	if s := j.LassoStats; s != nil {
		if min(int64(s.Replays), int64(s.Temperature), s.Walks, s.States, s.Repeats, s.Mismatched, s.Unfair, s.Discarded, s.Confirmed, s.Refuted, s.Alarms, s.Recovered) < 0 ||
			min(s.MeanTrace, s.MeanStem, s.MeanCycle, s.MeanAlarm) < 0 {
			return fmt.Errorf("%w: lasso statistics: a negative count", ErrReport)
		}
	}
	return nil
}

// first reads the first finding's details into f.
func (j *reportJSON) first(f *Finding) error {
	var err error
	if f.Kind, err = parseKind(j.Kind); err != nil {
		return err
	}
	if f.Certainty, err = parseName[Certainty](j.Certainty, "certainty", len(certaintyNames)); err != nil || f.Certainty == 0 {
		return fmt.Errorf("%w: unknown certainty %q", ErrReport, j.Certainty)
	}
	if f.Outcome, err = parseOutcome(j.Outcome); err != nil {
		return err
	}
	steps, depth := *cmp.Or(j.Steps, new(int)), *cmp.Or(j.Depth, new(int))
	if path := cmp.Or(j.Path, new(int64)); steps < 0 || depth < 0 || *path != f.Path {
		return fmt.Errorf("%w: first finding: %d steps, depth %d, path %d (its summary: path %d)", ErrReport, steps, depth, *path, f.Path)
	}
	f.Property, f.Steps, f.Depth, f.Stack, f.Node, f.AlsoViolated, f.Events = j.Property, steps, depth, j.Stack, -1, j.AlsoViolated, j.Events
	for i, k := range j.FailureSteps {
		if k < 1 || k > len(j.Events) || i > 0 && k <= j.FailureSteps[i-1] {
			return fmt.Errorf("%w: failure step %d of %d events", ErrReport, k, len(j.Events))
		}
	}
	f.FailureSteps = j.FailureSteps
	if j.Node != nil {
		if *j.Node < 0 {
			return fmt.Errorf("%w: node %d", ErrReport, *j.Node)
		}
		f.Node = *j.Node
	}
	if j.Error != "" {
		f.Err = errors.New(j.Error)
	}
	if c := j.Critical; c != nil {
		cc := &Critical{Step: c.Step, Event: c.Event, Node: c.Node, Kind: c.Kind, Message: c.Message, Walks: c.Walks, WalkDepth: c.WalkDepth,
			Probes: c.Probes, LiveSteps: c.LiveSteps, Shared: c.Shared, Explain: c.Explain, Note: j.CriticalNote, Interrupted: c.Interrupted,
			Recovered: c.Recovered, Dead: c.Dead}
		switch c.Condition {
		case critical.C1.String():
			cc.Condition = critical.C1
		case critical.C2.String():
			cc.Condition = critical.C2
		case critical.Condition(0).String():
		default:
			return fmt.Errorf("%w: unknown condition %q", ErrReport, c.Condition)
		}
		if c.Step < -1 || c.Node < -1 || c.Walks < 0 || c.WalkDepth < 0 || c.Probes < 0 || c.LiveSteps < 0 || c.Shared < 0 || c.Recovered < -1 || c.Dead < -1 {
			return fmt.Errorf("%w: critical transition: a negative count", ErrReport)
		}
		if c.Step > f.Steps {
			return fmt.Errorf("%w: critical transition at step %d of a %d-step path", ErrReport, c.Step, f.Steps)
		}
		if cc.Elapsed, err = seconds(c.ElapsedS); err != nil {
			return err
		}
		for _, r := range slices.Concat(c.Refined, c.Unchanged) {
			if r < 0 {
				return fmt.Errorf("%w: critical transition: a negative refined step", ErrReport)
			}
		}
		cc.Refined, cc.Unchanged = c.Refined, c.Unchanged
		if cc.Confidence, err = j.Confidence.decode(); err != nil {
			return err
		}
		f.Critical = cc
	}
	if f.Minimized, err = j.Minimized.decode(); err != nil {
		return err
	}
	if l := j.Lasso; l != nil {
		if l.Stem < 0 || l.CycleLength < 0 || l.Stem > f.Steps || l.CycleLength > f.Steps-l.Stem || l.Confirmed < 0 || l.Repeated < 0 {
			return fmt.Errorf("%w: a lasso cycle of %d steps from state %d in %d steps", ErrReport, l.CycleLength, l.Stem, f.Steps)
		}
		f.Lasso = &Lasso{Stem: l.Stem, Length: l.CycleLength, Confirmed: l.Confirmed, Proof: l.Proof, Hash: l.Hash, Repeated: l.Repeated,
			Origin: originOf(l.Source), Source: l.Source, Note: l.Note, Events: l.Events, InTurn: l.InTurn}
	}
	if t := j.Temperature; t != nil {
		if t.Threshold < 0 || t.AlarmStep < 0 || t.LiveAt < 0 {
			return fmt.Errorf("%w: temperature alarm: a negative count", ErrReport)
		}
		f.Temperature = &Temperature{Threshold: t.Threshold, AlarmStep: t.AlarmStep, LiveAt: t.LiveAt, Verdict: t.Verdict, Note: t.Note}
	}
	if j.History != nil || j.Minimal != nil || j.TypeHint != "" {
		f.History = &History{Lines: j.History, MinimalLines: j.Minimal, TypeHint: j.TypeHint}
	}
	return nil
}

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

// Report is what `macemc search` concludes, as written to report.json and,
// with --json, to stdout.
type Report struct {
	Verdict  string `json:"verdict"`
	Kind     string `json:"kind,omitempty"`
	Property string `json:"property,omitempty"`
	// Outcome is how the violating walk ended: "dead", "quiescent",
	// "unsafe" or "failed", or, when a walk's lasso detector reported the
	// violation (walks.Observed), the finding's kind: "lasso" or
	// "temperature".
	Outcome    string            `json:"outcome,omitempty"`
	System     string            `json:"system"`
	Params     map[string]string `json:"params"`
	Properties []string          `json:"properties"`
	Seed       uint64            `json:"seed"`
	// Coverage.
	Rounds          int     `json:"rounds"`
	DeepestComplete int     `json:"deepest_complete"`
	Paths           int64   `json:"paths"`
	Pruned          int64   `json:"pruned"`
	Walks           int64   `json:"walks"`
	Transitions     int64   `json:"transitions"`
	DistinctStates  int     `json:"distinct_states"`
	Stop            string  `json:"stop"`
	ElapsedS        float64 `json:"elapsed_s"`
	// SearchS is the time to find the violation (elapsed_s adds the
	// critical-transition search and writing the files).
	SearchS float64 `json:"search_s"`
	// The violation.
	Steps    int             `json:"steps,omitempty"`
	Path     int64           `json:"path,omitempty"`
	Depth    int             `json:"depth,omitempty"`
	Error    string          `json:"error,omitempty"`
	Critical *CriticalReport `json:"critical,omitempty"`
	// CriticalNote says how the critical transition was searched when it
	// was not Algorithm 3 from the search depth as written.
	CriticalNote string `json:"critical_note,omitempty"`
	// Confidence is the confirmation of a C1 critical transition.
	Confidence *ConfidenceReport `json:"confidence,omitempty"`
	// Minimized is the minimized doomed path (min.trace).
	Minimized *MinimizedReport `json:"minimized,omitempty"`
	Lasso     *LassoReport     `json:"lasso,omitempty"`
	Stem      *int             `json:"stem,omitempty"`
	Cycle     []int            `json:"cycle,omitempty"`
	// Temperature is the temperature method's alarm (kind "temperature").
	Temperature *TemperatureReport `json:"temperature,omitempty"`
	// LassoStats says what lasso detection and the temperature method saw
	// over all walks (with --lasso or --temperature).
	LassoStats *LassoStats `json:"lasso_stats,omitempty"`
	// Violations lists every violating path found (--max-violations).
	Violations []ViolationSummary `json:"violations,omitempty"`
	Files      map[string]string  `json:"files"`
	Replay     string             `json:"replay,omitempty"`
	Debug      string             `json:"debug,omitempty"`
}

// ViolationSummary is one violating path of a search.
type ViolationSummary struct {
	Verdict  string `json:"verdict"`
	Property string `json:"property"`
	// Outcome is as Report.Outcome; Steps is the length of the walk's
	// execution (for a lasso, the cycle repeated up to d_max).
	Outcome string `json:"outcome"`
	Steps   int    `json:"steps"`
	Path    int64  `json:"path"`
}

// CriticalReport is the critical-transition part of a report.
type CriticalReport struct {
	Step      int    `json:"step"`
	Condition string `json:"condition"`
	Event     string `json:"event"`
	Node      int    `json:"node"`
	Kind      string `json:"kind"`
	Message   string `json:"message,omitempty"`
	Walks     int    `json:"walks"`
	WalkDepth int    `json:"walk_depth"`
	Probes    int    `json:"probes"`
	// Refined lists the candidate steps that confirmation found near dead.
	Refined   []int   `json:"refined,omitempty"`
	LiveSteps int     `json:"live_steps,omitempty"`
	Shared    int     `json:"shared,omitempty"`
	ElapsedS  float64 `json:"elapsed_s"`
	Explain   string  `json:"explain"`
}

// LassoReport describes a confirmed hot, fair cycle: state Stem is where
// it starts and transitions Stem+1 .. Stem+CycleLength form it.
type LassoReport struct {
	Stem        int    `json:"stem"`
	CycleLength int    `json:"cycle_length"`
	Confirmed   int    `json:"confirmed_replays"`
	Note        string `json:"note"`
	// Hash is "exact" or "partial"; Proof says the lasso proves the
	// violation (exact hashing).
	Hash  string `json:"hash"`
	Proof bool   `json:"proof"`
	// Repeated is how many steps after the cycle the execution went on
	// repeating it; Source where the cycle was found.
	Repeated int    `json:"repeated_steps,omitempty"`
	Source   string `json:"source"`
	// Events are the cycle's transitions.
	Events []string `json:"events"`
}

// TemperatureReport is a temperature alarm (seed 000 Algorithm 2).
type TemperatureReport struct {
	Threshold int `json:"threshold"`
	AlarmStep int `json:"alarm_step"`
	// LiveAt is the step at which the execution became live after the
	// alarm (0: it did not within d_max).
	LiveAt int `json:"live_at,omitempty"`
	// Verdict is "lasso" (the alarm's path contains a confirmed lasso),
	// "false alarm" (the execution became live later) or "unknown".
	Verdict string `json:"verdict"`
	Note    string `json:"note"`
}

// LassoStats count what the walks' detectors saw (lasso.Stats) and
// average the findings: MeanTrace is the mean length stem+cycle of the
// confirmed lassos (seed 000's L_T), MeanCycle their mean cycle length
// (L_C), MeanAlarm the mean step of the temperature alarms.
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

// writeJSON writes v as indented JSON atomically.
func writeJSON(path string, v any) error {
	return trace.WriteAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// writeLog replays a trace with full logging into path.
func writeLog(t *trace.Trace, path string) error {
	var buf bytes.Buffer
	logger := sim.NewLogger(&buf)
	fmt.Fprintf(&buf, "# macemc %s: system %s %s, %d steps, %s\n", version(), t.System, sim.Params(t.Params).Canonical(), t.Steps, t.Kind)
	s, err := t.Replay(-1, logger)
	if err != nil {
		return fmt.Errorf("replay for %s: %w", path, err)
	}
	fmt.Fprintf(&buf, "# end of path after %d steps\n", s.Steps())
	return trace.WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// quote quotes a shell argument when needed.
func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("output directory: %w", err)
	}
	return nil
}

func outPath(dir, name string) string { return filepath.Join(dir, name) }

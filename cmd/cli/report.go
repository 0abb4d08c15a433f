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
	Verdict    string            `json:"verdict"`
	Kind       string            `json:"kind,omitempty"`
	Property   string            `json:"property,omitempty"`
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
	Lasso    *LassoReport    `json:"lasso,omitempty"`
	Stem     *int            `json:"stem,omitempty"`
	Cycle    []int           `json:"cycle,omitempty"`
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
	Outcome  string `json:"outcome"`
	Steps    int    `json:"steps"`
	Path     int64  `json:"path"`
}

// CriticalReport is the critical-transition part of a report.
type CriticalReport struct {
	Step      int     `json:"step"`
	Condition string  `json:"condition"`
	Event     string  `json:"event"`
	Node      int     `json:"node"`
	Kind      string  `json:"kind"`
	Message   string  `json:"message,omitempty"`
	Walks     int     `json:"walks"`
	WalkDepth int     `json:"walk_depth"`
	Probes    int     `json:"probes"`
	LiveSteps int     `json:"live_steps,omitempty"`
	Shared    int     `json:"shared,omitempty"`
	ElapsedS  float64 `json:"elapsed_s"`
	Explain   string  `json:"explain"`
}

// LassoReport describes a confirmed hot, fair cycle.
type LassoReport struct {
	Stem        int    `json:"stem"`
	CycleLength int    `json:"cycle_length"`
	Confirmed   int    `json:"confirmed_replays"`
	Note        string `json:"note"`
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

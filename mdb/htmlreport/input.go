package htmlreport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/macemc/macemc/internal/jsonbound"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/trace"
)

// File names in a result directory.
const (
	ReportFile = "report.json"
	PageFile   = "report.html"
	ErrorTrace = "error.trace"
	LiveTrace  = "live.trace"
	MinTrace   = "min.trace"
)

// ErrInput marks a result directory, report or trace the page cannot be
// made from: missing, unreadable, damaged, or of a system this binary does
// not know.
var ErrInput = errors.New("htmlreport: bad input")

// maxReportBytes bounds the report.json read: a real one is a few
// kilobytes (the cycle's events of a lasso are its largest part).
const maxReportBytes = 64 << 20

// maxReportValues bounds the values in the report.json read (see
// jsonbound): a few megabytes of empty objects would decode into
// gigabytes.
const maxReportValues = 1_000_000

// Report is the part of a search's report.json the page shows. The fields
// mirror `macemc search`'s report; unknown fields are ignored and missing
// ones stay zero, so a report from an older or newer macemc still renders.
type Report struct {
	Verdict     string            `json:"verdict"`
	Kind        string            `json:"kind"`
	Certainty   string            `json:"certainty"`
	Property    string            `json:"property"`
	Outcome     string            `json:"outcome"`
	System      string            `json:"system"`
	Params      map[string]string `json:"params"`
	Properties  []string          `json:"properties"`
	Seed        uint64            `json:"seed"`
	Strategy    string            `json:"strategy"`
	PrefixSteps int               `json:"prefix_steps"`
	Rounds      int               `json:"rounds"`
	// DepthBound is the bounded search's depth bound, after the prefix
	// (0 for a search with no bounded part, such as the walk strategy);
	// Depth is the first finding's own.
	DepthBound int `json:"depth_bound"`
	// WalkFailures says the walks after the bounded part had failures
	// on too (--walk-failures).
	WalkFailures    bool  `json:"walk_failures"`
	DeepestComplete int   `json:"deepest_complete"`
	Paths           int64 `json:"paths"`
	Pruned          int64 `json:"pruned"`
	Walks           int64 `json:"walks"`
	Transitions     int64 `json:"transitions"`
	DistinctStates  int64 `json:"distinct_states"`
	// Unhashed says that the search hashed no state (DistinctStates is
	// then not counted), Forgotten and Unrecorded that the visited-state
	// set forgot or could not record states (DistinctStates counts
	// states recorded).
	Unhashed   bool    `json:"states_not_hashed"`
	Forgotten  int64   `json:"states_forgotten"`
	Unrecorded int64   `json:"states_unrecorded"`
	Stop       string  `json:"stop"`
	Incomplete bool    `json:"incomplete"`
	ElapsedS   float64 `json:"elapsed_s"`
	SearchS    float64 `json:"search_s"`
	// PhasesS maps each phase of the run (search, check, critical,
	// files...) to its seconds.
	PhasesS      map[string]float64 `json:"phases_s"`
	Steps        int                `json:"steps"`
	Path         int64              `json:"path"`
	Depth        int                `json:"depth"`
	Error        string             `json:"error"`
	Faults       string             `json:"faults"`
	AlsoViolated []string           `json:"also_violated"`
	Critical     *Critical          `json:"critical"`
	CriticalNote string             `json:"critical_note"`
	Lasso        *Lasso             `json:"lasso"`
	Minimized    *Minimized         `json:"minimized"`
	Temperature  *Temperature       `json:"temperature"`
	Violations   []Violation        `json:"violations"`
	// MinimalHistory lists the operations of a linearizability
	// violation's smallest non-linearizable part of the history.
	MinimalHistory []string `json:"minimal_history"`
	// Lin counts the histories a linearizability search checked.
	Lin    *LinStats         `json:"linearizability"`
	Files  map[string]string `json:"files"`
	Replay string            `json:"replay"`
	Debug  string            `json:"debug"`
}

// Critical is the critical transition of a report.
type Critical struct {
	Step      int    `json:"step"`
	Condition string `json:"condition"`
	Event     string `json:"event"`
	Walks     int    `json:"walks"`
	WalkDepth int    `json:"walk_depth"`
	Probes    int    `json:"probes"`
	LiveSteps int    `json:"live_steps"`
	Shared    int    `json:"shared"`
	Explain   string `json:"explain"`
	// Interrupted marks a critical-transition search that was stopped
	// before it ended (Step is then -1): Recovered is the last state
	// from which a walk recovered and Dead the first from which none did,
	// as far as its probes had got (-1: none).
	Interrupted bool `json:"interrupted"`
	Recovered   int  `json:"recovered"`
	Dead        int  `json:"dead"`
}

// LinStats are a report's counts of the clients' histories checked.
type LinStats struct {
	Checked  int64 `json:"checked"`
	Distinct int64 `json:"distinct_histories"`
	Illegal  int64 `json:"not_linearizable"`
	Unknown  int64 `json:"unknown"`
}

// Minimized is a report's minimization of the doomed path (min.trace).
type Minimized struct {
	StepsBefore int    `json:"steps_before"`
	StepsAfter  int    `json:"steps_after"`
	OneMinimal  bool   `json:"one_minimal"`
	Tests       int    `json:"tests"`
	Note        string `json:"note"`
	// Stopped says what stopped the minimization before it proved its
	// path 1-minimal ("" when nothing did).
	Stopped string `json:"stopped"`
}

// Lasso is a report's confirmed lasso.
type Lasso struct {
	Stem        int      `json:"stem"`
	CycleLength int      `json:"cycle_length"`
	Confirmed   int      `json:"confirmed_replays"`
	Note        string   `json:"note"`
	Hash        string   `json:"hash"`
	Proof       bool     `json:"proof"`
	Repeated    int      `json:"repeated_steps"`
	Source      string   `json:"source"`
	Events      []string `json:"events"`
}

// Temperature is a report's temperature alarm.
type Temperature struct {
	Threshold int    `json:"threshold"`
	AlarmStep int    `json:"alarm_step"`
	LiveAt    int    `json:"live_at"`
	Verdict   string `json:"verdict"`
	Note      string `json:"note"`
}

// Violation is one violating path of a search.
type Violation struct {
	Verdict  string `json:"verdict"`
	Kind     string `json:"kind"`
	Property string `json:"property"`
	Outcome  string `json:"outcome"`
	Steps    int    `json:"steps"`
	Path     int64  `json:"path"`
}

// Input is what a page is made of: the search's report (nil when there is
// none: the headline then comes from the traces) and the traces it wrote.
// Error is required unless the report says nothing was found.
type Input struct {
	Report *Report
	Error  *trace.Trace
	Live   *trace.Trace // the live alternative, or nil
	Min    *trace.Trace // the minimized error path, or nil
	// Dir is the result directory the traces are in now ("": the current
	// one). The page's replay, debugger and report commands name its
	// files, with Options.Tool, whatever the report's own commands say:
	// those name the directory the search wrote, which may since have
	// been moved or copied.
	Dir string
	// Unread names the live and minimized traces of Dir that ReadDir
	// could not read, and why: the page is made without them.
	Unread []string
	// Select is the step of the error path selected when the page opens;
	// 0 selects the most telling one (the critical step, the failing
	// step, the lasso's cycle).
	Select int
	// Options tune the page.
	Options Options
}

// Options tune a page.
type Options struct {
	// Tool is the command the page's commands run (default "macemc"):
	// the binary that makes the page, so that they run on a binary that
	// knows the system (the debugger as Tool's mdb subcommand).
	Tool string
	// HandlerTimeout bounds one handler while the traces are replayed
	// (default: the simulator's); a trace that ends in a hang stops there.
	HandlerTimeout time.Duration
	// Limits bound the page's size; zero fields take the defaults.
	Limits Limits
	// Context, when set, stops the replays when it ends: the page is not
	// written, and the error wraps the context's.
	Context context.Context
	// System, when set, is the system the directory's traces are of, which
	// WriteDir replays instead of looking their system up among the
	// registered ones (a library user's system need not be registered).
	System *sim.System
}

// Limits bound what a page stores for long paths.
type Limits struct {
	// TailAfter is how many steps after the last telling step (a new kind
	// of event, the critical step, the lasso's cycle) the lanes show
	// before the rest collapses into a summary row (default 40); a tail
	// shorter than MinTail (default 200) is not collapsed.
	TailAfter, MinTail int
	// Notes caps the service log annotations stored per path (default
	// 20,000); annotations past it are counted, not shown.
	Notes int
	// StateBytes bounds the state texts and diffs a page stores, about
	// (default 16 MiB): past it, a path's states are not stored for its
	// remaining steps, and the page says where to see them.
	StateBytes int
	// LineBytes, ListItems and SectionLines bound what the page shows of
	// one state (see the package doc): a line of a node's state or the
	// network longer than LineBytes (default 300) shows its start, its
	// length and a digest; a list of more than ListItems items (default
	// 40) its first half and last quarter; a node's state or the network
	// at most SectionLines lines (default 400, at least ListItems+2).
	LineBytes, ListItems, SectionLines int
	// TextBytes bounds the state text the page reads for one path
	// (default 128 MiB): a node's state is made again at each step that
	// changes it, and the network's at every step, so a path long enough
	// for its states to pass this much stores no state for its remaining
	// steps, and the page says where to see them.
	TextBytes int
}

func (l Limits) withDefaults() Limits {
	if l.TailAfter <= 0 {
		l.TailAfter = 40
	}
	if l.MinTail <= 0 {
		l.MinTail = 200
	}
	if l.Notes <= 0 {
		l.Notes = 20000
	}
	if l.StateBytes <= 0 {
		l.StateBytes = 16 << 20
	}
	if l.TextBytes <= 0 {
		l.TextBytes = 128 << 20
	}
	if l.LineBytes <= 0 {
		l.LineBytes = 300
	}
	// A cut line shows a change with its start and the bytes around it.
	l.LineBytes = max(l.LineBytes, 2*startBytes)
	if l.ListItems <= 0 {
		l.ListItems = 40
	}
	l.ListItems = max(l.ListItems, 4)
	if l.SectionLines <= 0 {
		l.SectionLines = 400
	}
	l.SectionLines = max(l.SectionLines, l.ListItems+2)
	return l
}

// ReadReport reads and decodes a report.json.
func ReadReport(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReportBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrInput, path, err)
	}
	if len(data) > maxReportBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes: not a macemc report", ErrInput, path, maxReportBytes)
	}
	var r Report
	if err := jsonbound.Check(data, maxReportValues); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
	}
	if r.Verdict == "" || r.System == "" {
		return nil, fmt.Errorf("%w: %s has no verdict or system: not a macemc search report", ErrInput, path)
	}
	return &r, nil
}

// ReadDir reads a result directory written by `macemc search`: its
// report.json and the error, live and minimized traces present. A
// directory with traces but no report.json renders from the traces alone;
// a live or minimized trace that cannot be read is left out, named in
// Input.Unread.
func ReadDir(dir string) (Input, error) {
	in := Input{Dir: dir}
	fi, err := os.Stat(dir)
	if err != nil {
		return in, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if !fi.IsDir() {
		return in, fmt.Errorf("%w: %s is not a directory (give the --out directory of a search)", ErrInput, dir)
	}
	rp := filepath.Join(dir, ReportFile)
	if fileExists(rp) {
		if in.Report, err = ReadReport(rp); err != nil {
			return in, err
		}
	}
	for _, t := range []struct {
		name string
		dst  **trace.Trace
	}{{ErrorTrace, &in.Error}, {LiveTrace, &in.Live}, {MinTrace, &in.Min}} {
		p := filepath.Join(dir, t.name)
		if !fileExists(p) {
			continue
		}
		if *t.dst, err = trace.Read(p); err != nil {
			if t.name == ErrorTrace {
				return in, fmt.Errorf("%w: %w", ErrInput, err)
			}
			// A damaged live or minimized path leaves the error path's
			// page: it is made without it.
			in.Unread = append(in.Unread, err.Error())
		}
	}
	switch {
	case in.Report == nil && in.Error == nil:
		return in, fmt.Errorf("%w: %s has neither %s nor %s (is it a macemc search output directory?)", ErrInput, dir, ReportFile, ErrorTrace)
	case in.Error == nil && in.Report.Verdict != "none":
		return in, fmt.Errorf("%w: %s reports a %s violation but has no %s", ErrInput, dir, in.Report.Verdict, ErrorTrace)
	case in.Error != nil && in.Report != nil && in.Report.Verdict == "none":
		// A stale trace from an earlier search in the same directory.
		in.Error, in.Live, in.Min = nil, nil, nil
	}
	return in, nil
}

// WriteDir makes the page of a result directory and writes it to
// dir/report.html, whole or not at all.
func WriteDir(dir string, o Options) error {
	in, err := ReadDir(dir)
	if err != nil {
		return err
	}
	in.Options = o
	for _, t := range []*trace.Trace{in.Error, in.Live, in.Min} {
		if t != nil && o.System != nil && t.System == o.System.Name {
			t.Sys = o.System
		}
	}
	return WriteFile(filepath.Join(dir, PageFile), in)
}

// WriteFile renders the page of in into file, whole or not at all. The
// traces are replayed before the file is opened, so a trace that does not
// replay leaves an existing file as it was.
func WriteFile(file string, in Input) error {
	p, err := build(in)
	if err != nil {
		return err
	}
	b := builder{o: in.Options}
	if err := b.ctxErr(); err != nil {
		return err
	}
	if err := trace.WriteAtomic(file, p.render); err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	return nil
}

// Render replays the traces of in and writes the page to w.
func Render(w io.Writer, in Input) error {
	p, err := build(in)
	if err != nil {
		return err
	}
	return p.render(w)
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

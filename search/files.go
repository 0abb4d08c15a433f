package search

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// ReportFile is the name of a run's report in Options.Out.
const ReportFile = "report.json"

// ResultFiles are the files a run writes into Options.Out, and those the
// critical command (RefineCritical) writes beside them; a run removes those
// a previous run left there first.
var ResultFiles = []string{"error.trace", "error.log", "live.trace", "live.log", "prefix.trace", "min.trace", "min.log", ReportFile, "report.html", "critical.json", "history.html", "history-full.html",
	"refined-live.trace", "refined-live.log", "refined-critical.json", "min-live.trace", "min-live.log", "min-critical.json"}

func (p *pipeline) outPath(name string) string { return filepath.Join(p.opts.Out, name) }

// CheckOut makes the directory dir if needed and checks that the result
// files names can be written there, before a run spends its time: each is
// missing or a regular file (trace.CheckReplaceable: a symlink, device or
// FIFO in its place is refused), and a probe file can be created in dir
// and removed. The error wraps ErrOutput.
func CheckOut(dir string, names ...string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	for _, name := range names {
		if err := trace.CheckReplaceable(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%w: %w", ErrOutput, err)
		}
	}
	f, err := os.CreateTemp(dir, ".macemc-probe-*")
	if err != nil {
		return fmt.Errorf("%w: cannot create files in %s: %w", ErrOutput, dir, err)
	}
	_, werr := f.Write([]byte("probe\n"))
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return fmt.Errorf("%w: cannot write files in %s: %w", ErrOutput, dir, err)
	}
	return nil
}

// FileRole names what a result file is: the keys of Report.Files and
// Refined.Files, and of report.json's "files".
type FileRole string

// The result files' roles.
const (
	FileErrorTrace      FileRole = "error_trace"       // the violation's path (error.trace)
	FileErrorLog        FileRole = "error_log"         // its replay with full logging (error.log)
	FileLiveTrace       FileRole = "live_trace"        // the live alternative of a dead path
	FileLiveLog         FileRole = "live_log"          // its log
	FileMinTrace        FileRole = "min_trace"         // the minimized doomed path
	FileMinLog          FileRole = "min_log"           // its log
	FilePrefixTrace     FileRole = "prefix_trace"      // the live prefix the search started from (Options.PrefixSteps)
	FileReport          FileRole = "report"            // report.json
	FileReportHTML      FileRole = "report_html"       // the report page (report.html)
	FileHistoryHTML     FileRole = "history_html"      // a linearizability violation's minimal history
	FileHistoryFullHTML FileRole = "history_full_html" // its whole history
	FileCritical        FileRole = "critical"          // RefineCritical's critical.json
)

// writeTrace writes a trace as NAME.trace and records it in the report.
func (p *pipeline) writeTrace(t *trace.Trace, name string) error {
	if p.opts.Out == "" {
		return nil
	}
	path := p.outPath(name + ".trace")
	// Its states, for replays to check against: a replay of the whole
	// path, skipped when interrupted (like the logs). A trace whose
	// states cannot be recorded is still whole.
	t.States = nil
	if p.ctx.Err() == nil {
		_ = t.StampContext(p.ctx)
	}
	if err := t.Write(path); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	p.rep.Files[FileRole(name+"_trace")] = path
	return nil
}

// writeTraceAndLog writes a trace, and its log (the replay with full
// logging) when the run finishes (pipeline.finish).
func (p *pipeline) writeTraceAndLog(t *trace.Trace, name string) error {
	if p.opts.Out == "" {
		return nil
	}
	if err := p.writeTrace(t, name); err != nil {
		return err
	}
	p.logs = append(p.logs, logJob{t: t, name: name, path: p.outPath(name + ".log")})
	return nil
}

// findingFiles writes the first finding's traces and logs and sets the
// report's replay and debug commands.
func (p *pipeline) findingFiles(f *Finding) error {
	if p.opts.Out == "" {
		return nil
	}
	if p.ctx.Err() != nil {
		// Interrupted: the traces are quick to write, the logs replay the
		// whole path (seconds on a long one); the replay command below
		// writes them.
		p.progress(PhaseFiles, "writing the traces (not the logs: interrupted)...")
		p.rep.LogsSkipped = true
		if err := p.writeTrace(f.Trace, "error"); err != nil {
			return err
		}
		if f.Live != nil {
			if err := p.writeTrace(f.Live, "live"); err != nil {
				return err
			}
		}
	} else {
		p.progress(PhaseFiles, "writing the traces and logs...")
		// The error trace first: it is the finding.
		if err := p.writeTraceAndLog(f.Trace, "error"); err != nil {
			return err
		}
		if f.Live != nil {
			if p.ctx.Err() != nil {
				if err := p.writeTrace(f.Live, "live"); err != nil {
					return err
				}
			} else if err := p.writeTraceAndLog(f.Live, "live"); err != nil {
				return err
			}
		}
	}
	if f.Min != nil {
		// A few steps: its log is quick even when interrupted.
		if err := p.writeTraceAndLog(f.Min, "min"); err != nil {
			return err
		}
	}
	if err := p.linFiles(f); err != nil {
		return err
	}
	// The traces name the system; the commands look it up.
	switch reg, err := sim.Lookup(p.sys.Name); {
	case err != nil:
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("system %s is not registered (sim.Register): the replay and debug commands below need a binary that registers it, such as one built on cli.Main", safetext.QuoteUnsafe(p.sys.Name)))
	case reg != p.sys:
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the system searched is not the one registered as %s (sim.Register), which the replay and debug commands below would run instead: "+
			"register the system searched under a name of its own, or search the registered one", safetext.QuoteUnsafe(p.sys.Name)))
	case !p.ownCommand && !builtIn(p.sys):
		p.rep.Warnings = append(p.rep.Warnings, fmt.Sprintf("the replay and debug commands below name macemc's own commands, which do not know system %s (it is registered in this program only): "+
			"run them with a binary that registers it, a main package that imports the system's package and calls cli.Main (package github.com/macemc/macemc/cmd/cli), "+
			"as BINARY replay ... and BINARY mdb DIR, or set Options.Command to that binary's name", safetext.QuoteUnsafe(p.sys.Name)))
	}
	p.rep.Replay = fmt.Sprintf("%s replay --trace %s --log %s", p.opts.Command, QuotePath(p.rep.Files[FileErrorTrace]), QuotePath(p.outPath("error.log")))
	p.rep.Debug = fmt.Sprintf("%s mdb %s", p.opts.Command, QuotePath(p.opts.Out))
	if p.opts.Command == "macemc" {
		p.rep.Debug = fmt.Sprintf("mdb %s", QuotePath(p.opts.Out))
	}
	return nil
}

// writeReport writes report.json.
func (p *pipeline) writeReport() error {
	if p.opts.Out == "" {
		return nil
	}
	path := p.outPath(ReportFile)
	p.rep.Files[FileReport] = path
	if err := WriteJSON(path, p.rep); err != nil {
		delete(p.rep.Files, "report")
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return nil
}

// WriteJSON writes v as indented JSON, whole or not at all.
func WriteJSON(path string, v any) error {
	return trace.WriteAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// WriteLog replays a trace with full logging into path, whole or not at
// all. The log is streamed to the file as the replay makes it: a path of
// millions of steps makes a log of hundreds of megabytes, which is not
// held in memory.
func WriteLog(t *trace.Trace, path string) error {
	return writeLog(context.Background(), t, path, 0)
}

// writeLog is WriteLog, abandoned (nothing written) with ctx's error when
// ctx is cancelled, with handlers under the watchdog's timeout (0: the
// simulator's default).
func writeLog(ctx context.Context, t *trace.Trace, path string, timeout time.Duration) error {
	return trace.WriteAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		ew := &errWriter{w: bw, quiet: true}
		logger := engine.NewLogger(ew)
		writeLogHeader(ew, t, -1)
		s, err := replayContext(ctx, t, logger, timeout)
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		failed := errors.Is(err, engine.ErrHandlerPanic) || errors.Is(err, engine.ErrHang)
		var hang *engine.HangError
		steps := 0
		switch {
		case errors.As(err, &hang):
			// The simulator is abandoned: its step count may move on as
			// the handler unwinds.
			steps = hang.Step
		case s != nil:
			steps = s.Steps()
		}
		switch {
		case err != nil && (s == nil || !failed):
			return fmt.Errorf("replay: %w", err)
		default:
			// A path that ends in a handler failure (at step 0: while
			// the system booted) replays up to it.
			writeLogFooter(ew, steps, err)
		}
		if ew.err != nil {
			return ew.err
		}
		return bw.Flush()
	})
}

// replayContext replays the trace's steps as Trace.Replay(-1, logger)
// does, checking ctx every 1,024 steps, each handler under the watchdog's
// timeout.
func replayContext(ctx context.Context, t *trace.Trace, logger *zerolog.Logger, timeout time.Duration) (*engine.Sim, error) {
	cfg, err := t.Config()
	if err != nil {
		return nil, err
	}
	rec := engine.NewRecorded(t.Choices)
	opts := t.Options()
	opts.Logger, opts.Chooser = logger, rec
	s, err := engine.NewGuarded(cfg, opts, timeout)
	if err != nil {
		return s, fmt.Errorf("replay: %w", err)
	}
	// Under the watchdog: a path that ends in a hung handler replays up
	// to it, then the hung step (with the search's timeout, or the one the
	// trace recorded).
	if timeout <= 0 {
		timeout = t.HandlerTimeout
	}
	done := ctx.Done()
	err = s.Guard(timeout, func() error {
		for s.Steps() < t.Steps {
			select { // every step: handlers may take seconds each
			case <-done:
				return ctx.Err()
			default:
			}
			ok, err := s.Step()
			if err != nil {
				return fmt.Errorf("replay step %d: %w", s.Steps(), err)
			}
			if !ok {
				return fmt.Errorf("replay: %w: quiescent after %d steps, %d asked", engine.ErrBadChoice, s.Steps(), t.Steps)
			}
		}
		if hangsNext(t, t.Steps, false) {
			if _, err := s.Step(); err != nil {
				return fmt.Errorf("replay step %d: %w", s.Steps(), err)
			}
		}
		return nil
	})
	return s, err
}

// Quote quotes a shell argument when needed, so that a command printed
// for pasting runs with s as it is and shows it as it runs (see
// safetext.ShellQuote).
func Quote(s string) string { return safetext.ShellQuote(s) }

// QuotePath is Quote of a file's path, with "./" put before a relative
// path that begins with "-", which the command would take for a flag.
func QuotePath(path string) string { return safetext.ShellQuotePath(path) }

// builtIn reports whether the macemc command knows sys: it registers the
// example systems (services/all), so whether sys is built by a package
// under services/.
func builtIn(sys *sim.System) bool {
	if sys.Build == nil {
		return false
	}
	fn := runtime.FuncForPC(reflect.ValueOf(sys.Build).Pointer())
	return fn != nil && strings.HasPrefix(fn.Name(), "github.com/macemc/macemc/services/")
}

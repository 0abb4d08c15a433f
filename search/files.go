package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// ResultFiles are the files a run writes into Options.Out; a run removes
// those a previous run left there first.
var ResultFiles = []string{"error.trace", "error.log", "live.trace", "live.log", "prefix.trace", "min.trace", "min.log", "report.json", "report.html", "critical.json"}

func (p *pipeline) outPath(name string) string { return filepath.Join(p.opts.Out, name) }

// writeTrace writes a trace as NAME.trace and records it in the report.
func (p *pipeline) writeTrace(t *trace.Trace, name string) error {
	if p.opts.Out == "" {
		return nil
	}
	path := p.outPath(name + ".trace")
	if err := t.Write(path); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	p.rep.Files[name+"_trace"] = path
	return nil
}

// writeTraceAndLog writes a trace and the log of its replay.
func (p *pipeline) writeTraceAndLog(t *trace.Trace, name string) error {
	if p.opts.Out == "" {
		return nil
	}
	if err := p.writeTrace(t, name); err != nil {
		return err
	}
	path := p.outPath(name + ".log")
	if err := WriteLog(t, path); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	p.rep.Files[name+"_log"] = path
	return nil
}

// findingFiles writes the first finding's traces and logs and sets the
// report's replay and debug commands.
func (p *pipeline) findingFiles(f *Finding) error {
	if p.opts.Out == "" {
		return nil
	}
	p.progress(PhaseFiles, "writing the traces and logs...")
	if f.Live != nil {
		if err := p.writeTraceAndLog(f.Live, "live"); err != nil {
			return err
		}
	}
	if f.Min != nil {
		if err := p.writeTraceAndLog(f.Min, "min"); err != nil {
			return err
		}
	}
	if err := p.writeTraceAndLog(f.Trace, "error"); err != nil {
		return err
	}
	p.rep.Replay = fmt.Sprintf("%s replay --trace %s --log %s", p.opts.Command, Quote(p.rep.Files["error_trace"]), Quote(p.rep.Files["error_log"]))
	p.rep.Debug = fmt.Sprintf("%s mdb %s", p.opts.Command, Quote(p.opts.Out))
	if p.opts.Command == "macemc" {
		p.rep.Debug = fmt.Sprintf("mdb %s", Quote(p.opts.Out))
	}
	return nil
}

// writeReport writes report.json.
func (p *pipeline) writeReport() error {
	if p.opts.Out == "" {
		return nil
	}
	path := p.outPath("report.json")
	p.rep.Files["report"] = path
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

// WriteLog replays a trace with full logging into path.
func WriteLog(t *trace.Trace, path string) error {
	var buf bytes.Buffer
	logger := engine.NewLogger(&buf)
	fmt.Fprintf(&buf, "# macemc %s: system %s %s, %d steps, %s\n", trace.ToolVersion, t.System, sim.Params(t.Params).Canonical(), t.Steps, t.Kind)
	s, err := t.Replay(-1, logger)
	switch {
	case s == nil && err != nil && !errors.Is(err, engine.ErrHandlerPanic):
		return fmt.Errorf("replay for %s: %w", path, err)
	case s == nil:
		// A handler panicked while the system booted.
		fmt.Fprintf(&buf, "# replay stopped at boot: %v\n", err)
	case err != nil:
		// A path that ends in a handler failure replays up to it.
		fmt.Fprintf(&buf, "# replay stopped at step %d: %v\n# end of path after %d steps\n", s.Steps(), err, s.Steps())
	default:
		fmt.Fprintf(&buf, "# end of path after %d steps\n", s.Steps())
	}
	return trace.WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// Quote quotes a shell argument when needed.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

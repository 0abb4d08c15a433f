package mdb

import (
	"fmt"
	"path/filepath"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/sim/trace"
)

// writePage writes the report page (package htmlreport) of the session's
// error and live traces to file, opening at the current step when it is on
// the error path. When the error trace lies in a result directory, the
// page also shows its report.json and min.trace.
func (s *Session) writePage(file string) error {
	in := htmlreport.Input{Error: s.errT, Live: s.liveT}
	in.Options.Tool = s.o.Tool
	if f := s.paths[0].file; f != "" {
		dir := filepath.Dir(f)
		in.Dir = dir
		if filepath.Base(f) == htmlreport.ErrorTrace {
			if din, err := htmlreport.ReadDir(dir); err == nil {
				in.Report, in.Min = din.Report, din.Min
			}
		}
	}
	if s.p == s.paths[0] {
		in.Select = s.pos
	}
	if err := trace.CheckNotTrace(file); err != nil {
		return err
	}
	if err := htmlreport.WriteFile(file, in); err != nil {
		return err // the command's name is added by the session
	}
	fmt.Fprintf(s.out, "wrote %s (the report page of the error path", file)
	if s.liveT != nil {
		fmt.Fprint(s.out, " and the live path")
	}
	fmt.Fprintln(s.out, ")")
	return nil
}

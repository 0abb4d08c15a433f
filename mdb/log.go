package mdb

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/macemc/macemc/sim/engine"
)

// pathLog is a path replayed with full logging (engine.NewLogger): the same
// lines macemc writes to error.log and live.log, each known by the step
// it belongs to.
type pathLog struct {
	steps int
	lines []string
	first []int // lines[first[n]:first[n+1]] belong to step n (0: the initial state)
}

// lineWriter splits what it is written into lines.
type lineWriter struct {
	lines []string
	part  []byte
}

func (w *lineWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.part = append(w.part, b...)
			break
		}
		w.lines = append(w.lines, string(append(w.part, b[:i]...)))
		w.part = w.part[:0]
		b = b[i+1:]
	}
	return n, nil
}

// logOf returns the path's log, replaying the whole path once with logging
// on the first time it is asked for.
func (s *Session) logOf(p *path) (*pathLog, error) {
	if p.log != nil && p.log.steps == p.steps() {
		return p.log, nil
	}
	var w lineWriter
	opts := p.opts
	opts.Chooser = engine.NewRecorded(p.choices)
	opts.Logger = engine.NewLogger(&w)
	sm, err := engine.New(p.cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("log of the %s path: %w", p.name, err)
	}
	l := &pathLog{steps: p.steps(), first: make([]int, 0, p.steps()+2)}
	l.first = append(l.first, 0)
	for sm.Steps() < p.steps() {
		if s.interrupted() {
			return nil, errInterrupted
		}
		l.first = append(l.first, len(w.lines))
		before := sm.Steps()
		_, err := sm.Step()
		if err != nil && !(sm.Steps() == p.steps() && p.endErr != nil) {
			return nil, fmt.Errorf("log of the %s path at step %d: %w", p.name, before+1, err)
		}
		if sm.Steps() == before {
			return nil, fmt.Errorf("log of the %s path: stuck at step %d", p.name, before)
		}
	}
	l.first = append(l.first, len(w.lines))
	l.lines = w.lines
	p.log = l
	return l, nil
}

// stepOfLine returns the step line i belongs to.
func (l *pathLog) stepOfLine(i int) int {
	lo, hi := 0, len(l.first)-1 // first[lo] <= i < first[hi]
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if l.first[m] <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// stepLines returns the log lines of step n.
func (l *pathLog) stepLines(n int) []string { return l.lines[l.first[n]:l.first[n+1]] }

// compile compiles a user's regular expression with a clear error.
func compile(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, fmt.Errorf("give a regular expression")
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("bad regular expression %q: %w", expr, err)
	}
	return re, nil
}

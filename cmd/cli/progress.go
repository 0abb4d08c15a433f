package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/macemc/macemc/search"
)

// progress reports what a run does on stderr: a one-line status redrawn
// on a terminal, or with --progress lines, one timestamped line per phase
// change and message and a search status every second (for logs and CI).
type progress struct {
	w        io.Writer
	on       bool
	lines    bool
	start    time.Time
	lastLine time.Time
	budget   time.Duration
	maxPaths int64
	lastT    time.Duration
	lastN    int64
	drawn    bool
}

// progressMode returns whether progress is drawn and whether as lines, for
// --progress MODE.
func progressMode(mode string, terminal bool) (on, lines bool, err error) {
	switch mode {
	case "auto":
		return terminal, false, nil
	case "lines":
		return true, true, nil
	case "none":
		return false, false, nil
	}
	return false, false, usagef("--progress %q: allowed auto, lines or none", mode)
}

func (p *progress) show(pr search.Progress) {
	if !p.on {
		return
	}
	if p.lines {
		p.showLine(pr)
		return
	}
	if pr.Phase != search.PhaseSearch || pr.Message != "" {
		fmt.Fprintf(p.w, "\r\x1b[K%s", pr.Message)
		p.drawn = true
		return
	}
	st := pr.Stats
	rate := 0.0
	if dt := (st.Elapsed - p.lastT).Seconds(); dt > 0 {
		rate = float64(st.Transitions-p.lastN) / dt
	}
	p.lastT, p.lastN = st.Elapsed, st.Transitions
	left := ""
	if p.budget > 0 {
		left = fmt.Sprintf(", %s left", (p.budget - st.Elapsed).Round(time.Second))
	}
	if p.maxPaths > 0 {
		left += fmt.Sprintf(", %d/%d paths", st.Paths, p.maxPaths)
	}
	fmt.Fprintf(p.w, "\r\x1b[Kround %d, depth bound %d (deepest complete %d)  paths %d  states %d  pruned %d  %.0f transitions/s%s",
		st.Rounds, st.Depth, st.DeepestComplete, st.Paths, st.DistinctStates, st.Pruned, rate, left)
	p.drawn = true
}

// showLine writes a progress report as a line: "[  1.23s] critical:
// MESSAGE", a search status at most once a second.
func (p *progress) showLine(pr search.Progress) {
	now := time.Now()
	if p.start.IsZero() {
		p.start = now
	}
	msg := pr.Message
	if pr.Phase == search.PhaseSearch && msg == "" {
		if now.Sub(p.lastLine) < time.Second {
			return
		}
		st := pr.Stats
		msg = fmt.Sprintf("round %d, depth %d (%d complete), %d paths, %d states, %d transitions run", st.Rounds, st.Depth, st.DeepestComplete,
			st.Paths, st.DistinctStates, st.Transitions)
	}
	p.lastLine = now
	fmt.Fprintf(p.w, "[%7.2fs] %s: %s\n", now.Sub(p.start).Seconds(), pr.Phase, msg)
}

func (p *progress) line(format string, args ...any) {
	if !p.on {
		return
	}
	if p.lines {
		if p.start.IsZero() {
			p.start = time.Now()
		}
		fmt.Fprintf(p.w, "[%7.2fs] critical: "+format+"\n", append([]any{time.Since(p.start).Seconds()}, args...)...)
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K"+format, args...)
	p.drawn = true
}

// note writes a line that stays above the status line.
func (p *progress) note(format string, args ...any) {
	if !p.on {
		return
	}
	if p.lines {
		fmt.Fprintf(p.w, "[%7.2fs] note: "+format+"\n", append([]any{time.Since(p.start).Seconds()}, args...)...)
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K"+format+"\n", args...)
}

func (p *progress) clear() {
	if p.on && p.drawn && !p.lines {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

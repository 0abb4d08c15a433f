package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/macemc/macemc/search"
)

// progress draws a one-line status on a terminal's stderr.
type progress struct {
	w        io.Writer
	on       bool
	budget   time.Duration
	maxPaths int64
	lastT    time.Duration
	lastN    int64
	drawn    bool
}

func (p *progress) show(pr search.Progress) {
	if !p.on {
		return
	}
	if pr.Phase != search.PhaseSearch {
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
	fmt.Fprintf(p.w, "\r\x1b[Kround %d, depth %d (%d complete)  paths %d  states %d  pruned %d  %.0f transitions/s%s",
		st.Rounds, st.Depth, st.DeepestComplete, st.Paths, st.DistinctStates, st.Pruned, rate, left)
	p.drawn = true
}

func (p *progress) line(format string, args ...any) {
	if !p.on {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[K"+format, args...)
	p.drawn = true
}

func (p *progress) clear() {
	if p.on && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

package lasso

import (
	"slices"
	"sync"

	"github.com/macemc/macemc/walks"
)

// Monitor hands out one Detector per walk and gathers their statistics
// and findings. Its Observer method is a search.Config.Observe factory;
// with action Report a confirmed lasso is a violation of the search:
//
//	m := lasso.NewMonitor(lasso.Options{OnLasso: lasso.Report, Until: 20000})
//	res, err := search.Run(search.Config{System: cfg, WalkDepth: 20000, Observe: m.Observer})
//	if v := res.Violations[0]; v.Outcome == walks.Observed {
//		f := v.Observed.(*lasso.Finding) // the first lasso in path order
//	}
//	for _, f := range m.Findings() { ... } // every finding of every walk
//
// A Monitor is safe for concurrent use.
type Monitor struct {
	o Options
	c counters
	// OnFinding, when set, is called with every finding as a detector
	// makes it (a copy), from the walk's goroutine, in no particular
	// order across walks. It must not block.
	OnFinding func(*Finding)
	// Committed, set before the first Observer, makes the monitor count a
	// walk and take its findings only when the search commits the walk's
	// path (Detector.Commit, which package explore calls in path order):
	// Stats and Findings then cover the committed paths only, the same
	// for any number of workers. OnFinding is then called at the commit.
	Committed bool

	mu       sync.Mutex
	findings []*Finding
}

// NewMonitor returns a monitor whose detectors use o.
func NewMonitor(o Options) *Monitor {
	o.fill()
	return &Monitor{o: o}
}

// Options returns the options the monitor's detectors use, defaults
// filled in.
func (m *Monitor) Options() Options { return m.o }

// Observer returns a new detector, for one walk.
func (m *Monitor) Observer() walks.Observer {
	d := NewDetector(m.o)
	d.m = m
	if !m.Committed {
		m.c.walks.Add(1)
	}
	return d
}

// Stats returns the statistics summed over all detectors so far.
func (m *Monitor) Stats() Stats { return m.c.snapshot() }

// Findings returns copies of the findings so far, in the order of the
// search's paths (see Finding ordering in the package documentation).
func (m *Monitor) Findings() []*Finding {
	m.mu.Lock()
	out := make([]*Finding, len(m.findings))
	for i, f := range m.findings {
		out[i] = f.clone()
	}
	m.mu.Unlock()
	slices.SortStableFunc(out, func(a, b *Finding) int {
		switch {
		case a.before(b):
			return -1
		case b.before(a):
			return 1
		}
		return 0
	})
	return out
}

func (m *Monitor) add(f *Finding) {
	m.mu.Lock()
	m.findings = append(m.findings, f)
	c := f.clone()
	m.mu.Unlock()
	if m.OnFinding != nil {
		m.OnFinding(c)
	}
}

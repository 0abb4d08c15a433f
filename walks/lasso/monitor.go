package lasso

import (
	"slices"
	"sync"

	"github.com/macemc/macemc/sim"
)

// Monitor hands out one Detector per walk and gathers their statistics
// and findings. Its Observer method is a search.Config.Observe factory:
//
//	m := lasso.NewMonitor(lasso.Options{OnLasso: lasso.Spin})
//	res, err := search.Run(search.Config{System: cfg, Observe: m.Observer})
//	for _, f := range m.Findings() { ... }
//
// A Monitor is safe for concurrent use.
type Monitor struct {
	o Options
	c counters
	// OnFinding, when set, is called with every finding as a detector
	// makes it (a copy), from the walk's goroutine (the CLI cancels the
	// search from it). It must not block.
	OnFinding func(*Finding)

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

// Observer returns a new detector's Observe, for one walk.
func (m *Monitor) Observer() func(*sim.Sim) bool {
	d := NewDetector(m.o)
	d.m = m
	m.c.walks.Add(1)
	return d.Observe
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

package search

import (
	"fmt"
	"io"
	"strings"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

// Catalog is what can be checked: the registered systems and the
// exploration strategies, as `macemc list` shows them.
type Catalog struct {
	Systems    []SystemInfo   `json:"systems"`
	Strategies []StrategyInfo `json:"strategies"`
}

// SystemInfo describes a registered system: its parameters (with their
// ranges) and what it checks.
type SystemInfo struct {
	Name     string      `json:"name"`
	Doc      string      `json:"doc,omitempty"`
	Params   []ParamInfo `json:"params"`
	Safety   []string    `json:"safety"`
	Liveness []string    `json:"liveness"`
	Monitors []string    `json:"monitors,omitempty"`
	// Linearizable says the system has a sequential model: the clients'
	// history of every execution is checked against it.
	Linearizable bool `json:"linearizable,omitempty"`
	// Error says why the system does not build with its defaults.
	Error string `json:"error,omitempty"`
}

// StrategyInfo describes an exploration strategy and its own options
// (flags --NAME-PARAM).
type StrategyInfo struct {
	Name   string      `json:"name"`
	Doc    string      `json:"doc"`
	Params []ParamInfo `json:"params,omitempty"`
}

// ParamInfo is one parameter of a system or a strategy.
type ParamInfo struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Default string `json:"default"`
	Doc     string `json:"doc,omitempty"`
	Min     *int   `json:"min,omitempty"`
	Max     *int   `json:"max,omitempty"`
	// Range is the values allowed, in words ("" when any value of the
	// kind is).
	Range string `json:"-"`
}

func paramInfo(p *sim.ParamSpec) ParamInfo {
	return ParamInfo{Name: p.Name, Kind: p.Kind.String(), Default: p.Default, Doc: p.Doc, Min: p.Min, Max: p.Max, Range: p.Range()}
}

// List returns the catalog of the registered systems and strategies,
// sorted by name.
func List() Catalog {
	var c Catalog
	for _, st := range explore.Strategies() {
		si := StrategyInfo{Name: st.Name(), Doc: st.Doc()}
		for _, p := range st.Params() {
			si.Params = append(si.Params, paramInfo(&p))
		}
		c.Strategies = append(c.Strategies, si)
	}
	for _, sys := range sim.Systems() {
		si := SystemInfo{Name: sys.Name, Doc: sys.Doc, Safety: []string{}, Liveness: []string{}}
		for _, p := range sys.Params {
			si.Params = append(si.Params, paramInfo(&p))
		}
		if cfg, _, err := sys.Config(nil); err != nil {
			si.Error = err.Error()
		} else {
			si.Safety, si.Liveness = propertyNames(cfg.Safety), propertyNames(cfg.Liveness)
			for _, m := range cfg.Monitors {
				si.Monitors = append(si.Monitors, m.Name)
			}
			si.Linearizable = cfg.Model != nil
		}
		c.Systems = append(c.Systems, si)
	}
	return c
}

func propertyNames(ps []sim.Property) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

// WriteText writes the catalog as `macemc list` prints it. The systems'
// names, documentation and defaults, and the names of their properties
// and monitors, are shown as safetext.QuoteUnsafe shows them.
func (c *Catalog) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	if len(c.Systems) == 0 {
		fmt.Fprintln(ew, "no systems registered")
	}
	orNone := func(xs []string) string {
		if len(xs) == 0 {
			return "(none)"
		}
		return strings.Join(shownNames(xs), ", ")
	}
	q := safetext.QuoteUnsafe
	for _, s := range c.Systems {
		fmt.Fprintf(ew, "%s\n", q(s.Name))
		if s.Doc != "" {
			line, _, _ := strings.Cut(strings.TrimSpace(s.Doc), "\n")
			fmt.Fprintf(ew, "  %s\n", q(line))
		}
		for _, p := range s.Params {
			if p.Range != "" {
				fmt.Fprintf(ew, "  --param %s=%s (%s, %s)", q(p.Name), q(p.Default), p.Kind, p.Range)
			} else {
				fmt.Fprintf(ew, "  --param %s=%s (%s)", q(p.Name), q(p.Default), p.Kind)
			}
			if p.Doc != "" {
				fmt.Fprintf(ew, "  %s", q(p.Doc))
			}
			fmt.Fprintln(ew)
		}
		fmt.Fprintf(ew, "  safety:   %s\n", orNone(s.Safety))
		fmt.Fprintf(ew, "  liveness: %s\n", orNone(s.Liveness))
		if len(s.Monitors) > 0 {
			fmt.Fprintf(ew, "  monitors: %s (each a safety property and, if it can be hot, a liveness property of its name)\n", orNone(s.Monitors))
		}
		if s.Linearizable {
			fmt.Fprintf(ew, "  history:  %s (the clients' history, against the system's sequential model)\n", sim.Linearizable)
		}
		if s.Error != "" {
			fmt.Fprintf(ew, "  error: %s\n", q(s.Error))
		}
	}
	fmt.Fprintln(ew, "\nstrategies (--strategy NAME):")
	for _, st := range c.Strategies {
		fmt.Fprintf(ew, "  %-8s %s\n", st.Name, st.Doc)
		for _, p := range st.Params {
			kind := p.Kind
			if p.Range != "" {
				kind += ", " + p.Range
			}
			fmt.Fprintf(ew, "           --%s-%s=%s (%s)  %s\n", st.Name, p.Name, p.Default, kind, p.Doc)
		}
	}
	return ew.err
}

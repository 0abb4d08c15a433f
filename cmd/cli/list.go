package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
)

type listedParam struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Default string `json:"default"`
	Doc     string `json:"doc,omitempty"`
	Min     *int   `json:"min,omitempty"`
	Max     *int   `json:"max,omitempty"`
	rng     string
}

func listParam(p *sim.ParamSpec) listedParam {
	return listedParam{Name: p.Name, Kind: p.Kind.String(), Default: p.Default, Doc: p.Doc, Min: p.Min, Max: p.Max, rng: p.Range()}
}

type listedSystem struct {
	Name     string        `json:"name"`
	Doc      string        `json:"doc,omitempty"`
	Params   []listedParam `json:"params"`
	Safety   []string      `json:"safety"`
	Liveness []string      `json:"liveness"`
	Monitors []string      `json:"monitors,omitempty"`
	// Linearizable says the system has a sequential model: the clients'
	// history of every execution is checked against it.
	Linearizable bool   `json:"linearizable,omitempty"`
	Error        string `json:"error,omitempty"`
}

func (a *App) list(args []string) (int, error) {
	fs := a.newFlags("list", "[--json]")
	asJSON := fs.Bool("json", false, "print one JSON array on stdout")
	if err := parse(fs, args); err != nil {
		return ExitUsage, err
	}
	var out []listedSystem
	var strategies []listedStrategy
	for _, st := range explore.Strategies() {
		ls := listedStrategy{Name: st.Name(), Doc: st.Doc()}
		for _, p := range st.Params() {
			ls.Params = append(ls.Params, listParam(&p))
		}
		strategies = append(strategies, ls)
	}
	for _, sys := range sim.Systems() {
		ls := listedSystem{Name: sys.Name, Doc: sys.Doc, Safety: []string{}, Liveness: []string{}}
		for _, p := range sys.Params {
			ls.Params = append(ls.Params, listParam(&p))
		}
		if cfg, _, err := sys.Config(nil); err != nil {
			ls.Error = err.Error()
		} else {
			ls.Safety, ls.Liveness = names(cfg.Safety), names(cfg.Liveness)
			for _, m := range cfg.Monitors {
				ls.Monitors = append(ls.Monitors, m.Name)
			}
			ls.Linearizable = cfg.Model != nil
		}
		out = append(out, ls)
	}
	if *asJSON {
		enc := json.NewEncoder(a.Stdout)
		enc.SetIndent("", "  ")
		return ExitNone, enc.Encode(map[string]any{"systems": out, "strategies": strategies})
	}
	if len(out) == 0 {
		fmt.Fprintln(a.Stdout, "no systems registered")
	}
	for _, s := range out {
		fmt.Fprintf(a.Stdout, "%s\n", s.Name)
		if s.Doc != "" {
			fmt.Fprintf(a.Stdout, "  %s\n", firstLine(s.Doc))
		}
		for _, p := range s.Params {
			if p.rng != "" {
				fmt.Fprintf(a.Stdout, "  --param %s=%s (%s, %s)", p.Name, p.Default, p.Kind, p.rng)
			} else {
				fmt.Fprintf(a.Stdout, "  --param %s=%s (%s)", p.Name, p.Default, p.Kind)
			}
			if p.Doc != "" {
				fmt.Fprintf(a.Stdout, "  %s", p.Doc)
			}
			fmt.Fprintln(a.Stdout)
		}
		fmt.Fprintf(a.Stdout, "  safety:   %s\n", orNone(s.Safety))
		fmt.Fprintf(a.Stdout, "  liveness: %s\n", orNone(s.Liveness))
		if len(s.Monitors) > 0 {
			fmt.Fprintf(a.Stdout, "  monitors: %s (each a safety property and, if it can be hot, a liveness property of its name)\n", strings.Join(s.Monitors, ", "))
		}
		if s.Linearizable {
			fmt.Fprintf(a.Stdout, "  history:  %s (the clients' history, against the system's sequential model)\n", sim.Linearizable)
		}
		if s.Error != "" {
			fmt.Fprintf(a.Stdout, "  error: %s\n", s.Error)
		}
	}
	fmt.Fprintln(a.Stdout, "\nstrategies (--strategy NAME):")
	for _, st := range strategies {
		fmt.Fprintf(a.Stdout, "  %-8s %s\n", st.Name, st.Doc)
		for _, p := range st.Params {
			fmt.Fprintf(a.Stdout, "           --%s-%s=%s (%s)  %s\n", st.Name, p.Name, p.Default, p.Kind, p.Doc)
		}
	}
	return ExitNone, nil
}

type listedStrategy struct {
	Name   string        `json:"name"`
	Doc    string        `json:"doc"`
	Params []listedParam `json:"params,omitempty"`
}

func names(ps []sim.Property) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ", ")
}

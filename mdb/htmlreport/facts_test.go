package htmlreport_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"golang.org/x/net/html"

	"github.com/macemc/macemc/mdb/htmlreport"
	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// ticker is a rally player whose periodic timer keeps a path from falling
// quiescent: a path whose rally a break ended then runs to d_max.
type ticker struct {
	rally
	Ticks  int
	Broken bool
}

func (r *ticker) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (r *ticker) HandleTimer(*sim.Context, string) { r.Ticks++ }

func (r *ticker) HandleConnError(*sim.Context, sim.NodeID) { r.Broken = true }

// TestFacts runs searches on a rally of two nodes over a connection that
// may break and prints the page's headline, its subtitle, its tabs and
// the facts it gives (the times of the "stopped" fact, which vary, as
// Xs), how each path's prefix and bounded search split it, the error
// path's marks, the explanation and notes (their first words), and at a
// failing step every property's state there and the title of the
// failure's stack; for a system with monitors, each monitor's state at the
// step the page opens at and how the comparison at the critical step
// shows it. Each
//
//	search [rounds=N] [breaks=N] [safe=N] [tick] [unbroken] [reorder] [walkfailures] [nograph] [minimize] [strategy=S] [depth=N] [prefix=N] [paths=N] [temperature=N] [interrupt=N] [system=NAME] [p.PARAM=V]
//
// searches a rally of N balls (default 3) with that many connection
// breaks (default 1) and the liveness property Rallied (a node received
// ball N); safe= adds the safety property Short (node 1 received no ball
// >= safe), tick a periodic timer on node 1, and unbroken the timer and
// the liveness property Unbroken in place of Rallied (node 1 received
// ball 3 and its connection never broke); reorder turns the reordering of
// datagrams on. strategy=, depth= (one round of it), prefix=
// (--prefix-steps), paths=, temperature=, nograph (--no-graph), minimize
// and walkfailures (--walk-failures) set the search's options; interrupt=N
// minimizes and interrupts the run at the Nth report of its analysis
// after the search (the critical transition's probes, the minimization's
// start), as Ctrl-C would, and the page is made afterwards, as macemc
// report makes it. system= searches that registered system instead of
// the rally, with its parameters p.PARAM=V. go test ./mdb/htmlreport
// -rewrite regenerates testdata/facts.txt.
func TestFacts(t *testing.T) {
	datadriven.RunTest(t, "testdata/facts.txt", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "search" {
			td.Fatalf(t, "unknown command %q", td.Cmd)
		}
		rounds, breaks, safe, tick, unbroken, reorder := 3, 1, 0, false, false, false
		o := search.Options{Seed: 1, Workers: 1, WalkDepth: 200, Walks: 5, MaxPaths: 1000}
		var system string
		interrupt := 0
		for _, a := range td.CmdArgs {
			switch a.Key {
			case "tick", "unbroken":
				tick, unbroken = true, unbroken || a.Key == "unbroken"
				continue
			case "reorder":
				reorder = true
				continue
			case "walkfailures":
				o.WalkFailures = true
				continue
			case "nograph":
				o.Graph.Off = true
				continue
			case "minimize":
				o.Minimize = true
				continue
			}
			if len(a.Vals) != 1 {
				td.Fatalf(t, "%s: want one value", a.Key)
			}
			v := a.Vals[0]
			switch {
			case a.Key == "strategy":
				o.Strategy = v
				continue
			case a.Key == "system":
				system = v
				continue
			case strings.HasPrefix(a.Key, "p."):
				if o.Params == nil {
					o.Params = map[string]string{}
				}
				o.Params[strings.TrimPrefix(a.Key, "p.")] = v
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				td.Fatalf(t, "%s: %v", a.Key, err)
			}
			switch a.Key {
			case "rounds":
				rounds = n
			case "breaks":
				breaks = n
			case "safe":
				safe = n
			case "depth":
				o.Depth, o.DepthStep = n, n
			case "prefix":
				o.PrefixSteps = n
			case "paths":
				o.MaxPaths = int64(n)
			case "interrupt":
				interrupt = n
			case "temperature":
				o.Lasso.Temperature = n
			default:
				td.Fatalf(t, "unknown argument %q", a.Key)
			}
		}
		sys := &sim.System{Name: "htmlreport-facts", Build: func(sim.Params) (*sim.Config, error) {
			cfg := &sim.Config{Nodes: 2,
				Service: func(id sim.NodeID) sim.Service {
					if id == 1 && tick {
						return &ticker{rally: rally{Rounds: rounds}}
					}
					return &rally{Rounds: rounds}
				},
				App:      func(id sim.NodeID) []any { return []any{"serve"}[:1-min(int(id), 1)] },
				Failures: sim.Failures{Breaks: breaks, Reorder: reorder},
				Liveness: []sim.Property{{Name: "Rallied", Check: func(v *sim.View) bool {
					return max(sim.Node[rally](v, 0).Count, nodeCount(v)) >= rounds
				}}},
			}
			if unbroken {
				cfg.Liveness = []sim.Property{{Name: "Unbroken", Check: func(v *sim.View) bool {
					return nodeCount(v) >= 3 && !sim.Node[ticker](v, 1).Broken
				}}}
			}
			if safe > 0 {
				cfg.Safety = []sim.Property{{Name: "Short", Check: func(v *sim.View) bool { return nodeCount(v) < safe }}}
			}
			return cfg, nil
		}}
		if system != "" {
			var err error
			if sys, err = sim.Lookup(system); err != nil {
				td.Fatalf(t, "%v", err)
			}
		}
		dir := t.TempDir()
		o.Out = dir
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if interrupt > 0 {
			// Interrupted at the interrupt-th report of the analysis
			// after the search (the search for the critical transition
			// and the minimization): the run writes no page, which
			// macemc report makes from what it wrote.
			n := 0
			o.Minimize = true
			o.Progress = func(p search.Progress) {
				if p.Phase == search.PhaseCritical {
					if n++; n == interrupt {
						cancel()
					}
				}
			}
		}
		if _, err := search.Run(ctx, sys, o); err != nil {
			t.Fatal(err)
		}
		if err := htmlreport.WriteDir(dir, htmlreport.Options{System: sys}); err != nil {
			t.Fatal(err)
		}
		p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
		var b strings.Builder
		fmt.Fprintf(&b, "headline: %s\n", text(find(p.doc, func(n *html.Node) bool { return n.Data == "h1" })[0]))
		for _, k := range byClass(p.doc, "p", "kind") {
			fmt.Fprintf(&b, "kind: %s\n", text(k))
		}
		var tabs []string
		for _, tb := range byClass(p.doc, "button", "tab") {
			tabs = append(tabs, text(tb))
		}
		if len(tabs) > 0 {
			fmt.Fprintf(&b, "tabs: %s\n", strings.Join(tabs, ", "))
		}
		dl := byClass(p.doc, "dl", "facts")
		if len(dl) != 1 {
			t.Fatalf("%d fact lists on the page", len(dl))
		}
		var label string
		for n := dl[0].FirstChild; n != nil; n = n.NextSibling {
			switch n.Data {
			case "dt":
				label = text(n)
			case "dd":
				v := text(n)
				for _, a := range find(n, func(n *html.Node) bool { return n.Data == "a" }) {
					v += " [" + attr(a, "href") + "]"
				}
				if label == "stopped" {
					v = seconds.ReplaceAllString(v, "Xs")
				}
				fmt.Fprintf(&b, "%s: %s\n", label, v)
			}
		}
		if len(p.data.Paths) > 0 && p.data.Paths[0].Fail >= 0 {
			ep := p.data.Paths[0]
			// Each property's state at the failing step, as the page's
			// state panel shows it there.
			state := map[int]int{}
			for i := 0; i+2 < len(ep.Props) && ep.Props[i] <= ep.Fail; i += 3 {
				state[ep.Props[i+1]] = ep.Props[i+2]
			}
			names := []string{"violated", "holds", "its check panicked", "its monitor panicked"}
			var ps []string
			for i, pr := range p.data.Props {
				ps = append(ps, fmt.Sprintf("%s %s %s", pr.Kind, pr.Name, names[state[i]]))
			}
			fmt.Fprintf(&b, "at step %d: %s\n", ep.Fail, strings.Join(ps, ", "))
		}
		if len(p.data.Paths) > 0 && len(p.data.Monitors) > 0 {
			// Each monitor's section in the state panel at the step the
			// page opens at, and in the comparison at the critical step.
			st := p.stateAt(0, p.data.Select)
			for j, title := range p.data.Monitors {
				lines := strings.Split(strings.TrimSuffix(st[len(p.data.Nodes)+j], "\n"), "\n")
				fmt.Fprintf(&b, "state at step %d: %s: %s\n", p.data.Select, title, strings.Join(lines, " / "))
			}
			if c := byID(p.doc, "compare"); c != nil {
				var secs []string
				for _, sec := range byClass(c, "div", "section-diff") {
					if strings.HasPrefix(attr(sec, "data-title"), "monitor ") {
						same := map[bool]string{true: "identical", false: "differs"}[hasClass(sec, "same")]
						secs = append(secs, attr(sec, "data-title")+" "+same)
					}
				}
				fmt.Fprintf(&b, "compared at the critical step: %s\n", strings.Join(secs, ", "))
			}
		}
		for _, d := range p.data.Paths {
			if d.Prefix > 0 {
				fmt.Fprintf(&b, "%s path: prefix steps 1-%d, bounded search steps %d-%d\n", d.Name, d.Prefix, d.Prefix+1, d.Depth)
			}
		}
		var marks []string
		for _, m := range byClass(p.doc, "button", "mark") {
			if attr(m, "data-path") == "0" && !hasClass(m, "diverge") {
				marks = append(marks, attr(m, "data-step")+" "+text(m))
			}
		}
		if len(marks) > 0 {
			fmt.Fprintf(&b, "marks: %s\n", strings.Join(marks, " | "))
		}
		if tp := byID(p.doc, "explain"); tp != nil {
			fmt.Fprintf(&b, "explained: %s\n", firstWords(text(tp)))
		}
		for _, n := range byClass(p.doc, "p", "note") {
			if n.Parent != nil && attr(n.Parent, "id") == "headline" {
				fmt.Fprintf(&b, "note: %s\n", firstWords(text(n)))
			}
		}
		if f := byID(p.doc, "failure"); f != nil {
			for _, s := range find(f, func(n *html.Node) bool { return n.Data == "summary" }) {
				fmt.Fprintf(&b, "stack: %s\n", text(s))
			}
		}
		return b.String()
	})
}

// reportFacts renders a page from report r alone (no trace: it says
// nothing was found) and returns its facts by label.
func reportFacts(t *testing.T, r *htmlreport.Report) map[string]string {
	t.Helper()
	file := filepath.Join(t.TempDir(), htmlreport.PageFile)
	var b bytes.Buffer
	if err := htmlreport.Render(&b, htmlreport.Input{Report: r}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p := readPage(t, file)
	facts := map[string]string{}
	var label string
	for n := byClass(p.doc, "dl", "facts")[0].FirstChild; n != nil; n = n.NextSibling {
		switch n.Data {
		case "dt":
			label = text(n)
		case "dd":
			facts[label] = text(n)
		}
	}
	return facts
}

// TestStoppedTime: the search writes its page while it writes its files,
// after a first report.json, and then report.json again with the whole
// run's time; the "stopped" fact gives the time of the search and its
// analysis, without the files', so a page made again from the final
// report.json (macemc report) says the same as the search's.
func TestStoppedTime(t *testing.T) {
	phases := func(files float64) map[string]float64 {
		return map[string]float64{"precheck": 0.01, "search": 0.01, "check": 0.12, "critical": 5.38, "files": files}
	}
	first := reportFacts(t, &htmlreport.Report{Verdict: "none", Stop: "violation", ElapsedS: 5.54, SearchS: 0.01, PhasesS: phases(0.02)})
	final := reportFacts(t, &htmlreport.Report{Verdict: "none", Stop: "violation", ElapsedS: 6.19, SearchS: 0.01, PhasesS: phases(0.67)})
	want := "at the violation; the search and its analysis took 5.52s (the search 0.01s), besides writing the files"
	if first["stopped"] != want || final["stopped"] != want {
		t.Errorf("stopped: %q as the search writes the page, %q made again, want %q", first["stopped"], final["stopped"], want)
	}
	// A report without the phases' times: the whole run's.
	if got := reportFacts(t, &htmlreport.Report{Verdict: "none", Stop: "depth", ElapsedS: 6.19, SearchS: 0.01})["stopped"]; got != "depth after 6.19s (search 0.01s)" {
		t.Errorf("stopped without phases: %q", got)
	}
}

// TestMinimizedFact: the minimization's result as the text report's
// "minimized doomed path" line gives it, and an interruption during it,
// after the search stopped at its violation.
func TestMinimizedFact(t *testing.T) {
	facts := reportFacts(t, &htmlreport.Report{Verdict: "none", Stop: "violation", Incomplete: true, ElapsedS: 1, PhasesS: map[string]float64{"files": 0},
		Minimized: &htmlreport.Minimized{StepsBefore: 14, StepsAfter: 14, Tests: 26, Stopped: "an interruption"}})
	if got, want := facts["minimization"], "none of the dead path's first 14 steps dropped (not proved 1-minimal: ddmin stopped at an interruption, 26 tests)"; got != want {
		t.Errorf("minimization: %q, want %q", got, want)
	}
	if got, want := facts["stopped"], "at the violation; the search and its analysis took 1.00s (the search 0.00s), besides writing the files; the run was interrupted after it: the minimization was cut short"; got != want {
		t.Errorf("stopped: %q, want %q", got, want)
	}
	if got, want := reportFacts(t, &htmlreport.Report{Verdict: "none", Minimized: &htmlreport.Minimized{StepsBefore: 1, StepsAfter: 1, OneMinimal: true, Tests: 1}})["minimization"], "its 1 step is needed (1-minimal, 1 test)"; got != want {
		t.Errorf("minimization: %q, want %q", got, want)
	}
}

// firstWords is the start of a long text: its first 12 words.
func firstWords(s string) string {
	w := strings.Fields(s)
	if len(w) <= 12 {
		return strings.Join(w, " ")
	}
	return strings.Join(w[:12], " ") + " …"
}

// seconds matches the times of the "stopped" fact.
var seconds = regexp.MustCompile(`[0-9]+\.[0-9]+s`)

// nodeCount is the last ball node 1 received, whichever player it is.
func nodeCount(v *sim.View) int {
	if r := sim.Node[ticker](v, 1); r != nil {
		return r.Count
	}
	return sim.Node[rally](v, 1).Count
}

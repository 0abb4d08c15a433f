package htmlreport_test

import (
	"context"
	"fmt"
	"path/filepath"
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
// may break and prints the page's headline and the facts it gives (the
// "stopped" fact, which holds timings, left out), and at a failing step
// every property's state there and the title of the failure's stack. Each
//
//	search [rounds=N] [breaks=N] [safe=N] [tick] [unbroken] [reorder] [walkfailures] [strategy=S] [depth=N] [prefix=N] [paths=N] [system=NAME] [p.PARAM=V]
//
// searches a rally of N balls (default 3) with that many connection
// breaks (default 1) and the liveness property Rallied (a node received
// ball N); safe= adds the safety property Short (node 1 received no ball
// >= safe), tick a periodic timer on node 1, and unbroken the timer and
// the liveness property Unbroken in place of Rallied (node 1 received
// ball 3 and its connection never broke); reorder turns the reordering of
// datagrams on. strategy=, depth= (one round of it), prefix=
// (--prefix-steps), paths= and walkfailures (--walk-failures) set the
// search's options. system= searches that registered system instead of
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
		if _, err := search.Run(context.Background(), sys, o); err != nil {
			t.Fatal(err)
		}
		if err := htmlreport.WriteDir(dir, htmlreport.Options{System: sys}); err != nil {
			t.Fatal(err)
		}
		p := readPage(t, filepath.Join(dir, htmlreport.PageFile))
		var b strings.Builder
		fmt.Fprintf(&b, "headline: %s\n", text(find(p.doc, func(n *html.Node) bool { return n.Data == "h1" })[0]))
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
				if label != "stopped" {
					fmt.Fprintf(&b, "%s: %s\n", label, text(n))
				}
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
		if f := byID(p.doc, "failure"); f != nil {
			for _, s := range find(f, func(n *html.Node) bool { return n.Data == "summary" }) {
				fmt.Fprintf(&b, "stack: %s\n", text(s))
			}
		}
		return b.String()
	})
}

// nodeCount is the last ball node 1 received, whichever player it is.
func nodeCount(v *sim.View) int {
	if r := sim.Node[ticker](v, 1); r != nil {
		return r.Count
	}
	return sim.Node[rally](v, 1).Count
}

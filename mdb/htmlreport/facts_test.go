package htmlreport_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

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
// may break and prints the facts the page's headline gives (the
// "stopped" fact, which holds timings, left out). Each
//
//	search [rounds=N] [breaks=N] [safe=N] [tick] [unbroken] [strategy=S] [depth=N] [prefix=N] [paths=N]
//
// searches a rally of N balls (default 3) with that many connection
// breaks (default 1) and the liveness property Rallied (a node received
// ball N); safe= adds the safety property Short (node 1 received no ball
// >= safe), tick a periodic timer on node 1, and unbroken the timer and
// the liveness property Unbroken in place of Rallied (node 1 received
// ball 3 and its connection never broke). strategy=, depth= (one round of
// it), prefix= (--prefix-steps) and paths= set the search's options. go
// test ./mdb/htmlreport -rewrite regenerates testdata/facts.txt.
func TestFacts(t *testing.T) {
	datadriven.RunTest(t, "testdata/facts.txt", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "search" {
			td.Fatalf(t, "unknown command %q", td.Cmd)
		}
		rounds, breaks, safe, tick, unbroken := 3, 1, 0, false, false
		o := search.Options{Seed: 1, Workers: 1, WalkDepth: 200, Walks: 5, MaxPaths: 1000}
		for _, a := range td.CmdArgs {
			if a.Key == "tick" || a.Key == "unbroken" {
				tick, unbroken = true, unbroken || a.Key == "unbroken"
				continue
			}
			if len(a.Vals) != 1 {
				td.Fatalf(t, "%s: want one value", a.Key)
			}
			v := a.Vals[0]
			if a.Key == "strategy" {
				o.Strategy = v
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
				Failures: sim.Failures{Breaks: breaks},
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

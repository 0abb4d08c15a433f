package main

import (
	"context"
	cryptorand "crypto/rand"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/sim"
)

// kinds are the acts, each done once, at node 0's driver request; culprit
// is the node a finding should name (node 0 but where said).
var kinds = []struct {
	name, doc string
	act       func(n *node, ctx *sim.Context)
	culprit   sim.NodeID
	start     func(n *node, ctx *sim.Context) // at Start too, when set
}{
	{"map-2", "acts on the first key of a 2-entry map", func(n *node, ctx *sim.Context) {
		for k := range n.Small {
			n.First = k
			break
		}
	}, 0, nil},
	{"map-8", "acts on the first key of an 8-entry map", func(n *node, ctx *sim.Context) {
		for k := range n.Mid {
			n.First = k
			break
		}
	}, 0, nil},
	{"map-64", "acts on the first key of a 64-entry map", func(n *node, ctx *sim.Context) {
		for k := range n.Large {
			n.First = k
			break
		}
	}, 0, nil},
	{"map-order-send", "sends to the peers of a 3-entry map in its order", func(n *node, ctx *sim.Context) {
		for k := range n.Peers {
			ctx.Send(1, k)
		}
	}, 0, nil},
	{"math-rand", "draws from math/rand/v2's global source", func(n *node, ctx *sim.Context) { n.Drawn = rand.IntN(1000) }, 0, nil},
	{"crypto-rand", "draws from crypto/rand without the stand-in", func(n *node, ctx *sim.Context) {
		b := make([]byte, 2)
		_, _ = cryptorand.Read(b)
		n.Drawn = int(b[0])
	}, 0, nil},
	{"time-now", "keeps time.Now", func(n *node, ctx *sim.Context) { n.Drawn = int(time.Now().UnixNano() % 1000) }, 0, nil},
	{"goroutine-write", "starts a goroutine that writes the state 1ms later", func(n *node, ctx *sim.Context) {
		wg.Add(1)
		go func() { defer wg.Done(); time.Sleep(time.Millisecond); n.Drawn++ }()
	}, 0, nil},
	{"goroutine-send", "starts a goroutine that sends 1ms later", func(n *node, ctx *sim.Context) {
		wg.Add(1)
		go func() { defer wg.Done(); time.Sleep(time.Millisecond); ctx.Send(1, "late") }()
	}, 0, nil},
	{"background-write", "a goroutine started outside the handlers writes the state when a handler kicks it", func(n *node, ctx *sim.Context) {
		n.kick <- struct{}{}
	}, 0, nil},
	{"message-changed", "sends its log's slice and overwrites the log in the same handler", func(n *node, ctx *sim.Context) {
		ctx.Send(1, entries{Vals: n.Log})
		n.Log[0] = 9
	}, 0, nil},
	{"shared-state", "sends a copy of its log, which node 1 keeps as it got it; node 0 changes the copy at its next tick", func(n *node, ctx *sim.Context) {
		n.Sent = slices.Clone(n.Log)
		ctx.Send(1, entries{Vals: n.Sent})
	}, 1, nil},
	{"file-at-start", "appends to a file, which Start reads back", func(n *node, ctx *sim.Context) {
		f, err := os.OpenFile(diskFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, "put")
			f.Close()
		}
	}, 0, func(n *node, ctx *sim.Context) {
		b, _ := os.ReadFile(diskFile)
		n.Drawn = len(b)
	}},
	{"global-at-start", "counts its requests in a package variable, which Start reads", func(n *node, ctx *sim.Context) {
		requests.Add(1)
	}, 0, func(n *node, ctx *sim.Context) { n.Drawn = int(requests.Load()) }},
}

// diskFile and requests are the state file-at-start and global-at-start
// keep across executions.
var (
	diskFile = filepath.Join(os.TempDir(), fmt.Sprintf("macemc-nondet-%d.log", os.Getpid()))
	requests atomic.Int64
)

// entries is a message that holds a slice.
type entries struct{ Vals []int }

var wg sync.WaitGroup

type node struct {
	sim.Base
	Small, Mid, Large map[string]bool
	Peers             map[string]bool
	First             string
	Drawn             int
	Ticks             int
	Log, Sent, Kept   []int
	act, start        func(n *node, ctx *sim.Context)
	kick              chan struct{}
}

func (n *node) Start(ctx *sim.Context) {
	n.Small, n.Mid, n.Large, n.Peers = set(2), set(8), set(64), set(3)
	n.Log = []int{1, 2, 3}
	ctx.SetPeriodic("tick")
	if n.start != nil && ctx.Self() == 0 {
		n.start(n, ctx)
	}
}

func set(k int) map[string]bool {
	m := map[string]bool{}
	for i := range k {
		m[fmt.Sprintf("k%02d", i)] = true
	}
	return m
}

func (n *node) HandleApp(ctx *sim.Context, req any) { n.act(n, ctx) }
func (n *node) HandleTimer(ctx *sim.Context, name string) {
	n.Ticks++
	if n.Sent != nil {
		n.Sent[0]++
	}
}

func (n *node) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if e, ok := m.(entries); ok {
		n.Kept = e.Vals
	}
}

func system(kind int) *sim.System {
	k := kinds[kind]
	return &sim.System{Name: "nondet-" + k.name, Build: func(sim.Params) (*sim.Config, error) {
		return &sim.Config{
			Nodes: 2,
			Service: func(id sim.NodeID) sim.Service {
				n := &node{act: k.act, start: k.start}
				if k.name == "background-write" {
					// A goroutine of the node's own, started outside the
					// handlers; it is left waiting when never kicked.
					n.kick = make(chan struct{}, 1)
					go func() {
						<-n.kick
						time.Sleep(100 * time.Microsecond)
						n.Drawn++
					}()
				}
				return n
			},
			App: func(id sim.NodeID) []any {
				if id == 0 {
					return []any{"act"}
				}
				return nil
			},
			Liveness: []sim.Property{{Name: "Ticked", Check: func(v *sim.View) bool { return sim.Node[node](v, 0).Ticks >= 3 }}},
		}, nil
	}}
}

func main() {
	runs := pflag.Int("runs", 100, "runs per kind (seeds 1..runs)")
	replays := pflag.Int("replays", 2, "replays of the comparison column (the default column uses the pipeline's default)")
	pflag.Parse()
	want := map[string]bool{}
	for _, a := range pflag.Args() {
		want[a] = true
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "kind\tcaught (default replays)\tnames the node\tcaught (%d replays)\tfirst report\n", *replays)
	for i, k := range kinds {
		if len(want) > 0 && !want[k.name] {
			continue
		}
		sys := system(i)
		def, named, first := measure(sys, k.culprit, *runs, 0)
		cmp, _, _ := measure(sys, k.culprit, *runs, *replays)
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%d/%d\t%s\n", k.name, def, *runs, named, def, cmp, *runs, first)
	}
	tw.Flush()
	wg.Wait()
	_ = os.Remove(diskFile)
}

// measure runs the pipeline runs times and counts the nondeterminism
// findings and those that name node culprit; it returns the first
// finding's error text.
func measure(sys *sim.System, culprit sim.NodeID, runs, replays int) (caught, named int, first string) {
	for seed := 1; seed <= runs; seed++ {
		rep, err := search.Run(context.Background(), sys, search.Options{Seed: uint64(seed), MaxPaths: 20, WalkDepth: 200, Workers: 1, Replays: replays, NoCritical: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if f := rep.First(); f != nil && f.Verdict == search.VerdictNondeterministic {
			caught++
			if f.Node == int(culprit) {
				named++
			}
			if first == "" {
				first = f.Err.Error()
				if len(first) > 200 {
					first = first[:200] + "..."
				}
			}
		}
	}
	return caught, named, first
}

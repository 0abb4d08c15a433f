package pct_test

import (
	"context"
	"strings"
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/search/pct"
	"github.com/macemc/macemc/sim"
)

// poller polls with a timer until Elapsed says its timeout has passed,
// counting the timeouts to 3, and re-arms the timer either way: a "not
// yet" leaves the state as it was (the timer is armed again), which ends
// a schedule back at a state of its own path.
type poller struct {
	sim.Base
	N     int
	Since sim.Time
}

func (p *poller) Start(ctx *sim.Context) { ctx.SetTimer("poll") }

func (p *poller) HandleTimer(ctx *sim.Context, _ string) {
	if p.N < 3 && ctx.Elapsed(p.Since, 1) {
		p.N++
	}
	ctx.SetTimer("poll")
}

// pinger pings itself three times and is then done: a run of 4 steps.
type pinger struct {
	sim.Base
	N int
}

type ping struct{}

func (p *pinger) Start(ctx *sim.Context) { ctx.Send(0, ping{}) }

func (p *pinger) HandleMessage(ctx *sim.Context, _ sim.NodeID, _ sim.Message) {
	if p.N++; p.N < 3 {
		ctx.Send(0, ping{})
	}
}

func oneNode(svc func() sim.Service, live func(v *sim.View) bool) *sim.Config {
	return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return svc() },
		Liveness: []sim.Property{{Name: "Done", Check: live}}}
}

// TestWarningSaysWhySchedulesEnd: schedules that end far below k are
// warned of with what ended them (the search's last schedule is not told
// of its end: 39 of 40). Back at a state of their own path (an Elapsed
// "not yet" that re-arms a timer): the cause, and that a lower --pct-steps
// is no cure (it was the advice; --no-hashing, which it names, lets them
// run). With nothing ready: the k that fits them.
func TestWarningSaysWhySchedulesEnd(t *testing.T) {
	poll := oneNode(func() sim.Service { return &poller{} }, func(v *sim.View) bool { return sim.Node[poller](v, 0).N == 3 })
	pings := oneNode(func() sim.Service { return &pinger{} }, func(v *sim.View) bool { return sim.Node[pinger](v, 0).N == 3 })
	for _, tc := range []struct {
		name      string
		cfg       *sim.Config
		noHashing bool
		want      []string // in the warning; nil: no warning
		not       string
	}{
		{"own states", poll, false, []string{"39 of the 39 ended back at a state of their own path", "such as a timer re-armed until Elapsed says yes",
			"A lower --pct-steps would not make them run longer; with --no-hashing a schedule is not cut"}, "draws them where the schedules run"},
		{"own states, not cut", poll, true, nil, ""},
		{"nothing ready", pings, false, []string{"(39 of the 39 with nothing ready, 0 back at a state of their own path)", "--pct-steps 3 draws them where the schedules run"}, "Elapsed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := explore.Run(context.Background(), explore.Config{System: tc.cfg, Strategy: pct.Strategy{}, Seed: 1, MaxPaths: 40, WalkDepth: 200, Workers: 1, NoHashing: tc.noHashing})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(res.Warnings) > 0 {
					t.Errorf("warnings %q", res.Warnings)
				}
				return
			}
			if len(res.Warnings) != 1 {
				t.Fatalf("warnings %q, want one", res.Warnings)
			}
			w := res.Warnings[0]
			for _, s := range tc.want {
				if !strings.Contains(w, s) {
					t.Errorf("warning lacks %q:\n%s", s, w)
				}
			}
			if strings.Contains(w, tc.not) {
				t.Errorf("warning has %q:\n%s", tc.not, w)
			}
		})
	}
}

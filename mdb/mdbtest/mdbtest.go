package mdbtest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// SystemName is the name the fixture system is registered under.
const SystemName = "mdbtest-ping"

// Data carries one numbered message from the sender to the receiver.
type Data struct{ Seq int }

// Ack acknowledges the Data with the same sequence number.
type Ack struct{ Seq int }

// Beat is the receiver's periodic heartbeat to the sender.
type Beat struct{ N int }

// Note tells the monitor the receiver saw a new sequence number.
type Note struct{ Seq int }

// Sender is node 0.
type Sender struct {
	sim.Base
	Fixed bool `macemc:"-"`
	Seq   int  // last sequence number sent
	Acked int  // last sequence number acknowledged
	Beats int
}

// HandleApp sends the next Data and arms the retransmission timer.
func (s *Sender) HandleApp(ctx *sim.Context, req any) {
	s.Seq++
	ctx.SendDatagram(1, Data{Seq: s.Seq})
	ctx.SetTimer("retx")
}

// HandleTimer retransmits the latest Data until it is acknowledged.
func (s *Sender) HandleTimer(ctx *sim.Context, name string) {
	if name == "retx" && s.Acked < s.Seq {
		ctx.Logf("retransmit %d", s.Seq)
		ctx.SendDatagram(1, Data{Seq: s.Seq})
		ctx.SetTimer("retx")
	}
}

// HandleMessage handles Acks (with the bug) and Beats.
func (s *Sender) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case Ack:
		if m.Seq == s.Seq {
			s.Acked = m.Seq
			ctx.CancelTimer("retx")
		} else if !s.Fixed {
			ctx.Logf("stale ack %d", m.Seq)
			ctx.CancelTimer("retx") // the bug: a stale Ack stops retransmission
		}
	case Beat:
		s.Beats++
	}
}

// Receiver is node 1.
type Receiver struct {
	sim.Base
	Last  int // highest sequence number received
	Beats int
}

// Start arms the heartbeat.
func (r *Receiver) Start(ctx *sim.Context) { ctx.SetPeriodic("beat") }

// HandleMessage acknowledges Data and reports new sequence numbers.
func (r *Receiver) HandleMessage(ctx *sim.Context, from sim.NodeID, m sim.Message) {
	if d, ok := m.(Data); ok {
		if d.Seq > r.Last {
			r.Last = d.Seq
			ctx.Send(2, Note{Seq: d.Seq})
		}
		ctx.SendDatagram(from, Ack{Seq: d.Seq})
	}
}

// HandleTimer sends a heartbeat.
func (r *Receiver) HandleTimer(ctx *sim.Context, name string) {
	r.Beats++
	ctx.SendDatagram(0, Beat{N: r.Beats})
}

// Monitor is node 2.
type Monitor struct {
	sim.Base
	Notes  []int
	Broken int
}

// HandleMessage records a Note.
func (m *Monitor) HandleMessage(ctx *sim.Context, from sim.NodeID, msg sim.Message) {
	if n, ok := msg.(Note); ok {
		m.Notes = append(m.Notes, n.Seq)
	}
}

// HandleConnError counts broken connections.
func (m *Monitor) HandleConnError(ctx *sim.Context, peer sim.NodeID) { m.Broken++ }

// Config builds the fixture's config; fixed removes the bug.
func Config(fixed bool) *sim.Config {
	return &sim.Config{
		Nodes: 3,
		Service: func(id sim.NodeID) sim.Service {
			switch id {
			case 0:
				return &Sender{Fixed: fixed}
			case 1:
				return &Receiver{}
			default:
				return &Monitor{}
			}
		},
		App: func(id sim.NodeID) []any {
			if id == 0 {
				return []any{"send", "send"}
			}
			return nil
		},
		Safety: []sim.Property{{Name: "NoFutureData", Check: func(v *sim.View) bool {
			s, r := sim.Node[Sender](v, 0), sim.Node[Receiver](v, 1)
			return r.Last <= 2 && s.Acked <= s.Seq
		}}},
		Liveness: []sim.Property{{Name: "AllAcked", Check: func(v *sim.View) bool {
			return sim.Node[Sender](v, 0).Acked == 2
		}}},
		Failures: sim.Failures{Drops: 2, Breaks: 1, Resets: 1},
	}
}

var once sync.Once

// Register registers the fixture system; calling it again does nothing.
func Register() {
	once.Do(func() {
		sim.Register(&sim.System{
			Name:   SystemName,
			Doc:    "mdb test fixture: a stale Ack cancels the retransmission timer",
			Params: []sim.ParamSpec{{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "remove the bug"}},
			Build: func(p sim.Params) (*sim.Config, error) {
				return Config(p.Bool("fixed")), nil
			},
		})
	})
}

// Options say what Find looks for. Zero values take the defaults.
type Options struct {
	// Depth is the step from which failures are off (the search depth,
	// trace.FailuresUntil). Default 12.
	Depth int
	// Steps is the length of the error path. Default 200.
	Steps int
	// WalkDepth is d_max of the walks that decide whether a state can still
	// become live. Default 300.
	WalkDepth int
	// Walks is k, the number of walks per probe. Default 40.
	Walks int
	// Seed is the first seed tried for the error path. Default 1.
	Seed uint64
	// Tries is how many seeds are tried. Default 200.
	Tries int
}

func (o *Options) defaults() {
	if o.Depth <= 0 {
		o.Depth = 12
	}
	if o.Steps <= 0 {
		o.Steps = 200
	}
	if o.WalkDepth <= 0 {
		o.WalkDepth = 300
	}
	if o.Walks <= 0 {
		o.Walks = 40
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Tries <= 0 {
		o.Tries = 200
	}
}

// Found is a liveness violation of the fixture with its critical step and
// the live path that shares the longest prefix with it, as traces.
type Found struct {
	Error, Live *trace.Trace
}

// ErrNotFound means no seed in the tried range gave a liveness violation.
var ErrNotFound = errors.New("mdbtest: no liveness violation found")

func simOptions(depth int) engine.Options { return engine.Options{FailuresUntil: depth} }

// Walk runs a seeded weighted random walk of the fixture for steps steps
// from the initial state and returns its trace (Kind "prefix").
func Walk(seed uint64, steps, depth int) (*trace.Trace, error) {
	Register()
	return walk(SystemName, map[string]string{"fixed": "false"}, seed, steps, depth, nil)
}

// walk runs a seeded walk of a registered system, stopping early when stop
// says so.
func walk(system string, params map[string]string, seed uint64, steps, depth int, stop func(*engine.Sim) bool) (*trace.Trace, error) {
	sys, err := sim.Lookup(system)
	if err != nil {
		return nil, fmt.Errorf("mdbtest: %w", err)
	}
	cfg, _, err := sys.Config(params)
	if err != nil {
		return nil, fmt.Errorf("mdbtest: %w", err)
	}
	opts := simOptions(depth)
	opts.Chooser = engine.NewRandom(seed)
	s, err := engine.New(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("mdbtest: %w", err)
	}
	for s.Steps() < steps && (stop == nil || !stop(s)) {
		ok, err := s.Step()
		if err != nil {
			return nil, fmt.Errorf("mdbtest: walk %d: %w", seed, err)
		}
		if !ok {
			break
		}
	}
	return &trace.Trace{
		Tool: "mdbtest", System: system, Params: params, Seed: seed,
		Choices: s.ChoiceValues(), Steps: s.Steps(), FailuresUntil: depth, Kind: trace.KindPrefix, Depth: depth,
		Critical: -1,
	}, nil
}

// Find looks for a seeded walk of the fixture that never becomes live; see
// FindIn.
func Find(o Options) (*Found, error) {
	Register()
	return FindIn(SystemName, map[string]string{"fixed": "false"}, o)
}

// FindIn looks for a seeded walk of a registered system that never becomes
// live, and finds its critical transition and live alternative with
// package critical (seed 003 Algorithm 3, k = o.Walks, d_max =
// o.WalkDepth), as the traces macemc writes. The walk is never live, so the
// search starts from the initial state (d_init 0) rather than from the
// failures' horizon o.Depth: the drops that cause a violation come before
// it, and so, often, does the critical transition.
// A walk whose search ends without a critical transition (C2) or without a
// live alternative is passed over for the next seed.
func FindIn(system string, params map[string]string, o Options) (*Found, error) {
	o.defaults()
	sys, err := sim.Lookup(system)
	if err != nil {
		return nil, fmt.Errorf("mdbtest: %w", err)
	}
	cfg, _, err := sys.Config(params)
	if err != nil {
		return nil, fmt.Errorf("mdbtest: %w", err)
	}
	if len(cfg.Liveness) == 0 {
		return nil, fmt.Errorf("mdbtest: system %s has no liveness property", system)
	}
	live := func(s *engine.Sim) bool { ok, _ := s.AllHold(cfg.Liveness); return ok }
	for seed := o.Seed; seed < o.Seed+uint64(o.Tries); seed++ {
		t, err := walk(system, params, seed, o.Steps, o.Depth, live)
		if err != nil {
			return nil, err
		}
		s, err := t.Replay(-1, nil)
		if err != nil {
			return nil, err
		}
		if live(s) {
			continue
		}
		t.Kind, t.Property, t.WalkDepth = trace.KindLiveness, cfg.Liveness[0].Name, o.WalkDepth
		c, err := critical.FromTrace(t)
		if err != nil {
			return nil, fmt.Errorf("mdbtest: %w", err)
		}
		c.Walks, c.DInit = o.Walks, 0
		res, err := critical.Find(context.Background(), c)
		if err != nil {
			return nil, fmt.Errorf("mdbtest: seed %d: %w", seed, err)
		}
		if res.Condition != critical.C1 || res.Live == nil {
			continue
		}
		res.Annotate(t)
		return &Found{Error: t, Live: res.Live.Trace(t)}, nil
	}
	return nil, ErrNotFound
}

// Files are the paths Write wrote.
type Files struct {
	Dir, Error, Live string
	Found            *Found
}

// Write finds a violation with Find and writes error.trace and live.trace
// into dir, as `macemc search` would.
func Write(dir string, o Options) (*Files, error) {
	f, err := Find(o)
	if err != nil {
		return nil, err
	}
	out := &Files{Dir: dir, Error: filepath.Join(dir, "error.trace"), Live: filepath.Join(dir, "live.trace"), Found: f}
	if err := f.Error.Write(out.Error); err != nil {
		return nil, err
	}
	if err := f.Live.Write(out.Live); err != nil {
		return nil, err
	}
	return out, nil
}

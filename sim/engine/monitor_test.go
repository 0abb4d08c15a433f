package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Pending is a liveness and safety monitor in seed 001's style: a request
// makes it hot until a reply comes; a reply without a request is an
// assertion failure.
type Pending struct {
	Open int
}

type opened struct{}
type closed struct{}

func (m *Pending) Handle(ev any) error {
	switch ev.(type) {
	case opened:
		m.Open++
	case closed:
		if m.Open == 0 {
			return errors.New("reply without a request")
		}
		m.Open--
	}
	return nil
}

func (m *Pending) Hot() bool { return m.Open > 0 }

// notifier notifies what its driver requests say; it keeps no state of
// its own, so only the monitor tells the states apart.
type notifier struct{ sim.Base }

func (notifier) HandleApp(ctx *sim.Context, req any) { ctx.Notify(req) }

func monitorConfig(reqs ...any) *sim.Config {
	cfg := &sim.Config{
		Nodes:    2,
		Service:  func(sim.NodeID) sim.Service { return notifier{} },
		App:      func(id sim.NodeID) []any { return reqs[:len(reqs)*int(1-id)] },
		Monitors: []sim.MonitorSpec{{Name: "Pending", New: func() sim.Monitor { return &Pending{} }}},
		Failures: sim.Failures{Resets: 1},
	}
	cfg.AddMonitorProperties()
	return cfg
}

// TestMonitor: a notified monitor changes the global state, survives a
// node reset, is copied by Clone and restarted by Reset, and its
// properties (safety: no failed assertion; liveness: not hot) hold as its
// state says.
func TestMonitor(t *testing.T) {
	cfg := monitorConfig(opened{}, closed{}, closed{})
	if len(cfg.Safety) != 1 || len(cfg.Liveness) != 1 || cfg.Safety[0].Name != "Pending" || cfg.Liveness[0].Name != "Pending" {
		t.Fatalf("monitor properties: safety %v, liveness %v", cfg.Safety, cfg.Liveness)
	}
	cfg.AddMonitorProperties() // idempotent
	if len(cfg.Safety) != 1 || len(cfg.Liveness) != 1 {
		t.Fatalf("AddMonitorProperties added twice: %d safety, %d liveness", len(cfg.Safety), len(cfg.Liveness))
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRecorded(nil)})
	if err != nil {
		t.Fatal(err)
	}
	live := func() bool { ok, _ := s.AllHold(cfg.Liveness); return ok }
	safe := func() bool { ok, _ := s.AllHold(cfg.Safety); return ok }
	h0 := s.Hash()
	if !live() || !safe() {
		t.Fatal("the initial state is hot or unsafe")
	}
	// Ready: node 0's request, then the resets of nodes 0 and 1.
	if err := s.StepEvent(0); err != nil { // opened
		t.Fatal(err)
	}
	h1 := s.Hash()
	if h1 == h0 || live() || !safe() {
		t.Fatalf("after opened: hash changed %v, live %v, safe %v", h1 != h0, live(), safe())
	}
	if m := sim.MonitorOf[Pending](s.View()); m == nil || m.Open != 1 {
		t.Fatalf("MonitorOf = %+v", m)
	}
	if got := s.MonitorText(0); got != "monitor Pending (Pending)\nhot\nOpen: 1\n" {
		t.Errorf("MonitorText = %q", got)
	}
	c := s.Clone(engine.NewRecorded(nil))
	// Reset node 1 (ready: node 0's next request, reset 0, reset 1): the
	// monitor stays hot.
	if err := s.StepEvent(2); err != nil {
		t.Fatal(err)
	}
	if ev := s.LastEvent(); ev.Kind != engine.EvReset || ev.Node != 1 {
		t.Fatalf("stepped %s, want node 1's reset", ev)
	}
	if live() {
		t.Fatal("a node reset cooled the monitor")
	}
	if err := s.StepEvent(0); err != nil { // closed
		t.Fatal(err)
	}
	if !live() || !safe() {
		t.Fatal("after closed: not live or unsafe")
	}
	if err := s.StepEvent(0); err != nil { // closed again: assertion
		t.Fatal(err)
	}
	if safe() {
		t.Fatal("a failed assertion left the safety property holding")
	}
	if _, failure := s.Monitor(0); failure != "reply without a request" {
		t.Fatalf("failure %q", failure)
	}
	if !strings.Contains(s.MonitorText(0), "assertion failed: reply without a request") {
		t.Errorf("MonitorText does not show the failure: %q", s.MonitorText(0))
	}
	// The clone kept its own copy.
	if m, _ := c.Monitor(0); m.(*Pending).Open != 1 || c.Hash() != h1 {
		t.Fatalf("clone's monitor %+v", m)
	}
	// Reset restarts the monitor.
	if err := s.Reset(engine.NewRecorded(nil)); err != nil {
		t.Fatal(err)
	}
	if m, failure := s.Monitor(0); m.(*Pending).Open != 0 || failure != "" || s.Hash() != h0 {
		t.Fatalf("after Reset: %+v, %q", m, failure)
	}
}

// TestMonitorHashMemo: the part hashes restored onto a replayed state
// include the monitors', so a memo restore leaves Hash right.
func TestMonitorHashMemo(t *testing.T) {
	cfg := monitorConfig(opened{}, opened{})
	s, err := engine.New(cfg, engine.Options{Chooser: engine.NewRecorded([]int32{0})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(); err != nil {
		t.Fatal(err)
	}
	var m engine.HashMemo
	s.SaveHashes(&m)
	want := s.Hash()
	r, err := engine.Replay(cfg, []int32{0}, 1, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.RestoreHashes(&m) || r.Hash() != want {
		t.Fatal("memo restore of a state with a monitor")
	}
	// A memo of a config without the monitor does not fit.
	plain := *cfg
	plain.Monitors = nil
	p, err := engine.New(&plain, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.RestoreHashes(&m) {
		t.Fatal("a memo with a monitor restored onto a state without one")
	}
}

// TestMonitorConfig: Validate rejects monitors without a name or New,
// monitors declared twice, and properties named after a monitor.
func TestMonitorConfig(t *testing.T) {
	newP := func() sim.Monitor { return &Pending{} }
	base := func() *sim.Config {
		return &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return notifier{} }}
	}
	prop := sim.Property{Name: "Pending", Check: func(*sim.View) bool { return true }}
	for name, mutate := range map[string]func(c *sim.Config){
		"no name": func(c *sim.Config) { c.Monitors = []sim.MonitorSpec{{New: newP}} },
		"no New":  func(c *sim.Config) { c.Monitors = []sim.MonitorSpec{{Name: "Pending"}} },
		"twice":   func(c *sim.Config) { c.Monitors = []sim.MonitorSpec{{Name: "P", New: newP}, {Name: "P", New: newP}} },
		"shadowed": func(c *sim.Config) {
			c.Monitors = []sim.MonitorSpec{{Name: "Pending", New: newP}}
			c.Safety = []sim.Property{prop}
		},
		"dup in both": func(c *sim.Config) { c.Safety, c.Liveness = []sim.Property{prop}, []sim.Property{prop} },
	} {
		c := base()
		mutate(c)
		c.AddMonitorProperties()
		if err := c.Validate(); !errors.Is(err, sim.ErrBadConfig) {
			t.Errorf("%s: Validate = %v", name, err)
		}
	}
	// Selecting the monitor keeps both of its properties.
	c := monitorConfig()
	c.Safety = append(c.Safety, sim.Property{Name: "Other", Check: func(*sim.View) bool { return true }})
	if err := c.Select([]string{"Pending"}); err != nil || len(c.Safety) != 1 || len(c.Liveness) != 1 {
		t.Fatalf("Select(Pending) = %v: %d safety, %d liveness", err, len(c.Safety), len(c.Liveness))
	}
}

// TestSafetyOnlyMonitor: a monitor without hot states adds no liveness
// property, so a system that had none still has none.
func TestSafetyOnlyMonitor(t *testing.T) {
	c := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return notifier{} },
		Monitors: []sim.MonitorSpec{{Name: "Count", New: func() sim.Monitor { return &counter{} }}}}
	c.AddMonitorProperties()
	if len(c.Safety) != 1 || len(c.Liveness) != 0 {
		t.Fatalf("safety-only monitor: %d safety, %d liveness", len(c.Safety), len(c.Liveness))
	}
}

type counter struct{ N int }

func (c *counter) Handle(any) error { c.N++; return nil }

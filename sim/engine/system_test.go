package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

func testSystem(name string) *sim.System {
	return &sim.System{
		Name: name,
		Params: []sim.ParamSpec{
			{Name: "nodes", Kind: sim.ParamInt, Default: "2"},
			{Name: "fixed", Kind: sim.ParamBool, Default: "false"},
			{Name: "label", Kind: sim.ParamString, Default: "x"},
		},
		Build: func(p sim.Params) (*sim.Config, error) {
			if p.String("label") == "fail" {
				return nil, errors.New("build refused")
			}
			cfg := pingConfig()
			cfg.Nodes = p.Int("nodes")
			cfg.Safety = []sim.Property{{Name: "S", Check: func(*sim.View) bool { return true }}}
			return cfg, nil
		},
	}
}

func TestRegistry(t *testing.T) {
	// The registry is global: register once even under -count=N.
	for _, name := range []string{"registrytest-b", "registrytest-a"} {
		if _, err := sim.Lookup(name); err != nil {
			sim.Register(testSystem(name))
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "registrytest-a") {
				t.Fatalf("duplicate Register: recovered %v", r)
			}
		}()
		sim.Register(testSystem("registrytest-a"))
	}()
	for _, bad := range []*sim.System{nil, {Name: "registrytest-nobuild"}, {Build: testSystem("x").Build}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("Register(%v) did not panic", bad)
				}
			}()
			sim.Register(bad)
		}()
	}
	s, err := sim.Lookup("registrytest-a")
	if err != nil || s.Name != "registrytest-a" {
		t.Fatal(err)
	}
	_, err = sim.Lookup("registrytest-nope")
	if !errors.Is(err, sim.ErrUnknownSystem) || !strings.Contains(err.Error(), "registrytest-a, registrytest-b") || !strings.Contains(err.Error(), `"registrytest-nope"`) {
		t.Fatalf("unknown system: %v", err)
	}
	var names []string
	for _, s := range sim.Systems() {
		if strings.HasPrefix(s.Name, "registrytest-") {
			names = append(names, s.Name)
		}
	}
	if strings.Join(names, ",") != "registrytest-a,registrytest-b" {
		t.Fatalf("Systems: %v", names)
	}
}

func TestParams(t *testing.T) {
	sys := testSystem("params")
	p, err := sys.Resolve(nil)
	if err != nil || p.Int("nodes") != 2 || p.Bool("fixed") || p.String("label") != "x" {
		t.Fatalf("defaults: %v %v", p, err)
	}
	p, err = sys.Resolve(map[string]string{"nodes": "5", "fixed": "true", "label": "y"})
	if err != nil || p.Int("nodes") != 5 || !p.Bool("fixed") || p.Canonical() != "fixed=true,label=y,nodes=5" {
		t.Fatalf("given: %v %v", p, err)
	}
	_, err = sys.Resolve(map[string]string{"nodez": "5"})
	if !errors.Is(err, sim.ErrUnknownParam) || !strings.Contains(err.Error(), "nodes, fixed, label") {
		t.Fatalf("unknown param: %v", err)
	}
	for k, v := range map[string]string{"nodes": "two", "fixed": "yes"} {
		if _, err := sys.Resolve(map[string]string{k: v}); !errors.Is(err, sim.ErrBadParam) {
			t.Fatalf("%s=%s: %v", k, v, err)
		}
	}
	if _, err := sys.Resolve(map[string]string{"label": "anything at all"}); err != nil {
		t.Fatal(err)
	}
	if p.Int("missing") != 0 || p.Bool("missing") || sim.ParamInt.String() != "int" || sim.ParamBool.String() != "bool" || sim.ParamString.String() != "string" {
		t.Fatal("absent params or kind names")
	}

	cfg, p, err := sys.Config(map[string]string{"nodes": "3"})
	if err != nil || cfg.Nodes != 3 || p.Int("nodes") != 3 {
		t.Fatalf("Config: %v", err)
	}
	if _, _, err := sys.Config(map[string]string{"nodes": "0"}); !errors.Is(err, sim.ErrBadConfig) {
		t.Fatalf("0 nodes: %v", err)
	}
	if _, _, err := sys.Config(map[string]string{"label": "fail"}); err == nil || !strings.Contains(err.Error(), "build refused") {
		t.Fatalf("failing Build: %v", err)
	}
	if _, _, err := sys.Config(map[string]string{"bogus": "1"}); !errors.Is(err, sim.ErrUnknownParam) {
		t.Fatalf("Config with unknown param: %v", err)
	}
}

func TestConfigSelectValidate(t *testing.T) {
	cfg := testSystem("sel")
	c, _, err := cfg.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Select(nil); err != nil || len(c.Safety) != 1 || len(c.Liveness) != 1 {
		t.Fatal("Select(nil) must keep everything")
	}
	if err := c.Select([]string{"Done"}); err != nil || len(c.Safety) != 0 || len(c.Liveness) != 1 {
		t.Fatalf("Select(Done): %v", err)
	}
	c, _, _ = cfg.Config(nil)
	err = c.Select([]string{"S", "Nope", "Alsono"})
	if !errors.Is(err, sim.ErrUnknownProperty) || !strings.Contains(err.Error(), "Alsono, Nope") {
		t.Fatalf("unknown property: %v", err)
	}

	good := pingConfig()
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	var nilCfg *sim.Config
	bad := []*sim.Config{
		nilCfg,
		{Nodes: 0, Service: good.Service},
		{Nodes: 2},
		{Nodes: 2, Service: good.Service, Safety: []sim.Property{{Name: "x"}}},
		{Nodes: 2, Service: good.Service, Safety: []sim.Property{{Check: good.Liveness[0].Check}}},
		{Nodes: 2, Service: good.Service, Safety: good.Liveness, Liveness: good.Liveness},
	}
	for i, c := range bad {
		if err := c.Validate(); !errors.Is(err, sim.ErrBadConfig) {
			t.Errorf("bad config %d: %v", i, err)
		}
		if _, err := engine.New(c, engine.Options{}); !errors.Is(err, sim.ErrBadConfig) {
			t.Errorf("New with bad config %d: %v", i, err)
		}
	}
}

func TestEventNames(t *testing.T) {
	ks := engine.EventKinds()
	if len(ks) != int(engine.EvHeal)+1 || !strings.HasPrefix(engine.EventKind(len(ks)).String(), "kind(") {
		t.Fatalf("EventKinds: %v", ks)
	}
	for _, k := range ks {
		got, ok := engine.ParseEventKind(k.String())
		if !ok || got != k {
			t.Fatalf("kind %v does not round-trip", k)
		}
	}
	if _, ok := engine.ParseEventKind("nope"); ok {
		t.Fatal("parsed an unknown kind")
	}
	if !engine.EvReset.IsFailure() || !engine.EvDrop.IsFailure() || engine.EvTimer.IsFailure() {
		t.Fatal("IsFailure")
	}
	if engine.EvConnError.Class() != engine.ClassMessage || engine.EvBreak.Class() != engine.ClassFailure || engine.EvApp.Class() != engine.ClassApp {
		t.Fatal("Class")
	}
	if sim.MessageName(Num{}) != "Num" || sim.MessageName(&Num{}) != "Num" || sim.MessageName(nil) != "nil" || sim.MessageName([]int{}) != "[]int" {
		t.Fatal("MessageName")
	}
	e := engine.Event{Kind: engine.EvDrop, Node: 1, Peer: 0, Msg: Num{Seq: 3}}
	if e.String() != "datagram Num{From: 0, Seq: 3} from node 0 to node 1 is dropped" {
		t.Fatalf("event text %q", e.String())
	}
	if engine.ChooseEvent.String() != "event" || engine.ChooseRandom.String() != "random" || engine.ChooseTime.String() != "time" {
		t.Fatal("choice kind names")
	}
}

func TestFormat(t *testing.T) {
	type st struct {
		A      int
		b      map[int]string
		S      []string
		Skip   int `macemc:"-"`
		P      *Num
		Nested struct{ X, Y int }
	}
	v := &st{A: 1, b: map[int]string{10: "ten", 9: "nine", 100: "hundred"}, S: []string{"a"}, Skip: 5, P: &Num{Seq: 2}}
	if got := engine.FormatValue(v); got != `&st{A: 1, b: {9: "nine", 10: "ten", 100: "hundred"}, S: ["a"], P: &Num{From: 0, Seq: 2}, Nested: struct { X int; Y int }{X: 0, Y: 0}}` {
		t.Fatalf("FormatValue: %s", got)
	}
	want := "A: 1\nb: {9: \"nine\", 10: \"ten\", 100: \"hundred\"}\nS: [\"a\"]\nP: &Num{From: 0, Seq: 2}\nNested: struct { X int; Y int }{X: 0, Y: 0}\n"
	if got := engine.FormatState(v); got != want {
		t.Fatalf("FormatState:\n%s\nwant\n%s", got, want)
	}
	// Long values are spread over lines.
	long := map[string][]int{}
	for _, k := range []string{"alpha", "beta", "gamma", "delta", "epsilon"} {
		long[k] = []int{1, 2, 3, 4, 5, 6}
	}
	got := engine.FormatState(&struct{ Long map[string][]int }{long})
	if strings.Count(got, "\n") < 6 || !strings.HasPrefix(got, "Long: {\n  \"alpha\": [1, 2, 3, 4, 5, 6]\n") {
		t.Fatalf("long FormatState:\n%s", got)
	}
	// A pointer keeps its & when its value is spread over lines, as on
	// one line: a pointer and a value never look alike.
	type entry struct {
		Name string
		Prev *entry
	}
	type node struct {
		Last  *entry
		Val   entry
		Short *entry
		M     map[string]*entry
		S     *[]int
	}
	name := strings.Repeat("x", 70)
	e := func() *entry { return &entry{Name: name, Prev: &entry{Name: name}} } // equal, not shared
	nums := make([]int, 40)
	want = `Last: &entry{
  Name: "` + name + `"
  Prev: &entry{
    Name: "` + name + `"
    Prev: nil
  }
}
Val: entry{
  Name: "` + name + `"
  Prev: &entry{
    Name: "` + name + `"
    Prev: nil
  }
}
Short: &entry{Name: "s", Prev: nil}
M: {
  "k": &entry{
    Name: "` + name + `"
    Prev: &entry{
      Name: "` + name + `"
      Prev: nil
    }
  }
}
S: &[
`
	for i := range nums {
		want += fmt.Sprintf("  %d: 0\n", i)
	}
	want += "]\n"
	if got := engine.FormatState(&node{Last: e(), Val: *e(), Short: &entry{Name: "s"}, M: map[string]*entry{"k": e()}, S: &nums}); got != want {
		t.Fatalf("FormatState of pointers spread over lines:\n%s\nwant\n%s", got, want)
	}
}

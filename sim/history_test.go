package sim_test

import (
	"errors"
	"testing"

	"github.com/macemc/macemc/sim"
)

func modelConfig() *sim.Config {
	return &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &sim.Base{} },
		Safety:  []sim.Property{{Name: "S", Check: func(*sim.View) bool { return true }}},
		Model:   &sim.Model{Init: func() any { return 0 }, Apply: func(s, _ any) (any, any) { return s, s }},
	}
}

// TestSelectLinearizable: Linearizable names the model's check: selecting
// it keeps the model, selecting other properties drops it.
func TestSelectLinearizable(t *testing.T) {
	c := modelConfig()
	if err := c.Select([]string{sim.Linearizable}); err != nil || c.Model == nil || len(c.Safety) != 0 {
		t.Fatalf("select Linearizable: %v, model %v, %d safety", err, c.Model != nil, len(c.Safety))
	}
	c = modelConfig()
	if err := c.Select([]string{"S"}); err != nil || c.Model != nil || len(c.Safety) != 1 {
		t.Fatalf("select S: %v, model %v", err, c.Model != nil)
	}
	c = modelConfig()
	if err := c.Select(nil); err != nil || c.Model == nil {
		t.Fatalf("select nothing: %v, model %v", err, c.Model != nil)
	}
	c = modelConfig()
	c.Model = nil
	if err := c.Select([]string{sim.Linearizable}); !errors.Is(err, sim.ErrUnknownProperty) {
		t.Fatalf("Linearizable without a model: %v", err)
	}
}

// TestSelectUnknown: selecting a property the system lacks names it and
// the properties the system has, the model's check included.
func TestSelectUnknown(t *testing.T) {
	c := modelConfig()
	c.Liveness = []sim.Property{{Name: "L", Check: func(*sim.View) bool { return true }}}
	err := c.Select([]string{"Nope", "S", "Zip"})
	if !errors.Is(err, sim.ErrUnknownProperty) || err.Error() != "sim: unknown property: Nope, Zip (it has: L, Linearizable, S)" {
		t.Fatalf("select unknown properties: %v", err)
	}
}

// TestModelValidate: a model needs Init and Apply.
func TestModelValidate(t *testing.T) {
	c := modelConfig()
	c.Model.Apply = nil
	if err := c.Validate(); !errors.Is(err, sim.ErrBadConfig) {
		t.Fatalf("model without Apply: %v", err)
	}
}

// TestHistoryEventString: events print their client and value.
func TestHistoryEventString(t *testing.T) {
	for _, tc := range []struct {
		e    sim.HistoryEvent
		want string
	}{
		{sim.HistoryEvent{Kind: sim.Invocation, Client: 2, Value: struct{ V int }{3}}, "client 2 invokes {V:3}"},
		{sim.HistoryEvent{Kind: sim.Response, Client: 2, Value: "ok"}, "client 2 returns ok"},
	} {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("%q, want %q", got, tc.want)
		}
	}
}

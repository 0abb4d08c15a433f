package trace_test

import (
	"errors"
	"fmt"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// ExampleTrace_ReplayChecked records an execution of the relay system,
// stamps its trace with the states it went through, and replays it with
// the relay's code changed (it no longer passes on tokens of 6 and up):
// the replay says where it left the recorded execution.
func ExampleTrace_ReplayChecked() {
	sys, _ := sim.Lookup("tracetest-relay")
	cfg, params, _ := sys.Config(map[string]string{"nodes": "4"})
	s, _ := engine.New(cfg, engine.Options{Chooser: engine.NewRandom(2)})
	for s.Steps() < 20 {
		if ok, err := s.Step(); err != nil || !ok {
			break
		}
	}
	t := &trace.Trace{System: "tracetest-relay", Params: params, Choices: s.ChoiceValues(), Steps: s.Steps()}
	if err := t.Stamp(); err != nil {
		fmt.Println(err)
		return
	}

	_, diverged, err := t.ReplayChecked(cfg, -1, t.Options())
	fmt.Println("same code:", diverged, err)

	defer setRelayLimit(6)()
	changed, _, _ := sys.Config(t.Params)
	_, diverged, err = t.ReplayChecked(changed, -1, t.Options())
	fmt.Println("changed code: diverged after step", diverged.Step)
	fmt.Println("the choices fit:", !errors.Is(err, trace.ErrNoFit))
	// Output:
	// same code: <nil> <nil>
	// changed code: diverged after step 15
	// the choices fit: false
}

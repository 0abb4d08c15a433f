package simtest

import (
	"errors"
	"fmt"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
	"github.com/macemc/macemc/walks"
)

// HangTrace runs simtest-hang with the application request first, so that
// the timer's handler of step 2 never returns, under a watchdog of timeout,
// and returns the trace a search writes for it: kind "safety", property
// walks.HangProperty, one step (the trace ends before the hung step), and
// the timeout.
func HangTrace(timeout time.Duration) (*trace.Trace, error) {
	sys, err := sim.Lookup(Hang)
	if err != nil {
		return nil, err
	}
	cfg, _, err := sys.Config(nil)
	if err != nil {
		return nil, err
	}
	s, err := engine.NewGuarded(cfg, engine.Options{}, timeout)
	if err != nil {
		return nil, err
	}
	err = s.Guard(timeout, func() error {
		for i, e := range s.Ready() {
			if e.Kind == engine.EvApp {
				if err := s.StepEvent(i); err != nil {
					return err
				}
				break
			}
		}
		_, err := s.Step()
		return err
	})
	var hang *engine.HangError
	if !errors.As(err, &hang) {
		return nil, fmt.Errorf("simtest: want a hang at step 2, got %v", err)
	}
	return &trace.Trace{System: Hang, Params: map[string]string{}, Choices: hang.Choices, Steps: hang.Step, Kind: "safety",
		Property: walks.HangProperty, Critical: -1, HandlerTimeout: timeout}, nil
}

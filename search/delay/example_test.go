package delay_test

import (
	"context"
	"fmt"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/services/scheduler"
	"github.com/macemc/macemc/services/transport"
	"github.com/macemc/macemc/sim"
)

// Example searches MaceTransport (services/transport) by delay bounding
// over each of the three base schedulers. Round r runs the schedules with
// at most r-1 delays: seed 002's round-robin (rr) finds the stale-SYN bug
// on the base schedule itself, run-to-completion (rtc) needs one delay and
// round-robin with one event per turn (rr-event) four. The
// critical-transition search is skipped to keep the example short.
func Example() {
	sys, err := sim.Lookup(transport.SystemName)
	if err != nil {
		panic(err)
	}
	for _, base := range []string{"rr", "rr-event", "rtc"} {
		rep, err := search.Run(context.Background(), sys, search.Options{
			Strategy:       "delay",
			StrategyParams: map[string]string{"base": base},
			Seed:           1,
			MaxPaths:       2000,
			WalkDepth:      2000,
			NoCritical:     true,
		})
		if err != nil {
			panic(err)
		}
		f := rep.First()
		fmt.Printf("%s: %s violation of %s on schedule %d, round %d\n", base, rep.Verdict, f.Property, f.Path+1, rep.Stats.Rounds)
	}
	// Output:
	// rr: liveness violation of AllAcked on schedule 1, round 1
	// rr-event: liveness violation of AllAcked on schedule 838, round 5
	// rtc: liveness violation of AllAcked on schedule 6, round 2
}

// Example_exhausted searches the fixed producer/consumer of
// services/scheduler by delay bounding: the bound grows until a round has
// no choice that needed more delays than it allowed and no schedule that
// reached the step bound, so every reachable state was explored and the
// search ends by itself, without a budget.
func Example_exhausted() {
	sys, err := sim.Lookup(scheduler.SystemName)
	if err != nil {
		panic(err)
	}
	rep, err := search.Run(context.Background(), sys, search.Options{
		Params:    map[string]string{"fixed": "true"},
		Strategy:  "delay",
		Seed:      1,
		WalkDepth: 2000,
	})
	if err != nil {
		panic(err)
	}
	st := rep.Stats
	fmt.Printf("%s found; stopped: %s after %d rounds, %d schedules\n", rep.Verdict, st.Stop, st.Rounds, st.Paths)
	// Output: none found; stopped: exhausted after 4 rounds, 28 schedules
}

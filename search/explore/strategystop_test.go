package explore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// oneShot is a toy strategy, the kind an author outside macemc writes: it
// runs one path of its depth, always taking the first choice, and then
// stops with the Status.Done it is given, right or wrong.
type oneShot struct {
	depth int
	done  explore.Stop
}

func (oneShot) Name() string            { return "oneshot" }
func (oneShot) Doc() string             { return "one path, then stop" }
func (oneShot) Params() []sim.ParamSpec { return nil }
func (o oneShot) New(explore.Setup) (explore.Explorer, error) {
	return &oneShotExplorer{o: o}, nil
}

type oneShotExplorer struct {
	o     oneShot
	paths int
	st    explore.Status
}

func (e *oneShotExplorer) Next(*explore.End) (explore.Path, bool) {
	if e.paths == 1 {
		e.st.Done = e.o.done
		return explore.Path{}, false
	}
	e.paths++
	e.st.Rounds, e.st.Depth = 1, e.o.depth
	return explore.Path{Round: 1, Depth: e.o.depth, Scheduler: firstChoice{}}, true
}

func (e *oneShotExplorer) Status() explore.Status { return e.st }

type firstChoice struct{}

func (firstChoice) Choose(engine.ChoiceKind, int, []float64) int { return 0 }

// A strategy whose explorer stops without a reason, or claims an exhausted
// search that its own last path contradicts, is refused with an error
// that names it, not reported as a search that ended (a report that said
// "not searched" and exited 0, or "liveness holds").
func TestStrategyStopWithoutValidReasonIsRefused(t *testing.T) {
	// counterConfig(2, 2) runs 5 steps to quiescence: a bound of 2 is
	// reached, one of 50 is not.
	for _, tc := range []struct {
		name  string
		depth int
		done  explore.Stop
		want  string // the error, "" for none
	}{
		{"no reason", 50, explore.StopNone, "strategy oneshot stopped without saying why: its Status.Done is StopNone when its Next returned false"},
		{"exhausted, bound reached", 2, explore.StopExhausted, "strategy oneshot claims an exhausted search (its Status.Done is StopExhausted), but a path of its last round (round 1) reached its depth bound 2"},
		{"exhausted, bound not reached", 50, explore.StopExhausted, ""},
		{"depth", 2, explore.StopDepth, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, workers := range []int{1, 2} {
				c := explore.Config{System: counterConfig(2, 2), Strategy: oneShot{depth: tc.depth, done: tc.done}, WalkDepth: 100, Workers: workers}
				res, err := run(c)
				if tc.want == "" {
					if err != nil {
						t.Fatalf("workers %d: %v", workers, err)
					}
					if res.Stats.Stop != tc.done {
						t.Fatalf("workers %d: stop %v, want %v", workers, res.Stats.Stop, tc.done)
					}
					continue
				}
				var se *explore.StrategyStopError
				if !errors.As(err, &se) || !errors.Is(err, explore.ErrStrategyStop) {
					t.Fatalf("workers %d: got %v, %v; want a StrategyStopError", workers, res, err)
				}
				if se.Strategy != "oneshot" || se.Done != tc.done || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("workers %d: %+v: %v\nwant %q", workers, se, err, tc.want)
				}
			}
		})
	}
}

package servicetest

import (
	"fmt"
	"maps"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Config looks up the registered system and builds its config from
// params, merged in order (a later value for a name wins); no params give
// the defaults. It fails the test if the system is unknown or the
// parameters are rejected.
func Config(t testing.TB, system string, params ...map[string]string) *sim.Config {
	t.Helper()
	cfg, err := config(system, params)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Variant is Config for the fixed or the buggy variant of a system (every
// example system has the boolean parameter fixed), with params besides.
func Variant(t testing.TB, system string, fixed bool, params ...map[string]string) *sim.Config {
	t.Helper()
	return Config(t, system, append(params, Params("fixed", fixed))...)
}

func config(system string, params []map[string]string) (*sim.Config, error) {
	sys, err := sim.Lookup(system)
	if err != nil {
		return nil, err
	}
	given := map[string]string{}
	for _, p := range params {
		maps.Copy(given, p)
	}
	cfg, _, err := sys.Config(given)
	return cfg, err
}

// CheckParams looks up the registered system and checks that its
// parameters are exactly the names of want, each with the default want
// gives it; it reports each difference with t.Errorf and returns the
// system.
func CheckParams(t testing.TB, system string, want map[string]string) *sim.System {
	t.Helper()
	sys, err := sim.Lookup(system)
	if err != nil {
		t.Fatal(err)
	}
	want = maps.Clone(want)
	for _, p := range sys.Params {
		if d, ok := want[p.Name]; !ok || d != p.Default {
			t.Errorf("param %s default %q, want %q", p.Name, p.Default, d)
		}
		delete(want, p.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing params %v", want)
	}
	return sys
}

// Params formats name, value pairs as system parameters, each value with
// fmt.Sprint: Params("n", 3, "fixed", true). It panics on an odd number of
// arguments or a name that is not a string.
func Params(nameValues ...any) map[string]string {
	if len(nameValues)%2 != 0 {
		panic("servicetest.Params: odd number of arguments")
	}
	p := map[string]string{}
	for i := 0; i < len(nameValues); i += 2 {
		name, ok := nameValues[i].(string)
		if !ok {
			panic(fmt.Sprintf("servicetest.Params: name %v is not a string", nameValues[i]))
		}
		p[name] = fmt.Sprint(nameValues[i+1])
	}
	return p
}

// New starts an execution of cfg with a random chooser seeded with seed;
// failures are on, as far as the config allows them.
func New(t testing.TB, cfg *sim.Config, seed uint64) *engine.Sim {
	t.Helper()
	return NewWith(t, cfg, engine.Options{Chooser: engine.NewRandom(seed)})
}

// NewWith starts an execution of cfg with opts.
func NewWith(t testing.TB, cfg *sim.Config, opts engine.Options) *engine.Sim {
	t.Helper()
	s, err := engine.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Holds reports whether every property of ps holds in s, failing the test
// if checking one fails.
func Holds(t testing.TB, s *engine.Sim, ps []sim.Property) bool {
	t.Helper()
	return holds(t, s, ps)
}

// holds is Holds without t.Helper, which costs more than checking the
// properties of a small system: walks check them after every step.
func holds(t testing.TB, s *engine.Sim, ps []sim.Property) bool {
	ok, err := s.AllHold(ps)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// Live reports whether every liveness property of s's config holds in s.
func Live(t testing.TB, s *engine.Sim) bool {
	t.Helper()
	return Holds(t, s, s.Config().Liveness)
}

// Safe reports whether every safety property of s's config holds in s.
func Safe(t testing.TB, s *engine.Sim) bool {
	t.Helper()
	return Holds(t, s, s.Config().Safety)
}

// Deterministic runs an execution of cfg for each seed in [0, seeds), up
// to steps steps or until it falls quiescent, and replays each twice,
// comparing the states after every step (engine.CheckDeterminism): no map
// order, clock or global randomness may leak into the service. A
// difference fails the test, naming the seed.
func Deterministic(t testing.TB, cfg *sim.Config, seeds, steps int) {
	t.Helper()
	for seed := range uint64(seeds) {
		s := New(t, cfg, seed)
		for s.Steps() < steps {
			ok, err := s.Step()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
		}
		if err := engine.CheckDeterminism(cfg, s.ChoiceValues(), engine.Options{}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// MustStart is Config and NewWith for examples, which have no testing.TB:
// it builds the registered system's config from params and starts an
// execution with chooser c, and panics on an error.
func MustStart(system string, params map[string]string, c engine.Chooser) (*sim.Config, *engine.Sim) {
	cfg, err := config(system, []map[string]string{params})
	if err != nil {
		panic(err)
	}
	s, err := engine.New(cfg, engine.Options{Chooser: c})
	if err != nil {
		panic(err)
	}
	return cfg, s
}

package lasso_test

import (
	"strconv"
	"testing"

	_ "github.com/macemc/macemc/services/philosophers"
	_ "github.com/macemc/macemc/services/proposers"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/walks/lasso"
)

func registered(t *testing.T, name string, params map[string]string) *sim.Config {
	t.Helper()
	sys, err := sim.Lookup(name)
	if err != nil {
		t.Fatalf("system %s: %v", name, err)
	}
	cfg, _, err := sys.Config(params)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestServicePhilosophers: the example system's livelock (services/
// philosophers) for 2 and 3 philosophers is a confirmed exact lasso; the
// fixed variant shows none.
func TestServicePhilosophers(t *testing.T) {
	for _, n := range []int{2, 3} {
		p := map[string]string{"n": strconv.Itoa(n)}
		cfg := registered(t, "philosophers", p)
		m, _, _ := hunt(t, cfg, lasso.Options{}, 200, 1000)
		fs := lassos(m)
		if len(fs) == 0 {
			t.Fatalf("n=%d: no lasso in 200 walks: %+v", n, m.Stats())
		}
		t.Logf("philosophers n=%d: %d of 200 walks, first stem %d cycle %d", n, len(fs), fs[0].Stem, fs[0].CycleLen)
		checkExactLasso(t, cfg, fs[0])
		p["fixed"] = "true"
		m, _, _ = hunt(t, registered(t, "philosophers", p), lasso.Options{}, 200, 1000)
		if st := m.Stats(); st.Confirmed != 0 {
			t.Errorf("n=%d fixed: %+v", n, st)
		}
	}
}

// TestServiceProposers: the example Paxos duel's ballots grow, so only
// partial hashing (which uses the services' LassoKey methods) finds it.
func TestServiceProposers(t *testing.T) {
	cfg := registered(t, "proposers", nil)
	m, _, _ := hunt(t, cfg, lasso.Options{}, 200, 1000)
	if st := m.Stats(); st.Confirmed != 0 {
		t.Errorf("exact: %+v", st)
	}
	m, _, _ = hunt(t, cfg, lasso.Options{Hash: lasso.Partial}, 200, 1000)
	fs := lassos(m)
	if len(fs) == 0 {
		t.Fatalf("partial: no lasso: %+v", m.Stats())
	}
	t.Logf("proposers partial: %d of 200 walks, first stem %d cycle %d", len(fs), fs[0].Stem, fs[0].CycleLen)
	m, _, _ = hunt(t, registered(t, "proposers", map[string]string{"fixed": "true"}), lasso.Options{Hash: lasso.Partial}, 200, 1000)
	if st := m.Stats(); st.Confirmed != 0 {
		t.Errorf("fixed partial: %+v", st)
	}
}

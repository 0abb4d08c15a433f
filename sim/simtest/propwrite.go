package simtest

import "github.com/macemc/macemc/sim"

// PropertyWrite is the name of simtest-propwrite.
const PropertyWrite = "simtest-propwrite"

// tally is the node of simtest-propwrite: it counts the requests it
// handled, and its property reads the count through a method that fills a
// cache in the node's state the first time, as a hurried user's accessor
// does.
type tally struct {
	sim.Base
	Handled int
	Cached  bool
	Total   int
}

// HandleApp counts a request.
func (t *tally) HandleApp(*sim.Context, any) { t.Handled++ }

// total is the accessor the property calls: it caches, writing the node.
func (t *tally) total() int {
	if !t.Cached {
		t.Cached, t.Total = true, t.Handled
	}
	return t.Total
}

func init() {
	sim.Register(&sim.System{
		Name:   PropertyWrite,
		Doc:    "test system: a property reads the node through an accessor that fills a cache in the node's state (mode cache) or indexes past a slice once a request was handled (mode panic)",
		Params: []sim.ParamSpec{{Name: "mode", Kind: sim.ParamString, Default: "cache", Doc: "cache or panic"}},
		Build: func(p sim.Params) (*sim.Config, error) {
			check := func(v *sim.View) bool { return sim.Node[tally](v, 0).total() <= 2 }
			if p.String("mode") == "panic" {
				check = func(v *sim.View) bool {
					seen := []int{}
					n := sim.Node[tally](v, 0).Handled
					return n == 0 || seen[n-1] >= 0
				}
			}
			return &sim.Config{
				Nodes:   1,
				Service: func(sim.NodeID) sim.Service { return &tally{} },
				App:     func(sim.NodeID) []any { return []any{1, 2} },
				Safety:  []sim.Property{{Name: "AtMostTwo", Check: check}},
			}, nil
		},
	})
}

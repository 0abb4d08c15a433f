package kvmap

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "kvmap"

// Params are the system's parameters with their defaults.
var Params = []sim.ParamSpec{
	{Name: "fixed", Kind: sim.ParamBool, Default: "false", Doc: "followers serve reads at the leader's commit index (read index) instead of from their copy at once"},
	{Name: "replicas", Kind: sim.ParamInt, Default: "3", Doc: "replicas (3 or 5); replica 0 leads", Min: sim.Bound(3), Max: sim.Bound(5)},
	{Name: "reads", Kind: sim.ParamInt, Default: "2", Doc: "clients that read key x once (0 to 4)", Min: sim.Bound(0), Max: sim.Bound(4)},
	{Name: "writes", Kind: sim.ParamInt, Default: "1", Doc: "clients that write once: client i puts i+1 (1 to 3)", Min: sim.Bound(1), Max: sim.Bound(3)},
	{Name: "keys", Kind: sim.ParamInt, Default: "1", Doc: "keys the writers write, x and y alternately (1 or 2)", Min: sim.Bound(1), Max: sim.Bound(2)},
}

// Model is the map's sequential specification: Put sets a key and returns
// "ok", Get returns a key's value (0 when never written). Operations on
// different keys are checked apart (Partition).
var Model = sim.Model{
	Init: func() any { return map[string]int{} },
	Apply: func(state, op any) (any, any) {
		m := state.(map[string]int)
		switch op := op.(type) {
		case Put:
			next := maps.Clone(m)
			next[op.Key] = op.Value
			return next, "ok"
		case Get:
			return m, m[op.Key]
		}
		panic(fmt.Sprintf("kvmap: model given %T", op))
	},
	Partition: func(op any) string {
		switch op := op.(type) {
		case Put:
			return op.Key
		case Get:
			return op.Key
		}
		return ""
	},
	DescribeOp: func(op, result any) string {
		switch op := op.(type) {
		case Put:
			return fmt.Sprintf("put(%s, %d)", op.Key, op.Value)
		case Get:
			if result == nil {
				return fmt.Sprintf("get(%s)", op.Key)
			}
			return fmt.Sprintf("get(%s) → %v", op.Key, result)
		}
		return fmt.Sprint(op)
	},
	DescribeState: func(state any) string {
		m := state.(map[string]int)
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	},
}

// HomeOf is the replica client c sends its operations to.
func HomeOf(c, replicas int) sim.NodeID { return sim.NodeID(c % replicas) }

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	n, reads, writes, keys := p.Int("replicas"), p.Int("reads"), p.Int("writes"), p.Int("keys")
	switch {
	case n != 3 && n != 5:
		return nil, fmt.Errorf("replicas=%d: need 3 or 5", n)
	case reads < 0 || reads > 4:
		return nil, fmt.Errorf("reads=%d: need 0 to 4", reads)
	case writes < 1 || writes > 3:
		return nil, fmt.Errorf("writes=%d: need 1 to 3", writes)
	case keys < 1 || keys > 2:
		return nil, fmt.Errorf("keys=%d: need 1 or 2", keys)
	}
	fixed := p.Bool("fixed")
	return &sim.Config{
		Nodes: n + writes + reads,
		Service: func(id sim.NodeID) sim.Service {
			if int(id) < n {
				return &Replica{Fixed: fixed, Replicas: n}
			}
			c := int(id) - n
			return &Client{ID: c, Home: HomeOf(c, n)}
		},
		App: func(id sim.NodeID) []any {
			c := int(id) - n
			switch {
			case c < 0:
				return nil
			case c < writes:
				return []any{Put{Key: []string{"x", "y"}[c%keys], Value: c + 1}}
			default:
				return []any{Get{Key: "x"}}
			}
		},
		Model: &Model,
	}, nil
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "a key-value map replicated by Multi-Paxos with a stable leader; followers serve stale reads (seed 004)",
		Params: Params,
		Build:  Build,
	})
}

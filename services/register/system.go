package register

import (
	"fmt"

	"github.com/macemc/macemc/sim"
)

// SystemName is the name the system is registered under.
const SystemName = "register"

// Variant is the protocol the clients run.
type Variant int

// The variants.
const (
	// Correct is ABD: a read writes back the value it returns to a
	// majority before returning it.
	Correct Variant = iota
	// Buggy reads return the newest value a majority holds without
	// writing it back.
	Buggy
	// NoQuorum writes return once one replica stored the value (DS2's
	// erroneous register acknowledges before a majority agrees).
	NoQuorum
)

var variantNames = [...]string{"correct", "buggy", "noquorum"}

// String returns the variant's parameter value.
func (v Variant) String() string {
	if int(v) < len(variantNames) {
		return variantNames[v]
	}
	return fmt.Sprintf("variant(%d)", int(v))
}

// ParseVariant returns the variant named s.
func ParseVariant(s string) (Variant, error) {
	for i, n := range variantNames {
		if n == s {
			return Variant(i), nil
		}
	}
	return 0, fmt.Errorf("variant %q: want correct, buggy or noquorum", s)
}

// Params are the system's parameters with their defaults.
var Params = []sim.ParamSpec{
	{Name: "variant", Kind: sim.ParamString, Default: "buggy", Doc: "correct (ABD), buggy (reads do not write back) or noquorum (writes return after one replica)"},
	{Name: "replicas", Kind: sim.ParamInt, Default: "3", Doc: "replicas (3 to 5); each client talks to a majority of them", Min: sim.Bound(3), Max: sim.Bound(5)},
	{Name: "reads", Kind: sim.ParamInt, Default: "2", Doc: "clients that read once (0 to 4)", Min: sim.Bound(0), Max: sim.Bound(4)},
	{Name: "writes", Kind: sim.ParamInt, Default: "1", Doc: "clients that write once, client i the value i+1 (1 to 3)", Min: sim.Bound(1), Max: sim.Bound(3)},
}

// Model is the register's sequential specification: one integer, 0 at
// first; Read returns it, Write{v} sets it and returns "ok".
var Model = sim.Model{
	Init: func() any { return 0 },
	Apply: func(state, op any) (any, any) {
		if w, ok := op.(Write); ok {
			return w.Value, "ok"
		}
		return state, state
	},
	DescribeOp: func(op, result any) string {
		if w, ok := op.(Write); ok {
			return fmt.Sprintf("write(%d)", w.Value)
		}
		if result == nil {
			return "read()"
		}
		return fmt.Sprintf("read() → %v", result)
	},
}

// Build returns the Config for resolved parameters.
func Build(p sim.Params) (*sim.Config, error) {
	v, err := ParseVariant(p.String("variant"))
	if err != nil {
		return nil, err
	}
	n, reads, writes := p.Int("replicas"), p.Int("reads"), p.Int("writes")
	switch {
	case n < 3 || n > 5:
		return nil, fmt.Errorf("replicas=%d: need 3 to 5", n)
	case reads < 0 || reads > 4:
		return nil, fmt.Errorf("reads=%d: need 0 to 4", reads)
	case writes < 1 || writes > 3:
		return nil, fmt.Errorf("writes=%d: need 1 to 3", writes)
	}
	clients := writes + reads
	return &sim.Config{
		Nodes: n + clients,
		Service: func(id sim.NodeID) sim.Service {
			if int(id) < n {
				return &Replica{}
			}
			c := int(id) - n
			return &Client{ID: c, Quorum: QuorumOf(c, n), Variant: v}
		},
		App: func(id sim.NodeID) []any {
			c := int(id) - n
			switch {
			case c < 0:
				return nil
			case c < writes:
				return []any{Write{Value: c + 1}}
			default:
				return []any{Read{}}
			}
		},
		Model: &Model,
	}, nil
}

// QuorumOf is the majority of n replicas client c talks to: replicas c,
// c+1, ... (mod n). Successive clients' quorums overlap in all but one
// replica, as any two majorities must in at least one.
func QuorumOf(c, n int) []sim.NodeID {
	q := make([]sim.NodeID, n/2+1)
	for i := range q {
		q[i] = sim.NodeID((c + i) % n)
	}
	return q
}

func init() {
	sim.Register(&sim.System{
		Name:   SystemName,
		Doc:    "a majority-quorum register (ABD) and DS2's buggy variants: reads that do not write back, writes acknowledged by one replica (seed 004)",
		Params: Params,
		Build:  Build,
	})
}

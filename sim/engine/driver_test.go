package engine_test

import (
	"fmt"
	"testing"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// driverLog is a service that records the requests it handles.
type driverLog struct {
	sim.Base
	Got []string
}

func (d *driverLog) HandleApp(_ *sim.Context, req any) {
	switch r := req.(type) {
	case plainReq:
		d.Got = append(d.Got, r.Name)
	case *pointerReq:
		r.Seen++ // a handler may change what a pointer request points to
		d.Got = append(d.Got, r.Name)
	}
}

type plainReq struct {
	Name string
	N    [2]int
}

type pointerReq struct {
	Name string
	Seen int
}

// TestDriverRequestsReused checks that the simulator asks Config.App once
// per node when every request is a plain value, and afresh at every Reset
// when one may hold state (a pointer), and that either way every execution
// delivers the same requests.
func TestDriverRequestsReused(t *testing.T) {
	for _, pointer := range []bool{false, true} {
		asked := 0
		cfg := &sim.Config{
			Nodes:   2,
			Service: func(sim.NodeID) sim.Service { return &driverLog{} },
			App: func(id sim.NodeID) []any {
				asked++
				if pointer {
					return []any{&pointerReq{Name: "p"}, plainReq{Name: "a"}}
				}
				return []any{plainReq{Name: "a"}, plainReq{Name: "b", N: [2]int{int(id), 1}}}
			},
		}
		s := mustNew(t, cfg, engine.Options{Chooser: engine.NewRandom(1)})
		const runs = 5
		for run := range runs {
			if err := s.Reset(engine.NewRandom(uint64(run))); err != nil {
				t.Fatal(err)
			}
			walk(t, s, 10)
			for id := range 2 {
				got := sim.Node[driverLog](s.View(), sim.NodeID(id)).Got
				want := "[a b]"
				if pointer {
					want = "[p a]"
				}
				if g := fmt.Sprint(got); g != want {
					t.Fatalf("pointer %v run %d node %d handled %s, want %s", pointer, run, id, g, want)
				}
			}
		}
		want := 2 // once per node
		if pointer {
			want = 2 * (runs + 1) // New and every Reset
		}
		if asked != want {
			t.Errorf("pointer %v: App asked %d times, want %d", pointer, asked, want)
		}
	}
}

package dfs

import (
	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

func init() { explore.Register(Strategy{}) }

// Strategy is the bounded depth-first search.
type Strategy struct{}

// Name implements explore.Strategy.
func (Strategy) Name() string { return "dfs" }

// Doc implements explore.Strategy.
func (Strategy) Doc() string {
	return "bounded depth-first search with iterative deepening and state hashing (MaceMC, the default)"
}

// Deepens implements explore.Deepener: its rounds deepen by
// Setup.DepthStep.
func (Strategy) Deepens() bool { return true }

// Params implements explore.Strategy: the depth options are the search's own.
func (Strategy) Params() []sim.ParamSpec { return nil }

// New implements explore.Strategy.
func (Strategy) New(s explore.Setup) (explore.Explorer, error) {
	return &explorer{Deepening: explore.NewDeepening(s)}, nil
}

type explorer struct {
	explore.Deepening
	sched chooser
}

// Next implements explore.Explorer.
func (e *explorer) Next(prev *explore.End) (explore.Path, bool) {
	if !e.Advance(prev, e) {
		return explore.Path{}, false
	}
	e.sched.pos = 0
	st := e.Status()
	return explore.Path{Round: st.Rounds, Depth: st.Depth, Scheduler: &e.sched, Prune: true}, true
}

// NextInRound implements explore.Rounds: the next sequence in depth-first
// order.
func (e *explorer) NextInRound(*explore.End) bool { return e.sched.next() }

// StartRound implements explore.Rounds.
func (e *explorer) StartRound() { e.sched.seq = e.sched.seq[:0] }

// chooser answers choice points from seq, extending seq with 0 (the first
// child) at new positions and recording each position's number of
// alternatives; next moves seq to the following sequence in depth-first
// order.
type chooser struct {
	seq   []int32
	arity []int32
	pos   int
}

// Choose implements engine.Chooser.
func (d *chooser) Choose(_ engine.ChoiceKind, n int, _ []float64) int {
	if d.pos < len(d.seq) {
		d.arity[d.pos] = int32(n)
		v := d.seq[d.pos]
		d.pos++
		return int(v)
	}
	d.seq = append(d.seq, 0)
	d.arity = append(d.arity[:d.pos], int32(n))
	d.pos++
	return 0
}

// next advances to the next sequence; false when the round is complete.
// Positions the last execution did not reach (it ended early) are dropped.
func (d *chooser) next() bool { return d.nextFrom(0) }

// nextFrom advances to the next sequence that keeps the first floor
// choices; false when there is none.
func (d *chooser) nextFrom(floor int) bool {
	d.seq = d.seq[:d.pos]
	for i := len(d.seq) - 1; i >= floor; i-- {
		if d.seq[i]+1 < d.arity[i] {
			d.seq[i]++
			d.seq = d.seq[:i+1]
			return true
		}
	}
	d.seq = d.seq[:0]
	return false
}

// Fork implements explore.Forker: the paths of round below prefix, in the
// order of the round's own.
func (e *explorer) Fork(round, depth int, prefix []int32) explore.Explorer {
	f := &fork{round: round, depth: depth, floor: len(prefix)}
	f.sched.seq = append(f.sched.seq, prefix...)
	f.sched.arity = make([]int32, len(prefix))
	return f
}

// fork explores the subtree below a prefix (Fork).
type fork struct {
	round, depth, floor int
	sched               chooser
	done                bool
}

// Next implements explore.Explorer.
func (f *fork) Next(prev *explore.End) (explore.Path, bool) {
	if f.done || prev != nil && !f.sched.nextFrom(f.floor) {
		f.done = true
		return explore.Path{}, false
	}
	f.sched.pos = 0
	return explore.Path{Round: f.round, Depth: f.depth, Scheduler: &f.sched, Prune: true}, true
}

// Status implements explore.Explorer.
func (f *fork) Status() explore.Status { return explore.Status{} }

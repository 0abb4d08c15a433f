package fair

import (
	"errors"
	"fmt"

	"github.com/macemc/macemc/sim/engine"
)

// ErrReplay marks a lasso of the graph that the system does not repeat.
var ErrReplay = errors.New("fair: the lasso does not replay")

// Execution runs lasso l on s, which must be in the lasso's first state
// (the root FairCycle was given; s is left in the cycle's last state), and
// returns the choices of its stem and of one round of its cycle. After
// every step the state's key (key(s)) must be the one the graph recorded
// for it. The same key can be reached by another order of the ready events
// (datagrams that the system reorders are a multiset in the hash but a list
// in the ready order), so when a transition's recorded choices lead
// elsewhere, the ready event that leads to the recorded state is taken
// instead, with the handler's recorded answers; ErrReplay when none does.
func (g *Graph) Execution(s *engine.Sim, l *Lasso, key func(*engine.Sim) uint64) (stem, cycle []int32, err error) {
	if key == nil {
		key = (*engine.Sim).Hash
	}
	cur := s
	run := func(steps []Step, out []int32) ([]int32, error) {
		for i := range steps {
			st := &steps[i]
			next, ch, ok := g.step(cur, st, key)
			if !ok {
				return nil, fmt.Errorf("%w: no ready event at step %d leads to the recorded state", ErrReplay, cur.Steps()+1)
			}
			cur = next
			out = append(out, ch...)
		}
		return out, nil
	}
	if stem, err = run(l.Stem, nil); err != nil {
		return nil, nil, err
	}
	if cycle, err = run(l.Cycle, nil); err != nil {
		return nil, nil, err
	}
	s.SwapState(cur)
	return stem, cycle, nil
}

// step takes transition st from s's state on a copy: its recorded choices
// if they lead to st.To's key, else the first ready event that does.
func (g *Graph) step(s *engine.Sim, st *Step, key func(*engine.Sim) uint64) (*engine.Sim, []int32, bool) {
	want := g.keys[st.To]
	try := func(ch []int32) (*engine.Sim, bool) {
		r := engine.NewRecorded(ch)
		c := s.Clone(r)
		ok, err := c.Step()
		return c, ok && err == nil && r.Used() == len(ch) && key(c) == want
	}
	if c, ok := try(st.Choices); ok {
		return c, st.Choices, true
	}
	if len(st.Choices) == 0 {
		return nil, nil, false
	}
	alt := append([]int32{0}, st.Choices[1:]...)
	for i := range len(s.Ready()) {
		if int32(i) == st.Choices[0] {
			continue
		}
		alt[0] = int32(i)
		if c, ok := try(alt); ok {
			return c, alt, true
		}
	}
	return nil, nil, false
}

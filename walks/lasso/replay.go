package lasso

import "github.com/macemc/macemc/sim/engine"

// cycleStep is one transition of a suspected cycle: the ready event it
// ran (its index among the ready events and its signature) and the
// answers the handler's own choice points got (Rand, Elapsed).
type cycleStep struct {
	event int32
	sig   uint64
	sub   []engine.Choice
}

// cycleChooser schedules a cycle's transitions again and again (seed 000,
// Algorithm 4): each event choice picks the ready event with the recorded
// signature (the recorded index when it still has it), and the handler's
// choice points get the recorded answers. A step that cannot be repeated
// (no such event ready, a choice point that was not there, of another
// size, or one missing) sets mismatch; without a fallback the chooser then
// answers -1, which makes the simulator's step fail, and with one it hands
// every later choice to the fallback.
type cycleChooser struct {
	s        *engine.Sim
	steps    []cycleStep
	pos      int // the step being executed; -1 before the first
	sub      int // handler choices answered in this step
	mismatch bool
	fallback engine.Chooser
	// repeats counts the event choices answered from the cycle.
	repeats int
}

func newCycleChooser(steps []cycleStep) *cycleChooser {
	return &cycleChooser{steps: steps, pos: -1}
}

// Choose implements engine.Chooser.
func (c *cycleChooser) Choose(kind engine.ChoiceKind, n int, weights []float64) int {
	if c.mismatch {
		return c.miss(kind, n, weights)
	}
	if kind == engine.ChooseEvent {
		if c.pos >= 0 && c.sub != len(c.steps[c.pos].sub) {
			return c.miss(kind, n, weights)
		}
		c.pos = (c.pos + 1) % len(c.steps)
		c.sub = 0
		st := &c.steps[c.pos]
		ready := c.s.Ready()
		idx := -1
		if int(st.event) < len(ready) && Signature(ready[st.event]) == st.sig {
			idx = int(st.event)
		} else {
			for i, ev := range ready {
				if !ev.Kind.IsFailure() && Signature(ev) == st.sig {
					idx = i
					break
				}
			}
		}
		if idx < 0 {
			return c.miss(kind, n, weights)
		}
		c.repeats++
		return idx
	}
	if c.pos < 0 {
		return c.miss(kind, n, weights)
	}
	st := &c.steps[c.pos]
	if c.sub >= len(st.sub) || st.sub[c.sub].Kind != kind || int(st.sub[c.sub].N) != n {
		return c.miss(kind, n, weights)
	}
	v := st.sub[c.sub].Value
	c.sub++
	return int(v)
}

func (c *cycleChooser) miss(kind engine.ChoiceKind, n int, weights []float64) int {
	c.mismatch = true
	if c.fallback != nil {
		return c.fallback.Choose(kind, n, weights)
	}
	return -1
}

// stepDone reports whether the step just executed used all its recorded
// handler choices.
func (c *cycleChooser) stepDone() bool {
	return !c.mismatch && c.pos >= 0 && c.sub == len(c.steps[c.pos].sub)
}

// cycleSteps extracts the transitions from state from to state to of s's
// execution from its choice log.
func cycleSteps(s *engine.Sim, from, to int) []cycleStep {
	cs := s.Choices()
	out := make([]cycleStep, 0, to-from)
	for t := from; t < to; t++ {
		a, b := s.StepStart(t), s.StepStart(t+1)
		st := cycleStep{event: cs[a].Value}
		if b > a+1 {
			st.sub = append([]engine.Choice(nil), cs[a+1:b]...)
		}
		out = append(out, st)
	}
	return out
}

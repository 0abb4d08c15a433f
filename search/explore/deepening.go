package explore

// Deepening is the iterative deepening of seed 003's Algorithm 1 that the
// depth-first strategies share: rounds with the depth bounds Step,
// 2·Step, ..., the last capped at Max (0: no cap). The search ends when a
// round's paths all ended before its bound (exhausted: a deeper bound
// finds nothing new) or once the round at Max is done. A strategy embeds
// it (its Status and RoundDepth are the strategy's) and calls Advance from
// its Next.
type Deepening struct {
	Step, Max int
	st        Status
	reached   bool // a path of the current round reached its bound
}

// NewDeepening returns the deepening of setup s: rounds of s.DepthStep
// (DefaultDepthStep when not positive) up to s.MaxDepth.
func NewDeepening(s Setup) Deepening {
	step := s.DepthStep
	if step <= 0 {
		step = DefaultDepthStep
	}
	return Deepening{Step: step, Max: s.MaxDepth}
}

// Rounds is what Deepening asks of a strategy: the next path of the
// current round, and a new round.
type Rounds interface {
	// NextInRound moves to the round's path after prev and says whether
	// there is one.
	NextInRound(prev *End) bool
	// StartRound clears the strategy's state for a round from the
	// initial state (Deepening has set its bound).
	StartRound()
}

// Advance moves the search past prev (nil before the first path), the
// path that just ended: to the current round's next path, or to the first
// path of a new round. It reports whether a path follows.
func (d *Deepening) Advance(prev *End, r Rounds) bool {
	if d.st.Done != StopNone {
		return false
	}
	if prev == nil {
		d.round(r)
		return true
	}
	d.reached = d.reached || prev.Reason == EndDepth
	if r.NextInRound(prev) {
		return true
	}
	d.st.DeepestComplete = d.st.Depth
	switch {
	case !d.reached:
		d.st.Done = StopExhausted
	case d.Max > 0 && d.st.Depth >= d.Max:
		d.st.Done = StopDepth
	default:
		d.round(r)
		return true
	}
	return false
}

// round starts the next round.
func (d *Deepening) round(r Rounds) {
	d.st.Rounds++
	d.st.Depth, _ = d.RoundDepth(d.st.Rounds)
	d.reached = false
	r.StartRound()
}

// Status implements Explorer.
func (d *Deepening) Status() Status { return d.st }

// RoundDepth returns the depth bound of round (numbered from 1), false
// past the last round (Forker).
func (d *Deepening) RoundDepth(round int) (int, bool) {
	if round < 1 || d.Max > 0 && (round-1)*d.Step >= d.Max {
		return 0, false
	}
	depth := round * d.Step
	if d.Max > 0 && depth > d.Max {
		depth = d.Max
	}
	return depth, true
}

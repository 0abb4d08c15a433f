package critical

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/macemc/macemc/internal/safetext"
)

// probeAt returns the last probe of state i that was no confirmation
// sample, if there was one.
func (r *Result) probeAt(i int) (Probe, bool) {
	for _, p := range slices.Backward(r.Probes) {
		if p.Step == i && p.Phase != PhaseConfirm {
			return p, true
		}
	}
	return Probe{}, false
}

// states lists state numbers: "state 8" or "states 8, 9".
func states(s []int) string {
	var parts []string
	for _, i := range s {
		parts = append(parts, strconv.Itoa(i))
	}
	if len(s) == 1 {
		return "state " + parts[0]
	}
	return "states " + strings.Join(parts, ", ")
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "each"
}

// Explain describes the result in a readable paragraph: the critical step
// and its transition, the condition, the k and d_max used, and what to do
// next. It depends only on the deterministic parts of the result, not on
// timing or Workers.
func (r *Result) Explain() string {
	var b strings.Builder
	state := func(i int) string {
		if i == 0 {
			return "state 0 (the initial state)"
		}
		return fmt.Sprintf("state %d", i)
	}
	event := func() string {
		if r.HasEvent {
			return r.EventText
		}
		return "no transition of E"
	}
	switch {
	case r.Condition == C1:
		fmt.Fprintf(&b, "Critical transition at step %d (condition C1): %s. ", r.Step, event())
		if r.Below && r.Minimized {
			fmt.Fprintf(&b, "No walk recovered from d_init = %d, the minimized path's end, where liveness began to count, so the critical transition was searched in the path's own prefix. ", r.DInit)
		} else if r.Below {
			fmt.Fprintf(&b, "No walk recovered from d_init = %d, where the dead path's liveness checking began, and liveness was never checked inside the bounded search, so the critical transition was searched below d_init, in the path's own prefix. ", r.DInit)
		}
		if len(r.Refined) > 0 {
			fmt.Fprintf(&b, "Algorithm 3's k = %d walks called %s dead, but confirmation walks recovered from %s (near dead, seed 003 §4.4), so the search went on above. ", r.Walks, states(r.Refined), them(len(r.Refined)))
		}
		if len(r.Unchanged) > 0 {
			fmt.Fprintf(&b, "Algorithm 3's k = %d walks called %s dead, but each is the state before it again (its transition changed nothing), which recovers, so the search went on above. ", r.Walks, states(r.Unchanged))
		}
		if p, ok := r.probeAt(r.Step - 1); ok && p.Recovers && p.Phase != PhaseConfirm {
			if p.Live {
				fmt.Fprintf(&b, "Before it, %s is live. ", state(r.Step-1))
			} else {
				fmt.Fprintf(&b, "Before it, %s is transient: walk %d of k = %d reached a live state from it. ", state(r.Step-1), p.Witness+1, r.Walks)
			}
		}
		if p, ok := r.probeAt(r.Step); ok && p.Walks == 0 {
			fmt.Fprintf(&b, "After it, %s is dead: the path falls quiescent there without being live. ", state(r.Step))
		} else if ok && p.Forced && p.Quiescent {
			fmt.Fprintf(&b, "After it, %s is dead: every walk from it is one and the same execution (none of its steps has an alternative), and that execution falls quiescent (nothing left to run) without a live state, so more steps would not change that. ", state(r.Step))
		} else if ok && p.Forced && p.Cycles {
			fmt.Fprintf(&b, "After it, %s is dead: every walk from it is one and the same execution (none of its steps has an alternative), and that execution comes back to a state it passed without a live state in between, so it goes round forever. ", state(r.Step))
		} else if ok && p.Forced {
			fmt.Fprintf(&b, "After it, %s is taken for dead: every walk from it is one and the same execution (none of its steps has an alternative), and that execution reaches no live state within d_max = %d steps (counted from the initial state: %s after it; a system that needs more steps than that to recover shows it with a larger --walk-depth). ", state(r.Step), r.WalkDepth, steps(r.WalkDepth-r.Step))
		} else if ok && p.Walks > 0 && p.AtDMax == 0 {
			fmt.Fprintf(&b, "After it, %s is dead: none of k = %d random walks from it reached a live state, and each fell quiescent (nothing left to run) or failed a safety property before d_max = %d steps, so more steps would not change that. ", state(r.Step), r.Walks, r.WalkDepth)
		} else {
			fmt.Fprintf(&b, "After it, %s is taken for dead: none of k = %d random walks from it reached a live state within d_max = %d steps (counted from the initial state: %s after it; C1: a system that needs more steps than that to recover shows it with a larger --walk-depth). ", state(r.Step), r.Walks, r.WalkDepth, steps(r.WalkDepth-r.Step))
		}
		if r.NewStates > 0 {
			fmt.Fprintf(&b, "But the dead path reached a state it had not been in at each of its last %s: it may be making slow progress toward a live state rather than be stuck; if so, a larger --walk-depth shows it (macemc tune measures how many steps walks take to become live). ", steps(r.NewStates))
		}
		if r.Confidence != nil {
			b.WriteString(r.Confidence.String() + " ")
		}
		if r.Live != nil {
			fmt.Fprintf(&b, "The live alternative shares %s with the dead path and is live after %s; compare the two at step %d. ", steps(r.Live.Shared), steps(r.Live.Steps), r.Step)
		} else if p, ok := r.probeAt(r.Step - 1); ok && p.Live {
			fmt.Fprintf(&b, "There is no live alternative to compare with: %s is live itself; compare it with %s (mdb: d %d %d). ", state(r.Step-1), state(r.Step), r.Step-1, r.Step)
		}
		if r.Premature {
			fmt.Fprintf(&b, "But the live alternative passes through state %d and still becomes live, so that state is not dead: it was near dead, and the critical transition is later; raise --walks (k = %d now) and re-run.", r.Step, r.Walks)
			break
		}
		if r.Confidence == nil || r.Confidence.Thin {
			fmt.Fprintf(&b, "With k = %d a near-dead state can pass for dead and put the critical transition a few steps early (seed 003 §4.4): if it is not clear why this step is critical, raise --walks and re-run.", r.Walks)
		}
	case r.Condition == C2 && r.AtDInit:
		fmt.Fprintf(&b, "Condition C2 at d_init: none of k = %d random walks from %s, where the dead path's liveness checking began (d_init = %d), reached a live state within d_max = %d steps", r.Walks, state(r.Step), r.DInit, r.WalkDepth)
		if p, ok := r.probeAt(0); ok && r.DInit > 0 && !p.Recovers {
			b.WriteString(", nor from the initial state, and no state before d_init is live")
		}
		for _, p := range r.Probes {
			if p.Step == 0 && p.Phase == PhaseConfirm && !p.Recovers {
				fmt.Fprintf(&b, "; nor did any of %d more walks from the initial state (its confirmation sample)", p.Walks)
			}
		}
		b.WriteString(". ")
		if r.HasEvent {
			fmt.Fprintf(&b, "Transition %d was: %s. ", r.Step, r.EventText)
		}
		fmt.Fprintf(&b, "Either the critical transition is at or before step %d, so inspect that state for a bug, or, more likely, d_max is too low for this system to reach a live state: raise --walk-depth and repeat the search.", r.Step)
	case r.Condition == C2:
		prev := r.DInit
		for _, p := range r.Probes {
			if p.Recovers && p.Step > prev {
				prev = p.Step
			}
		}
		for _, i := range slices.Concat(r.Refined, r.Unchanged) {
			prev = max(prev, i)
		}
		fmt.Fprintf(&b, "Condition C2: no dead state found. Random walks still reached a live state from %s, and the next probe, state %d, lies beyond d_max/2 = %d, where walks are too short to tell (k = %d, d_max = %d). ", state(prev), r.Step, r.WalkDepth/2, r.Walks, r.WalkDepth)
		if len(r.Unchanged) > 0 {
			fmt.Fprintf(&b, "Algorithm 3's walks called %s dead, but each is the state before it again (its transition changed nothing), which recovers: a deeper state's walks are shorter, since d_max counts from the initial state, and a system that needs about as many steps as d_max to become live looks doomed step by step. ", states(r.Unchanged))
		}
		fmt.Fprintf(&b, "The execution did not become live within d_max but might later: raise --walk-depth (d_max) and repeat. If that does not help, this may be a transient-state (TS) liveness violation, which has no critical transition: the system keeps moving between transient states without becoming live; look for a cycle with lasso detection")
		if r.Live != nil {
			fmt.Fprintf(&b, " and compare the dead path with the live alternative (it shares %s with it and is live after %s)", steps(r.Live.Shared), steps(r.Live.Steps))
		}
		b.WriteString(".")
	default:
		return "No critical transition was computed."
	}
	b.WriteString(r.unsafeNote())
	return b.String()
}

// unsafeNote is the explanation's note on the recovery walks that broke a
// safety property or failed ("" when none did), with a leading space.
func (r *Result) unsafeNote() string {
	if r.Unsafe == 0 {
		return ""
	}
	note := fmt.Sprintf(" Note: %d recovery walks broke a safety property or failed (first: %s) and were counted as not recovering; check that violation on its own.", r.Unsafe, safetext.QuoteUnsafe(r.UnsafeProperty))
	if r.Failed > 0 {
		note += fmt.Sprintf(" %d of them ended in a failure of the system's code (first: %s), which the search did not meet: "+
			"such a walk cannot tell whether its state recovers, so the answer above may be wrong; fix that failure and search again.", r.Failed, safetext.QuoteUnsafe(r.FailedError))
	}
	return note
}

// UnsafeNote is the note Explain ends with on the recovery walks that broke
// a safety property or failed ("" when none did), for an explanation made
// elsewhere from this result.
func (r *Result) UnsafeNote() string { return strings.TrimSpace(r.unsafeNote()) }

// steps writes n steps: "1 step", "3 steps".
func steps(n int) string {
	if n == 1 {
		return "1 step"
	}
	return strconv.Itoa(n) + " steps"
}

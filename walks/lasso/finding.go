package lasso

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Kind is what a Finding is.
type Kind string

// The kinds of findings.
const (
	// KindLasso is a confirmed hot, fair cycle.
	KindLasso Kind = "lasso"
	// KindTemperature is a temperature alarm.
	KindTemperature Kind = "temperature"
)

// Finding is a confirmed lasso or a temperature alarm.
//
// For a lasso, state Stem (the execution's state after Stem steps) is
// where the cycle starts and state Stem+CycleLen = Steps is where it is
// back: transitions Stem+1 .. Stem+CycleLen form the cycle. Choices replay
// the execution up to state Steps (engine.Replay with FailuresUntil).
type Finding struct {
	// Kind is KindLasso or KindTemperature.
	Kind Kind
	// Property is the first liveness property that does not hold at the
	// finding's state; for a lasso, the first that holds in no state of
	// its cycle, when one does not.
	Property string
	// Never lists, for a lasso, the liveness properties that hold in no
	// state of its cycle. It is empty when each holds somewhere in the
	// cycle: the cycle is hot because they never all hold at once (a
	// state is live only when every liveness property holds).
	Never []string
	// Draws counts, for a lasso, the answers of sim.Context.Rand each
	// round of its cycle takes as recorded (choice points of more than one
	// answer).
	Draws int
	// Choices replay the execution from the initial state to state Steps.
	Choices []int32
	Steps   int
	// Start is the first state the detector observed: a walk's start, or
	// the state Analyze began at.
	Start int
	// FailuresUntil is the simulator option the execution ran with.
	FailuresUntil int
	// Hashing is how states were compared, Fairness which cycles counted
	// as fair.
	Hashing  Hashing
	Fairness Fairness
	// Waiting lists the nodes that ask the clock in the cycle and are told
	// "elapsed" at some asks and "not yet" at others: a deadline told
	// "not yet" forever is no execution if it is fixed (time passes for it
	// too), a real one if it keeps moving, which macemc cannot tell, so
	// such a lasso is no proof.
	Waiting []sim.NodeID

	// Stem and CycleLen place the cycle; Replays is how many times it was
	// replayed (RT).
	Stem, CycleLen, Replays int
	// Events are the cycle's events as the first replay ran them (the
	// cycle's own events with exact hashing; Analyze gives the recorded
	// ones).
	Events []engine.Event
	// Spun is how many further steps the walk repeated the cycle (Spin
	// and Report, or the rest of the execution for Analyze); Refuted marks a cycle
	// that then stopped repeating, at step RefutedAt.
	Spun      int
	Refuted   bool
	RefutedAt int

	// Threshold is the temperature threshold TT of an alarm; LiveAt the
	// step at which the execution became live after the alarm (0: it did
	// not, or the walk stopped at the alarm).
	Threshold int
	LiveAt    int

	startChoices int // len(Choices) at Start: the walk's bounded path
}

// Cycle returns the step numbers of the cycle's transitions: Stem+1 ..
// Stem+CycleLen.
func (f *Finding) Cycle() []int {
	out := make([]int, f.CycleLen)
	for i := range out {
		out[i] = f.Stem + 1 + i
	}
	return out
}

// Proof reports whether the finding proves an infinite fair execution
// that never becomes live: an exactly hashed lasso that was not refuted,
// fair per event source (node fairness admits cycles that starve one of a
// node's connections forever, which no fair network runs).
func (f *Finding) Proof() bool {
	return f.Kind == KindLasso && f.Hashing == Exact && !f.Refuted && f.Fairness != NodeFairness && len(f.Waiting) == 0
}

// Note explains what the finding shows and how much it can be trusted.
func (f *Finding) Note() string {
	var b strings.Builder
	switch f.Kind {
	case KindLasso:
		fair, under := "every connection, timer and driver with an enabled event runs in it", ""
		if f.Fairness == NodeFairness {
			under = " under node fairness only"
			fair = "every node with an enabled event runs in it (node fairness, seed 000's: a node that runs may still starve one of its connections or timers forever, which the default, per-source fairness, would not count as fair)"
		}
		switch f.Hashing {
		case Exact:
			fmt.Fprintf(&b, "Confirmed lasso: after a stem of %s, the cycle of %s (transitions %d-%d) returns to exactly the state it started from (the same canonical hash of every node's struct, fields tagged macemc:\"-\" aside, and of everything pending) and was replayed %d times. No state of it is live and %s, so it can repeat forever: an infinite fair execution %s. With exact hashing this proves the liveness violation%s, up to a 64-bit hash collision; it needs no critical transition.",
				steps(f.Stem), steps(f.CycleLen), f.Stem+1, f.Stem+f.CycleLen, f.Replays, fair, f.neverText(), under)
		default:
			fmt.Fprintf(&b, "Suspected lasso (%s hashing): after a stem of %s, the cycle of %s (transitions %d-%d) returns to the same %s state and was replayed %d times with the same events enabled and no state live; %s. %s hashing ignores what it does not see (payloads, counters), so this shows %d repetitions, not an infinite execution: check that the cycle can go on forever.",
				f.Hashing, steps(f.Stem), steps(f.CycleLen), f.Stem+1, f.Stem+f.CycleLen, f.Hashing, f.Replays, fair, capitalize(f.Hashing.String()), f.Replays)
		}
		if len(f.Waiting) > 0 {
			nodes := make([]string, len(f.Waiting))
			for i, n := range f.Waiting {
				nodes[i] = strconv.Itoa(int(n))
			}
			fmt.Fprintf(&b, " But node %s asks the clock in the cycle and is told \"elapsed\" at some asks and \"not yet\" at others: if a deadline it is told \"not yet\" about is fixed, time passes for it too and the cycle is no execution; if the deadline keeps moving (a heartbeat renews it), it is one. macemc cannot tell, so this is no proof.",
				strings.Join(nodes, ", node "))
		}
		if f.Draws > 0 {
			fmt.Fprintf(&b, " Each round takes %s of ctx.Rand as recorded: the search treats its answers as choices it may make (seed 003 §4.1); if the cycle needs those particular answers, an execution that draws them at random leaves it with probability 1, and this is a livelock only for a random source that can keep giving them.", plural(f.Draws, "answer"))
		}
		if f.Refuted {
			fmt.Fprintf(&b, " But repeating it further failed at step %d: it is not a lasso.", f.RefutedAt)
		} else if f.Spun >= f.CycleLen && f.CycleLen > 0 {
			fmt.Fprintf(&b, " The execution then went on repeating it for %d more steps (%d rounds) without a live state.", f.Spun, f.Spun/f.CycleLen)
		}
	case KindTemperature:
		fmt.Fprintf(&b, "Temperature alarm: %d consecutive steps into states that are not live (%s does not hold at step %d), up to step %d (threshold %d). The temperature method shows no cycle, so the alarm may be false: the system may just need more steps to become live.",
			f.Threshold, f.Property, f.Steps, f.Steps, f.Threshold)
		if f.LiveAt > 0 {
			fmt.Fprintf(&b, " This execution did become live, at step %d (%s after the alarm).", f.LiveAt, steps(f.LiveAt-f.Steps))
		}
	}
	return b.String()
}

// neverText says which liveness properties the lasso's cycle never
// satisfies: "in which P never holds", or, when each holds in some state
// of the cycle, that they never all hold at once.
func (f *Finding) neverText() string {
	switch len(f.Never) {
	case 0:
		if f.Property == "" {
			return "that is never live"
		}
		return "in which the liveness properties never all hold at once (each holds in some state of the cycle, but a state is live only when every one does)"
	case 1:
		return "in which " + f.Never[0] + " never holds"
	}
	return "in which " + strings.Join(f.Never[:len(f.Never)-1], ", ") + " and " + f.Never[len(f.Never)-1] + " never hold"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// clone returns a deep enough copy for handing out.
func (f *Finding) clone() *Finding {
	c := *f
	c.Choices = slices.Clone(f.Choices)
	c.Events = slices.Clone(f.Events)
	c.Never = slices.Clone(f.Never)
	c.Waiting = slices.Clone(f.Waiting)
	return &c
}

// before orders findings as the search's paths are ordered: by the step
// at which their walk began (the depth of its round), then by the walk's
// bounded path in depth-first (lexicographic) order.
func (f *Finding) before(g *Finding) bool {
	if f.Start != g.Start {
		return f.Start < g.Start
	}
	a, b := f.Choices[:min(f.startChoices, len(f.Choices))], g.Choices[:min(g.startChoices, len(g.Choices))]
	if c := slices.Compare(a, b); c != 0 {
		return c < 0
	}
	if f.Kind != g.Kind {
		return f.Kind == KindLasso
	}
	return f.Steps < g.Steps
}

// steps writes a count of steps: "1 step", "4 steps".
func steps(n int) string { return plural(n, "step") }

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

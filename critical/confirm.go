package critical

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/macemc/macemc/sim/engine"
)

// Thresholds of Confidence.Thin.
const (
	// ThinChance: the evidence is thin when the two samples could come
	// from states equally likely to recover with at least this
	// probability (Confidence.Chance).
	ThinChance = 0.05
	// ThinUpper: the evidence is thin when the 95% upper bound on the
	// probability that a walk from c recovers exceeds this (fewer than 59
	// walks from c, none recovering). At a rate of 5%, one walk in k = 20,
	// Algorithm 3's k walks all miss the recovery 36% of the time: a sample
	// that cannot exclude such a rate adds little to the probe it confirms.
	// With the default ConfirmBudget a state whose walks run to d_max
	// without falling quiescent gets about 51 walks (a bound of 5.7%), so
	// its evidence is thin unless the budget is raised.
	ThinUpper = 0.05
	// ThinWalks is the fewest walks from c, none recovering, whose 95%
	// upper bound is at most ThinUpper: the least n with
	// 1 - 0.05^(1/n) <= ThinUpper.
	ThinWalks = 59
)

// Confidence is the evidence for a critical transition at step c: two
// confirmation samples of many more walks than Algorithm 3's k, at state
// c-1 (every walk counted) and at state c (where none recovered).
type Confidence struct {
	// Before is the sample at state c-1 (none, marked Live, when that
	// state is itself live) and At the sample at state c
	// (Probe.Phase is PhaseConfirm; Walks, Recovered, Unsafe and
	// Transitions count them). Both number their walks from k on, so
	// they are new walks, not Algorithm 3's.
	Before, At Probe
	// Certain marks a state c beyond the end of an E that fell quiescent
	// without being live: nothing can ever happen again, so it is dead
	// without walking.
	Certain bool
	// BeforeRate is the fraction of walks from c-1 that recovered (1 when
	// state c-1 is a live state of E's prefix, Before.Live, and was not
	// sampled).
	BeforeRate float64
	// Upper95 is the 95% upper confidence bound on the probability that a
	// walk from c recovers, given that none of At.Walks did:
	// 1 - 0.05^(1/At.Walks) (about 3/At.Walks).
	Upper95 float64
	// Chance is the one-sided p-value of Fisher's exact test of the two
	// samples: were states c-1 and c equally likely to recover, the chance
	// that so few of the recoveries of both samples (none, as a rule)
	// would fall in c's. Small means c is clearly worse off than c-1. It
	// takes the uncertainty of c-1's rate into account: 3 of 62 walks
	// from c-1 against 0 of 62 from c is a chance of 0.12, where
	// (1-3/62)^62 = 0.046 took c-1's rate for exact and called a trial's
	// no-op transition critical on strong evidence. When c-1 is live
	// itself (no sample) or Forced (its one walk is every walk, so its
	// rate is exact) it is (1-BeforeRate)^At.Walks.
	Chance float64
	// Thin says the evidence is thin: Chance > ThinChance, Upper95 >
	// ThinUpper, or a sample was cut short (Partial). A thin answer may be
	// a near-dead state before the true critical transition: raise
	// ConfirmBudget or k.
	Thin bool
	// Partial marks samples that the context ended early.
	Partial bool
}

// newConfidence computes the figures of two samples.
func newConfidence(before, at Probe, partial bool) *Confidence {
	c := &Confidence{Before: before, At: at, Partial: partial}
	switch {
	case before.Live:
		c.BeforeRate = 1
	case before.Walks > 0:
		c.BeforeRate = float64(before.Recovered) / float64(before.Walks)
	}
	c.Upper95 = 1
	if at.Walks > 0 {
		c.Upper95 = 1 - math.Pow(0.05, 1/float64(at.Walks))
	}
	c.Chance = math.Pow(1-c.BeforeRate, float64(at.Walks))
	if !before.Live && !before.Forced && before.Walks > 0 && at.Walks > 0 {
		// A sample of a rate (a forced state's one walk is its rate).
		c.Chance = fisherLower(before.Walks, before.Recovered, at.Walks, at.Recovered)
	}
	if at.Forced && at.Recovered == 0 {
		// Its one walk is every walk: no walk from c recovers.
		c.Upper95, c.Chance = 0, 0
	}
	c.Thin = partial || at.Recovered > 0 || c.Chance > ThinChance || c.Upper95 > ThinUpper
	return c
}

// fisherLower is the one-sided p-value of Fisher's exact test for two
// samples, n1 walks with r1 recoveries and n2 with r2: the probability,
// given r1+r2 recoveries among the n1+n2 walks placed at random, that the
// second sample holds at most r2 of them (a hypergeometric tail).
func fisherLower(n1, r1, n2, r2 int) float64 {
	k, n := r1+r2, n1+n2
	lchoose := func(a, b int) float64 {
		x, _ := math.Lgamma(float64(a + 1))
		y, _ := math.Lgamma(float64(b + 1))
		z, _ := math.Lgamma(float64(a - b + 1))
		return x - y - z
	}
	total := lchoose(n, k)
	p := 0.0
	for x := max(0, k-n1); x <= min(r2, n2, k); x++ {
		p += math.Exp(lchoose(n2, x) + lchoose(n1, k-x) - total)
	}
	return min(p, 1)
}

// recoveriesText words where the recoveries of the two samples fell for
// String: "all 50 recoveries", "the 1 recovery", "49 of the 50 recoveries".
func recoveriesText(total, atC int) string {
	switch {
	case total == 1:
		return "the 1 recovery"
	case atC == 0:
		return fmt.Sprintf("all %d recoveries", total)
	}
	return fmt.Sprintf("%d of the %d recoveries", total-atC, total)
}

// chanceText words a probability for String: "no chance" (every walk from
// the state before recovered), "a chance below 0.001", "a chance of 0.054".
func chanceText(p float64) string {
	switch {
	case p == 0:
		return "no chance"
	case p < 0.001:
		return "a chance below 0.001"
	}
	return fmt.Sprintf("a chance of %.2g", p)
}

// percentText writes a probability as a percentage with one decimal, or
// two significant digits below 1% ("5.7%", "0.06%": a bound of 0.0006
// read "0.0%" or "0.1%" with one decimal).
func percentText(p float64) string {
	if 100*p >= 1 {
		return fmt.Sprintf("%.1f%%", 100*p)
	}
	return fmt.Sprintf("%.2g%%", 100*p)
}

// String describes the evidence in one or two sentences.
func (c *Confidence) String() string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	switch {
	case c.Certain:
		fmt.Fprintf(&b, "State %d is dead for certain: E falls quiescent there without being live. ", c.At.Step)
	case c.At.Forced && c.At.Recovered == 0:
		before := fmt.Sprintf("%d of %d walks from state %d recovered", c.Before.Recovered, c.Before.Walks, c.Before.Step)
		switch {
		case c.Before.Live:
			before = fmt.Sprintf("state %d is live itself", c.Before.Step)
		case c.Before.Forced:
			before = fmt.Sprintf("every walk from state %d is one execution too, which %s", c.Before.Step, map[bool]string{true: "recovers", false: "does not recover"}[c.Before.Recovered > 0])
		}
		switch {
		case c.At.Quiescent:
			fmt.Fprintf(&b, "Confirmation: %s; every walk from state %d is one and the same execution (none of its steps has an alternative), and it falls quiescent without a live state: state %d is dead for certain. ", before, c.At.Step, c.At.Step)
		case c.At.Cycles:
			fmt.Fprintf(&b, "Confirmation: %s; every walk from state %d is one and the same execution (none of its steps has an alternative), and it comes back to a state it passed without a live state in between, so it goes round forever: state %d is dead for certain. ", before, c.At.Step, c.At.Step)
		default:
			fmt.Fprintf(&b, "Confirmation: %s; every walk from state %d is one and the same execution (none of its steps has an alternative), and it reaches no live state within d_max: no execution from state %d becomes live within d_max (a system that needs more steps shows it with a larger --walk-depth). ", before, c.At.Step, c.At.Step)
		}
	case c.Before.Live || c.Before.Forced:
		before := fmt.Sprintf("state %d is live itself", c.Before.Step)
		if !c.Before.Live {
			before = fmt.Sprintf("every walk from state %d is one execution (none of its steps has an alternative), which %s", c.Before.Step, map[bool]string{true: "recovers", false: "does not recover"}[c.Before.Recovered > 0])
		}
		fmt.Fprintf(&b, "Confirmation: %s; %d of %d walks from state %d recovered", before, c.At.Recovered, c.At.Walks, c.At.Step)
		fmt.Fprintf(&b, " (recovery from state %d below %s at 95%% confidence). ", c.At.Step, percentText(c.Upper95))
	default:
		fmt.Fprintf(&b, "Confirmation: %d of %d walks from state %d recovered; %d of %d from state %d did", c.Before.Recovered, c.Before.Walks, c.Before.Step, c.At.Recovered, c.At.Walks, c.At.Step)
		if total := c.Before.Recovered + c.At.Recovered; total == 0 {
			fmt.Fprintf(&b, " (recovery from state %d below %s at 95%% confidence; no walk from state %d recovered either, so the samples do not tell the two states apart). ", c.At.Step, percentText(c.Upper95), c.Before.Step)
		} else {
			fmt.Fprintf(&b, " (recovery from state %d below %s at 95%% confidence; were the two states equally likely to recover, %s would have fallen in state %d's sample with %s, by Fisher's exact test). ", c.At.Step, percentText(c.Upper95), recoveriesText(total, c.At.Recovered), c.Before.Step, chanceText(c.Chance))
		}
	}
	switch {
	case c.Partial:
		b.WriteString("The samples were cut short: the evidence is thin.")
	case c.Thin && c.At.Recovered > 0:
		fmt.Fprintf(&b, "State %d recovers: it is not dead.", c.At.Step)
	case c.Thin:
		b.WriteString("The evidence is thin")
		if c.Upper95 > ThinUpper {
			fmt.Fprintf(&b, " (%d %s from state %d %s a 95%% bound of %s on its recovery, above %s: strong evidence needs %d walks without a recovery)", c.At.Walks, plural(c.At.Walks, "walk", "walks"), c.At.Step, plural(c.At.Walks, "leaves", "leave"), percentText(c.Upper95), percentText(ThinUpper), ThinWalks)
		}
		b.WriteString(": the state may be near dead rather than dead; raise the confirmation budget (--confirm-budget) or k (--walks) and re-run (critical --trace on the error trace does, without searching again).")
	case !c.Certain && !(c.At.Forced && c.At.Recovered == 0):
		b.WriteString("The evidence is strong.")
	}
	return strings.TrimSpace(b.String())
}

// ConfirmRecoveries ends the sample at state c-1 once this many of its
// walks recovered: enough to estimate how often c-1 recovers (within about
// 15% of the rate) without spending the budget on a state that recovers
// easily.
const ConfirmRecoveries = 50

// confirmBatch is a confirmation sample's batch of walks: at a candidate
// critical state (stopAtLive) or at the state before it (ended after
// ConfirmRecoveries live walks).
func confirmBatch(c *Config, stopAtLive bool) batch {
	n := c.ConfirmWalks
	if n <= 0 {
		n = confirmWalks(c.ConfirmBudget, c.WalkDepth)
	}
	b := batch{phase: PhaseConfirm, from: c.Walks, n: n, stopAtLive: stopAtLive, budget: max(c.ConfirmBudget, 0)}
	if !stopAtLive {
		b.liveCap = ConfirmRecoveries
	}
	return b
}

// Confirm re-probes a critical transition at step with many more walks
// than Algorithm 3's k: up to c.ConfirmWalks walks (when it is not
// positive, ConfirmWalksPerLength per d_max of the budget, at least
// DefaultConfirmWalks) within c.ConfirmBudget
// transitions from state step-1, counting how many recover (until
// ConfirmRecoveries did), and from state step, which should recover in
// none (every walk counted). Walks are numbered from c.Walks on
// (WalkSeed), handed out in order and counted as a prefix fixed by their
// results, so the figures are the same for any c.Workers. Find confirms
// its own answer this way (Result.Confidence); Confirm re-checks a saved
// answer, e.g. with a larger budget. When ctx ends, Confirm returns the
// walks counted so far, marked Partial, with an error wrapping the
// context's.
func Confirm(ctx context.Context, c Config, step int) (*Confidence, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if step < 1 || (c.Steps > 0 && step > c.Steps) {
		return nil, fmt.Errorf("%w: critical step %d is outside E (1..%d)", ErrShort, step, c.Steps)
	}
	r := newSearcher(ctx, &c)
	defer r.close()
	before, err := engine.Replay(c.Sim, c.Choices, step-1, c.Options)
	if err != nil {
		return nil, fmt.Errorf("%w: to state %d: %w", ErrReplay, step-1, err)
	}
	at := before.Clone(nil)
	if err := advance(at, c.Choices, step); err != nil {
		return nil, fmt.Errorf("%w: to state %d: %w", ErrReplay, step, err)
	}
	pb, _, errB := r.run(before, step-1, confirmBatch(&c, false))
	if errB != nil {
		return newConfidence(pb, Probe{Step: step, Phase: PhaseConfirm, Witness: -1}, true), errB
	}
	ab := confirmBatch(&c, false)
	ab.liveCap = 0 // count every walk at the critical state
	pa, _, errA := r.run(at, step, ab)
	if errA != nil {
		return newConfidence(pb, pa, true), errA
	}
	return newConfidence(pb, pa, false), nil
}

// plural is one when n is 1, many otherwise.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

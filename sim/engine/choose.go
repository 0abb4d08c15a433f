package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
)

// ErrBadChoice is returned when a chooser answers a choice point with a
// number outside [0, n), or a replayed sequence runs out or no longer fits
// the execution (the service changed, or it is nondeterministic).
var ErrBadChoice = errors.New("sim: bad choice")

// ChoiceKind says what a choice point decides.
type ChoiceKind uint8

// The kinds of choice points.
const (
	// ChooseEvent picks the next event among the ready events.
	ChooseEvent ChoiceKind = iota
	// ChooseRandom answers a service's sim.Context.Rand.
	ChooseRandom
	// ChooseTime answers a service's time comparison (sim.Context.Elapsed):
	// 0 is false, 1 is true.
	ChooseTime
)

// String returns "event", "random" or "time".
func (k ChoiceKind) String() string {
	switch k {
	case ChooseEvent:
		return "event"
	case ChooseRandom:
		return "random"
	default:
		return "time"
	}
}

// Choice is one answered choice point: what it decided, among how many
// alternatives, and the answer.
type Choice struct {
	Kind  ChoiceKind
	N     int32
	Value int32
}

// Chooser answers every choice point of an execution (seed 003's Toss).
// Choose returns a number in [0, n). For ChooseEvent, weights holds the
// weight of each ready event in order; otherwise it is nil (uniform).
// Bounded search, random walks and replay are its three implementations.
type Chooser interface {
	Choose(kind ChoiceKind, n int, weights []float64) int
}

// EventChooser is a Chooser that sees the events it chooses among: a
// scheduler that picks by node, kind, message type or source (PCT, delay
// bounding, partial-order reduction) implements it. For every event choice
// the simulator calls ChooseEvent with the ready events in their canonical
// order and their weights (both valid only during the call) instead of
// Choose; Choose still answers the services' Rand and Elapsed.
type EventChooser interface {
	Chooser
	ChooseEvent(ready []Event, weights []float64) int
}

// Recorded answers choice points from a recorded sequence. When the sequence
// runs out it answers -1, which the simulator reports as ErrBadChoice.
type Recorded struct {
	Seq []int32
	pos int
}

// NewRecorded returns a chooser that replays seq.
func NewRecorded(seq []int32) *Recorded { return &Recorded{Seq: seq} }

// Choose implements Chooser.
func (r *Recorded) Choose(_ ChoiceKind, _ int, _ []float64) int {
	if r.pos >= len(r.Seq) {
		return -1
	}
	v := r.Seq[r.pos]
	r.pos++
	return int(v)
}

// Used returns how many recorded choices have been consumed.
func (r *Recorded) Used() int { return r.pos }

// Random makes weighted random choices from its own seeded source. With
// Unbiased set it ignores event weights. Two Randoms with the same seed
// make the same choices.
type Random struct {
	Unbiased bool
	rng      *rand.Rand
	pcg      *rand.PCG
}

// NewRandom returns a random chooser seeded with seed.
func NewRandom(seed uint64) *Random {
	// Performance: the generator's state is written at every choice; on a
	// cache line of its own, two choosers made one after the other (one
	// per worker) do not slow each other down ("false sharing").
	p := &struct {
		pcg rand.PCG
		_   [cacheLine]byte
	}{}
	p.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	return &Random{rng: rand.New(&p.pcg), pcg: &p.pcg}
}

// Reseed restarts the chooser's sequence from seed without allocating.
func (r *Random) Reseed(seed uint64) { r.pcg.Seed(seed, seed^0x9e3779b97f4a7c15) }

// Choose implements Chooser.
func (r *Random) Choose(kind ChoiceKind, n int, weights []float64) int {
	if n <= 1 {
		return 0
	}
	if kind != ChooseEvent || r.Unbiased || len(weights) != n {
		return r.rng.IntN(n)
	}
	return r.weighted(weights)
}

// weighted picks index i of weights with probability proportional to
// weights[i]. Performance: the simulator calls it directly for event
// choices, and it draws from the generator without the interface calls of
// rand.Rand.Float64 (the same number: Uint64()<<11>>11 / 2^53).
func (r *Random) weighted(weights []float64) int {
	n := len(weights)
	total := 0.0
	for _, w := range weights {
		total += w
	}
	if total <= 0 {
		return r.rng.IntN(n)
	}
	x := float64(r.pcg.Uint64()<<11>>11) / (1 << 53) * total
	for i, w := range weights {
		x -= w
		if x < 0 {
			return i
		}
	}
	return n - 1
}

// Prefix answers from a fixed sequence first and then from Then: Toss of
// seed 003's Algorithm 2.
type Prefix struct {
	Seq  []int32
	Then Chooser
	pos  int
}

// Choose implements Chooser.
func (p *Prefix) Choose(kind ChoiceKind, n int, weights []float64) int {
	if p.pos < len(p.Seq) {
		v := p.Seq[p.pos]
		p.pos++
		return int(v)
	}
	p.pos++
	return p.Then.Choose(kind, n, weights)
}

// BadChoiceError says which choice point got an impossible answer.
type BadChoiceError struct {
	Index int // position in the choice sequence
	Step  int
	Kind  ChoiceKind
	N     int
	Value int
}

func (e *BadChoiceError) Error() string {
	if e.Value < 0 {
		return fmt.Sprintf("sim: bad choice: the recorded choices ran out at choice %d (step %d, %s among %d)", e.Index, e.Step, e.Kind, e.N)
	}
	return fmt.Sprintf("sim: bad choice: choice %d (step %d) answered %d for %s choice among %d", e.Index, e.Step, e.Value, article(e.Kind.String()), e.N)
}

// Unwrap lets errors.Is match ErrBadChoice.
func (e *BadChoiceError) Unwrap() error { return ErrBadChoice }

// article puts "a" or "an" before a word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

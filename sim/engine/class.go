package engine

// EventClass groups event kinds for weighting random walks.
type EventClass int

// The classes of events, each with its own weight.
const (
	ClassApp EventClass = iota
	ClassMessage
	ClassTimer
	ClassFailure
	numClasses
)

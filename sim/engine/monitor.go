package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/macemc/macemc/internal/safetext"
	"github.com/macemc/macemc/sim"
)

// monState is one monitor of an execution (sim.Monitor): its state, its
// first assertion failure, and the hash of both.
type monState struct {
	m       sim.Monitor
	failure string
	hash    uint64
	dirty   bool
}

// initMonitors puts every monitor of the config in its initial state, at
// the start of an execution (New, Reset); node resets leave them alone.
func (s *Sim) initMonitors() {
	specs := s.cfg.Monitors
	if len(specs) == 0 {
		s.w.mons = s.w.mons[:0]
		return
	}
	s.w.mons = make([]monState, len(specs))
	for i := range specs {
		m := specs[i].New()
		if m == nil {
			panic(fmt.Sprintf("sim: New of monitor %s returned nil", specs[i].Name))
		}
		s.w.mons[i] = monState{m: m, dirty: true}
	}
}

// notify hands a service's event to every monitor, in declaration order.
func (s *Sim) notify(node int, ev any) {
	if s.log != nil {
		s.log.Info().Int("step", s.logStep()).Int("node", node).Str("type", sim.MessageName(ev)).Msg("notify " + FormatValue(ev))
	}
	for i := range s.w.mons {
		ms := &s.w.mons[i]
		ms.dirty = true
		s.inMonitor = i + 1 // left set by a panic: see recovered
		err := ms.m.Handle(ev)
		s.inMonitor = 0
		if err != nil && ms.failure == "" {
			ms.failure = err.Error()
			if s.log != nil {
				s.log.Error().Int("step", s.logStep()).Int("node", node).Str("monitor", s.cfg.Monitors[i].Name).Msg("monitor assertion failed: " + safetext.QuoteUnsafe(ms.failure))
			}
		}
	}
}

// monitorHash returns monitor i's hash, hashing it again (stateHash,
// without the simulator's bound) if it changed.
func (s *Sim) monitorHash(i int) uint64 {
	ms := &s.w.mons[i]
	if ms.dirty {
		ms.hash, ms.dirty = s.hashMonitor(i), false
	}
	return ms.hash
}

// hashMonitor hashes monitor i as monitorHash keeps it.
func (s *Sim) hashMonitor(i int) uint64 {
	ms := &s.w.mons[i]
	h, _ := s.stateHash(ms.m, false)
	hidden := s.hidden()
	if ms.failure != "" {
		h = mix(h, hashString(ms.failure))
	}
	return h&^1 | hidden // bit 0: see holdsHidden
}

// Monitor returns monitor i of the execution (in Config.Monitors order)
// and its first assertion failure ("" if none).
func (s *Sim) Monitor(i int) (sim.Monitor, string) {
	ms := &s.w.mons[i]
	return ms.m, ms.failure
}

// Monitors returns the number of monitors (Config.Monitors).
func (s *Sim) Monitors() int { return len(s.w.mons) }

// MonitorText returns the text form of monitor i's state: a line with its
// name and type, then whether it is hot or cold (a sim.LivenessMonitor),
// its assertion failure if any, and its struct.
func (s *Sim) MonitorText(i int) string {
	ms := &s.w.mons[i]
	var b strings.Builder
	fmt.Fprintf(&b, "monitor %s (%s)\n", safetext.QuoteUnsafe(s.cfg.Monitors[i].Name), typeName(reflect.TypeOf(ms.m)))
	if lm, ok := ms.m.(sim.LivenessMonitor); ok {
		if lm.Hot() {
			b.WriteString("hot\n")
		} else {
			b.WriteString("cold\n")
		}
	}
	if ms.failure != "" {
		b.WriteString("assertion failed: " + safetext.QuoteUnsafe(ms.failure) + "\n")
	}
	b.WriteString(FormatState(ms.m))
	return b.String()
}

// MonitorError is a monitor's first assertion failure (the error its
// Handle returned), as found in the state after step Step: what a
// violation of the monitor's safety property says.
type MonitorError struct {
	Monitor string
	Step    int
	Failure string
}

// Error names the monitor (as safetext.QuoteUnsafe shows it) and its
// failure (as safetext.QuoteLines does).
func (e *MonitorError) Error() string {
	return "sim: monitor " + safetext.QuoteUnsafe(e.Monitor) + "'s assertion failed (by step " + strconv.Itoa(e.Step) + "): " + safetext.QuoteLines(e.Failure)
}

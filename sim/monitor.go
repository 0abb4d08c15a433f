package sim

import "fmt"

// Monitor is a specification state machine, P#'s monitor (seed 001
// §5.2.3-5.2.4): the services announce what happens (Context.Notify) and
// the monitor keeps the history a property needs, apart from the program's
// own state. A monitor is global: it belongs to no node, so its state
// survives node resets, and it is part of the global state the checker
// hashes, compares and shows (its struct is encoded like a node's: every
// field, unexported ones too; tag a field `macemc:"-"` to leave it out).
//
// Handle is called with every event a service notifies, at the moment of
// the call, in the handler's step. An error is an assertion failure: the
// monitor's safety property fails after the step (P#'s assert in a safety
// monitor). A monitor that also implements LivenessMonitor has hot states.
//
// Handle must be deterministic and must not keep the event's references
// that the service goes on changing: copy what it keeps.
type Monitor interface {
	Handle(event any) error
}

// LivenessMonitor is a Monitor with hot and cold states (seed 001
// §5.2.4): Hot reports that the system owes progress (a node failed and its
// data is not repaired yet). A state in which a liveness monitor is hot is
// not live, so an execution that stays hot forever is a liveness
// violation, exactly as one in which a liveness property never holds
// again.
type LivenessMonitor interface {
	Monitor
	Hot() bool
}

// MonitorSpec declares one monitor of a system.
type MonitorSpec struct {
	// Name names the monitor and its properties.
	Name string
	Doc  string
	// New returns the monitor in its initial state, a pointer to a fresh
	// struct each call. It is called when an execution starts, never on a
	// node reset.
	New func() Monitor
}

// AddMonitorProperties adds the properties of c's monitors to c.Safety and
// c.Liveness, once: for every monitor a safety property of its name that
// holds while none of its assertions (Handle errors) failed, and for a
// LivenessMonitor a liveness property of the same name that holds while it
// is not hot. A safety and a liveness property share a name only when they
// are one monitor's; selecting the name (Config.Select) keeps both.
// System.Config calls it; call it yourself for a Config you build by hand.
func (c *Config) AddMonitorProperties() {
	for i := range c.Monitors {
		spec := &c.Monitors[i]
		tag := i + 1
		if hasMonitor(c.Safety, tag) {
			continue
		}
		c.Safety = append(c.Safety, Property{
			Name:    spec.Name,
			Doc:     fmt.Sprintf("monitor %s: no assertion failed", spec.Name),
			Check:   func(v *View) bool { _, failure := v.rt.Monitor(i); return failure == "" },
			monitor: tag,
		})
		if spec.New == nil {
			continue // Validate reports it
		}
		if _, ok := spec.New().(LivenessMonitor); ok {
			c.Liveness = append(c.Liveness, Property{
				Name: spec.Name,
				Doc:  fmt.Sprintf("monitor %s is not hot", spec.Name),
				Check: func(v *View) bool {
					m, _ := v.rt.Monitor(i)
					lm, ok := m.(LivenessMonitor)
					return !ok || !lm.Hot()
				},
				monitor: tag,
			})
		}
	}
}

func hasMonitor(ps []Property, tag int) bool {
	for i := range ps {
		if ps[i].monitor == tag {
			return true
		}
	}
	return false
}

// MonitorOf returns the execution's first monitor that is a *T, or nil: a
// property can read a monitor's state, mixing monitors and state
// predicates.
func MonitorOf[T any](v *View) *T {
	for i := 0; ; i++ {
		m, _ := v.rt.Monitor(i)
		if m == nil {
			return nil
		}
		if t, ok := m.(*T); ok {
			return t
		}
	}
}

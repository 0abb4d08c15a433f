package sim

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Sentinel errors for systems, parameters and properties.
var (
	// ErrUnknownSystem is returned by Lookup for a name nobody registered.
	ErrUnknownSystem = errors.New("sim: unknown system")
	// ErrUnknownParam is returned for a parameter the system does not declare.
	ErrUnknownParam = errors.New("sim: unknown parameter")
	// ErrBadParam is returned for a parameter value of the wrong kind.
	ErrBadParam = errors.New("sim: bad parameter value")
	// ErrUnknownProperty is returned when selecting a property the system lacks.
	ErrUnknownProperty = errors.New("sim: unknown property")
	// ErrBadConfig is returned by Config.Validate.
	ErrBadConfig = errors.New("sim: bad config")
)

// ParamKind is the type of a system parameter's value.
type ParamKind int

// The kinds of parameter values.
const (
	ParamInt ParamKind = iota
	ParamBool
	ParamString
)

// String returns "int", "bool" or "string".
func (k ParamKind) String() string {
	switch k {
	case ParamInt:
		return "int"
	case ParamBool:
		return "bool"
	default:
		return "string"
	}
}

// ParamSpec declares one named parameter of a system, such as nodes=4 or
// fixed=true.
type ParamSpec struct {
	Name    string
	Kind    ParamKind
	Default string
	Doc     string
	// Min and Max, when set, bound an int parameter: Resolve refuses a
	// value outside them (ErrBadParam naming the range), and macemc list
	// prints the range. Set them with Bound, e.g. Min: sim.Bound(2).
	Min, Max *int
}

// Bound returns a pointer to v, for ParamSpec.Min and Max.
func Bound(v int) *int { return &v }

// Range returns the values an int parameter allows in words, e.g. "2 to
// 28", "at least 0", or "" when it is not bounded.
func (p *ParamSpec) Range() string {
	switch {
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf("%d to %d", *p.Min, *p.Max)
	case p.Min != nil:
		return fmt.Sprintf("at least %d", *p.Min)
	case p.Max != nil:
		return fmt.Sprintf("at most %d", *p.Max)
	}
	return ""
}

// check reports a value outside the parameter's range.
func (p *ParamSpec) check(v int) error {
	if p.Min != nil && v < *p.Min || p.Max != nil && v > *p.Max {
		return fmt.Errorf("%w: %s=%d: allowed %s", ErrBadParam, p.Name, v, p.Range())
	}
	return nil
}

// Params holds a system's resolved parameter values, as text. Get them with
// Int, Bool and String; the system's Build is only ever handed values that
// parse as their declared kind.
type Params map[string]string

// Int returns the named parameter as an int (0 if absent).
func (p Params) Int(name string) int {
	v, _ := strconv.Atoi(p[name])
	return v
}

// Bool returns the named parameter as a bool (false if absent).
func (p Params) Bool(name string) bool {
	v, _ := strconv.ParseBool(p[name])
	return v
}

// String returns the named parameter's text.
func (p Params) String(name string) string { return p[name] }

// Canonical returns the parameters as sorted "k=v" pairs joined by commas.
func (p Params) Canonical() string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return strings.Join(parts, ",")
}

// Property is a named predicate over the global state. As a safety
// property it must hold in every state (always p); as a liveness property
// it must hold again and again (always eventually p). Check must be a pure
// function of the state it is shown.
type Property struct {
	Name  string
	Doc   string
	Check func(v *View) bool

	monitor int // 1 + the index of the monitor it checks, 0 for none
}

// Weights bias random walks (seed 003 §4.3): each ready event is chosen
// with probability proportional to its weight. Zero class weights take the
// defaults of DefaultWeights; per-timer and per-message-type entries
// override the class weight for that timer name or message type name.
type Weights struct {
	App, Message, Timer, Failure float64
	Timers                       map[string]float64
	Messages                     map[string]float64
}

// DefaultWeights are the original MaceMC weights: application 40, message 8,
// timer 1; failures (when they are on during walks) 1.
var DefaultWeights = Weights{App: 40, Message: 8, Timer: 1, Failure: 1}

// WithDefaults returns w with every zero class weight replaced by
// DefaultWeights' weight for that class.
func (w Weights) WithDefaults() Weights {
	if w.App == 0 {
		w.App = DefaultWeights.App
	}
	if w.Message == 0 {
		w.Message = DefaultWeights.Message
	}
	if w.Timer == 0 {
		w.Timer = DefaultWeights.Timer
	}
	if w.Failure == 0 {
		w.Failure = DefaultWeights.Failure
	}
	return w
}

// Failures are the failure knobs of a system: how many failures of each
// kind one execution may contain (seed 003 §4.1, §4.4), and whether
// datagrams may be reordered. Zero means none.
type Failures struct {
	// Resets bounds node resets per execution: the node loses all state
	// and starts again on a fresh struct.
	Resets int
	// Breaks bounds reliable-connection breaks per execution.
	Breaks int
	// Drops bounds datagram drops per execution.
	Drops int
	// Reorder lets datagrams between the same pair of nodes arrive out of
	// the order they were sent in.
	Reorder bool
}

// Config is one concrete test: the nodes, the driver, the properties, the
// weights and the failure knobs. A System builds it from parameters.
type Config struct {
	// Nodes is the number of nodes.
	Nodes int
	// Service returns a fresh service struct for node id. It is called
	// when the system starts and again whenever the node resets, so it
	// must return a new value each time. Different nodes may run
	// different services (clients and servers).
	Service func(id NodeID) Service
	// App returns the application requests the test driver injects at
	// node id, delivered to HandleApp in this order, each a pending event
	// of its own. After a reset the node's driver starts over. May be nil.
	App func(id NodeID) []any
	// Safety properties must hold in every state.
	Safety []Property
	// Liveness properties must hold eventually, again and again.
	Liveness []Property
	// Monitors are specification state machines the services notify
	// (Context.Notify); see Monitor. Each one adds its properties to
	// Safety and Liveness (AddMonitorProperties), so properties and
	// monitors mix freely.
	Monitors []MonitorSpec
	// Weights bias random walks.
	Weights Weights
	// Failures bounds the failures an execution may contain.
	Failures Failures
	// Model, when set, is the sequential specification of the object the
	// system implements: the checker reports every execution whose client
	// history (Context.Invoke, Context.Return) is not linearizable with
	// respect to it.
	Model *Model
}

// MaxNodes bounds Config.Nodes: the simulator keeps n*n connection queues,
// about 40 MiB at this bound, in every copy of the state.
const MaxNodes = 1024

// Validate reports a config that cannot run.
func (c *Config) Validate() error {
	if c == nil {
		return fmt.Errorf("%w: nil config", ErrBadConfig)
	}
	if c.Nodes <= 0 || c.Nodes > MaxNodes {
		return fmt.Errorf("%w: %d nodes (the simulator takes 1 to %d: it keeps a queue for each of the n*n connections)", ErrBadConfig, c.Nodes, MaxNodes)
	}
	if c.Service == nil {
		return fmt.Errorf("%w: no Service constructor", ErrBadConfig)
	}
	if c.Model != nil {
		if err := c.Model.validate(); err != nil {
			return err
		}
	}
	mons := map[string]bool{}
	for _, m := range c.Monitors {
		if m.Name == "" || m.New == nil {
			return fmt.Errorf("%w: monitor %q has no name or no New", ErrBadConfig, m.Name)
		}
		if mons[m.Name] {
			return fmt.Errorf("%w: monitor %q declared twice", ErrBadConfig, m.Name)
		}
		mons[m.Name] = true
	}
	seen := map[string]int{} // name -> monitor tag of the first property so named
	for _, p := range slices.Concat(c.Safety, c.Liveness) {
		if p.Name == "" || p.Check == nil {
			return fmt.Errorf("%w: property %q has no name or no check", ErrBadConfig, p.Name)
		}
		if tag, dup := seen[p.Name]; dup && (tag == 0 || tag != p.monitor) {
			return fmt.Errorf("%w: property %q declared twice", ErrBadConfig, p.Name)
		}
		if p.monitor == 0 && mons[p.Name] {
			return fmt.Errorf("%w: property %q has the name of a monitor", ErrBadConfig, p.Name)
		}
		seen[p.Name] = p.monitor
	}
	return nil
}

// Select keeps only the named properties (safety or liveness; a monitor's
// name keeps both of its properties; Linearizable for the Model's check)
// and reports ErrUnknownProperty for a name the config does not have. With
// no names it keeps everything.
func (c *Config) Select(names []string) error {
	if len(names) == 0 {
		return nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	if c.Model != nil {
		if !want[Linearizable] {
			c.Model = nil
		}
		delete(want, Linearizable)
	}
	found := map[string]bool{}
	keep := func(ps []Property) []Property {
		var out []Property
		for _, p := range ps {
			if want[p.Name] {
				out = append(out, p)
				found[p.Name] = true
			}
		}
		return out
	}
	c.Safety, c.Liveness = keep(c.Safety), keep(c.Liveness)
	if len(found) < len(want) {
		var missing []string
		for n := range want {
			if !found[n] {
				missing = append(missing, n)
			}
		}
		sort.Strings(missing)
		return fmt.Errorf("%w: %s", ErrUnknownProperty, strings.Join(missing, ", "))
	}
	return nil
}

// System is a named, parameterised test that the command line can find.
type System struct {
	Name   string
	Doc    string
	Params []ParamSpec
	// Build returns the Config for resolved parameter values.
	Build func(p Params) (*Config, error)
}

// Resolve fills defaults into the given parameter values and checks their
// names, kinds and ranges (ParamSpec.Min and Max).
func (s *System) Resolve(given map[string]string) (Params, error) {
	p := Params{}
	for _, spec := range s.Params {
		p[spec.Name] = spec.Default
	}
	for k, v := range given {
		var spec *ParamSpec
		for i := range s.Params {
			if s.Params[i].Name == k {
				spec = &s.Params[i]
			}
		}
		if spec == nil {
			var names []string
			for _, sp := range s.Params {
				names = append(names, sp.Name)
			}
			return nil, fmt.Errorf("%w %q for system %s (it has: %s)", ErrUnknownParam, k, s.Name, strings.Join(names, ", "))
		}
		switch spec.Kind {
		case ParamInt:
			n, err := strconv.Atoi(v)
			if err != nil {
				if r := spec.Range(); r != "" {
					return nil, fmt.Errorf("%w: %s=%q is not an integer (allowed %s)", ErrBadParam, k, v, r)
				}
				return nil, fmt.Errorf("%w: %s=%q is not an integer", ErrBadParam, k, v)
			}
			if err := spec.check(n); err != nil {
				return nil, err
			}
		case ParamBool:
			if _, err := strconv.ParseBool(v); err != nil {
				return nil, fmt.Errorf("%w: %s=%q is not true or false", ErrBadParam, k, v)
			}
		}
		p[k] = v
	}
	return p, nil
}

// Config resolves the parameters and builds a validated Config, with the
// properties of its monitors added (Config.AddMonitorProperties).
func (s *System) Config(given map[string]string) (*Config, Params, error) {
	p, err := s.Resolve(given)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.Build(p)
	if err != nil {
		return nil, nil, fmt.Errorf("system %s: %w", s.Name, err)
	}
	if cfg != nil {
		cfg.AddMonitorProperties()
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("system %s: %w", s.Name, err)
	}
	return cfg, p, nil
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*System{}
)

// Register makes a system findable by name. It panics on a duplicate or
// an incomplete system, which are programming errors; call it from init.
func Register(s *System) {
	if s == nil || s.Name == "" || s.Build == nil {
		panic("sim: Register of a system without name or Build")
	}
	for i := range s.Params {
		p := &s.Params[i]
		if p.Kind != ParamInt {
			continue
		}
		if v, err := strconv.Atoi(p.Default); err != nil || p.check(v) != nil || p.Min != nil && p.Max != nil && *p.Min > *p.Max {
			panic(fmt.Sprintf("sim: system %s: parameter %s's default %q is not in its range %s", s.Name, p.Name, p.Default, p.Range()))
		}
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic("sim: Register called twice for system " + s.Name)
	}
	registry[s.Name] = s
}

// Lookup returns the registered system with this name.
func Lookup(name string) (*System, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	if s, ok := registry[name]; ok {
		return s, nil
	}
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownSystem, name, strings.Join(names, ", "))
}

// Systems returns every registered system, sorted by name.
func Systems() []*System {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]*System, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

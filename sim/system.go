package sim

import (
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/macemc/macemc/internal/recovered"
	"github.com/macemc/macemc/internal/safetext"
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
	keys := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return strings.Join(parts, ",")
}

// Text returns the parameters as Canonical does, for display: each name
// and value as safetext.QuoteUnsafe shows it, and a value that holds a
// comma or begins with a double quote quoted too, so that "k=v,k=v" reads
// back as the pairs it was made of and a value from a trace file (which
// nobody vouches for) can put no control character, newline or line of
// its own on the terminal. Canonical is the form to compare.
func (p Params) Text() string {
	keys := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := p[k]
		if strings.Contains(v, ",") || strings.HasPrefix(v, `"`) {
			v = strconv.Quote(v)
		} else {
			v = safetext.QuoteUnsafe(v)
		}
		parts[i] = safetext.QuoteUnsafe(k) + "=" + v
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
// kind one execution may contain (seed 003 §4.1, §4.4), where they may
// happen, and whether datagrams may be reordered. Zero means none. Every
// failure is a choice point: the search explores where and when it
// happens, within these budgets.
type Failures struct {
	// Resets bounds node resets per execution (crash and restart): the
	// node loses its state, except what its service declares Durable, and
	// starts again on a fresh struct (Context.Restarted tells Start).
	Resets int
	// Crashes bounds crash-stops per execution: the node stops for good.
	// Its reliable connections break (the peers that had messages in
	// flight to or from it learn so by HandleConnError), everything in
	// flight to it is lost, and so is everything sent to it later; its
	// timers and driver stop. Properties see it with View.Up.
	Crashes int
	// Breaks bounds reliable-connection breaks per execution. A break is
	// offered on a connection with messages in flight (it loses them and
	// tells both ends); an idle connection has nothing to lose, and its
	// ends are never told.
	Breaks int
	// Drops bounds datagram drops per execution.
	Drops int
	// Duplicates bounds datagram duplications per execution: a datagram in
	// flight is delivered twice, the second time as a deep copy of what
	// was sent (not the value the first delivery handed its receiver,
	// which may have changed it). A message that holds what cannot be
	// copied (a func, a channel) is delivered as the same value twice.
	// The copy joins the datagrams in flight as if sent at the duplication,
	// so it arrives after the datagrams between the same nodes that were in
	// flight then, even with Reorder off (a late duplicate).
	Duplicates int
	// Partitions bounds network partitions per execution: the nodes are
	// split in two sides (see Splits) until the partition heals, which may
	// happen at any later step (failures off or not). While it lasts,
	// messages on reliable connections across the split are held (TCP
	// retransmits; a connection break is a separate failure), and
	// datagrams across it are lost. One partition at a time.
	Partitions int
	// Reorder lets datagrams between the same pair of nodes arrive out of
	// the order they were sent in.
	Reorder bool
	// Nodes, when not empty, are the only nodes that may reset or crash.
	Nodes []NodeID
	// PerNode, when positive, bounds the resets and crashes of any one
	// node per execution (the budgets above bound them all together).
	PerNode int
	// Links, when not empty, are the only links (node pairs, either
	// direction) on which connections may break and datagrams may be
	// dropped or duplicated.
	Links []Link
	// Splits, when not empty, are the partitions that may happen, each
	// given as the nodes of one side. By default every set of fewer than
	// half the nodes may be cut off (and, for an even count, every half
	// that holds node 0); beyond 32 such sets, only single nodes.
	Splits [][]NodeID
}

// Link is a pair of nodes; it names the connection between them in both
// directions.
type Link [2]NodeID

// Any reports whether the failures allow any failure event at all.
func (f *Failures) Any() bool {
	return f.Resets > 0 || f.Crashes > 0 || f.Breaks > 0 || f.Drops > 0 || f.Duplicates > 0 || f.Partitions > 0
}

// NodeMayFail reports whether node id may reset or crash.
func (f *Failures) NodeMayFail(id NodeID) bool {
	return len(f.Nodes) == 0 || slices.Contains(f.Nodes, id)
}

// LinkMayFail reports whether the link between a and b may break, drop or
// duplicate.
func (f *Failures) LinkMayFail(a, b NodeID) bool {
	if len(f.Links) == 0 {
		return true
	}
	for _, l := range f.Links {
		if l[0] == a && l[1] == b || l[0] == b && l[1] == a {
			return true
		}
	}
	return false
}

// MaxPartitionNodes bounds the nodes of a system with partitions: a split
// is kept as a 64-bit set.
const MaxPartitionNodes = 64

// validate checks the failures against a system of n nodes.
func (f *Failures) validate(n int) error {
	for _, c := range []struct {
		name string
		v    int
	}{{"Resets", f.Resets}, {"Crashes", f.Crashes}, {"Breaks", f.Breaks}, {"Drops", f.Drops}, {"Duplicates", f.Duplicates}, {"Partitions", f.Partitions}, {"PerNode", f.PerNode}} {
		if c.v < 0 {
			return fmt.Errorf("%w: Failures.%s is %d", ErrBadConfig, c.name, c.v)
		}
	}
	node := func(what string, id NodeID) error {
		if id < 0 || int(id) >= n {
			return fmt.Errorf("%w: Failures.%s names node %d, but the nodes are 0 to %d", ErrBadConfig, what, id, n-1)
		}
		return nil
	}
	for i, id := range f.Nodes {
		if err := node("Nodes", id); err != nil {
			return err
		}
		if slices.Contains(f.Nodes[:i], id) {
			return fmt.Errorf("%w: Failures.Nodes: node %d given twice", ErrBadConfig, id)
		}
	}
	for i, l := range f.Links {
		if err := node("Links", l[0]); err != nil {
			return err
		}
		if err := node("Links", l[1]); err != nil {
			return err
		}
		if slices.Contains(f.Links[:i], l) || slices.Contains(f.Links[:i], Link{l[1], l[0]}) {
			return fmt.Errorf("%w: Failures.Links: link %d-%d given twice (a link names both directions)", ErrBadConfig, l[0], l[1])
		}
	}
	if f.Partitions > 0 && n > MaxPartitionNodes {
		return fmt.Errorf("%w: partitions need at most %d nodes, not %d", ErrBadConfig, MaxPartitionNodes, n)
	}
	for i, side := range f.Splits {
		if len(side) == 0 || len(side) >= n {
			return fmt.Errorf("%w: Failures.Splits: a side of %d nodes out of %d splits nothing", ErrBadConfig, len(side), n)
		}
		for _, id := range side {
			if err := node("Splits", id); err != nil {
				return err
			}
		}
		// A side and the rest of the nodes are one partition: naming
		// both names it twice, as naming a side twice does. (Without a
		// partition budget no split is used, and that is the error to
		// give: CheckFilters.)
		for _, was := range f.Splits[:i] {
			switch {
			case f.Partitions == 0:
			case sameNodes(was, side):
				return fmt.Errorf("%w: Failures.Splits: side %s given twice", ErrBadConfig, joinNodes(side))
			case len(was)+len(side) == n && !slices.ContainsFunc(side, func(id NodeID) bool { return slices.Contains(was, id) }):
				return fmt.Errorf("%w: Failures.Splits: %s and %s are the same partition of %d nodes (a side and the rest): give it once", ErrBadConfig, joinNodes(was), joinNodes(side), n)
			}
		}
	}
	return nil
}

// PartitionSides returns the sides of the partitions that may happen in a
// system of n nodes, each as a set of node bits: Splits, or the default
// (see Splits). Each split is listed once.
func (f *Failures) PartitionSides(n int) []uint64 {
	if n < 2 || n > MaxPartitionNodes {
		return nil
	}
	var out, keys []uint64
	add := func(m uint64) {
		full := uint64(1)<<n - 1
		if n == 64 {
			full = ^uint64(0)
		}
		if m == 0 || m == full {
			return
		}
		// A side and its complement are the same partition: list it once,
		// by the side given first.
		key := min(m, full&^m)
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
			out = append(out, m)
		}
	}
	if len(f.Splits) > 0 {
		for _, side := range f.Splits {
			var m uint64
			for _, id := range side {
				m |= 1 << id
			}
			add(m)
		}
		return out
	}
	// Every set of fewer than n/2 nodes, and the halves holding node 0,
	// in order of size, then of bits.
	var sets []uint64
	if n <= 20 {
		for m := uint64(1); m < 1<<n; m++ {
			k := bits.OnesCount64(m)
			if 2*k < n || 2*k == n && m&1 == 1 {
				sets = append(sets, m)
			}
		}
	}
	if len(sets) == 0 || len(sets) > 32 {
		sets = sets[:0]
		for i := 0; i < n; i++ {
			sets = append(sets, 1<<i)
		}
	}
	slices.SortStableFunc(sets, func(a, b uint64) int {
		if c := bits.OnesCount64(a) - bits.OnesCount64(b); c != 0 {
			return c
		}
		if a < b {
			return -1
		}
		return 1
	})
	for _, m := range sets {
		add(m)
	}
	return out
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
	// of its own; a Request waits until its condition holds. After a reset
	// the node's driver starts over, unless KeepDriver is set. May be nil.
	// It must return the same requests for a node every time (an
	// execution replays only then); the simulator asks once and reuses
	// the answer when every request is a plain value (no pointer, slice,
	// map, func or interface inside), which no handler can change.
	App func(id NodeID) []any
	// KeepDriver keeps each node's driver where it was across a reset:
	// requests already delivered are not delivered again.
	KeepDriver bool
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
	if err := c.Failures.validate(c.Nodes); err != nil {
		return err
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
	known := map[string]bool{}
	for _, p := range append(slices.Clip(c.Safety), c.Liveness...) {
		known[p.Name] = true
	}
	if c.Model != nil {
		known[Linearizable] = true
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
		has := slices.Sorted(maps.Keys(known))
		for _, names := range [][]string{missing, has} {
			for i, n := range names {
				names[i] = safetext.QuoteUnsafe(n)
			}
		}
		return fmt.Errorf("%w: %s (it has: %s)", ErrUnknownProperty, strings.Join(missing, ", "), strings.Join(has, ", "))
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
	if s.Build == nil {
		return nil, nil, fmt.Errorf("%w: system %s has no Build", ErrBadConfig, s.Name)
	}
	p, err := s.Resolve(given)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.build(p)
	if err != nil {
		// The system's own text, shown quoted if it would not stay on
		// its line.
		return nil, nil, fmt.Errorf("system %s: %w", s.Name, safetext.Error(err))
	}
	if cfg != nil {
		cfg.AddMonitorProperties()
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("system %s: %w", s.Name, err)
	}
	return cfg, p, nil
}

// build runs Build, turning a panic in it into an error wrapping
// ErrBadConfig that names the panic and where it happened: it is the
// system's code, as a Service constructor's is.
func (s *System) build(p Params) (cfg *Config, err error) {
	defer func() {
		if r := recover(); r != nil {
			cfg, err = nil, fmt.Errorf("%w: Build panicked: %v (at %s)", ErrBadConfig, r, recovered.Site())
		}
	}()
	return s.Build(p)
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

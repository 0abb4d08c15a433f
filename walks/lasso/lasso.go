package lasso

import (
	"slices"
	"sync/atomic"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/walks/fair"
)

// Defaults of Options.
const (
	// DefaultReplays is RT, the number of times a suspected cycle is
	// replayed before it is reported (seed 000 used 10).
	DefaultReplays = 10
	// DefaultMaxStates caps the states one detector records.
	DefaultMaxStates = 1 << 20
	// DefaultMaxCandidates bounds the earlier occurrences of a repeated
	// hash that one state is compared with.
	DefaultMaxCandidates = 16
	// DefaultMaxVerify bounds the suspected cycles one detector replays.
	DefaultMaxVerify = 100
)

// Action says what a detector does when it confirms a lasso or raises a
// temperature alarm.
type Action int

// The actions.
const (
	// Stop makes Observe return false: the walk ends with outcome
	// walks.Stopped and the finding is left in the detector (and its
	// Monitor).
	Stop Action = iota
	// Spin (lassos only) takes over the walk's scheduling: the walk goes
	// on repeating the cycle, so that it stays hot and ends Dead at its
	// step bound, an ordinary suspected liveness violation that
	// search.Run reports in path order. If the cycle stops repeating (a
	// partial hash that was wrong) the walk goes on at random and the
	// finding is marked Refuted.
	Spin
	// Continue records the finding and lets the walk go on with its own
	// chooser. For an alarm the detector then notes whether the execution
	// became live after all (Finding.LiveAt): a false alarm.
	Continue
	// Report ends the walk with the finding as its verdict (see
	// Detector.Verdict): the walk's outcome is walks.Observed, a violation
	// that search.Run reports in path order, with the finding in
	// search.Violation.Observed. Before that the walk goes on to step
	// Options.Until: a lasso's walk repeats the cycle as with Spin (if it
	// stops repeating, the finding is Refuted, reported no more, and the
	// walk goes on at random), so that the walk's path is the cycle
	// unrolled to d_max; an alarm's walk goes on with its own chooser as
	// with Continue and ends at its first live state (Finding.LiveAt: a
	// false alarm) or at Until. With Until 0 the walk ends at once.
	Report
)

// Fairness says what must run in a cycle for it to be fair. Failure
// events (resets, breaks, drops) never count: they are not a node's work.
type Fairness int

// The fairness notions.
const (
	// SourceFairness: every event source with an enabled event somewhere
	// in the cycle runs an event in the cycle. A source is a node's
	// driver, the reliable connection (or datagram path) from one node to
	// another, a named timer of a node, or a node's connection errors;
	// with reordering, each datagram (engine.Sim.FairSource). This is
	// the default: in the simulator a node has one FIFO queue per peer
	// plus its timers, not one inbox, so a node that runs can still
	// starve one of its queues forever (a fork answering one
	// philosopher's retries while the other's Release waits).
	SourceFairness Fairness = iota
	// NodeFairness: every node with an enabled event somewhere in the
	// cycle runs an event in the cycle (seed 000's definition, where a
	// process has a single inbox). Weaker: it admits cycles that starve
	// one of a node's connections.
	NodeFairness
)

// String returns "sources" or "nodes".
func (f Fairness) String() string {
	if f == NodeFairness {
		return "nodes"
	}
	return "sources"
}

// Options configure lasso detection and the temperature method.
type Options struct {
	// Replays is RT: a hot, fair cycle is reported only after it was
	// replayed this many times from its end with the same events enabled,
	// every state hot and the hash back at its start (default
	// DefaultReplays).
	Replays int
	// Hash chooses how states are compared: Exact (default), Partial, or
	// Custom with Key.
	Hash Hashing
	// Key is the projection Custom hashing compares: any function of the
	// state, e.g. the hash of a few fields of each node. Setting it
	// without Hash implies Custom.
	Key func(*engine.Sim) uint64
	// NoLasso turns lasso detection off (the temperature method alone).
	NoLasso bool
	// Temperature, when positive, is the threshold TT of the temperature
	// method (seed 000, Algorithm 2): a counter rises with every step into
	// a hot state and drops to zero in a live one; it raises an alarm when
	// it reaches TT.
	Temperature int
	// Fairness says which cycles count as fair: SourceFairness (default)
	// or NodeFairness.
	Fairness Fairness
	// OnLasso is what to do with a confirmed lasso: Stop (default), Spin,
	// Continue or Report.
	OnLasso Action
	// OnAlarm is what to do with a temperature alarm: Stop (default),
	// Continue or Report.
	OnAlarm Action
	// Until is, with Report, the step up to which a walk goes on after a
	// finding before it ends with the finding as its verdict: set it to
	// the walk's step bound (walks.Config.MaxSteps, d_max). A walk that
	// reaches its bound first ends Dead without a verdict.
	Until int
	// MaxStates caps the states one detector records (default
	// DefaultMaxStates); later states are not examined. The map from hash
	// to step holds only the walk's own states, so a walk's length is the
	// natural cap.
	MaxStates int
	// MaxCandidates bounds how many earlier states with the same hash a
	// state is compared with, latest first (default DefaultMaxCandidates).
	MaxCandidates int
	// MaxVerify bounds how many suspected cycles one detector replays
	// (default DefaultMaxVerify).
	MaxVerify int
}

func (o *Options) fill() {
	if o.Replays <= 0 {
		o.Replays = DefaultReplays
	}
	if o.Key != nil && o.Hash == Exact {
		o.Hash = Custom
	}
	if o.Hash == Custom && o.Key == nil {
		o.Hash = Exact
	}
	if o.MaxStates <= 0 {
		o.MaxStates = DefaultMaxStates
	}
	if o.MaxCandidates <= 0 {
		o.MaxCandidates = DefaultMaxCandidates
	}
	if o.MaxVerify <= 0 {
		o.MaxVerify = DefaultMaxVerify
	}
}

// Stats count what detectors saw. A Monitor sums them over its walks.
type Stats struct {
	// Walks is the number of detectors a Monitor handed out (one per walk).
	Walks int64
	// States is the number of states the detectors recorded.
	States int64
	// Repeats counts hot states whose hash an earlier state of the same
	// hot stretch had.
	Repeats int64
	// Mismatched counts candidate cycles whose last state has other
	// enabled events than their first (a partial hash hit, or a hash
	// collision).
	Mismatched int64
	// Unfair counts candidate cycles in which a node had an enabled event
	// but never ran: they are never reported.
	Unfair int64
	// Discarded counts hot, fair cycles whose replay failed (seed 000's D).
	Discarded int64
	// Confirmed counts lassos: hot, fair cycles that replayed RT times.
	Confirmed int64
	// Refuted counts confirmed lassos that stopped repeating when Spin or
	// Report repeated them further (possible with partial hashing only).
	Refuted int64
	// Alarms counts temperature alarms; Recovered those after which the
	// execution became live (OnAlarm Continue or Report): false alarms.
	Alarms    int64
	Recovered int64
}

// counters are Stats updated from several goroutines.
type counters struct {
	walks, states, repeats, mismatched, unfair, discarded, confirmed, refuted, alarms, recovered atomic.Int64
}

// addAll adds o's counts (but walks) to c.
func (c *counters) addAll(o *counters) {
	c.states.Add(o.states.Load())
	c.repeats.Add(o.repeats.Load())
	c.mismatched.Add(o.mismatched.Load())
	c.unfair.Add(o.unfair.Load())
	c.discarded.Add(o.discarded.Load())
	c.confirmed.Add(o.confirmed.Load())
	c.refuted.Add(o.refuted.Load())
	c.alarms.Add(o.alarms.Load())
	c.recovered.Add(o.recovered.Load())
}

func (c *counters) snapshot() Stats {
	return Stats{Walks: c.walks.Load(), States: c.states.Load(), Repeats: c.repeats.Load(), Mismatched: c.mismatched.Load(),
		Unfair: c.unfair.Load(), Discarded: c.discarded.Load(), Confirmed: c.confirmed.Load(), Refuted: c.refuted.Load(),
		Alarms: c.alarms.Load(), Recovered: c.recovered.Load()}
}

// Detector watches one walk: hand its Observe to walks.Config.Observe.
// It records, for every state from the first it sees, the state's hash,
// the signatures of its enabled events and of the event that left it.
// When a hot state's hash equals an earlier one's, the states between
// form a candidate cycle; it is reported when it is hot (no state live),
// fair (every node with an enabled event in the cycle runs in it; failure
// events do not count) and replays (seed 000, Algorithms 3 and 4). The
// replay runs on a clone of the simulator, so a failed replay leaves the
// walk as it was.
//
// A Detector is for one walk and one goroutine; a Monitor makes one per
// walk.
type Detector struct {
	o        Options
	m        *Monitor
	c        *counters
	s        *engine.Sim
	liveness []sim.Property
	base     int // the first state observed
	// Per recorded state r (the state after base+r steps).
	hashes []uint64
	prev   []int32  // the previous recorded state with the same hash, or -1
	enab   []uint64 // order-free hash of the enabled events' signatures
	sched  []uint64 // signature of the event that left the state
	roll   []uint64 // rolling hash of sched[:r]
	last   map[uint64]int32
	// Per source (see Fairness), by dense index: the last recorded state
	// in which it had an enabled event, and the last one it ran an event
	// from.
	srcIndex               map[uint64]int32
	lastEnabled, lastSched []int32
	lastCold               int // the last recorded state that was live
	recording              bool
	verified               int
	failed                 map[uint64]bool
	scratch                []int32
	temp                   int
	finding, alarm         *Finding
	spin                   *cycleChooser
	verdict                *Finding   // the finding the walk was ended with (Report)
	pending                []*Finding // findings kept for Commit (Monitor.Committed)
}

// NewDetector returns a detector for one walk.
func NewDetector(o Options) *Detector {
	o.fill()
	return &Detector{o: o, c: &counters{}}
}

// Finding returns the confirmed lasso, or nil.
func (d *Detector) Finding() *Finding { return d.finding }

// Alarm returns the temperature alarm, or nil.
func (d *Detector) Alarm() *Finding { return d.alarm }

// Verdict implements walks.Observer: after Observe ended the walk with a
// finding (action Report) it returns the finding's property and a copy of
// the finding (a *Finding); otherwise "" and nil.
func (d *Detector) Verdict() (property string, detail any) {
	if d.verdict == nil {
		return "", nil
	}
	return d.verdict.Property, d.verdict.clone()
}

// report ends the walk with f as its verdict.
func (d *Detector) report(f *Finding) bool {
	d.verdict = f
	return false
}

// Stats returns what this detector counted (Walks stays 0; a Monitor
// counts walks and sums its detectors' counts).
func (d *Detector) Stats() Stats { return d.c.snapshot() }

func (d *Detector) begin(s *engine.Sim) {
	d.s = s
	d.liveness = s.Config().Liveness
	d.base = s.Steps()
	d.recording = !d.o.NoLasso && len(d.liveness) > 0
	d.lastCold = -1
	d.last = map[uint64]int32{}
	d.srcIndex = map[uint64]int32{}
	d.roll = append(d.roll, 0)
}

// source returns the dense index of the source of ev, a ready event of
// d.s, adding it if new.
func (d *Detector) source(ev engine.Event) int32 {
	if d.o.Fairness == NodeFairness {
		return d.sourceIndex(uint64(ev.Node))
	}
	return d.sourceIndex(d.s.FairSource(ev))
}

// lastSource returns the dense index of the source of the event the last
// step of d.s ran, adding it if new.
func (d *Detector) lastSource() int32 {
	if d.o.Fairness == NodeFairness {
		return d.sourceIndex(uint64(d.s.LastEvent().Node))
	}
	return d.sourceIndex(d.s.LastFairSource())
}

// sourceIndex returns the dense index of a source's key, adding it if new.
func (d *Detector) sourceIndex(key uint64) int32 {
	i, ok := d.srcIndex[key]
	if !ok {
		i = int32(len(d.lastEnabled))
		d.srcIndex[key] = i
		d.lastEnabled = append(d.lastEnabled, -1)
		d.lastSched = append(d.lastSched, -1)
	}
	return i
}

// Observe is the walk hook (walks.Observer): it examines the state s is
// in (called once for the walk's first state and after every step) and
// returns false to end the walk (Stop, or Report with a verdict).
func (d *Detector) Observe(s *engine.Sim) bool {
	if d.s == nil {
		d.begin(s)
	}
	if len(d.liveness) == 0 {
		return true // nothing is hot without a liveness property
	}
	if d.verdict != nil {
		return false
	}
	n := s.Steps()
	k := n - d.base
	hot := !d.live(s)
	if d.spin != nil {
		d.spinning(s, n, hot)
		switch {
		case d.o.OnLasso != Report:
		case !d.finding.Refuted:
			if n >= d.o.Until {
				return d.report(d.finding)
			}
		case d.alarm != nil && d.o.OnAlarm == Report:
			// The lasso was refuted: the alarm before it is still due.
			d.temperature(s, n, k, hot)
			if d.alarmDue(n) {
				return d.report(d.alarm)
			}
		}
		return true
	}
	if !hot {
		d.lastCold = k
	}
	if d.o.Temperature > 0 {
		if !d.temperature(s, n, k, hot) {
			return false
		}
		if d.alarmDue(n) {
			return d.report(d.alarm)
		}
	}
	if !d.recording || d.finding != nil {
		return true
	}
	if k != len(d.hashes) || k >= d.o.MaxStates {
		d.recording = false
		return true
	}
	if k > 0 {
		ev := s.LastEvent()
		d.sched[k-1] = Signature(ev)
		d.roll = append(d.roll, d.roll[k-1]*rollBase+d.sched[k-1])
		if !ev.Kind.IsFailure() {
			d.lastSched[d.lastSource()] = int32(k - 1)
		}
	}
	h := d.hash(s)
	if s.HashErr() != nil {
		// The state cannot be hashed (too large): no repeat can be
		// trusted. Stop recording; the search reports the error.
		d.recording = false
		return true
	}
	d.scratch = d.scratch[:0]
	enab := enabledSet(s, func(ev engine.Event) { d.scratch = append(d.scratch, d.source(ev)) })
	if hot {
		if stop, found := d.detect(s, k, h, enab); found {
			return !stop
		}
	}
	prev, seen := d.last[h]
	if !seen {
		prev = -1
	}
	d.hashes = append(d.hashes, h)
	d.prev = append(d.prev, prev)
	d.enab = append(d.enab, enab)
	d.sched = append(d.sched, 0)
	d.last[h] = int32(k)
	for _, src := range d.scratch {
		d.lastEnabled[src] = int32(k)
	}
	d.c.states.Add(1)
	if d.shared() {
		d.m.c.states.Add(1)
	}
	return true
}

const rollBase = 0x100000001b3

func (d *Detector) live(s *engine.Sim) bool {
	ok, err := s.AllHold(d.liveness)
	return ok || err != nil // a panicking property is no evidence of a hot state
}

func (d *Detector) hash(s *engine.Sim) uint64 {
	switch d.o.Hash {
	case Partial:
		return PartialHash(s)
	case Custom:
		return d.o.Key(s)
	}
	return s.Hash()
}

func (d *Detector) count(f func(*counters) *atomic.Int64) {
	f(d.c).Add(1)
	if d.shared() {
		f(&d.m.c).Add(1)
	}
}

// shared reports whether the detector counts into its monitor as it goes
// (not at Commit).
func (d *Detector) shared() bool { return d.m != nil && !d.m.Committed }

// Commit hands the walk's counts and findings to the detector's monitor
// when it counts committed walks only (Monitor.Committed); package
// explore calls it when the walk's path is committed (explore.Committer).
func (d *Detector) Commit() {
	if d.m == nil || !d.m.Committed {
		return
	}
	d.m.c.walks.Add(1)
	d.m.c.addAll(d.c)
	for _, f := range d.pending {
		d.m.add(f)
	}
	d.pending = nil
}

// temperature runs seed 000's CHECKTEMP; false means stop the walk.
func (d *Detector) temperature(s *engine.Sim, n, k int, hot bool) bool {
	if d.alarm != nil {
		if !hot && d.alarm.LiveAt == 0 {
			d.update(func() { d.alarm.LiveAt = n })
			d.count(func(c *counters) *atomic.Int64 { return &c.recovered })
		}
		return true
	}
	if !hot {
		d.temp = 0
		return true
	}
	if k == 0 {
		return true // the walk's first state is no step into a hot state
	}
	d.temp++
	if d.temp < d.o.Temperature {
		return true
	}
	d.alarm = &Finding{Kind: KindTemperature, Property: d.firstNotLive(s), Choices: s.ChoiceValues(), Steps: n, Start: d.base,
		FailuresUntil: s.FailuresUntil(), Threshold: d.o.Temperature, Hashing: d.o.Hash, Fairness: d.o.Fairness, startChoices: s.StepStart(d.base)}
	d.count(func(c *counters) *atomic.Int64 { return &c.alarms })
	d.publish(d.alarm)
	return d.o.OnAlarm != Stop
}

// alarmDue reports whether a raised alarm with action Report ends the walk
// at step n: at the first live state after it, or at step Until.
func (d *Detector) alarmDue(n int) bool {
	return d.alarm != nil && d.o.OnAlarm == Report && (d.alarm.LiveAt > 0 || n >= d.o.Until)
}

func (d *Detector) firstNotLive(s *engine.Sim) string {
	if i, _ := s.FirstViolated(d.liveness); i >= 0 {
		return d.liveness[i].Name
	}
	return ""
}

// detect compares state k, hot with hash h and enabled set enab, with the
// earlier states of the same hash, latest first. found reports a confirmed
// lasso, stop whether the walk must end.
func (d *Detector) detect(s *engine.Sim, k int, h, enab uint64) (stop, found bool) {
	i, ok := d.last[h]
	if !ok || int(i) <= d.lastCold {
		return false, false
	}
	d.count(func(c *counters) *atomic.Int64 { return &c.repeats })
	for tries := 0; i >= 0 && int(i) > d.lastCold && tries < d.o.MaxCandidates; i, tries = d.prev[i], tries+1 {
		if d.enab[i] != enab {
			d.count(func(c *counters) *atomic.Int64 { return &c.mismatched })
			continue
		}
		if ok, upto := d.fair(int(i)); !ok {
			d.count(func(c *counters) *atomic.Int64 { return &c.unfair })
			if upto <= d.lastCold {
				break // every earlier candidate starves the same source
			}
			// Candidates above upto starve it too: skip them (each skip
			// counts as a try, to keep a state's cost bounded).
			for d.prev[i] > int32(upto) && tries < d.o.MaxCandidates {
				i, tries = d.prev[i], tries+1
			}
			continue
		}
		key := mix(mix(h, d.cycleRoll(int(i), k)), uint64(k-int(i)))
		if d.failed[key] {
			continue
		}
		if d.verified >= d.o.MaxVerify {
			return false, false
		}
		d.verified++
		steps, events, never, ok := d.verify(s, int(i), k, h)
		if ok && timeStands(steps, events) {
			// Unfair to time: no real execution waits forever for a
			// timeout (see timeStands).
			d.count(func(c *counters) *atomic.Int64 { return &c.unfair })
			if d.failed == nil {
				d.failed = map[uint64]bool{}
			}
			d.failed[key] = true
			continue
		}
		if ok {
			return d.confirm(s, int(i), k, steps, events, never), true
		}
		if d.failed == nil {
			d.failed = map[uint64]bool{}
		}
		d.failed[key] = true
		d.count(func(c *counters) *atomic.Int64 { return &c.discarded })
	}
	return false, false
}

// timeStands reports whether, in a cycle of steps (events[j] the event of
// steps[j]), some node asks Context.Elapsed and every answer it gets is
// "not yet": time never passes for it. Elapsed is a choice point (seed
// 003 §4.1: both answers are executions), but an execution in which a
// node asks forever about a deadline and is never told yes is none a real
// system has, since time does pass, if the deadline stays where it is:
// such a cycle is unfair to time, as one that starves an event source is
// unfair to that source, and proves nothing. A trial's correct lease
// takeover ("take over once the lease expired") was reported as a proven
// livelock by the cycle in which the lease never expires. The rule is per
// node (the node whose handler ran the step): another node's "elapsed"
// says nothing of this node's deadline (the same lease was a "proven"
// livelock again once an unrelated node in the cycle saw a second go by).
// macemc cannot tell a fixed deadline from a renewed one (a heartbeat that
// moves it), so a cycle set aside here may be a real livelock: it is
// counted as unfair, never reported as a lasso. A step's answers are read
// by fair.TimeOf, as the explored state graph reads them: the graph's fair
// cycles are fair to time as the detector's are.
func timeStands(steps []cycleStep, events []engine.Event) bool {
	var waits, passes map[sim.NodeID]bool
	for j, st := range steps {
		switch fair.TimeOf(st.sub) {
		case fair.TimePasses:
			if passes == nil {
				passes = map[sim.NodeID]bool{}
			}
			passes[events[j].Node] = true
		case fair.TimeWaits:
			if waits == nil {
				waits = map[sim.NodeID]bool{}
			}
			waits[events[j].Node] = true
		}
	}
	for n := range waits {
		if !passes[n] {
			return true
		}
	}
	return false
}

// timeMixed returns the nodes that, in a cycle of steps (events[j] the
// event of steps[j]), ask Context.Elapsed and are told "elapsed" at some
// asks and "not yet" at others, in order (Finding.Waiting).
func timeMixed(steps []cycleStep, events []engine.Event) []sim.NodeID {
	var yes, no map[sim.NodeID]bool
	for j, st := range steps {
		for _, c := range st.sub {
			if c.Kind != engine.ChooseTime || c.N < 2 {
				continue
			}
			m := &no
			if c.Value != 0 {
				m = &yes
			}
			if *m == nil {
				*m = map[sim.NodeID]bool{}
			}
			(*m)[events[j].Node] = true
		}
	}
	var out []sim.NodeID
	for n := range no {
		if yes[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// fair reports whether every source (or node) with an enabled event in
// recorded states i..k-1 ran an event from one of them. When not, upto is
// the last state the starved source ran from: no cycle starting after it
// can be fair either.
func (d *Detector) fair(i int) (ok bool, upto int) {
	for v := range d.lastEnabled {
		if int(d.lastEnabled[v]) >= i && int(d.lastSched[v]) < i {
			return false, int(d.lastSched[v])
		}
	}
	return true, 0
}

// cycleRoll is the rolling hash of the signatures of the events that left
// states i..k-1: the same for the same sequence wherever it occurs.
func (d *Detector) cycleRoll(i, k int) uint64 {
	p, b, e := uint64(1), uint64(rollBase), k-i
	for e > 0 {
		if e&1 == 1 {
			p *= b
		}
		b *= b
		e >>= 1
	}
	return d.roll[k] - d.roll[i]*p
}

// verify replays the cycle from recorded state i to state k (whose hash
// is h) RT times on a clone of s, from s's state: the same events must be
// enabled after every step as in the recorded cycle, no state may be live,
// and each round must end with hash h again. It returns the cycle's steps,
// the events of the first replayed round and the liveness properties that
// hold in none of its states.
func (d *Detector) verify(s *engine.Sim, i, k int, h uint64) ([]cycleStep, []engine.Event, []string, bool) {
	steps := cycleSteps(s, d.base+i, d.base+k)
	for j := range steps {
		steps[j].sig = d.sched[i+j]
	}
	c := newCycleChooser(steps)
	cl := s.Clone(c)
	c.s = cl
	L := k - i
	events := make([]engine.Event, 0, L)
	held := make([]bool, len(d.liveness))
	for rep := 0; rep < d.o.Replays; rep++ {
		for j := 0; j < L; j++ {
			ok, err := cl.Step()
			if err != nil || !ok || !c.stepDone() {
				return nil, nil, nil, false
			}
			if rep == 0 {
				events = append(events, cl.LastEvent())
				for p := range d.liveness {
					if v, err := cl.FirstViolated(d.liveness[p : p+1]); v < 0 && err == nil {
						held[p] = true
					}
				}
			}
			if d.live(cl) || enabledSet(cl, nil) != d.enab[i+(j+1)%L] {
				return nil, nil, nil, false
			}
		}
		if d.hash(cl) != h {
			return nil, nil, nil, false
		}
	}
	var never []string
	for p, ok := range held {
		if !ok {
			never = append(never, d.liveness[p].Name)
		}
	}
	return steps, events, never, true
}

// confirm records the lasso from recorded state i to k and acts on it;
// it reports whether the walk must stop.
func (d *Detector) confirm(s *engine.Sim, i, k int, steps []cycleStep, events []engine.Event, never []string) bool {
	n := d.base + k
	property := d.firstNotLive(s)
	if len(never) > 0 {
		property = never[0]
	}
	draws := 0
	for _, st := range steps {
		for _, c := range st.sub {
			if c.Kind == engine.ChooseRandom && c.N > 1 {
				draws++
			}
		}
	}
	d.finding = &Finding{Kind: KindLasso, Property: property, Never: never, Draws: draws, Choices: s.ChoiceValues(), Steps: n, Start: d.base,
		FailuresUntil: s.FailuresUntil(), Stem: d.base + i, CycleLen: k - i, Replays: d.o.Replays, Hashing: d.o.Hash,
		Fairness: d.o.Fairness, Waiting: timeMixed(steps, events), Events: events, startChoices: s.StepStart(d.base)}
	d.count(func(c *counters) *atomic.Int64 { return &c.confirmed })
	d.publish(d.finding)
	switch d.o.OnLasso {
	case Report:
		if n >= d.o.Until {
			d.verdict = d.finding
			return true
		}
		fallthrough
	case Spin:
		c := newCycleChooser(steps)
		c.s = s
		c.fallback = engine.NewRandom(mix(d.hashes[i], uint64(n)))
		d.spin = c
		s.SetChooser(c)
		return false
	case Continue:
		return false
	}
	return true
}

// spinning follows a walk whose scheduling Spin took over.
func (d *Detector) spinning(s *engine.Sim, n int, hot bool) {
	f := d.finding
	if f.Refuted {
		return
	}
	if d.spin.mismatch || !hot {
		d.update(func() { f.Refuted, f.RefutedAt = true, n })
		d.count(func(c *counters) *atomic.Int64 { return &c.refuted })
		return
	}
	d.update(func() { f.Spun = n - f.Steps })
}

func (d *Detector) publish(f *Finding) {
	switch {
	case d.shared():
		d.m.add(f)
	case d.m != nil:
		d.pending = append(d.pending, f)
	}
}

// update changes a published finding under its monitor's lock.
func (d *Detector) update(fn func()) {
	if d.m != nil {
		d.m.mu.Lock()
		defer d.m.mu.Unlock()
	}
	fn()
}

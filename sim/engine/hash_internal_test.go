package engine

import (
	"testing"

	"github.com/macemc/macemc/sim"
)

// mutator is a service that changes every part of the state the hash
// covers: its struct (a map among its fields; see also flat), messages on connections,
// datagrams, one-shot and periodic timers, random draws from its stream,
// monitor events and client operations.
type mutator struct {
	sim.Base
	Seen    map[sim.NodeID]int
	Count   int
	Pending bool // a client operation of this node is pending
}

type token struct {
	N    int
	Note string
}

func (c *mutator) Start(ctx *sim.Context) {
	c.Seen = map[sim.NodeID]int{}
	ctx.SetPeriodic("tick")
}

func (c *mutator) act(ctx *sim.Context, from sim.NodeID) {
	n := ctx.Nodes()
	c.Count++
	c.Seen[from]++
	stir(ctx, c.Count, &c.Pending)
	if c.Count%4 == 0 {
		c.Seen = map[sim.NodeID]int{} // the map is rebuilt in another order
		for p := range sim.NodeID(n) {
			c.Seen[(p+from)%sim.NodeID(n)] = int(p) % 2
		}
	}
}

// stir makes one random change to the node's pending events, random
// stream, the monitor or the history.
func stir(ctx *sim.Context, count int, pending *bool) {
	peer := sim.NodeID(ctx.Rand(ctx.Nodes()))
	switch ctx.Rand(8) {
	case 0:
		ctx.Send(peer, token{N: count % 3})
	case 1:
		ctx.SendDatagram(peer, token{N: count % 2, Note: "d"})
	case 2:
		ctx.SetTimer("once")
	case 3:
		ctx.CancelTimer("tick")
		ctx.SetTimer("once")
	case 4:
		ctx.SetPeriodic("tick")
	case 5:
		var b [8]byte
		_, _ = ctx.Reader().Read(b[:])
	case 6:
		ctx.Notify(token{N: int(peer)})
	case 7:
		client := int(ctx.Self())
		if *pending {
			ctx.Return(client, count%2)
		} else {
			ctx.Invoke(client, count%3)
		}
		*pending = !*pending
	}
	if !ctx.TimerScheduled("tick") && !ctx.TimerScheduled("once") {
		ctx.SetTimer("once") // something stays to do
	}
}

func (c *mutator) HandleApp(ctx *sim.Context, _ any) { c.act(ctx, ctx.Self()) }
func (c *mutator) HandleMessage(ctx *sim.Context, from sim.NodeID, _ sim.Message) {
	c.act(ctx, from)
}
func (c *mutator) HandleTimer(ctx *sim.Context, _ string)            { c.act(ctx, ctx.Self()) }
func (c *mutator) HandleConnError(ctx *sim.Context, peer sim.NodeID) { c.act(ctx, peer) }

// flat is a mutator whose struct has a pure program (numbers, strings,
// slices), hashed straight from memory (hashPure): its handlers often
// leave it as it was, and otherwise change it in place (a slice's
// element, a byte), grow or shrink a slice, or put back a new string of
// the same content.
type flat struct {
	sim.Base
	Pending bool
	Steps   int `macemc:"-"`
	Log     []int
	Names   []string
	Note    string
	Raw     []byte
	Pair    [2]int16
}

func (f *flat) Start(ctx *sim.Context) { ctx.SetPeriodic("tick") }

func (f *flat) act(ctx *sim.Context) {
	f.Steps++
	stir(ctx, f.Steps, &f.Pending)
	switch ctx.Rand(10) {
	case 0:
		f.Log = append(f.Log, f.Steps%3)
	case 1:
		if len(f.Log) > 0 {
			f.Log[len(f.Log)/2]++ // in place
		}
	case 2:
		if len(f.Log) > 0 {
			f.Log = f.Log[:len(f.Log)-1]
		}
	case 3:
		f.Names = append(f.Names, string(rune('a'+f.Steps%3)))
	case 4:
		f.Note = string([]byte{'n', byte('0' + f.Steps%2)}) // a new string, maybe of the same content
	case 5:
		if len(f.Raw) < 9 {
			f.Raw = append(f.Raw, byte(f.Steps))
		} else {
			f.Raw[f.Steps%len(f.Raw)] ^= 1 // in place
		}
	case 6:
		f.Pair[f.Steps%2]--
	}
}

func (f *flat) HandleApp(ctx *sim.Context, _ any)                           { f.act(ctx) }
func (f *flat) HandleMessage(ctx *sim.Context, _ sim.NodeID, _ sim.Message) { f.act(ctx) }
func (f *flat) HandleTimer(ctx *sim.Context, _ string)                      { f.act(ctx) }
func (f *flat) HandleConnError(ctx *sim.Context, _ sim.NodeID)              { f.act(ctx) }

// tally is a monitor that counts the events it gets.
type tally struct{ Events map[int]int }

func (t *tally) Handle(ev any) error {
	t.Events[ev.(token).N]++
	return nil
}

func mutatorConfig(reorder bool) *sim.Config {
	return &sim.Config{
		Nodes: 4,
		Service: func(id sim.NodeID) sim.Service {
			if id%2 == 1 {
				return &flat{}
			}
			return &mutator{}
		},
		App: func(sim.NodeID) []any { return []any{"a", "b", "c", "d"} },
		Failures: sim.Failures{Resets: 3, Crashes: 1, Breaks: 3, Drops: 3, Duplicates: 3, Partitions: 2,
			Reorder: reorder},
		Monitors: []sim.MonitorSpec{{Name: "tally", New: func() sim.Monitor { return &tally{Events: map[int]int{}} }}},
	}
}

// scratchHash hashes s's state afresh, on a copy: every node and message
// encoded again, every part combined again.
func scratchHash(t *testing.T, s *Sim) uint64 {
	t.Helper()
	cp := s.deepCopy(nil)
	cp.forget()
	return cp.Hash()
}

// TestHashIncremental: the hash kept up to date step by step equals the
// hash computed afresh, after every step of random executions that use
// every kind of event and failure, with datagrams reordered or not, with
// fault filters, across Reset and Clone.
func TestHashIncremental(t *testing.T) {
	kinds := map[EventKind]int{}
	for _, reorder := range []bool{false, true} {
		cfg := mutatorConfig(reorder)
		if reorder {
			f := &cfg.Failures
			f.Nodes, f.Links, f.Splits, f.PerNode = []sim.NodeID{1, 3}, []sim.Link{{0, 1}, {2, 1}}, [][]sim.NodeID{{0, 1}, {3}}, 2
		}
		s, err := New(cfg, Options{Chooser: NewRandom(1)})
		if err != nil {
			t.Fatal(err)
		}
		for walk := range 40 {
			r := NewRandom(uint64(walk))
			if err := s.Reset(r); err != nil {
				t.Fatal(err)
			}
			if walk%3 == 2 {
				s = s.Clone(r)
			}
			// Hash after some steps only, so that parts go stale over
			// several steps too.
			every := 1 + walk%3
			for s.Steps() < 150 {
				if ok, err := s.Step(); err != nil {
					t.Fatalf("reorder=%v walk %d step %d: %v", reorder, walk, s.Steps(), err)
				} else if !ok {
					break // quiescent
				}
				kinds[s.LastEvent().Kind]++
				if s.Steps()%every != 0 {
					continue
				}
				if h, want := s.Hash(), scratchHash(t, s); h != want {
					t.Fatalf("reorder=%v walk %d after step %d (%s): hash %x, afresh %x", reorder, walk, s.Steps(), s.LastEvent(), h, want)
				}
			}
			if err := s.HashErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, k := range []EventKind{EvApp, EvMessage, EvDatagram, EvTimer, EvConnError, EvReset, EvCrash, EvBreak, EvDrop, EvDuplicate, EvPartition, EvHeal} {
		if kinds[k] == 0 {
			t.Errorf("no %s event in the executions: the test does not cover it", k)
		}
	}
}

// TestHashIndependentOfHistory: interleavings of the same steps that reach
// the same state (messages sent on the connections in other orders, and
// with reordering datagrams too) hash the same, although their parts were
// put in the sums in different orders. Without reordering the datagrams'
// order is part of the state: the interleavings reach different states.
func TestHashIndependentOfHistory(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		var hashes []uint64
		for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
			cfg := &sim.Config{
				Nodes:    3,
				Service:  func(sim.NodeID) sim.Service { return &orderly{} },
				App:      func(sim.NodeID) []any { return []any{"go"} },
				Failures: sim.Failures{Reorder: reorder},
			}
			s, err := New(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.Hash() // the parts of the initial state are in the sums
			for _, id := range order {
				s.buildReady()
				i := -1
				for k, e := range s.ready {
					if e.kind == EvApp && e.node == int32(id) {
						i = k
					}
				}
				if err := s.StepEvent(i); err != nil {
					t.Fatal(err)
				}
				s.Hash()
			}
			if h, want := s.Hash(), scratchHash(t, s); h != want {
				t.Fatalf("reorder=%v order %v: hash %x, afresh %x", reorder, order, h, want)
			}
			hashes = append(hashes, s.Hash())
		}
		same := hashes[0] == hashes[1] && hashes[0] == hashes[2]
		different := hashes[0] != hashes[1] && hashes[0] != hashes[2] && hashes[1] != hashes[2]
		if reorder && !same || !reorder && !different {
			t.Errorf("reorder=%v: the three interleavings hash %x", reorder, hashes)
		}
	}
}

// orderly: each node's request sends a message to every other node and a
// datagram to node 0.
type orderly struct {
	sim.Base
	Sent int
}

func (o *orderly) HandleApp(ctx *sim.Context, _ any) {
	for p := range sim.NodeID(ctx.Nodes()) {
		if p != ctx.Self() {
			ctx.Send(p, token{N: int(ctx.Self())})
			o.Sent++
		}
	}
	ctx.SendDatagram(0, token{N: int(ctx.Self())})
}

// TestHashMemo: the part hashes saved at each state of an execution and
// restored on a replay of it give the same hashes, and the replay goes on
// from them as if it had hashed every part itself.
func TestHashMemo(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		cfg := mutatorConfig(reorder)
		s, err := New(cfg, Options{Chooser: NewRandom(5)})
		if err != nil {
			t.Fatal(err)
		}
		const saved = 60
		memos := make([]HashMemo, saved+1)
		hashes := make([]uint64, saved+1)
		hashes[0] = s.Hash()
		s.SaveHashes(&memos[0])
		for k := 1; k <= saved; k++ {
			if ok, err := s.Step(); err != nil || !ok {
				t.Fatalf("step %d: %v %v", k, ok, err)
			}
			hashes[k] = s.Hash()
			s.SaveHashes(&memos[k])
		}
		choices := s.ChoiceValues()
		// The replay restores every state's hashes, then steps on and
		// hashes the states after the saved ones itself: on a new
		// simulator, and on the same one again (as a search replays
		// prefixes), which hashed other states in between.
		fresh, err := New(cfg, Options{Chooser: NewRecorded(choices)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []*Sim{fresh, s} {
			for again := range 3 {
				if err := r.Reset(NewRecorded(choices)); err != nil {
					t.Fatal(err)
				}
				if !r.RestoreHashes(&memos[0]) {
					t.Fatal("restoring the initial state's hashes failed")
				}
				prefix := saved - 20*again
				for k := 1; k <= prefix; k++ {
					if _, err := r.Step(); err != nil {
						t.Fatal(err)
					}
					if !r.RestoreHashes(&memos[k]) {
						t.Fatalf("restoring state %d's hashes failed", k)
					}
					if k%7 == 0 {
						if h := r.Hash(); h != hashes[k] {
							t.Fatalf("reorder=%v state %d: restored hash %x, was %x", reorder, k, h, hashes[k])
						}
					}
				}
				r.SetChooser(NewRandom(uint64(9 + again)))
				for range 80 {
					if ok, err := r.Step(); err != nil || !ok {
						t.Fatalf("step %d: %v %v", r.Steps(), ok, err)
					}
					if h, want := r.Hash(), scratchHash(t, r); h != want {
						t.Fatalf("reorder=%v after step %d past the restored states: hash %x, afresh %x", reorder, r.Steps(), h, want)
					}
				}
			}
		}
	}
}

// TestHashMemoMismatch: part hashes saved on one state are refused by a
// state whose messages in flight lie elsewhere (other connections, other
// queue lengths, another number of datagrams), and the refusal changes
// nothing: the hash stays the one computed afresh.
func TestHashMemoMismatch(t *testing.T) {
	for _, reorder := range []bool{false, true} {
		s, err := New(mutatorConfig(reorder), Options{Chooser: NewRandom(5)})
		if err != nil {
			t.Fatal(err)
		}
		const saved = 40
		memos := make([]HashMemo, saved+1)
		s.SaveHashes(&memos[0])
		for k := 1; k <= saved; k++ {
			if ok, err := s.Step(); err != nil || !ok {
				t.Fatalf("step %d: %v %v", k, ok, err)
			}
			s.SaveHashes(&memos[k])
		}
		refused := 0
		for k := range memos[:saved] {
			if s.RestoreHashes(&memos[k]) {
				s.forget() // it fit, with the wrong hashes: start over
				continue
			}
			refused++
			if h, want := s.Hash(), scratchHash(t, s); h != want {
				t.Fatalf("reorder=%v: refusing state %d's hashes changed the hash: %x, afresh %x", reorder, k, h, want)
			}
		}
		if refused < saved/2 {
			t.Fatalf("reorder=%v: %d of %d other states' hashes refused, want at least %d", reorder, refused, saved, saved/2)
		}
	}
}

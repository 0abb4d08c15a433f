package engine_test

import (
	"bytes"
	cryptorand "crypto/rand"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// foreignStore stands for a library type the user does not own: it keeps
// call counters that are no part of the state.
type foreignStore struct {
	Entries []int
	reads   int
}

func (f *foreignStore) Get(i int) int { f.reads++; return f.Entries[i] }

func init() {
	sim.RegisterCanonical(func(f *foreignStore) any { return f.Entries })
}

type usesForeign struct {
	sim.Base
	Store *foreignStore
}

func (u *usesForeign) HandleApp(ctx *sim.Context, req any) {
	if req == "append" {
		u.Store.Entries = append(u.Store.Entries, len(u.Store.Entries))
	} else {
		u.Store.Get(0)
	}
}

// TestRegisterCanonical: a registered canonical form stands in for the
// type in hashes and text forms.
func TestRegisterCanonical(t *testing.T) {
	cfg := &sim.Config{
		Nodes:   1,
		Service: func(sim.NodeID) sim.Service { return &usesForeign{Store: &foreignStore{Entries: []int{7}}} },
		App:     func(sim.NodeID) []any { return []any{"read", "read", "append"} },
	}
	s := mustNew(t, cfg, engine.Options{})
	h0 := s.Hash()
	step(t, s, kind(engine.EvApp, 0))
	step(t, s, kind(engine.EvApp, 0))
	if sim.Node[usesForeign](s.View(), 0).Store.reads != 2 {
		t.Fatal("the reads did not happen")
	}
	// The driver moved on, so compare the nodes' encodings.
	a := engine.Hash(sim.Node[usesForeign](s.View(), 0))
	b := engine.Hash(&usesForeign{Store: &foreignStore{Entries: []int{7}}})
	if a != b {
		t.Fatal("the call counter changed the hash")
	}
	step(t, s, kind(engine.EvApp, 0))
	if s.Hash() == h0 {
		t.Fatal("appending did not change the hash")
	}
	if txt := engine.FormatValue(sim.Node[usesForeign](s.View(), 0)); txt != "&usesForeign{Store: &[7, 1]}" {
		t.Fatalf("text form %q", txt)
	}
}

// bloated holds a large slice deep inside.
type bloated struct {
	sim.Base
	Meta  string
	Inner struct{ Log *[]string }
	n     int
}

func (b *bloated) Start(ctx *sim.Context) {
	log := make([]string, b.n)
	for i := range log {
		log[i] = strings.Repeat("x", 100)
	}
	b.Inner.Log = &log
}

// TestEncodingBound: a state past the bound stops hashing with an error
// naming where most of it is.
func TestEncodingBound(t *testing.T) {
	cfg := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &bloated{n: 5000} }}
	s := mustNew(t, cfg, engine.Options{MaxStateBytes: 100_000})
	s.Hash()
	var ee *engine.EncodingError
	if err := s.HashErr(); !errors.Is(err, engine.ErrEncoding) || !errors.As(err, &ee) || ee.Path != ".Inner.Log" || ee.Detail != "[]string, 5000 elements" {
		t.Fatalf("encoding error %v (%+v)", err, ee)
	}
	// Interrupted encodings stop too (checked every megabyte).
	big := &sim.Config{Nodes: 1, Service: func(sim.NodeID) sim.Service { return &bloated{n: 30000} }}
	s = mustNew(t, big, engine.Options{MaxStateBytes: 1 << 30})
	s.SetInterrupt(func() bool { return true })
	s.Hash()
	if err := s.HashErr(); !errors.As(err, &ee) || !ee.Interrupted {
		t.Fatalf("interrupted encoding: %v", err)
	}
	// Within the bound, nothing is reported.
	s = mustNew(t, cfg, engine.Options{})
	s.Hash()
	if err := s.HashErr(); err != nil {
		t.Fatal(err)
	}
}

// drawer draws from the deterministic random sources.
type drawer struct {
	sim.Base
	Bytes []byte
	Big   int64
}

func (d *drawer) HandleTimer(ctx *sim.Context, _ string) {
	b := make([]byte, 5)
	ctx.Reader().Read(b)
	d.Bytes = append(d.Bytes, b...)
	n, err := cryptorand.Int(sim.Reader, big.NewInt(1000))
	if err != nil {
		panic(err)
	}
	d.Big += n.Int64()
}

func (d *drawer) Start(ctx *sim.Context) { ctx.SetPeriodic("draw") }

// TestDeterministicRandom: Context.Reader and sim.Reader (standing in for
// crypto/rand.Reader) give the same bytes on every replay, different ones
// per node, and their positions are part of the state.
func TestDeterministicRandom(t *testing.T) {
	defer sim.UseDeterministicCryptoRand()()
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &drawer{} }}
	s := record(t, cfg, engine.NewRandom(3), 10)
	if err := engine.CheckDeterminism(cfg, s.s.ChoiceValues(), engine.Options{}); err != nil {
		t.Fatal(err)
	}
	a, b := sim.Node[drawer](s.s.View(), 0), sim.Node[drawer](s.s.View(), 1)
	if len(a.Bytes) == 0 || len(b.Bytes) == 0 || string(a.Bytes[:5]) == string(b.Bytes[:5]) {
		t.Fatalf("streams %x and %x", a.Bytes, b.Bytes)
	}
	// crypto/rand.Read draws from it too while a handler runs.
	var got []byte
	cfg2 := scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{func(ctx *sim.Context, n *Script) {
			buf := make([]byte, 4)
			cryptorand.Read(buf)
			got = append(got, buf...)
		}}
	})
	for range 2 {
		s2 := mustNew(t, cfg2, engine.Options{})
		walk(t, s2, 1)
	}
	if string(got[:4]) != string(got[4:]) {
		t.Fatalf("crypto/rand.Read in two runs: %x", got)
	}
}

// TestReaderAfterAHang: a handler that hangs while sim.Reader is in force
// does not take Reader from the handlers that run after it, of this or
// any other simulator in the process (it held a process-wide slot for
// good: later handlers ran without a Context, and every later search of
// a system reading crypto/rand failed or looked nondeterministic), and a
// goroutine a handler started still finds no Context.
func TestReaderAfterAHang(t *testing.T) {
	defer sim.UseDeterministicCryptoRand()()
	hang := hangConfig("select")
	s := mustNew(t, hang, engine.Options{Chooser: engine.NewRandom(4)})
	if err := s.Guard(20*time.Millisecond, func() error { return stepAll(s, 1000) }); !errors.Is(err, engine.ErrHang) {
		t.Fatalf("want a hang, got %v", err)
	}
	cfg := &sim.Config{Nodes: 2, Service: func(sim.NodeID) sim.Service { return &drawer{} }}
	for seed := range uint64(20) {
		r := record(t, cfg, engine.NewRandom(seed), 10)
		if err := engine.CheckDeterminism(cfg, r.s.ChoiceValues(), engine.Options{}); err != nil {
			t.Fatalf("seed %d, after a hang: %v", seed, err)
		}
	}
	outside := make(chan any, 1)
	cfg2 := scriptConfig(1, func(sim.NodeID) []Do {
		return []Do{func(*sim.Context, *Script) {
			go func() {
				defer func() { outside <- recover() }()
				cryptorand.Read(make([]byte, 4))
			}()
		}}
	})
	walk(t, mustNew(t, cfg2, engine.Options{}), 1)
	if r := <-outside; r == nil {
		t.Fatal("a goroutine a handler started read sim.Reader without panicking")
	}
}

// escaper starts a goroutine in a handler that acts after the handler
// returned: once release is closed (so that the race detector sees its act
// ordered after the simulator's step), then after delay.
type escaper struct {
	sim.Base
	N       int
	mode    string
	delay   time.Duration
	wg      *sync.WaitGroup
	kick    chan struct{}
	release chan struct{}
}

func (e *escaper) HandleApp(ctx *sim.Context, req any) {
	if e.mode == "kicked" {
		return
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		<-e.release
		time.Sleep(e.delay)
		switch e.mode {
		case "send":
			ctx.Send(1, Num{Seq: 1})
		case "write":
			e.N++
		}
	}()
}

func escapeConfig(mode string, wg *sync.WaitGroup, release chan struct{}) *sim.Config {
	return &sim.Config{
		Nodes: 2,
		Service: func(sim.NodeID) sim.Service {
			return &escaper{mode: mode, wg: wg, delay: time.Millisecond, release: release}
		},
		App: func(id sim.NodeID) []any { return []any{1, 2} },
	}
}

// TestEscapes: a send from a goroutine after its handler returned, and a
// state change between the end of a handler and the node's next event,
// are reported as escapes naming the node.
func TestEscapes(t *testing.T) {
	var wg sync.WaitGroup
	release := make(chan struct{})
	s := mustNew(t, escapeConfig("send", &wg, release), engine.Options{})
	step(t, s, kind(engine.EvApp, 1))
	close(release)
	wg.Wait()
	_, err := s.Step()
	var ee *engine.EscapeError
	if !errors.As(err, &ee) || ee.Node != 1 || ee.Call != "Send" || !errors.Is(err, engine.ErrNondeterministic) || s.InFlight() != 0 {
		t.Fatalf("send after the handler: %v (%d in flight)", err, s.InFlight())
	}

	// A goroutine started outside the handlers (here by the constructor)
	// that writes the state after a handler is seen at the node's next
	// event.
	cfg := escapeConfig("write", &wg, nil)
	cfg.Service = func(sim.NodeID) sim.Service {
		e := &escaper{mode: "kicked", wg: &wg, kick: make(chan struct{})}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-e.kick
			e.N++
		}()
		return e
	}
	s = mustNew(t, cfg, engine.Options{CheckEscapes: true})
	step(t, s, kind(engine.EvApp, 0))
	for _, n := range []sim.NodeID{0, 1} {
		close(sim.Node[escaper](s.View(), n).kick)
	}
	wg.Wait()
	ee = nil
	for i, ev := range s.Ready() {
		if ev.Kind == engine.EvApp && ev.Node == 0 {
			err = s.StepEvent(i)
			break
		}
	}
	if !errors.As(err, &ee) || ee.Node != 0 || ee.Call != "" || !strings.Contains(err.Error(), "node 0 escaped its handler: its state changed after its last handler returned") {
		t.Fatalf("state written after the handler: %v", err)
	}

	// With escape checks on, a goroutine still running when its handler
	// returns is caught at once, however late it acts.
	release = make(chan struct{})
	cfg.Service = func(sim.NodeID) sim.Service {
		return &escaper{mode: "write", wg: &wg, delay: time.Millisecond, release: release}
	}
	s = mustNew(t, cfg, engine.Options{CheckEscapes: true})
	ee = nil
	for i, ev := range s.Ready() {
		if ev.Kind == engine.EvApp && ev.Node == 1 {
			err = s.StepEvent(i)
			break
		}
	}
	if !errors.As(err, &ee) || ee.Node != 1 || !strings.Contains(err.Error(), "node 1 escaped its handler: its handler started a goroutine that was still running when the handler returned (created by github.com/macemc/macemc/sim/engine_test.(*escaper).HandleApp)") {
		t.Fatalf("goroutine left running: %v", err)
	}
	close(release) // the goroutine was seen; now it writes
	wg.Wait()
}

// failFirst picks the first ready event of kind Kind, else the first.
type failFirst struct{ Kind engine.EventKind }

func (f failFirst) Choose(engine.ChoiceKind, int, []float64) int { return 0 }

func (f failFirst) ChooseEvent(ready []engine.Event, _ []float64) int {
	for i, e := range ready {
		if e.Kind == f.Kind {
			return i
		}
	}
	return 0
}

// TestLostMessagesLogged: the messages in flight that a break or a crash
// loses are logged, as a partition's are (the log showed the break and
// said nothing of the Commit it lost).
func TestLostMessagesLogged(t *testing.T) {
	for _, c := range []struct {
		kind engine.EventKind
		f    sim.Failures
		want string
	}{
		{engine.EvBreak, sim.Failures{Breaks: 1}, "lost (connection break) Ball{N: 1}"},
		{engine.EvCrash, sim.Failures{Crashes: 1, Nodes: []sim.NodeID{1}}, "lost (node crashed) Ball{N: 1}"},
	} {
		cfg := &sim.Config{Nodes: 2, Failures: c.f, Service: func(id sim.NodeID) sim.Service { return &pinger{} }}
		var buf bytes.Buffer
		s := mustNew(t, cfg, engine.Options{Chooser: failFirst{c.kind}, Logger: engine.NewLogger(&buf)})
		if ok, err := s.Step(); !ok || err != nil || s.LastEvent().Kind != c.kind {
			t.Fatalf("%v: step %v %v, event %v", c.kind, ok, err, s.LastEvent())
		}
		if !strings.Contains(buf.String(), c.want) {
			t.Errorf("%v: the log lacks %q:\n%s", c.kind, c.want, buf.String())
		}
	}
}

// pinger sends node 1 a Ball when it starts.
type pinger struct{ sim.Base }

func (p *pinger) Start(ctx *sim.Context) {
	if ctx.Self() == 0 {
		ctx.Send(1, Ball{N: 1})
	}
}

package sim

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"io"

	"github.com/macemc/macemc/sim/internal/hook"
)

// Reader is a process-wide io.Reader of deterministic random bytes: read
// while a handler runs, it draws from that handler's Context.Reader. It
// stands in for crypto/rand.Reader in a hosted library that reads the
// global (see UseDeterministicCryptoRand). Read outside a handler it
// panics, since nothing deterministic can answer there.
//
// Reader only works once UseDeterministicCryptoRand (or
// EnableHandlerReader) has been called: the simulator then publishes the
// Context of each handler it runs under the goroutine that runs it, and
// Reader draws from the Context of the goroutine that reads. Handlers of
// all simulators still run in parallel; a goroutine a handler started
// reads outside a handler.
var Reader io.Reader = globalReader{}

type globalReader struct{}

func (globalReader) Read(p []byte) (int, error) {
	c, _ := hook.Current().(*Context)
	if c == nil {
		panic("sim: sim.Reader read outside a handler, or without sim.UseDeterministicCryptoRand (or sim.EnableHandlerReader)")
	}
	return c.Reader().Read(p)
}

// Source is a math/rand/v2 Source over Reader, for a hosted library that
// takes a *rand.Rand built once: rand.New(sim.Source). The same rules as
// Reader apply. (The top-level functions of math/rand and math/rand/v2
// draw from the runtime and cannot be replaced; see the package
// documentation.)
var Source interface{ Uint64() uint64 } = globalSource{}

type globalSource struct{}

func (globalSource) Uint64() uint64 {
	var b [8]byte
	_, _ = Reader.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// UseDeterministicCryptoRand replaces crypto/rand.Reader (which
// crypto/rand.Read, crypto/rand.Int and the rest read) by Reader and
// enables it; it returns a function that puts the previous reader back.
// Call it once, e.g. from the init function of the package that registers
// a system hosting a library that draws from crypto/rand:
//
//	func init() {
//		sim.UseDeterministicCryptoRand()
//		sim.Register(...)
//	}
//
// While it is in force, code outside handlers (a goroutine a handler
// started, a property, the driver) must not read crypto/rand: Reader
// panics there.
//
// A library that copied crypto/rand.Reader into a variable of its own
// when its package was initialized (a UUID generator's default source,
// say) keeps reading the real one, and the determinism check reports its
// values as differing from replay to replay; give such a library Reader
// through its own setter (its SetRand(sim.Reader), after
// EnableHandlerReader), or draw its values from Context.Reader.
func UseDeterministicCryptoRand() (restore func()) {
	prev := cryptorand.Reader
	cryptorand.Reader = Reader
	undo := EnableHandlerReader()
	return func() {
		cryptorand.Reader = prev
		undo()
	}
}

// EnableHandlerReader makes Reader and Source answer inside handlers
// without touching crypto/rand, for libraries that take a reader of their
// own; it returns a function that disables them again.
func EnableHandlerReader() (disable func()) {
	hook.SetExclusive(true)
	return func() { hook.SetExclusive(false) }
}

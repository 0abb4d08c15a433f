package sim_test

import (
	"fmt"

	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Envelope is the interface of a library's generated messages (a protocol
// library's, say), which the user cannot annotate.
type Envelope interface{ Payload() string }

// Transfer is one of them: it keeps a size cache that encoding it writes.
type Transfer struct {
	Amount    string
	sizeCache int32
}

// Payload implements Envelope.
func (t *Transfer) Payload() string { return "amount=" + t.Amount }

func ExampleRegisterCanonicalFor() {
	sim.RegisterCanonicalFor(func(m Envelope) any { return m.Payload() })

	sent := &Transfer{Amount: "10.50"}
	encoded := &Transfer{Amount: "10.50", sizeCache: 12}
	fmt.Println(engine.Hash(sent) == engine.Hash(encoded))
	fmt.Println(engine.FormatValue(sent))
	// Output:
	// true
	// &"amount=10.50"
}

package search_test

import (
	"context"
	"fmt"
	"os"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/search"
	_ "github.com/macemc/macemc/services/all"
	"github.com/macemc/macemc/sim"
)

// Run checks MaceTransport with its stale-SYN bug: the report says what
// was found, where the system became doomed and how to replay it, as
// typed values.
func ExampleRun() {
	sys, err := sim.Lookup("transport")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := os.MkdirTemp("", "macemc-example")
	defer os.RemoveAll(out)
	rep, err := search.Run(context.Background(), sys, search.Options{Seed: 3, Out: out})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := rep.First()
	fmt.Println(rep.Verdict, f.Kind, f.Property)
	if c := f.Critical; c != nil && c.Condition == critical.C1 {
		fmt.Printf("critical transition at step %d: %s\n", c.Step, c.Event)
	}
	fmt.Println(rep.Files[search.FileErrorTrace] != "", rep.Replay != "")
	// Output:
	// liveness dead AllAcked
	// critical transition at step 14: node 1 receives datagram Data{seq: 2001, syn: true, conn: 0, msg: "m0"} from node 0
	// true true
}

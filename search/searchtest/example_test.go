package searchtest_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/macemc/macemc/search"
	"github.com/macemc/macemc/search/searchtest"
	"github.com/macemc/macemc/sim"
)

// reporter stands in for the *testing.T of a test, for the example: it
// prints the first lines of what Check reports and its last, the replay
// command, with the results directory shown as OUT.
type reporter struct {
	testing.TB
	out string
}

func (r reporter) Helper()      {}
func (r reporter) Name() string { return "TestTransport" }
func (r reporter) Log(...any)   {}
func (r reporter) Errorf(format string, args ...any) {
	lines := strings.Split(strings.TrimSpace(fmt.Sprintf(format, args...)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "macemc found") || strings.HasPrefix(l, "LIVENESS") || strings.HasPrefix(l, "critical transition:") || strings.HasPrefix(l, "replay:") {
			l, _, _ = strings.Cut(l, " (condition")
			fmt.Println(strings.ReplaceAll(l, r.out, "OUT"))
		}
	}
}

// ExampleCheck checks MaceTransport from a test: with the bug, Check fails
// the test with the violation, its critical transition and the command
// that replays it; the fixed transport passes the same budget. In a real
// test, pass the test's t.
func ExampleCheck() {
	sys, err := sim.Lookup("transport")
	if err != nil {
		panic(err)
	}
	out, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(out)
	t := reporter{out: out}
	opts := search.Options{Properties: []string{"AllAcked"}, Seed: 1, MaxPaths: 300, WalkDepth: 2000, Out: out}
	searchtest.Check(t, sys, opts)

	opts.Params = map[string]string{"fixed": "true"}
	rep := searchtest.Check(t, sys, opts)
	fmt.Println("fixed:", rep.Verdict, "after", rep.Stats.Paths, "paths")
	// Output:
	// macemc found a violation in transport:
	// LIVENESS VIOLATION of AllAcked (dead state (critical transition C1): no live state in 2000 steps)
	// critical transition: step 7, node 0 receives datagram Ack{seq: 6001, conn: 0, inc: 2} from node 1
	// replay: macemc replay --trace OUT/error.trace --log OUT/error.log
	// fixed: none after 300 paths
}

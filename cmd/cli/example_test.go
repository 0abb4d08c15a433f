package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/macemc/macemc/cmd/cli"
	_ "github.com/macemc/macemc/services/transport"
)

// ExampleApp_Run runs the command line in process, with its output in
// buffers, as a test of a user's own binary can: a search of MaceTransport
// finds the stale-SYN bug and its critical transition, exits 1 and ends
// with the command that replays it; a command line that names an unknown system exits 2 with the reason
// on stderr. (The example prints the lines of the report that do not
// depend on the machine, with the results directory shown as OUT.)
func ExampleApp_Run() {
	out, err := os.MkdirTemp("", "macemc-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(out)
	var stdout, stderr bytes.Buffer
	app := &cli.App{Name: "macemc", Stdout: &stdout, Stderr: &stderr}

	code := app.Run([]string{"search", "--system", "transport", "--property", "AllAcked",
		"--max-paths", "300", "--walk-depth", "2000", "--workers", "1", "--out", out})
	fmt.Println("exit", code)
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "LIVENESS") || strings.HasPrefix(l, "critical transition:") || strings.HasPrefix(l, "replay:") {
			l, _, _ = strings.Cut(l, " (condition")
			fmt.Println(strings.ReplaceAll(l, out, "OUT"))
		}
	}

	stderr.Reset()
	code = app.Run([]string{"search", "--system", "nosuch"})
	msg, _, _ := strings.Cut(stderr.String(), " (known:")
	fmt.Println("exit", code)
	fmt.Println(msg)
	// Output:
	// exit 1
	// LIVENESS VIOLATION of AllAcked (dead state (critical transition C1): no live state in 2000 steps)
	// critical transition: step 7, node 0 receives datagram Ack{seq: 6001, conn: 0, inc: 2} from node 1
	// replay: macemc replay --trace OUT/error.trace --log OUT/error.log
	// exit 2
	// macemc search: sim: unknown system "nosuch"
}

// Package cli is the macemc command line as a library: `macemc list`,
// `search`, `replay`, `critical` and `tune`, with the exit codes 0 (nothing
// found within the budget), 1 (violation found) and 2 (usage or input
// error), the report written to report.json or printed with --json, and
// the traces and logs mdb reads.
//
// # Usage
//
// A user who checks their own systems builds their own binary: register
// the systems in an init function and call Main:
//
//	package main
//
//	import (
//		"os"
//
//		"github.com/macemc/macemc/cmd/cli"
//		_ "example.com/myproto/macemcsystems" // calls sim.Register
//	)
//
//	func main() { os.Exit(cli.Main(os.Args[1:])) }
//
// Inside go test, Check runs a search and fails the test with the report
// and the command that replays the violation:
//
//	func TestMyProto(t *testing.T) {
//		cli.Check(t, "--system", "myproto", "--max-paths", "5000", "--seed", "1")
//	}
package cli

// Package cli is the macemc command line: `macemc list`, `search`
// (`--shard I/N` for one shard of it), `merge`, `replay`, `critical`,
// `tune`, `report` and `mdb`, with the exit codes 0 (nothing
// found within the budget), 1 (violation found) and 2 (usage or input
// error). It maps flags to the library's options (package search) and
// prints its typed results; the pipeline itself is package search.
//
// # Usage
//
// A user who checks their own systems builds their own binary: register
// the systems in an init function and call Main, which gives every
// subcommand, the debugger included (`mybin mdb macemc-out`):
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
// Inside go test, use package search/searchtest instead.
package cli

// Command mdb is macemc's debugger (seed 003 §5) for the example systems:
// it replays the error path that `macemc search` wrote and the live path
// that shares the longest prefix with it. See package mdb for the commands;
// `macemc mdb DIR` (or `mybin mdb DIR` in a user's own binary) is the same.
//
// # Usage
//
//	mdb DIR                                  # a macemc output directory (error.trace, live.trace)
//	mdb ERROR_TRACE_OR_LOG [--live LIVE_TRACE_OR_LOG]
//	mdb DIR -c "j crit; filediff; g --svg graph.svg"
//	mdb DIR < commands.txt
//
// Exit status: 0 on success, 1 if a scripted command failed, 2 if the
// command line or the files are bad.
package main

import (
	"os"

	"github.com/macemc/macemc/mdb"
	_ "github.com/macemc/macemc/services/all"
)

func main() { os.Exit(mdb.Main("mdb", os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

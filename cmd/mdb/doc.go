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
// Flags: -l/--live FILE (the live path to compare with), -c/--command
// "CMD; CMD" (run these and exit), --color auto|always|never,
// --echo=false (do not print scripted commands after the prompt),
// --history FILE (of the interactive session; empty: none),
// --snapshot-every N (steps between kept state snapshots, default 256),
// --max-line N (bytes of a line printed; 0: lines whole). A flag given
// twice with two values is refused; --help prints the usage on stdout.
//
// It starts by saying what it opened (the violation, the error path's
// length and critical step, the live path and the prefix it shares), with
// warnings on standard error (a DIR whose live.trace cannot be read opens
// without a live path; a --live trace that records no live path is shown
// all the same), then reads commands: interactively on a terminal (prompt
// "(mdb STEP)", help lists the commands), otherwise from -c or standard
// input, echoing each command after the prompt; a line over 1 MiB fails
// and is skipped. For example, on the output of `macemc search
// --system transport --max-paths 300 --walk-depth 2000`:
//
//	$ mdb macemc-out -c "j crit"
//	macemc-out/error.trace: liveness violation of AllAcked (system transport ...)
//	error path: 2000 steps, critical step 7 (C1: dead from there on)
//	live path: 18 steps, shares 6 with the error path; filediff compares them
//	step 0/2000: initial state
//	(mdb 0) j crit
//	step 7/2000 [critical]: node 0 receives datagram Ack{seq: 6001, conn: 0, inc: 2} from node 1
//
// Exit status: 0 on success, 2 if the command line or the files are bad
// or a scripted command failed; never 1, which macemc's commands exit with
// when they find a violation.
package main

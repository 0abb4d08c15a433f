// Package mdbtest provides a small system with a liveness bug and the trace
// files macemc would write for it, so that the tests of mdb and cmd/mdb
// (and anyone demonstrating the debugger) can drive mdb over real paths
// without depending on the example services.
//
// The system, registered as "mdbtest-ping", has three nodes. Node 0, the
// sender, sends two numbered Data datagrams to node 1 and retransmits the
// latest one on its "retx" timer until it is acknowledged. Node 1, the
// receiver, acknowledges every Data with an Ack datagram, reports each new
// sequence number to node 2 (the monitor) over a reliable connection, and
// sends the sender a Beat datagram on its periodic "beat" timer, so the
// system never falls quiet. The bug, after the MaceTransport bug of seed 003
// §5: a stale Ack (for an older sequence number) cancels the sender's
// retransmission timer, so if the latest Data was dropped the sender never
// sends it again and "AllAcked" never holds. The parameter fixed=true
// cancels the timer only for the right Ack.
//
// A second system, "mdbtest-reorder" (RegisterReorder, Reorder), lets
// datagrams arrive in any order and duplicates one: Reorder is a path of
// equal datagrams that overtake each other and a copy taken before its
// original, for what the debugger and the report page show of which send
// each delivery took.
//
// A third, "mdbtest-lost" (RegisterLost, Lost), has three nodes that send
// each other messages and datagrams with equal payloads: Lost is a path on
// which a connection break, a partition and a crash lose some of them in
// flight or as they are sent, and a reset loses none, for what the
// debugger and the report page show of lost messages. ErrorDir writes such
// a scripted path into a test's directory.
//
// # Usage
//
//	mdbtest.Register()
//	f, err := mdbtest.Write(dir, mdbtest.Options{})
//	// f.Error is dir/error.trace, f.Live is dir/live.trace
package mdbtest

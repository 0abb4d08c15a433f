package transport

import (
	"fmt"

	"github.com/macemc/macemc/services/servicetest"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
)

// Example drives the buggy transport through seed 003 §5's execution and
// shows the sender's and receiver's connections after the critical
// transition: the sender waits for DATA 6002 to be acknowledged, the
// receiver is on the connection that started at 2001.
func Example() {
	_, s := servicetest.MustStart(SystemName, map[string]string{"fixed": "false"}, engine.NewRandom(1))
	run := func(m servicetest.Match) { fmt.Println(servicetest.MustStep(s, m)) }
	kind := servicetest.Kind
	packet := func(node sim.NodeID, seq uint32) servicetest.Match {
		return func(ev engine.Event) bool {
			switch p := ev.Msg.(type) {
			case Data:
				return ev.Node == node && p.seq == seq
			case Ack:
				return ev.Node == node && p.seq == seq
			}
			return false
		}
	}
	run(kind(engine.EvApp))   // SYN 2001 carries m0
	run(kind(engine.EvApp))   // m1 waits for the SYN's ACK
	run(kind(engine.EvTimer)) // retransmit SYN 2001
	run(kind(engine.EvTimer)) // give up; the application sends again: SYN 6001
	run(packet(1, 6001))      // the receiver acknowledges 6001
	run(packet(1, 2001))      // the stale SYN: the receiver switches to 2001
	run(packet(0, 6001))      // the critical transition
	out := s.Service(0).(*Node).tr.out[1]
	in := s.Service(1).(*Node).tr.in[0]
	fmt.Printf("sender: connection %d, unacked %s\n", out.isn, engine.FormatValue(out.unacked))
	fmt.Printf("receiver: connection %d, next %d\n", in.isn, in.next)
	// Output:
	// node 0 handles app request SendRequest{To: 1, Msg: "m0"}
	// node 0 handles app request SendRequest{To: 1, Msg: "m1"}
	// node 0 timer retransmit/1 fires
	// node 0 timer retransmit/1 fires
	// node 1 receives datagram Data{seq: 6001, syn: true, conn: 0, msg: "m0"} from node 0
	// node 1 receives datagram Data{seq: 2001, syn: true, conn: 0, msg: "m0"} from node 0
	// node 0 receives datagram Ack{seq: 6001, conn: 0, inc: 2} from node 1
	// sender: connection 6001, unacked [Data{seq: 6002, syn: false, conn: 0, msg: "m1"}]
	// receiver: connection 2001, next 2002
}

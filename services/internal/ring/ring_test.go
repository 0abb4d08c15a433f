package ring

import (
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestHash pins the identifiers the chord and pastry documentation and
// examples show: with 8 bits, node 0 is 249, node 1 is 99, node 2 is 152.
func TestHash(t *testing.T) {
	for addr, want := range []uint32{249, 99, 152} {
		if got := Hash(sim.NodeID(addr), 8); got != want {
			t.Errorf("Hash(%d, 8) = %d, want %d", addr, got, want)
		}
	}
	if err := Distinct(3, 8); err != nil {
		t.Error(err)
	}
	if err := Distinct(64, 2); err == nil {
		t.Error("64 nodes have distinct 2-bit identifiers")
	}
}

// TestTwentyEightNodes: chord's and pastry's MaxNodes (28) is the most
// nodes whose 8-bit identifiers are distinct, so every node count their
// parameter allows builds.
func TestTwentyEightNodes(t *testing.T) {
	if err := Distinct(28, 8); err != nil {
		t.Fatal(err)
	}
	if Distinct(29, 8) == nil {
		t.Fatal("29 nodes have distinct 8-bit identifiers: raise MaxNodes")
	}
}
